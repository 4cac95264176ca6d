"""The core's graph verbs (issue 17) on the graph adapter, in Cognee's shapes.

Nodes come back as ``(id, properties)`` like ``get_graph_data``'s nodes, edges as ``(source_id,
target_id, relationship_name, properties)`` like its edges. By default the verbs walk Cognee's
knowledge graph proper, its ``Entity`` nodes and the relationships between them: a document
chunk ``contains`` every entity it mentions and an entity ``is_a`` its type, so walking those
would link any two entities of one chunk or one type. ``node_types=None`` walks everything.
The node types are a wall (:class:`anatid_core.Scope`): no path passes through another type.

A fact's evidence is Cognee's own provenance: the chunks that ``contains`` both its ends, the
documents those chunks are ``is_part_of`` (a document's id is its data item's id), and the data
and dataset ids of the graph provenance Cognee attached to the edge (its source refs).
Translation only: the core does the walking; reads follow the adapter's view (``as_of``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any
from uuid import UUID

from cognee.infrastructure.databases.provenance import get_data_id_from_source_ref_key

from anatid_core import Edge, Evidence, Node, PageRankMethod, Path, Scope

from . import provenance
from .adapter_base import StoreBacked
from .records import GRAPH_GROUP, EdgeData, NodeData, edge_tuple, node_tuple, unique_strings

#: What the verbs walk unless told otherwise: Cognee's entities.
ENTITIES: tuple[str, ...] = ("Entity",)
#: Cognee's evidence rels: a chunk ``contains`` an entity (never walked by ``explain``).
EVIDENCE = Evidence(rels=("contains",))

NodeTuple = tuple[str, NodeData]
Id = str | UUID


@dataclass(frozen=True)
class CogneePath:
    """A chain: ``edges[i]`` joins ``nodes[i]`` and ``nodes[i + 1]``."""

    nodes: list[NodeTuple]
    edges: list[EdgeData]


@dataclass(frozen=True)
class CogneeFact:
    """An edge on a chain between the two nodes explained, with where Cognee learned it."""

    edge: EdgeData
    chunks: list[NodeTuple] = field(default_factory=list)
    documents: list[NodeTuple] = field(default_factory=list)
    data_ids: list[str] = field(default_factory=list)
    dataset_ids: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class CogneeExplanation:
    facts: list[CogneeFact]
    paths: list[CogneePath]

    @property
    def connected(self) -> bool:
        return bool(self.paths)


def _scope(node_types: Sequence[str] | None) -> Scope:
    labels = None if node_types is None else [str(t) for t in node_types]
    return Scope.of(groups=[GRAPH_GROUP], labels=labels)


def _rels(names: Sequence[str] | None) -> list[str] | None:
    return None if names is None else [str(n) for n in names]


class GraphInsight(StoreBacked):
    """Graph-verb part of :class:`~anatid_cognee.AnatidGraphAdapter`."""

    def _path(self, p: Path) -> CogneePath:
        return CogneePath(
            [node_tuple(n, self.exact_values) for n in p.nodes],
            [edge_tuple(e, self.exact_values) for e in p.edges],
        )

    async def shortest_path(
        self,
        source_id: Id,
        target_id: Id,
        *,
        max_depth: int = 6,
        relationship_names: Sequence[str] | None = None,
        node_types: Sequence[str] | None = ENTITIES,
    ) -> list[CogneePath]:
        """The shortest chains between two nodes (every one of the least length, at most
        ``max_depth`` edges), edges taken either way. [] when none is that short."""

        def work(r: Any) -> list[CogneePath]:
            paths = r.scoped(_scope(node_types)).shortest_path(
                str(source_id), str(target_id), max_depth=max_depth, rels=_rels(relationship_names)
            )
            return [self._path(p) for p in paths]

        return await self._read(work)

    async def explain(
        self,
        source_id: Id,
        target_id: Id,
        *,
        max_depth: int = 3,
        node_types: Sequence[str] | None = ENTITIES,
    ) -> CogneeExplanation:
        """The edges on chains of at most ``max_depth`` edges between two nodes, each with its
        chunks, documents, data ids and dataset ids, and the chains, shortest first."""

        def work(r: Any) -> CogneeExplanation:
            found = r.scoped(_scope(node_types)).explain(
                str(source_id), str(target_id), max_depth=max_depth, evidence=EVIDENCE
            )
            # Evidence lives outside the walked types (chunks, documents): read it in the
            # adapter's whole graph, at the same instant.
            sources = r.scoped(_scope(None))
            facts = [self._fact(sources, f.edge) for f in found.facts]
            return CogneeExplanation(facts, [self._path(p) for p in found.paths])

        return await self._read(work)

    def _fact(self, r: Any, edge: Edge) -> CogneeFact:
        containing: dict[str, set[str]] = {}
        for e in r.edges_of([edge.src, edge.dst], direction="in", rels=list(EVIDENCE.rels)):
            containing.setdefault(e.dst, set()).add(e.src)
        both = sorted(containing.get(edge.src, set()) & containing.get(edge.dst, set()))
        chunks = [n for n in r.get_nodes(both) if "DocumentChunk" in n.labels]
        part_of = r.edges_of([c.id for c in chunks], direction="out", rels=["is_part_of"])
        documents = r.get_nodes(unique_strings(e.dst for e in part_of)) if part_of else []
        cols = provenance.read(edge.props)
        data_ids = [d.id for d in documents]
        data_ids += [str(get_data_id_from_source_ref_key(k)) for k in cols.source_ref_keys]
        return CogneeFact(
            edge_tuple(edge, self.exact_values),
            [node_tuple(n, self.exact_values) for n in chunks],
            [node_tuple(n, self.exact_values) for n in _by_id(documents)],
            unique_strings(data_ids),
            unique_strings(cols.source_dataset_ids),
        )

    async def pagerank(
        self,
        seed_ids: Sequence[Id],
        *,
        damping: float = 0.85,
        k: int = 20,
        relationship_names: Sequence[str] | None = None,
        node_types: Sequence[str] | None = ENTITIES,
        method: PageRankMethod = "iterate",
        tolerance: float = 1e-6,
    ) -> list[tuple[NodeTuple, float]]:
        """Nodes by personalized PageRank from the seeds, best first (the seeds among them).
        ``method="push"`` answers from the seeds' neighbourhood, for big graphs (each score
        within ``tolerance`` x its node's degree below the exact one)."""

        def work(r: Any) -> list[tuple[NodeTuple, float]]:
            hits = r.scoped(_scope(node_types)).pagerank(
                [str(s) for s in seed_ids],
                damping=damping,
                k=k,
                rels=_rels(relationship_names),
                method=method,
                tolerance=tolerance,
            )
            return [(node_tuple(h.item, self.exact_values), h.score) for h in hits]

        return await self._read(work)

    async def hubs(
        self,
        k: int = 10,
        *,
        relationship_names: Sequence[str] | None = None,
        node_types: Sequence[str] | None = ENTITIES,
    ) -> list[tuple[NodeTuple, int]]:
        """The ``k`` nodes with the most edges (either way), most first, with their degree."""

        def work(r: Any) -> list[tuple[NodeTuple, int]]:
            found = r.scoped(_scope(node_types)).hubs(k, rels=_rels(relationship_names))
            return [(node_tuple(h.node, self.exact_values), h.degree) for h in found]

        return await self._read(work)

    async def communities(
        self,
        *,
        relationship_names: Sequence[str] | None = None,
        node_types: Sequence[str] | None = ENTITIES,
    ) -> list[list[NodeTuple]]:
        """A deterministic partition of the nodes by the edges between them (Louvain), largest
        community first; cached by the store until its next write."""

        def work(r: Any) -> list[list[NodeTuple]]:
            view = r.scoped(_scope(node_types))
            parts = view.communities(rels=_rels(relationship_names))
            nodes = {n.id: n for n in view.get_nodes([i for p in parts for i in p])}
            return [
                [node_tuple(nodes[i], self.exact_values) for i in p if i in nodes] for p in parts
            ]

        return await self._read(work)


def _by_id(nodes: list[Node]) -> list[Node]:
    return sorted({n.id: n for n in nodes}.values(), key=lambda n: n.id)


__all__ = [
    "ENTITIES",
    "EVIDENCE",
    "CogneeExplanation",
    "CogneeFact",
    "CogneePath",
    "GraphInsight",
]
