"""``anatid path``, ``explain``, ``neighbours``, ``hubs`` and ``provenance``: the graph verbs
(issue 17) on a store file, now or ``--as-of`` an instant.

``--group`` here is a scope (:class:`anatid_core.Scope`), a wall rather than a filter: records
outside the groups do not exist for the command, so no path, neighbour or evidence passes
through them.
"""

from __future__ import annotations

import argparse
from typing import Any

from anatid_core import Edge, Evidence, Item, Node, NotFound, Path, Scope, Store, View

from .files import open_store, reader_for
from .status import EXIT_PROBLEMS, CommandError
from .terminal import fmt_time, one_line, table, to_json

TEXT_WIDTH = 50


def _reader(store: Store, args: argparse.Namespace) -> Store | View:
    base = reader_for(store, args)
    return base.scoped(Scope.of(groups=args.group)) if args.group else base


def _evidence(args: argparse.Namespace) -> Evidence:
    return Evidence(rels=tuple(args.evidence_rel or ()), props=tuple(args.evidence_prop or ()))


def _not_found(exc: NotFound, args: argparse.Namespace) -> CommandError:
    where = " at that time" if args.as_of or args.valid_at else ""
    scope = f" in group(s) {', '.join(args.group)}" if args.group else ""
    return CommandError(f"{exc}{where}{scope} ({args.file})", status=EXIT_PROBLEMS)


def _chain(path: Path) -> str:
    """``a -[REL]-> b <-[REL]- c``: the direction of each edge as stored."""
    parts = [path.nodes[0].id]
    for node, edge in zip(path.nodes[1:], path.edges, strict=True):
        arrow = f"-[{edge.rel}]->" if edge.dst == node.id else f"<-[{edge.rel}]-"
        parts += [arrow, node.id]
    return " ".join(parts)


def _node_rows(nodes: list[Node]) -> list[list[Any]]:
    return [
        [n.id, n.group or '""', one_line(",".join(n.labels), 30), one_line(n.name, TEXT_WIDTH)]
        for n in nodes
    ]


def cmd_path(args: argparse.Namespace) -> int:
    if args.max_depth < 0:
        raise CommandError(f"--max-depth must be >= 0, got {args.max_depth}")
    with open_store(args.file) as store:
        try:
            paths = _reader(store, args).shortest_path(
                args.src,
                args.dst,
                max_depth=args.max_depth,
                rels=args.rel,
                directed=args.directed,
                limit=args.limit,
            )
        except NotFound as exc:
            raise _not_found(exc, args) from None
    if args.json:
        print(to_json([{"nodes": p.nodes, "edges": p.edges} for p in paths], indent=2))
        return 0
    if not paths:
        print(f"no path of at most {args.max_depth} hop(s) from {args.src} to {args.dst}")
        return 0
    for p in paths:
        print(f"{p.length} hop(s): {_chain(p)}")
    return 0


def cmd_explain(args: argparse.Namespace) -> int:
    if args.max_depth < 0:
        raise CommandError(f"--max-depth must be >= 0, got {args.max_depth}")
    with open_store(args.file) as store:
        try:
            found = _reader(store, args).explain(
                args.a, args.b, max_depth=args.max_depth, rels=args.rel, evidence=_evidence(args)
            )
        except NotFound as exc:
            raise _not_found(exc, args) from None
    if args.json:
        facts = [{"edge": f.edge, "evidence": f.evidence} for f in found.facts]
        paths = [[n.id for n in p.nodes] for p in found.paths]
        print(to_json({"a": found.a, "b": found.b, "paths": paths, "facts": facts}, indent=2))
        return 0
    if not found.connected:
        print(f"{args.a} and {args.b} are not linked within {args.max_depth} hop(s)")
        return 0
    for p in found.paths:
        print(f"{p.length} hop(s): {_chain(p)}")
    rows = [
        [
            f.edge.id,
            f.edge.rel,
            f"{f.edge.src} -> {f.edge.dst}",
            one_line(f.edge.text or f.edge.name, TEXT_WIDTH),
            ", ".join(r.id for r in f.evidence) or "-",
        ]
        for f in found.facts
    ]
    print()
    print(table(["edge", "rel", "from -> to", "text", "evidence"], rows))
    return 0


def cmd_neighbours(args: argparse.Namespace) -> int:
    with open_store(args.file) as store:
        reader = _reader(store, args)
        if reader.get_node(args.id) is None:
            raise _not_found(NotFound(f"no node {args.id!r}", id=args.id), args)
        nodes = reader.neighbours(
            [args.id], direction=args.direction, rels=args.rel, labels=args.label
        )
    if args.json:
        print(to_json(nodes, indent=2))
        return 0
    if not nodes:
        print(f"{args.id} has no neighbours")
        return 0
    print(table(["id", "group", "labels", "name"], _node_rows(nodes)))
    return 0


def cmd_hubs(args: argparse.Namespace) -> int:
    if args.k <= 0:
        raise CommandError(f"--k must be a positive number, got {args.k}")
    with open_store(args.file) as store:
        hubs = _reader(store, args).hubs(
            args.k, direction=args.direction, rels=args.rel, labels=args.label
        )
    if args.json:
        print(to_json([{"degree": h.degree, "node": h.node} for h in hubs], indent=2))
        return 0
    if not hubs:
        print("no node has an edge")
        return 0
    rows = [[h.degree, *_node_rows([h.node])[0]] for h in hubs]
    print(table(["degree", "id", "group", "labels", "name"], rows))
    return 0


def cmd_provenance(args: argparse.Namespace) -> int:
    with open_store(args.file) as store:
        try:
            prov = _reader(store, args).provenance(
                args.id, kind=args.kind, evidence=_evidence(args)
            )
        except NotFound as exc:
            raise _not_found(exc, args) from None
    if args.json:
        print(to_json(prov, indent=2))
        return 0
    print(f"{prov.kind} {prov.id}: {len(prov.versions)} version(s)")
    rows = [
        [v.version, fmt_time(v.tx_from), fmt_time(v.tx_to, open_end="now"), _label(v)]
        for v in prov.versions
    ]
    print(table(["version", "known from", "until", "name / text"], rows, indent="  "))
    print(f"evidence: {len(prov.evidence)} record(s)")
    if prov.evidence:
        print(table(["id", "kind", "name / text"], [_brief(r) for r in prov.evidence], indent="  "))
    return 0


def _label(item: Item) -> str:
    return one_line(" — ".join(dict.fromkeys(p for p in (item.name, item.text) if p)), TEXT_WIDTH)


def _brief(item: Item) -> list[Any]:
    return [item.id, "edge" if isinstance(item, Edge) else "node", _label(item)]
