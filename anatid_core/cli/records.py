"""``anatid show`` and ``anatid history``: one node or edge, and every version of it."""

from __future__ import annotations

import argparse
from typing import Any, NamedTuple

from anatid_core import Edge, Item, Kind, Node, Store, View

from .files import open_store, reader_for
from .status import EXIT_PROBLEMS, CommandError
from .terminal import fmt_time, one_line, pairs, table, to_json

#: Width of the text column of ``history``.
TEXT_WIDTH = 60

#: Most candidates ``show`` lists when a name or prefix stands for several nodes.
CANDIDATES = 10

#: The fields whose change ``history`` reports, in this order.
_COMPARED = (
    "group",
    "labels",
    "name",
    "text",
    "props",
    "valid_from",
    "valid_to",
    "src",
    "dst",
    "rel",
    "space",
)


class Shown(NamedTuple):
    """One record ``show`` prints, with what it prints beside it."""

    item: Item
    kind: Kind
    vector: list[float] | None
    incident: list[Edge]  # a node's edges
    names: dict[str, str]  # names of the nodes at their other ends
    ordinal: tuple[int, int] | None  # (which version of the record this is, how many it has)


# --------------------------------------------------------------------------------------- show


def cmd_show(args: argparse.Namespace) -> int:
    with open_store(args.file) as store:
        reader = reader_for(store, args)
        found = _lookup(reader, args)
        if not found:
            found = _named(reader, args)
        if not found:
            raise _not_found(store, args)
        blocks = [_gather(reader, item) for item in found]
    if args.json:
        rows = [
            {"kind": b.kind, "item": b.item, "embedding": b.vector, "edges": b.incident}
            for b in blocks
        ]
        print(to_json(rows, indent=2))
        return 0
    for n, block in enumerate(blocks):
        if n:
            print()
        _print_shown(block, args.limit)
    return 0


def _lookup(reader: Store | View, args: argparse.Namespace) -> list[Item]:
    """The node and the edge with this id (both, if they share it), as --kind allows."""
    found: list[Item] = []
    if args.kind in (None, "node"):
        node = reader.get_node(args.id)
        if node is not None:
            found.append(node)
    if args.kind in (None, "edge"):
        edge = reader.get_edge(args.id)
        if edge is not None:
            found.append(edge)
    return found


def _named(reader: Store | View, args: argparse.Namespace) -> list[Item]:
    """No id matched: the one node of that name (any case), else the one node whose name or id
    starts with it (issue 44). Several: they are listed on stdout and the command fails."""
    if args.kind == "edge" or not args.id:
        return []
    for prefix in (False, True):
        named = reader.nodes_named(args.id, prefix=prefix, limit=CANDIDATES + 1)
        if len(named) == 1:
            return list(named)
        if named:
            raise _ambiguous(args, named, prefix)
    return []


def _ambiguous(args: argparse.Namespace, nodes: list[Node], prefix: bool) -> CommandError:
    """Several nodes answer to the name: list them (up to CANDIDATES) and ask for an id."""
    rows = [[n.id, one_line(n.name, 60)] for n in nodes[:CANDIDATES]]
    if args.json:
        print(to_json([{"id": n.id, "name": n.name} for n in nodes[:CANDIDATES]], indent=2))
    else:
        print(table(["id", "name"], rows))
    how = "names or ids start with" if prefix else "are named"
    count = f"more than {CANDIDATES}" if len(nodes) > CANDIDATES else str(len(nodes))
    return CommandError(
        f"{count} nodes {how} {args.id!r} in {args.file} (listed above); show one by its id",
        status=EXIT_PROBLEMS,
    )


def _not_found(store: Store, args: argparse.Namespace) -> CommandError:
    """Say whether the id is unknown at that time only, or unknown altogether."""
    hint = (
        " at that time" if getattr(args, "as_of", None) or getattr(args, "valid_at", None) else ""
    )
    known = store.history(args.id)
    extra = (
        f" ({len(known)} past version(s): see anatid history {args.file} {args.id})"
        if known
        else ""
    )
    what = "no node or edge" if args.kind is None else f"no {args.kind}"
    named = "" if args.kind == "edge" else " (nor a node of that name or prefix)"
    return CommandError(
        f"{what} {args.id!r}{named}{hint} in {args.file}{extra}", status=EXIT_PROBLEMS
    )


def _gather(reader: Store | View, item: Item) -> Shown:
    kind: Kind = "edge" if isinstance(item, Edge) else "node"
    vectors = reader.get_embeddings([item.id], kind=kind)
    incident = reader.edges_of([item.id]) if isinstance(item, Node) else []
    others = sorted({e.dst if e.src == item.id else e.src for e in incident})
    names = {n.id: n.name for n in reader.get_nodes(others)}
    ids = [v.version for v in reader.history(item.id, kind=kind)]
    ordinal = (ids.index(item.version) + 1, len(ids)) if item.version in ids else None
    return Shown(item, kind, vectors.get(item.id), incident, names, ordinal)


