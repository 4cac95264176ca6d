"""Louvain communities (Blondel et al., 2008) in plain Python and numpy (issue 17), and the
choice of backend: :func:`partition` uses igraph's Leiden (:mod:`.communities_igraph`) when the
optional ``graph`` extra is installed, this plain Louvain otherwise.

Edges are undirected and weighted by multiplicity (two edges between a pair weigh 2); a
self-loop counts once in the total weight and twice in its node's degree, as in networkx. Each
level moves single nodes to the neighbouring community with the best modularity gain until no
move helps, then merges each community into one node (numpy) and goes on while modularity
grows by more than ``threshold``. Nodes are visited in index order (the ids sorted), with ties
kept by the first best community met, so the same graph always gives the same partition.
"""

from __future__ import annotations

import math
from collections import deque

import numpy as np

from ..base.errors import InvalidInput, UnsupportedOperation
from . import communities_igraph

#: Least modularity gain of a level for the next one to run (networkx's default).
THRESHOLD = 1e-7

#: A move must gain more than this: rounding could otherwise swap a node back and forth
#: between two communities of equal worth for ever. And at most this many visits per node and
#: level (a guard: the queue of :func:`_one_level` runs dry long before).
GAIN_EPSILON = 1e-12
MAX_PASSES = 200

#: Tunables: node orders tried on small graphs (the best partition is kept), and up to how many
#: nodes a graph counts as small (above it one order: the time grows with each); on tiny graphs
#: more orders, where one greedy order is most often far from the best (an 8-node graph 9%
#: below networkx's Louvain with 4 orders, level with it from 8) and each costs microseconds.
LOUVAIN: dict[str, int] = {
    "orders": 4,
    "several_orders_up_to": 5_000,
    "tiny_orders": 16,
    "tiny_up_to": 200,
}

#: Tunable: which backend partitions. "auto": igraph's Leiden (C, the optional ``graph`` extra)
#: when installed, else the plain Louvain here; "plain" or "igraph" force one (the tests run both).
COMMUNITIES: dict[str, str] = {"backend": "auto"}
#: Up to how many nodes the plain Louvain also runs beside igraph's Leiden (see partition()).
COMMUNITIES_SMALL: dict[str, int] = {"plain_too_up_to": 1_000}


def check_resolution(resolution: float) -> None:
    if (
        not isinstance(resolution, (int, float))
        or isinstance(resolution, bool)
        or not math.isfinite(resolution)
        or resolution <= 0
    ):
        raise InvalidInput(f"resolution must be a finite number > 0, got {resolution!r}")


def partition(n: int, src: np.ndarray, dst: np.ndarray, *, resolution: float = 1.0) -> list[int]:
    """The community of each of ``n`` nodes (numbered 0.. by first member) for the edges
    ``src[i] - dst[i]``: igraph's Leiden when the ``graph`` extra is installed and
    ``COMMUNITIES["backend"]`` allows it, else the plain Louvain.

    On small graphs Leiden alone can stop at a poor local optimum (measured: one random graph
    in 12 of up to 60 nodes more than 5% below networkx's Louvain), so up to
    ``COMMUNITIES_SMALL`` nodes the plain Louvain runs too (~0.2 s of CPU at 1,000 nodes), and
    the partition of higher modularity is kept (Leiden's on a tie)."""
    if _backend() == "plain":
        return louvain(n, src, dst, resolution=resolution)
    if n == 0:
        return []
    u, v, w = _merge(src.astype(np.int64), dst.astype(np.int64), np.ones(len(src)))
    found = communities_igraph.leiden(n, u, v, w, resolution=resolution)
    if n <= COMMUNITIES_SMALL["plain_too_up_to"]:
        plain = np.asarray(louvain(n, src, dst, resolution=resolution), dtype=np.int64)
        gain = _modularity(n, u, v, w, plain, resolution) - _modularity(
            n, u, v, w, found, resolution
        )
        found = plain if gain > THRESHOLD else found
    return _first_member_order(found).tolist()


