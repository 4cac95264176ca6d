"""``anatid communities``: the communities of the visible graph (issue 17), as of any instant
(its options are in :mod:`.graph_parser`)."""

from __future__ import annotations

import argparse

from .files import open_store, reader_for
from .terminal import one_line, table, to_json


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
