"""``anatid export``: writing a graph out as JSON Lines or GraphML.

Records are read in pages, so a large file is streamed rather than held in memory twice. Values
are made JSON-ready by :func:`anatid_core.cli.terminal.plain` (datetimes as ISO strings): an export is
for reading in other tools; the store file itself is the exact backup.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Iterable, Iterator
from typing import TextIO
from xml.sax.saxutils import escape, quoteattr

from anatid_core import Edge, Item, Kind, Node, Store, View

from .files import open_store, output, output_path, reader_for
from .status import CommandError
from .terminal import plain

#: Records fetched per query while exporting.
PAGE = 5000

# XML 1.0 cannot hold most control characters, even escaped.
_XML_BAD = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")


def record(item: Item, embedding: list[float] | None = None) -> dict[str, object]:
    """One node or edge version as a flat JSON-ready dict, with ``kind`` first."""
    out: dict[str, object] = {"kind": "node" if isinstance(item, Node) else "edge", "id": item.id}
    if isinstance(item, Edge):
        out.update(src=item.src, dst=item.dst, rel=item.rel)
    else:
        out["labels"] = list(item.labels)
    out.update(
        group=item.group,
        name=item.name,
        text=item.text,
        props=plain(item.props),
        valid_from=plain(item.valid_from),
        valid_to=plain(item.valid_to),
        tx_from=plain(item.tx_from),
        tx_to=plain(item.tx_to),
        version=item.version,
        space=item.space,
    )
    if embedding is not None:
        out["embedding"] = embedding
    return out


def current(reader: Store | View, kind: Kind, groups: list[str] | None) -> Iterator[Item]:
    """The visible records of ``kind`` in id order, page by page."""
    offset = 0
    while True:
        if kind == "node":
            page: list[Item] = list(reader.find_nodes(groups=groups, limit=PAGE, offset=offset))
        else:
            page = list(reader.find_edges(groups=groups, limit=PAGE, offset=offset))
        yield from page
        if len(page) < PAGE:
            return
        offset += PAGE


def timeline(reader: Store | View, kind: Kind, groups: list[str] | None) -> Iterator[Item]:
    """Every version of ``kind`` ever written, in transaction order, page by page."""
    offset = 0
    while True:
        page = reader.versions(kind, groups=groups, limit=PAGE, offset=offset)
        yield from page
        if len(page) < PAGE:
            return
        offset += PAGE


def with_endpoints(
    reader: Store | View, nodes: list[Node], edges: list[Edge]
) -> tuple[list[Node], list[Edge]]:
    """Add the endpoint nodes an edge list needs but the node list lacks (a group filter can
    split an edge from its ends; GraphML readers reject edges to undeclared nodes)."""
    have = {n.id for n in nodes}
    missing = sorted({end for e in edges for end in (e.src, e.dst)} - have)
    return nodes + reader.get_nodes(missing), edges


def write_jsonl(
    out: TextIO,
    items: Iterable[Item],
    embeddings: dict[str, list[float]] | None = None,
) -> int:
    count = 0
    for item in items:
        vector = embeddings.get(item.id) if embeddings is not None else None
        out.write(json.dumps(record(item, vector), ensure_ascii=False, allow_nan=False) + "\n")
        count += 1
    return count


_NODE_KEYS = (
    "labels",
    "group",
    "name",
    "text",
    "props",
    "valid_from",
    "valid_to",
    "tx_from",
    "tx_to",
    "version",
)
_EDGE_KEYS = (
    "rel",
    "group",
    "name",
    "text",
    "props",
    "valid_from",
    "valid_to",
    "tx_from",
    "tx_to",
    "version",
)


def _xml_text(value: object) -> str:
    if isinstance(value, (dict, list)):
        value = json.dumps(value, ensure_ascii=False, sort_keys=True)
    return escape(_XML_BAD.sub("\ufffd", str(value)))


def _xml_attr(value: str) -> str:
    return quoteattr(_XML_BAD.sub("\ufffd", value))


def _data(rec: dict[str, object], keys: tuple[str, ...], prefix: str) -> str:
    parts = []
    for key in keys:
        value = rec.get(key)
        if value is None or value == "" or value == [] or value == {}:
            continue
        if key == "labels":
            value = ":".join(str(v) for v in value)  # type: ignore[union-attr]
        parts.append(f'<data key="{prefix}_{key}">{_xml_text(value)}</data>')
    return "".join(parts)


def write_graphml(out: TextIO, nodes: Iterable[Node], edges: Iterable[Edge]) -> tuple[int, int]:
    """GraphML 1.0: props travel as one JSON string, labels joined with ``:`` (as Neo4j's export)."""
    out.write('<?xml version="1.0" encoding="UTF-8"?>\n')
    out.write('<graphml xmlns="http://graphml.graphdrawing.org/xmlns">\n')
    for prefix, target, keys in (("n", "node", _NODE_KEYS), ("e", "edge", _EDGE_KEYS)):
        for key in keys:
            kind = "long" if key == "version" else "string"
            out.write(
                f'  <key id="{prefix}_{key}" for="{target}" attr.name="{key}" attr.type="{kind}"/>\n'
            )
    out.write('  <graph id="anatid" edgedefault="directed">\n')
    n_count = e_count = 0
    for node in nodes:
        rec = record(node)
        out.write(f"    <node id={_xml_attr(node.id)}>{_data(rec, _NODE_KEYS, 'n')}</node>\n")
        n_count += 1
    for edge in edges:
        rec = record(edge)
        out.write(
            f"    <edge id={_xml_attr(edge.id)} source={_xml_attr(edge.src)} "
            f"target={_xml_attr(edge.dst)}>{_data(rec, _EDGE_KEYS, 'e')}</edge>\n"
        )
        e_count += 1
    out.write("  </graph>\n</graphml>\n")
    return n_count, e_count


#: Records per embeddings query in a JSON Lines export with --embeddings.
EXPORT_CHUNK = 5000


# ------------------------------------------------------------------------------------- export


def cmd_export(args: argparse.Namespace) -> int:
    if args.history and (args.as_of or args.valid_at):
        raise CommandError(
            "--history exports every version; it cannot be combined with --as-of/--valid-at"
        )
    if args.format == "graphml" and (args.history or args.embeddings):
        raise CommandError(
            "--history and --embeddings need --format jsonl (GraphML holds one version per id and no vectors)"
        )
    if args.history and args.embeddings:
        raise CommandError("--embeddings exports the vectors of visible versions; drop --history")
    target = output_path(args.out, source=args.file)
    with open_store(args.file) as store, output(target, like=args.file) as out:
        reader = reader_for(store, args)
        if args.format == "graphml":
            nodes, edges = with_endpoints(
                reader,
                [n for n in current(reader, "node", args.group) if isinstance(n, Node)],
                [e for e in current(reader, "edge", args.group) if isinstance(e, Edge)],
            )
            n, e = write_graphml(out, nodes, edges)
        else:
            n = _export_jsonl(out, reader, "node", args)
            e = _export_jsonl(out, reader, "edge", args)
    if args.out not in (None, "-"):
        print(f"wrote {n} nodes and {e} edges to {args.out}", file=sys.stderr)
    return 0


def _export_jsonl(out: TextIO, reader: Store | View, kind: Kind, args: argparse.Namespace) -> int:
    """Write the records of ``kind`` (every version with --history), with their vectors when
    --embeddings asks; the count written."""
    source = (timeline if args.history else current)(reader, kind, args.group)
    count = 0
    for chunk in _chunks(source, EXPORT_CHUNK):
        vectors = (
            reader.get_embeddings([i.id for i in chunk], kind=kind) if args.embeddings else None
        )
        count += write_jsonl(out, chunk, vectors)
    return count


def _chunks(items: Iterable[Item], size: int) -> Iterator[list[Item]]:
    chunk: list[Item] = []
    for item in items:
        chunk.append(item)
        if len(chunk) == size:
            yield chunk
            chunk = []
    if chunk:
        yield chunk
