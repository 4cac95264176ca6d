"""What ``anatid stats``, ``export``, ``check`` and ``view`` do, given their parsed arguments
(``search`` is in :mod:`.search`, ``show`` and ``history`` in :mod:`.records`; the parser is in
:mod:`.parser`)."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Iterable, Iterator
from typing import Any, TextIO

from anatid_core import Edge, IndexState, Item, Kind, Node, Store, StoreCorrupt, View

from .export import current, timeline, with_endpoints, write_graphml, write_jsonl
from .files import open_store, output, output_path, reader_for
from .status import EXIT_PROBLEMS, CommandError
from .terminal import human_bytes, pairs, table, to_json
from .viewer import payload, render

#: Above this many nodes the HTML page still works but lays out slowly (seconds) and is crowded.
VIEW_COMFORTABLE_NODES = 5000

#: Records per embeddings query in a JSON Lines export with --embeddings.
EXPORT_CHUNK = 5000


# -------------------------------------------------------------------------------------- stats


def cmd_stats(args: argparse.Namespace) -> int:
    with open_store(args.file) as store:
        s = {**store.stats(), "indexes": [_index_json(i) for i in store.index_states()]}
        # Index health is the integrity check's verdict (postings against documents, embeddings
        # against versions, ...); --no-check skips it on files too large to scan now. Index
        # files are trusted by their stamps here, as searches trust them: `anatid check` reads
        # every byte of them.
        problems = None if args.no_check else store.check(index_bytes=False)
    damage = _damage(problems or [])
    if damage is not None:  # counts read from a damaged file are no statistics of it
        raise StoreCorrupt(f"{args.file}: {damage}", damaged=True)
    if args.json:
        print(to_json(s if problems is None else {**s, "problems": problems}, indent=2))
        return 0
    if problems is None:
        health = "not checked (--no-check)"
    elif problems:
        health = f"{len(problems)} problem(s): run anatid check {args.file}"
    else:
        health = "ok (text index, vectors and versions agree)"
    _print_stats(s, health)
    return 0


def _print_stats(s: dict[str, Any], health: str) -> None:
    head = [
        ("file", f"{s['path']} ({human_bytes(s['file_bytes'])})"),
        ("schema version", s["schema_version"]),
        ("nodes", f"{s['nodes']} current, {s['node_versions']} versions"),
        ("edges", f"{s['edges']} current, {s['edge_versions']} versions"),
        ("text index", f"{s['postings']} postings"),
        ("health", health),
    ]
    print(pairs(head))
    indexes = s["indexes"]
    if indexes:
        print(
            "\nsearch indexes (beside the file, rebuilt by writers; rows written since are searched exactly)"
        )
        rows = [
            [
                i["kind"],
                "text" if i["space"] is None else i["space"],
                _state_word(i),
                i["rows"],
                i["pending"],
                human_bytes(i["bytes"]) if i["files"] else "-",
                (i["built_at"] or "-")[:19].replace("T", " "),
            ]
            for i in indexes
        ]
        print(
            table(
                ["kind", "index", "state", "indexed", "since build", "size", "built (UTC)"],
                rows,
                indent="  ",
            )
        )
    spaces = s["vector_spaces"]
    if spaces:
        print("\nvector spaces")
        rows = [[v["kind"], v["space"], v["dim"], v["vectors"]] for v in spaces]
        print(table(["kind", "space", "dim", "vectors"], rows, indent="  "))
    for key, title, column in (
        ("nodes_by_group", "nodes by group", "group"),
        ("nodes_by_label", "nodes by label", "label"),
        ("edges_by_group", "edges by group", "group"),
        ("edges_by_rel", "edges by relationship", "rel"),
    ):
        counts: dict[str, int] = s[key]
        if counts:
            print(f"\n{title}")
            rows = [[k if k != "" else '""', n] for k, n in counts.items()]
            print(table([column, "count"], rows, indent="  "))


def _state_word(i: dict[str, Any]) -> str:
    if i["reason"] is not None:
        return f"unused: {i['reason']}"
    return "ok (flat: graph being built)" if i["format"] == "flat" else i["state"]


def _index_json(i: IndexState) -> dict[str, Any]:
    return {
        "kind": i.kind,
        "space": i.space,
        "state": i.state,
        "reason": i.reason,
        "rows": i.rows,
        "pending": i.pending,
        "files": list(i.files),
        "bytes": i.bytes,
        "built_at": i.built_at.isoformat() if i.built_at else None,
        "format": i.format or None,
    }


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


# -------------------------------------------------------------------------------------- check


def cmd_check(args: argparse.Namespace) -> int:
    try:
        with open_store(args.file) as store:
            problems = store.check()
            summary = None if _damage(problems) else _summary(store.stats())
    except StoreCorrupt as exc:
        # Damage met while opening is a problem of this file like damage met by the check
        # (which one meets it depends on where the damage lies); a file of another kind is not
        # a store to check (exit 2, from main).
        if not exc.damaged:
            raise
        problems, summary = [str(exc)], None
    if not problems:
        print(f"{args.file}: ok ({summary})")
        return 0
    for p in problems:
        print(f"problem: {p}")
    counts = f" ({summary})" if summary else " (the file cannot be read whole)"
    print(f"{args.file}: {len(problems)} problem(s){counts}")
    return EXIT_PROBLEMS


def _summary(s: dict[str, Any]) -> str:
    return (
        f"{s['nodes']} nodes, {s['edges']} edges, "
        f"{s['node_versions'] + s['edge_versions']} versions, schema {s['schema_version']}"
    )


def _damage(problems: list[str]) -> str | None:
    """The problem of ``Store.check()`` that says the file cannot be read whole, if any (the
    check words it "... the file is truncated or damaged; restore it from a backup")."""
    return next((p for p in problems if "truncated or damaged" in p), None)


# --------------------------------------------------------------------------------------- view


def default_page_name(store_file: str) -> str:
    """``memory.duckdb`` -> ``memory.html`` in the current folder; never the store itself (a
    store named ``memory.html`` gets ``memory.html.html``)."""
    name = os.path.splitext(os.path.basename(store_file))[0] + ".html"
    if os.path.exists(name) and os.path.samefile(name, store_file):
        return os.path.basename(store_file) + ".html"
    return name


def cmd_view(args: argparse.Namespace) -> int:
    name = args.out or default_page_name(args.file)
    target = output_path(name, source=args.file)
    with open_store(args.file) as store:
        data = payload(store, title=os.path.basename(args.file), groups=args.group)
    page = render(data)
    with output(target, like=args.file) as out:
        out.write(page)
    ids = len({v["id"] for v in data["nodes"]})
    if target is not None:
        print(
            f"wrote {name}: {ids} nodes, {len(data['nodes'])} node versions, "
            f"{len(data['edges'])} edge versions; open it in a browser",
            file=sys.stderr,
        )
    if ids > VIEW_COMFORTABLE_NODES:
        print(
            f"note: {ids} nodes make a slow, crowded page; --group draws one group at a time",
            file=sys.stderr,
        )
    return 0