def _version_line(item: Item, ordinal: tuple[int, int] | None) -> str:
    """Which of the record's versions this is, and the file's number for it (issue 36: the
    number alone, counted across every record of the file, read as a count of this one's)."""
    where = f"{ordinal[0]} of {ordinal[1]}, " if ordinal else ""
    return f"{where}version id {item.version} (numbered across the whole file)"


def _item_lines(
    item: Item, embedding: list[float] | None, ordinal: tuple[int, int] | None = None
) -> list[tuple[str, Any]]:
    rows: list[tuple[str, Any]] = []
    if isinstance(item, Edge):
        rows += [("rel", item.rel), ("src", item.src), ("dst", item.dst)]
    else:
        rows.append(("labels", ", ".join(item.labels) or "-"))
    rows += [
        ("group", item.group or '""'),
        ("name", item.name),
        ("text", item.text),
        (
            "valid",
            f"{fmt_time(item.valid_from, open_end='…')} .. {fmt_time(item.valid_to, open_end='…')}",
        ),
        ("known", f"{fmt_time(item.tx_from)} .. {fmt_time(item.tx_to, open_end='now')}"),
        ("version", _version_line(item, ordinal)),
        ("embedding", f"{len(embedding)} dims in space {item.space!r}" if embedding else "-"),
    ]
    return rows


def _print_shown(block: Shown, limit: int) -> None:
    item = block.item
    print(f"{block.kind} {item.id}")
    print(pairs(_item_lines(item, block.vector, block.ordinal), indent="  "))
    print("  props" + ("" if item.props else "      {}"))
    if item.props:
        for line in to_json(item.props, indent=2).splitlines():
            print("    " + line)
    if block.kind != "node":
        return
    print(f"  edges      {len(block.incident)}")
    rows = []
    for e in block.incident[:limit]:
        out = e.src == item.id
        other = e.dst if out else e.src
        name = one_line(block.names.get(other, ""), 30)
        rows.append(["->" if out else "<-", e.rel, e.id, other, name])
    if rows:
        print(table(["dir", "rel", "edge", "node", "name"], rows, indent="    "))
    if len(block.incident) > limit:
        print(f"    ... {len(block.incident) - limit} more (--limit)")


# ------------------------------------------------------------------------------------ history


def _changes(before: Item | None, after: Item) -> str:
    if before is None:
        return "created"
    changed = [f for f in _COMPARED if getattr(before, f, None) != getattr(after, f, None)]
    return ", ".join(changed) if changed else "(same content)"


def cmd_history(args: argparse.Namespace) -> int:
    with open_store(args.file) as store:
        versions = store.history(args.id, kind=args.kind)
    if not versions:
        raise CommandError(
            f"{args.id!r} was never stored in {args.file} (or it was purged)", status=EXIT_PROBLEMS
        )
    if args.json:
        rows, count = [], {"node": 0, "edge": 0}
        for v in versions:
            kind = "edge" if isinstance(v, Edge) else "node"
            count[kind] += 1  # which version of the record it is ("version" is the file's id)
            rows.append({"kind": kind, "ordinal": count[kind], "item": v})
        print(to_json(rows, indent=2))
        return 0
    for kind_name, cls in (("node", Node), ("edge", Edge)):
        mine = [v for v in versions if isinstance(v, cls)]
        if mine:
            _print_versions(kind_name, args.id, mine)
    return 0


def _print_versions(kind_name: str, id: str, mine: list[Item]) -> None:
    rows = []
    prev: Item | None = None
    for n, v in enumerate(mine, 1):
        rows.append(
            [
                n,
                v.version,
                fmt_time(v.tx_from),
                fmt_time(v.tx_to, open_end="current"),
                fmt_time(v.valid_from, open_end="…"),
                fmt_time(v.valid_to, open_end="…"),
                one_line(_changes(prev, v), 30),
                # A fact's sentence, not its relation name (issue 36); a name where no text.
                one_line(v.text or v.name, TEXT_WIDTH),
            ]
        )
        prev = v
    print(f"{kind_name} {id}: {len(mine)} version(s)")
    headers = ["#", "version id", "known from (tx)", "known until", "valid from", "valid to"]
    print(table([*headers, "changed", "text (or name)"], rows, indent="  "))
    last = mine[-1]
    if last.tx_to is not None:
        print(f"  deleted at {fmt_time(last.tx_to)} (no current version)")
