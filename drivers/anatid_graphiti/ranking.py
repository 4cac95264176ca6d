"""PageRank and communities of the entity graph, as Graphiti models (issue 17).

Graphiti's entity graph is its ``Entity`` nodes and the ``RELATES_TO`` facts between them
(episodes reach entities through ``MENTIONS``, which would make every entity of an episode look
related): both verbs run over that graph, in the driver's view (current or ``as_of``) and its
groups, and return ``EntityNode``s.
"""

from __future__ import annotations

from graphiti_core.nodes import EntityNode

from anatid_core import Node, PageRankMethod

from . import mapping as m
from .runner import ReadTarget, StoreRunner

_LABELS, _RELS = [m.ENTITY], [m.RELATES_TO]


def _entity(node: Node) -> EntityNode:
    return m.to_entity(node)


async def pagerank(
    runner: StoreRunner,
    seeds: list[str],
    *,
    group_ids: list[str] | None,
    damping: float,
    k: int,
    method: PageRankMethod = "iterate",
    tolerance: float = 1e-6,
) -> list[tuple[EntityNode, float]]:
    def run(r: ReadTarget) -> list[tuple[EntityNode, float]]:
        hits = r.pagerank(
            seeds,
            damping=damping,
            k=k,
            groups=group_ids,
            labels=_LABELS,
            rels=_RELS,
            method=method,
            tolerance=tolerance,
        )
        return [(_entity(h.item), h.score) for h in hits]  # type: ignore[arg-type]

    return await runner.read(run)


async def communities(
    runner: StoreRunner, *, group_ids: list[str] | None
) -> list[list[EntityNode]]:
    def run(r: ReadTarget) -> list[list[EntityNode]]:
        parts = r.communities(groups=group_ids, labels=_LABELS, rels=_RELS)
        nodes = {n.id: n for n in r.get_nodes([i for p in parts for i in p])}
        return [[_entity(nodes[i]) for i in p if i in nodes] for p in parts]

    return await runner.read(run)
