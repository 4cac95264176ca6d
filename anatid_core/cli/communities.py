"""``anatid communities``: the communities of the visible graph (issue 17), as of any instant."""

from __future__ import annotations

import argparse

from .files import open_store, reader_for
from .options import Subcommands, group_option, json_option, subcommand, time_options
from .terminal import one_line, table, to_json


def add_communities(subs: Subcommands) -> None:
    p = subcommand(
        subs,
        "communities",
        "a deterministic partition of the graph into communities (modularity)",
        """
        Groups the nodes into communities by modularity over the visible edges (taken as
        undirected; parallel edges weigh more): igraph's Leiden with the graph extra installed,
        else a plain Louvain. The same graph always gives the same
        partition, largest community first. --group restricts the graph to those groups' nodes
        and edges; --rel to those relationship types.""",
        "anatid communities memory.duckdb --group g1 --as-of 2024-06-01",
        cmd_communities,
    )
    for add in (time_options, group_option, json_option):
        add(p)
    p.add_argument(
        "--rel", action="append", metavar="R", help="only edges of this type (repeatable)"
    )
    p.add_argument(
        "--resolution",
        type=float,
        default=1.0,
        metavar="X",
        help="above 1: more, smaller communities; below 1: fewer, larger ones (default 1.0)",
    )
    p.add_argument(
        "--limit",
        type=int,
        default=20,
        metavar="N",
        help="communities to print (default 20; --json prints them all)",
    )


def cmd_communities(args: argparse.Namespace) -> int:
    with open_store(args.file) as store:
        reader = reader_for(store, args)
        parts = reader.communities(resolution=args.resolution, groups=args.group, rels=args.rel)
        names = {n.id: n.name for part in parts[: args.limit] for n in reader.get_nodes(part[:5])}
    if args.json:
        print(to_json([{"community": i, "ids": p} for i, p in enumerate(parts)], indent=2))
        return 0
    rows = [
        (i, len(p), one_line(", ".join(names.get(x) or x for x in p[:5]), 70))
        for i, p in enumerate(parts[: args.limit])
    ]
    print(table(["community", "nodes", "members (first 5)"], rows))
    if len(parts) > args.limit:
        print(f"... {len(parts) - args.limit} more communities (--limit)")
    return 0
