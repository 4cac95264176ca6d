"""Hybrid retrieval: reciprocal-rank fusion of the text, vector and graph arms.

RRF score of an item = sum over the arms that found it of ``weight / (rrf_k + start + rank)``
(Cormack et al., 2009; rrf_k = 60 by default). Ties are broken by id so results are deterministic.

The arms are of two sorts. The *match* arms (``text``: BM25 over the query's words; ``vector``:
cosine to the query's embedding) find a record by what it says. The *graph* arms (``graph``: the
k-hop neighbourhood of the seeds; ``pagerank``) find a record by where it lies, whatever it says.
A graph arm's ranks are counted after the match arms' whole pool (``start`` = the pool size), so
with the default weights a record that only the graph reached ranks below every record that
matched the query, and the graph still lifts the matches that lie near the seeds. Before this
(issue 36) both sorts started at rank 1: ``anatid search "Alice Globex"`` put Acme (Alice's
employer, matching neither word) level with the best text match, and first by id. A caller who
wants the neighbourhood to compete with the matches weights the graph arm up: with a pool of 20
a weight of 81/61 (about 1.33) puts the graph arm's first record level with the text arm's
first.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Literal, Protocol

from .base.errors import InvalidInput
from .base.model import Edge, Hit, Item, Kind, RecallHit, Subgraph
from .hits import Ranked

#: Which graph arm ``recall`` runs from its seeds (issue 17).
GraphArm = Literal["khop", "pagerank"]

#: The arms that find a record by matching the query (its words, its embedding).
MATCH_ARMS = ("text", "vector")
#: The arms that find a record by its place in the graph; their ranks start after the pool.
GRAPH_ARMS = ("graph", "pagerank")

#: Each arm's weight when the caller names none (``recall(weights=...)`` overrides some).
WEIGHTS: dict[str, float] = {"text": 1.0, "vector": 1.0, "graph": 1.0, "pagerank": 1.0}


def rrf(
    rankings: Mapping[str, Sequence[str]],
    *,
    k: int = 60,
    weights: Mapping[str, float] | None = None,
    starts: Mapping[str, int] | None = None,
) -> list[tuple[str, float, dict[str, int]]]:
    """Fuse ranked id lists. Returns (id, score, {arm: rank}) best first.

    An item at ``rank`` (its place, from 1) in an arm adds ``weights[arm] / (k + starts[arm] +
    rank)``; an arm missing from ``weights`` weighs 1, from ``starts`` starts at 0 (plain RRF)."""
    ranked = {arm: list(enumerate(dict.fromkeys(ids), 1)) for arm, ids in rankings.items()}
    return _fuse_ranks(
        {arm: [(i, rank) for rank, i in pairs] for arm, pairs in ranked.items()},
        k,
        weights or {},
        starts or {},
    )


def tied_ranks(hits: Sequence[Hit | Ranked]) -> list[tuple[str, int]]:
    """(id, rank) of an arm's hits, best first, records with equal scores sharing the best rank
    of their run (1, 1, 1, 4): the arm cannot tell them apart (every neighbour one hop away,
    facts BM25 scores alike), so the order it lists them in (by id) must not weigh in the
    fusion. Issue 36: ranked 1, 2, 3 by id, the graph arm's ties outweighed the text arm's
    first-versus-second."""
    out: list[tuple[str, int]] = []
    seen: set[str] = set()
    previous: float | None = None
    rank = 0
    for h in hits:
        if h.id in seen:
            continue
        seen.add(h.id)
        if h.score != previous:
            rank, previous = len(out) + 1, h.score
        out.append((h.id, rank))
    return out


def _fuse_ranks(
    ranked: Mapping[str, Sequence[tuple[str, int]]],
    k: int,
    weights: Mapping[str, float],
    starts: Mapping[str, int],
) -> list[tuple[str, float, dict[str, int]]]:
    if k < 0:
        raise InvalidInput(f"rrf_k must be >= 0, got {k}")
    scores: dict[str, float] = {}
    arms: dict[str, dict[str, int]] = {}
    for arm, pairs in ranked.items():
        weight, start = weights.get(arm, 1.0), starts.get(arm, 0)
        for item_id, rank in pairs:
            scores[item_id] = scores.get(item_id, 0.0) + weight / (k + start + rank)
            arms.setdefault(item_id, {})[arm] = rank
    ordered = sorted(scores, key=lambda i: (-scores[i], i))
    return [(i, scores[i], arms[i]) for i in ordered]


def check_weights(weights: Mapping[str, float] | None) -> dict[str, float]:
    """The weight of every arm: :data:`WEIGHTS`, with the caller's in place of some."""
    if weights is None:
        return dict(WEIGHTS)
    unknown = sorted(set(weights) - set(WEIGHTS))
    if unknown:
        raise InvalidInput(
            f"weights: unknown arm(s) {', '.join(map(repr, unknown))}; the arms are "
            f"{', '.join(map(repr, WEIGHTS))}"
        )
    for arm, weight in weights.items():
        if (
            isinstance(weight, bool)
            or not isinstance(weight, (int, float))
            or not math.isfinite(weight)
            or weight < 0
        ):
            raise InvalidInput(f"weights[{arm!r}] must be a finite number >= 0, got {weight!r}")
    return {**WEIGHTS, **{arm: float(w) for arm, w in weights.items()}}


