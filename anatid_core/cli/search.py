"""``anatid search``: hybrid recall, showing which retrieval arm found each hit."""

from __future__ import annotations

import argparse
import json
import math
import os

from anatid_core import Edge, Item, Kind, RecallHit, Store, View

from .files import open_store, reader_for
from .status import CommandError
from .terminal import one_line, table, to_json

#: Width of free-text columns in tables.
TEXT_WIDTH = 60

#: Arms in the order a hit lists them.
ARM_ORDER = {"text": 0, "vector": 1, "graph": 2}


def _embedding(raw: str) -> list[float]:
    """A JSON array of numbers, given inline or as the path of a file holding one."""
    text = raw
    if not raw.lstrip().startswith("[") and os.path.exists(raw):
        with open(raw, encoding="utf-8") as f:
            text = f.read()
    try:
        value = json.loads(text)
    except json.JSONDecodeError:
        raise CommandError(
            "--embedding: expected a JSON array of numbers (e.g. [0.1, 0.2]) or a file holding one"
        ) from None
    if (
        not isinstance(value, list)
        or not value
        or not all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in value)
    ):
        raise CommandError("--embedding: expected a non-empty JSON array of numbers")
    return [float(x) for x in value]


def _check_space(store: Store, kind: Kind, space: str) -> None:
    """A query vector for a space the file lacks would silently find nothing: say so, and name
    the spaces there are (Graphiti's files, for one, use 'name' and 'fact', not 'default')."""
    spaces = [(v["kind"], v["space"]) for v in store.stats()["vector_spaces"]]
    if (kind, space) not in spaces:
        have = ", ".join(f"{k}/{s}" for k, s in spaces) or "none"
        raise CommandError(
            f"--space {space!r:.80}: the file has no {kind} vectors in that space "
            f"(spaces: {have}); pick one with --space (and --kind)"
        )


def _query_vector(args: argparse.Namespace) -> list[float] | None:
    """Check the options before opening the file; the query vector, if one was given."""
    if args.k <= 0:
        raise CommandError(f"--k must be a positive number, got {args.k}")
    if args.depth < 0 or args.seeds < 0:
        raise CommandError("--depth and --seeds must be >= 0")
    if not math.isfinite(args.graph_weight) or args.graph_weight < 0:
        raise CommandError(f"--graph-weight must be a number >= 0, got {args.graph_weight}")
    vector = _embedding(args.embedding) if args.embedding is not None else None
    if not args.query.strip() and vector is None:
        raise CommandError("the search text is empty; give some words or an --embedding")
    if (args.kind == "node" and args.rel) or (args.kind == "edge" and args.label):
        raise CommandError("--label filters nodes and --rel filters edges (--kind edge)")
    return vector


def _recall(
    reader: Store | View, args: argparse.Namespace, vector: list[float] | None
) -> tuple[list[RecallHit], list[str]]:
    """The hits, and the seeds the graph arm started from: the best text matches among nodes,
    walked --depth hops."""
    seeds = (
        [h.id for h in reader.search_text(args.query, kind="node", k=args.seeds, groups=args.group)]
        if args.seeds
        else []
    )
    hits = reader.recall(
        text=args.query,
        vector=vector,
        seeds=seeds or None,
        kind=args.kind,
        k=args.k,
        depth=args.depth,
        space=args.space,
        groups=args.group,
        labels=args.label,
        rels=args.rel,
        weights={"graph": args.graph_weight},
    )
    return hits, seeds


def cmd_search(args: argparse.Namespace) -> int:
    vector = _query_vector(args)
    with open_store(args.file) as store:
        if vector is not None:
            _check_space(store, args.kind, args.space)
        hits, seeds = _recall(reader_for(store, args), args, vector)
    if args.json:
        rows = [
            {"rank": i + 1, "score": h.score, "arms": dict(h.arms), "item": h.item}
            for i, h in enumerate(hits)
        ]
        print(to_json(rows, indent=2))
        return 0
    if not hits:
        print("no matches")
        return 0
    _print_hits(hits, args.kind)
    print(
        f"\narms: text = BM25 over name and text; vector = cosine to --embedding in space "
        f"{args.space!r}"
        + ("" if vector is not None else " (not used: no --embedding)")
        + f"; graph = within {args.depth} hop(s) of the top {len(seeds)} text match(es) "
        f"{', '.join(seeds) if seeds else ''}".rstrip()
        + ("" if args.graph_weight == 1 else f" (weight {args.graph_weight:g})")
    )
    return 0


def _describe(item: Item) -> str:
    return item.rel if isinstance(item, Edge) else ",".join(item.labels)


def _summary(item: Item) -> str:
    """Name and text, the fields people recognise a record by (a fact is in an edge's text)."""
    return " — ".join(dict.fromkeys(p for p in (item.name, item.text) if p))


def _print_hits(hits: list[RecallHit], kind: Kind) -> None:
    rows = []
    for i, h in enumerate(hits):
        arms = " ".join(
            f"{a}#{r}" for a, r in sorted(h.arms.items(), key=lambda ar: ARM_ORDER.get(ar[0], 9))
        )
        item = h.item
        rows.append(
            [
                i + 1,
                f"{h.score:.4f}",
                arms,
                item.id,
                item.group or '""',
                one_line(_describe(item), 30),
                one_line(_summary(item), TEXT_WIDTH),
            ]
        )
    headers = ["#", "score", "found by (arm#rank)", "id", "group"]
    headers += ["rel" if kind == "edge" else "labels", "name / text"]
    print(table(headers, rows))
