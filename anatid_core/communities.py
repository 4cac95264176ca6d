"""Louvain communities (Blondel et al., 2008) in plain Python and numpy (issue 17).

Edges are undirected and weighted by multiplicity (two edges between a pair weigh 2); a
self-loop counts once in the total weight and twice in its node's degree, as in networkx. Each
level moves single nodes to the neighbouring community with the best modularity gain until no
move helps, then merges each community into one node (numpy) and goes on while modularity
grows by more than ``threshold``. Nodes are visited in index order (the ids sorted), with ties
kept by the first best community met, so the same graph always gives the same partition.
"""

from __future__ import annotations

import math

import numpy as np

from .errors import InvalidInput

#: Least modularity gain of a level for the next one to run (networkx's default).
THRESHOLD = 1e-7

#: A move must gain more than this: rounding could otherwise swap a node back and forth
#: between two communities of equal worth for ever. And at most this many passes per level.
GAIN_EPSILON = 1e-12
MAX_PASSES = 200

#: Tunables: node orders tried on small graphs (the best partition is kept), and up to how many
#: nodes a graph counts as small (above it one order: the time grows with each).
LOUVAIN: dict[str, int] = {"orders": 4, "several_orders_up_to": 5_000}


def check_resolution(resolution: float) -> None:
    if (
        not isinstance(resolution, (int, float))
        or isinstance(resolution, bool)
        or not math.isfinite(resolution)
        or resolution <= 0
    ):
        raise InvalidInput(f"resolution must be a finite number > 0, got {resolution!r}")


def louvain(n: int, src: np.ndarray, dst: np.ndarray, *, resolution: float = 1.0) -> list[int]:
    """The community of each of ``n`` nodes (numbered 0.. by first member), for the edges
    ``src[i] - dst[i]``.

    Louvain is greedy, and the order nodes are visited in matters (networkx shuffles it). On
    graphs up to ``LOUVAIN["several_orders_up_to"]`` nodes it runs from ``LOUVAIN["orders"]``
    fixed orders (index order, then seeded permutations) and keeps the best partition: still
    deterministic, and on random graphs never more than a few percent below networkx."""
    if n == 0:
        return []
    u, v, w = _merge(src.astype(np.int64), dst.astype(np.int64), np.ones(len(src)))
    tries = int(LOUVAIN["orders"]) if n <= LOUVAIN["several_orders_up_to"] else 1
    best: np.ndarray | None = None
    best_quality = -math.inf
    for t in range(max(tries, 1)):
        perm = np.arange(n) if t == 0 else np.random.default_rng(t).permutation(n)
        found = _louvain_once(n, perm[u], perm[v], w, resolution)[perm]
        quality = _modularity(n, u, v, w, found, resolution)
        if quality > best_quality + THRESHOLD:
            best, best_quality = found, quality
    assert best is not None
    return _first_member_order(best).tolist()


def _louvain_once(
    n: int, u: np.ndarray, v: np.ndarray, w: np.ndarray, resolution: float
) -> np.ndarray:
    """One Louvain run visiting nodes in index order."""
    membership = np.arange(n, dtype=np.int64)
    base = (u, v, w)
    size = n
    quality = _modularity(size, u, v, w, np.arange(size), resolution)
    while True:
        com = _one_level(size, u, v, w, resolution)
        if int(com.max(initial=-1)) + 1 == size:
            break  # nothing moved
        new_quality = _modularity(size, u, v, w, com, resolution)
        membership = com[membership]
        size = int(com.max()) + 1
        u, v, w = _merge(com[u], com[v], w)
        if new_quality - quality <= THRESHOLD:
            break
        quality = new_quality
    # One more pass of single nodes over the final partition: a node merged early in a
    # community it no longer fits moves out (a cheap refinement; it never lowers modularity).
    return _one_level(n, *base, resolution, start=_first_member_order(membership))


def _merge(u: np.ndarray, v: np.ndarray, w: np.ndarray) -> tuple[np.ndarray, ...]:
    """Each unordered pair once (low, high), with the weights of its copies summed."""
    lo, hi = np.minimum(u, v), np.maximum(u, v)
    if lo.size == 0:
        return lo, hi, w.astype(np.float64)
    span = int(hi.max()) + 1
    keys, inverse = np.unique(lo * span + hi, return_inverse=True)
    return keys // span, keys % span, np.bincount(inverse, weights=w)


def _modularity(
    n: int, u: np.ndarray, v: np.ndarray, w: np.ndarray, com: np.ndarray, resolution: float
) -> float:
    m = float(w.sum())
    if m == 0:
        return 0.0
    degree = np.bincount(u, weights=w, minlength=n) + np.bincount(v, weights=w, minlength=n)
    inside = com[u] == com[v]
    k = int(com.max()) + 1
    internal = np.bincount(com[u][inside], weights=w[inside], minlength=k)
    total = np.bincount(com, weights=degree, minlength=k)
    return float((internal / m - resolution * (total / (2 * m)) ** 2).sum())


def _one_level(
    n: int,
    u: np.ndarray,
    v: np.ndarray,
    w: np.ndarray,
    resolution: float,
    start: np.ndarray | None = None,
) -> np.ndarray:
    """Local moving: each node to its best neighbouring community until none moves (from
    ``start``, or every node alone); returns the communities renumbered 0.. in order of their
    first node."""
    m = float(w.sum())
    if m == 0:
        return np.arange(n, dtype=np.int64)
    degree = np.bincount(u, weights=w, minlength=n) + np.bincount(v, weights=w, minlength=n)
    loop = u == v
    a, b, c = u[~loop], v[~loop], w[~loop]
    frm, to, wt = np.concatenate([a, b]), np.concatenate([b, a]), np.concatenate([c, c])
    order = np.argsort(frm, kind="stable")
    ptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(frm, minlength=n), out=ptr[1:])
    nbrs, wts, bounds = to[order].tolist(), wt[order].tolist(), ptr.tolist()
    deg = degree.tolist()
    node2com = list(range(n)) if start is None else start.tolist()
    tot = np.bincount(np.asarray(node2com), weights=degree, minlength=n).tolist()
    scale = resolution / (2.0 * m * m)
    moved, passes = True, 0
    while moved and passes < MAX_PASSES:
        moved, passes = False, passes + 1
        for x in range(n):
            lo, hi = bounds[x], bounds[x + 1]
            if lo == hi:
                continue
            here = node2com[x]
            links: dict[int, float] = {}
            for j in range(lo, hi):
                cj = node2com[nbrs[j]]
                links[cj] = links.get(cj, 0.0) + wts[j]
            dx = deg[x]
            tot[here] -= dx
            best, best_gain = here, 0.0
            remove = -links.get(here, 0.0) / m + tot[here] * dx * scale
            for cj, weight in links.items():
                gain = remove + weight / m - tot[cj] * dx * scale
                if gain > best_gain + GAIN_EPSILON:
                    best, best_gain = cj, gain
            tot[best] += dx
            if best != here:
                node2com[x] = best
                moved = True
    return _first_member_order(np.asarray(node2com, dtype=np.int64))


def _first_member_order(labels: np.ndarray) -> np.ndarray:
    """Labels renumbered 0.. in the order their first node appears."""
    _, first, inverse = np.unique(labels, return_index=True, return_inverse=True)
    rank = np.empty(first.size, dtype=np.int64)
    rank[np.argsort(first, kind="stable")] = np.arange(first.size)
    return rank[inverse.reshape(-1)]


__all__ = ["THRESHOLD", "check_resolution", "louvain"]
