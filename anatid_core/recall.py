"""Hybrid retrieval: reciprocal-rank fusion of the text, vector and graph arms.

RRF score of an item = sum over the arms that found it of ``1 / (rrf_k + rank)`` (Cormack et al.,
2009; k=60 by default). Ties are broken by id so results are deterministic.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Protocol

from .errors import InvalidInput
from .model import Direction, Edge, Hit, Item, Kind, RecallHit, Subgraph, Where


class Arms(Protocol):
    """The read verbs recall fuses (a :class:`~anatid_core.reads.Reader` has them)."""

    def search_text(
        self,
        query: str,
        *,
        kind: Kind = "node",
        k: int = 10,
        groups: Iterable[str] | None = None,
        labels: Iterable[str] | None = None,
        rels: Iterable[str] | None = None,
        where: Where | None = None,
    ) -> list[Hit]: ...
    def search_vector(
        self,
        vector: Sequence[float],
        *,
        kind: Kind = "node",
        space: str = "default",
        k: int = 10,
        groups: Iterable[str] | None = None,
        labels: Iterable[str] | None = None,
        rels: Iterable[str] | None = None,
        where: Where | None = None,
    ) -> list[Hit]: ...
    def expand(
        self,
        seeds: Iterable[str],
        *,
        depth: int = 1,
        direction: Direction = "both",
        rels: Iterable[str] | None = None,
    ) -> Subgraph: ...


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


def graph_arm(
    reader: Arms,
    kind: Kind,
    seeds: Iterable[str],
    depth: int,
    k: int,
    *,
    groups: Iterable[str] | None,
    labels: Iterable[str] | None,
    rels: Iterable[str] | None,
) -> list[Hit]:
    """Nodes near the seeds (by hop count), or edges on paths from them (by the nearer end)."""
    sub = reader.expand(seeds, depth=depth, direction="both", rels=rels)
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


def recall(
    reader: Arms,
    *,
    text: str | None,
    vector: Sequence[float] | None,
    seeds: Iterable[str] | None,
    kind: Kind,
    k: int,
    rrf_k: int,
    depth: int,
    space: str,
    groups: Iterable[str] | None,
    labels: Iterable[str] | None,
    rels: Iterable[str] | None,
    where: Where | None,
) -> list[RecallHit]:
    if text is None and vector is None and seeds is None:
        raise InvalidInput("recall needs at least one of text, vector or seeds")
    if k <= 0:
        return []
    pool = max(2 * k, 20)
    arms: dict[str, list[Hit]] = {}
    if text is not None:
        arms["text"] = reader.search_text(
            text, kind=kind, k=pool, groups=groups, labels=labels, rels=rels, where=where
        )
    if vector is not None:
        arms["vector"] = reader.search_vector(
            vector,
            kind=kind,
            space=space,
            k=pool,
            groups=groups,
            labels=labels,
            rels=rels,
            where=where,
        )
    if seeds is not None:
        arms["graph"] = graph_arm(
            reader, kind, list(seeds), depth, pool, groups=groups, labels=labels, rels=rels
        )
    items: dict[str, Item] = {}
    for hits in arms.values():
        for h in hits:
            items.setdefault(h.id, h.item)
    fused = rrf({arm: [h.id for h in hits] for arm, hits in arms.items()}, k=rrf_k)
    return [RecallHit(id=i, score=s, item=items[i], arms=a) for i, s, a in fused[:k]]


__all__ = ["recall", "rrf"]
