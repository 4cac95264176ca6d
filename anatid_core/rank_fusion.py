"""Hybrid retrieval: reciprocal-rank fusion of the text, vector and graph arms.

RRF score of an item = sum over the arms that found it of ``1 / (rrf_k + rank)`` (Cormack et al.,
2009; k=60 by default). Ties are broken by id so results are deterministic.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Literal, Protocol

from .base.errors import InvalidInput
from .base.model import Edge, Hit, Item, Kind, RecallHit, Subgraph
from .hits import Ranked

#: Which graph arm ``recall`` runs from its seeds (issue 17).
GraphArm = Literal["khop", "pagerank"]


def rrf(
    rankings: Mapping[str, Sequence[str]], *, k: int = 60
) -> list[tuple[str, float, dict[str, int]]]:
    """Fuse ranked id lists. Returns (id, score, {arm: rank}) best first."""
    if k < 0:
        raise InvalidInput(f"rrf_k must be >= 0, got {k}")
    scores: dict[str, float] = {}
    arms: dict[str, dict[str, int]] = {}
    for arm, ids in rankings.items():
        seen: set[str] = set()
        rank = 0
        for item_id in ids:
            if item_id in seen:
                continue
            seen.add(item_id)
            rank += 1
            scores[item_id] = scores.get(item_id, 0.0) + 1.0 / (k + rank)
            arms.setdefault(item_id, {})[arm] = rank
    ordered = sorted(scores, key=lambda i: (-scores[i], i))
    return [(i, scores[i], arms[i]) for i in ordered]


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
) -> list[RecallHit]:
    """The top ``k`` of the arms' hits by reciprocal-rank fusion. An arm may rank without
    rows (:class:`~anatid_core.hits.Ranked`): ``read`` gives the records of the winners no arm
    read (a winner gone meanwhile is left out)."""
    items: dict[str, Item] = {}
    for hits in arms.values():
        for h in hits:
            if isinstance(h, Hit):
                items.setdefault(h.id, h.item)
    fused = rrf({arm: [h.id for h in hits] for arm, hits in arms.items()}, k=rrf_k)[:k]
    unread = [i for i, _, _ in fused if i not in items]
    if unread:
        items.update(read(unread))
    return [RecallHit(id=i, score=s, item=items[i], arms=a) for i, s, a in fused if i in items]


__all__ = [
    "GraphArm",
    "check_arms",
    "check_graph_arm",
    "fuse",
    "khop_arm",
    "pagerank_arm",
    "pool_size",
    "rrf",
]
