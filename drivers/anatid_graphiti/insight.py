"""The core's graph verbs (issue 17) in Graphiti's own models: shortest paths between entities,
the facts explaining how two entities are linked with the episodes they came from, and hubs.

Graphiti keeps evidence two ways, both named to the core by :data:`EVIDENCE`: an episode
``-MENTIONS->`` each entity it mentions, and a fact (``EntityEdge``) lists its episodes' uuids in
``episodes``. ``group_ids`` become a :class:`anatid_core.Scope` (a wall: no path or evidence
passes through another group). Translation only: the core does the walking.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from graphiti_core.edges import Edge as GraphitiEdge
from graphiti_core.nodes import EntityNode, EpisodicNode
from graphiti_core.nodes import Node as GraphitiNode

from anatid_core import Evidence, Node, Path, Scope

from . import mapping as m
from .runner import ReadTarget

#: Graphiti's evidence: MENTIONS edges from episodes, a fact's ``episodes`` property.
EVIDENCE = Evidence(rels=(m.MENTIONS,), props=("episodes",))


@dataclass(frozen=True)
class GraphitiPath:
    """A chain of Graphiti nodes and the edges between them (``edges[i]`` joins ``nodes[i]``
    and ``nodes[i + 1]``)."""

    nodes: list[GraphitiNode]
    edges: list[GraphitiEdge]


@dataclass(frozen=True)
class LinkingFact:
    """A fact on a chain between the two entities explained, with the episodes it came from."""

    edge: GraphitiEdge
    episodes: list[EpisodicNode]


@dataclass(frozen=True)
class GraphitiExplanation:
    facts: list[LinkingFact]
    paths: list[GraphitiPath]


def scoped(reader: ReadTarget, group_ids: Sequence[str] | None) -> ReadTarget:
    return reader if not group_ids else reader.scoped(Scope.of(groups=group_ids))


def _path(p: Path) -> GraphitiPath:
    return GraphitiPath([m.from_node(n) for n in p.nodes], [m.from_edge(e) for e in p.edges])


def shortest_path(
    reader: ReadTarget,
    src: str,
    dst: str,
    *,
    max_depth: int,
    group_ids: Sequence[str] | None,
    rels: Sequence[str] | None,
) -> list[GraphitiPath]:
    paths = scoped(reader, group_ids).shortest_path(src, dst, max_depth=max_depth, rels=rels)
    return [_path(p) for p in paths]


def explain(
    reader: ReadTarget, a: str, b: str, *, max_depth: int, group_ids: Sequence[str] | None
) -> GraphitiExplanation:
    found = scoped(reader, group_ids).explain(
        a, b, max_depth=max_depth, rels=[m.RELATES_TO], evidence=EVIDENCE
    )
    facts = [
        LinkingFact(
            m.from_edge(f.edge),
            [m.to_episode(r) for r in f.evidence if isinstance(r, Node) and m.EPISODIC in r.labels],
        )
        for f in found.facts
    ]
    return GraphitiExplanation(facts, [_path(p) for p in found.paths])


def hubs(
    reader: ReadTarget, k: int, *, group_ids: Sequence[str] | None
) -> list[tuple[EntityNode, int]]:
    found = scoped(reader, group_ids).hubs(k, rels=[m.RELATES_TO], labels=[m.ENTITY])
    return [(m.to_entity(h.node), h.degree) for h in found]


__all__ = [
    "EVIDENCE",
    "GraphitiExplanation",
    "GraphitiPath",
    "LinkingFact",
    "explain",
    "hubs",
    "shortest_path",
]