def _backend() -> str:
    wanted = COMMUNITIES["backend"]
    if wanted == "plain" or (wanted == "auto" and not communities_igraph.available()):
        return "plain"
    if wanted not in ("auto", "igraph"):
        raise InvalidInput(f'COMMUNITIES["backend"] must be auto, igraph or plain, not {wanted!r}')
    if not communities_igraph.available():
        raise UnsupportedOperation(
            "communities: the igraph backend needs the graph extra: pip install 'anatid-drivers[graph]'"
        )
    return "igraph"


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
    if n <= LOUVAIN["tiny_up_to"]:
        tries = max(tries, int(LOUVAIN["tiny_orders"]))
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
    first node.

    Nodes wait in a queue, in index order first (Traag et al. 2019's fast local move): a node is
    visited again only when a neighbour moved into another community, since nothing else can
    change its best move. Far fewer visits than whole passes over every node, and it ends
    whenever the queue runs dry, which no move can refill for ever (each gains > GAIN_EPSILON).
    """
    m = float(w.sum())
    if m == 0:
        return np.arange(n, dtype=np.int64)
    degree = np.bincount(u, weights=w, minlength=n) + np.bincount(v, weights=w, minlength=n)
    node2com = list(range(n)) if start is None else start.tolist()
    tot = np.bincount(np.asarray(node2com), weights=degree, minlength=n).tolist()
    nbrs, wts = _adjacency(n, u, v, w)
    _move_nodes(nbrs, wts, degree.tolist(), node2com, tot, m, resolution / (2.0 * m * m))
    return _first_member_order(np.asarray(node2com, dtype=np.int64))


def _adjacency(
    n: int, u: np.ndarray, v: np.ndarray, w: np.ndarray
) -> tuple[list[list[int]], list[list[float]]]:
    """Each node's neighbours and edge weights (self-loops left out: they never move a node)."""
    keep = u != v
    a, b, c = u[keep], v[keep], w[keep]
    frm, to, wt = np.concatenate([a, b]), np.concatenate([b, a]), np.concatenate([c, c])
    order = np.argsort(frm, kind="stable")
    ends = np.cumsum(np.bincount(frm, minlength=n)).tolist()
    flat_to, flat_wt = to[order].tolist(), wt[order].tolist()
    spans = list(zip([0, *ends[:-1]], ends, strict=True))
    return [flat_to[a:b] for a, b in spans], [flat_wt[a:b] for a, b in spans]


def _move_nodes(
    nbrs: list[list[int]],
    wts: list[list[float]],
    deg: list[float],
    node2com: list[int],
    tot: list[float],
    m: float,
    scale: float,
) -> None:
    """The queue of :func:`_one_level`, moving nodes in ``node2com`` (and ``tot``) in place."""
    n = len(nbrs)
    queue = deque(range(n))
    queued = [True] * n
    visits, budget = 0, MAX_PASSES * n
    while queue and visits < budget:
        x = queue.popleft()
        queued[x] = False
        visits += 1
        here, dx = node2com[x], deg[x]
        links: dict[int, float] = {here: 0.0}
        for y, wy in zip(nbrs[x], wts[x], strict=True):
            cy = node2com[y]
            links[cy] = links.get(cy, 0.0) + wy
        tot[here] -= dx
        best, best_gain = here, links[here] / m - tot[here] * dx * scale
        for cy, weight in links.items():
            gain = weight / m - tot[cy] * dx * scale
            if gain > best_gain + GAIN_EPSILON:
                best, best_gain = cy, gain
        tot[best] += dx
        if best != here:
            node2com[x] = best
            for y in nbrs[x]:
                if not queued[y] and node2com[y] != best:
                    queued[y] = True
                    queue.append(y)


def _first_member_order(labels: np.ndarray) -> np.ndarray:
    """Labels renumbered 0.. in the order their first node appears."""
    _, first, inverse = np.unique(labels, return_index=True, return_inverse=True)
    rank = np.empty(first.size, dtype=np.int64)
    rank[np.argsort(first, kind="stable")] = np.arange(first.size)
    return rank[inverse.reshape(-1)]


__all__ = [
    "COMMUNITIES",
    "COMMUNITIES_SMALL",
    "LOUVAIN",
    "THRESHOLD",
    "check_resolution",
    "louvain",
    "partition",
]
