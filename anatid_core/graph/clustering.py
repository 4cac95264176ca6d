"""Clustering coefficients: how often a node's neighbours are neighbours of each other (issue 35).

Computed as networkx's ``average_clustering`` does for an undirected simple graph: edges taken
as undirected, self-loops and parallel edges ignored; a node with ``k`` distinct neighbours among
which ``t`` pairs are joined scores ``2t / (k (k - 1))`` (0 below two neighbours), and the
average is over every node.

Triangles are counted by orienting each edge from the lower- to the higher-ranked end (by
degree, then index) and closing the wedges of each node's out-list: a triangle is found once,
at its lowest-ranked corner, and no node has more than about sqrt(2E) out-neighbours, so the
wedges number O(E^1.5) whatever the hubs (all of it numpy, no per-node Python loop).
"""

from __future__ import annotations

import numpy as np

from ..indexes.graph_arrays import GraphArrays


def triangles(graph: GraphArrays) -> tuple[np.ndarray, np.ndarray]:
    """(triangles through each node, its distinct neighbours), edges as undirected, self-loops
    and parallel edges ignored. Kept with the graph."""
    key = ("triangles",)
    found = graph.derived.get(key)
    if found is None:
        found = graph.derived[key] = _triangles(graph.size, graph.src, graph.dst)
    return found


def average_clustering(graph: GraphArrays) -> float | None:
    """The mean clustering coefficient over every node of ``graph``; None for an empty graph."""
    if graph.size == 0:
        return None
    t, k = triangles(graph)
    pairs = k * (k - 1)
    local = np.divide(2.0 * t, pairs, out=np.zeros(graph.size), where=t > 0)
    return float(local.sum() / graph.size)


def _triangles(n: int, src: np.ndarray, dst: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    span = max(n, 1)
    a, b = src.astype(np.int64), dst.astype(np.int64)
    keep = a != b
    lo, hi = np.minimum(a, b)[keep], np.maximum(a, b)[keep]
    edges = np.unique(lo * span + hi)  # each undirected simple edge once
    lo, hi = edges // span, edges % span
    degree = np.bincount(lo, minlength=n) + np.bincount(hi, minlength=n)
    rank = np.empty(n, dtype=np.int64)
    rank[np.lexsort((np.arange(n), degree))] = np.arange(n)
    low_first = rank[lo] < rank[hi]
    tail = np.where(low_first, lo, hi)  # the lower-ranked end
    head = np.where(low_first, hi, lo)
    order = np.lexsort((rank[head], tail))  # each tail's out-list, by rank of head
    tail, head = tail[order], head[order]
    arcs = np.sort(rank[tail] * span + rank[head])  # (rank, rank) of every oriented edge
    # Each arc pairs with the arcs after it in the same out-list: the wedge (head_i, head_j).
    ends = np.searchsorted(tail, tail, side="right")
    after = ends - np.arange(tail.size) - 1
    first = np.repeat(np.arange(tail.size), after)
    offsets = np.arange(first.size) - np.repeat(np.cumsum(after) - after, after)
    second = first + 1 + offsets
    u, v, w = tail[first], head[first], head[second]
    wanted = rank[v] * span + rank[w]  # rank[v] < rank[w]: the out-list is by rank
    at = np.searchsorted(arcs, wanted)
    closed = at < arcs.size
    closed[closed] = arcs[at[closed]] == wanted[closed]
    count = (
        np.bincount(u[closed], minlength=n)
        + np.bincount(v[closed], minlength=n)
        + np.bincount(w[closed], minlength=n)
    )
    return count.astype(np.int64), degree.astype(np.int64)


__all__ = ["average_clustering", "triangles"]
