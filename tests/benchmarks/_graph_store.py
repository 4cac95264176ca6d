"""A store holding a plain graph of numbered nodes (``n0``..) and ``R`` edges (``e0``..), for
the graph-algorithm benchmarks (bench_rank.py, bench_communities.py)."""

from __future__ import annotations

from anatid_core import Edge, Node, Store

CHUNK = 200_000


def graph_store(path: str, n: int, pairs: list[tuple[int, int]]) -> Store:
    """``n`` nodes and an edge ``e{j}`` for each pair ``(s, d)`` of node numbers, in bulk."""
    store = Store.open(path)
    for i in range(0, n, CHUNK):
        store.upsert_nodes([Node(f"n{j}") for j in range(i, min(n, i + CHUNK))])
    for i in range(0, len(pairs), CHUNK):
        store.upsert_edges(
            [
                Edge(f"e{j}", f"n{s}", f"n{d}", "R")
                for j, (s, d) in enumerate(pairs[i : i + CHUNK], start=i)
            ]
        )
    return store