def check_arms(text: object, vector: object, seeds: object) -> None:
    if text is None and vector is None and seeds is None:
        raise InvalidInput("recall needs at least one of text, vector or seeds")


def check_graph_arm(arm: object) -> None:
    if arm not in ("khop", "pagerank"):
        raise InvalidInput(f"graph_arm must be 'khop' or 'pagerank', got {arm!r}")


class _EdgeReads(Protocol):
    def edges_of(
        self, node_ids: Iterable[str], *, rels: Iterable[str] | None = None
    ) -> list[Edge]: ...


def pagerank_arm(
    ranked: Sequence[Hit],
    kind: Kind,
    seeds: Iterable[str],
    k: int,
    reads: _EdgeReads,
    *,
    groups: Iterable[str] | None,
    labels: Iterable[str] | None,
    rels: Iterable[str] | None,
) -> list[Hit]:
    """Nodes by PageRank score (seeds left out, as in the k-hop arm), or the edges at the best
    nodes by the summed scores of their two ends."""
    seed_set = set(seeds)
    group_set = None if groups is None else set(groups)
    if kind == "node":
        label_set = None if labels is None else set(labels)
        nodes = [
            h
            for h in ranked
            if h.id not in seed_set
            and (label_set is None or label_set.intersection(h.item.labels))  # type: ignore[union-attr]
            and (group_set is None or h.item.group in group_set)
        ]
        return [
            Hit(id=h.id, score=h.score, item=h.item, rank=i + 1) for i, h in enumerate(nodes[:k])
        ]
    score = {h.id: h.score for h in ranked}
    best = [h.id for h in ranked[:k]]
    edges = [
        e
        for e in reads.edges_of(best, rels=rels)
        if (group_set is None or e.group in group_set) and e.src in score and e.dst in score
    ]
    unique = {e.id: e for e in edges}
    order = sorted(unique.values(), key=lambda e: (-(score[e.src] + score[e.dst]), e.id))
    return [
        Hit(id=e.id, score=score[e.src] + score[e.dst], item=e, rank=i + 1)
        for i, e in enumerate(order[:k])
    ]


def pool_size(k: int) -> int:
    """How many hits each arm contributes to the fusion of a top-``k``."""
    return max(2 * k, 20)


def khop_arm(
    sub: Subgraph,
    kind: Kind,
    seeds: Iterable[str],
    depth: int,
    k: int,
    *,
    groups: Iterable[str] | None,
    labels: Iterable[str] | None,
) -> list[Hit]:
    """Nodes of ``sub`` (expanded ``depth`` hops from the seeds) by hop count, or its edges by
    the distance of their nearer end."""
    seed_set = set(seeds)
    if kind == "node":
        label_set = None if labels is None else set(labels)
        group_set = None if groups is None else set(groups)
        nodes = [
            n
            for n in sub.nodes
            if n.id not in seed_set
            and (label_set is None or label_set.intersection(n.labels))
            and (group_set is None or n.group in group_set)
        ]
        nodes.sort(key=lambda n: (sub.distance[n.id], n.id))
        items: list[Item] = list(nodes[:k])
        dist = [sub.distance[n.id] for n in nodes[:k]]
    else:
        group_set = None if groups is None else set(groups)
        edges = [e for e in sub.edges if group_set is None or e.group in group_set]

        def near(e: Edge) -> int:
            return min(sub.distance.get(e.src, depth), sub.distance.get(e.dst, depth)) + 1

        edges.sort(key=lambda e: (near(e), e.id))
        items = list(edges[:k])
        dist = [near(e) for e in edges[:k]]
    return [
        Hit(id=item.id, score=1.0 / max(d, 1), item=item, rank=i + 1)
        for i, (item, d) in enumerate(zip(items, dist, strict=False))
    ]


def fuse(
    arms: Mapping[str, Sequence[Hit | Ranked]],
    k: int,
    rrf_k: int,
    read: Callable[[list[str]], Mapping[str, Item]],
    *,
    weights: Mapping[str, float] = WEIGHTS,
) -> list[RecallHit]:
    """The top ``k`` of the arms' hits by weighted reciprocal-rank fusion, hits an arm scores
    alike sharing a rank (:func:`tied_ranks`), the graph arms' ranks counted after the match
    arms' pool (see the module's docstring). An arm may rank
    without rows (:class:`~anatid_core.hits.Ranked`): ``read`` gives the records of the winners
    no arm read (a winner gone meanwhile is left out)."""
    items: dict[str, Item] = {}
    for hits in arms.values():
        for h in hits:
            if isinstance(h, Hit):
                items.setdefault(h.id, h.item)
    starts = {arm: pool_size(k) for arm in GRAPH_ARMS}
    ranked = {arm: tied_ranks(hits) for arm, hits in arms.items()}
    fused = _fuse_ranks(ranked, rrf_k, weights, starts)[:k]
    unread = [i for i, _, _ in fused if i not in items]
    if unread:
        items.update(read(unread))
    return [RecallHit(id=i, score=s, item=items[i], arms=a) for i, s, a in fused if i in items]


__all__ = [
    "GRAPH_ARMS",
    "MATCH_ARMS",
    "WEIGHTS",
    "GraphArm",
    "check_arms",
    "check_graph_arm",
    "check_weights",
    "fuse",
    "khop_arm",
    "pagerank_arm",
    "pool_size",
    "rrf",
    "tied_ranks",
]
