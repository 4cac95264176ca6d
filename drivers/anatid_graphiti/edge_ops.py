"""Graphiti's edge operations (``driver.entity_edge_ops`` ... ``next_episode_edge_ops``).

As for nodes: one generic CRUD told apart by the relationship type, plus the entity-edge extras.
An edge whose endpoints are not current nodes is not written, as a Neo4j ``MATCH ... MERGE``
would silently do nothing.
"""

from __future__ import annotations

from typing import Any, Generic, TypeVar

from graphiti_core.driver.operations.community_edge_ops import CommunityEdgeOperations
from graphiti_core.driver.operations.entity_edge_ops import EntityEdgeOperations
from graphiti_core.driver.operations.episodic_edge_ops import EpisodicEdgeOperations
from graphiti_core.driver.operations.has_episode_edge_ops import HasEpisodeEdgeOperations
from graphiti_core.driver.operations.next_episode_edge_ops import NextEpisodeEdgeOperations
from graphiti_core.driver.query_executor import QueryExecutor, Transaction
from graphiti_core.edges import (
    CommunityEdge,
    EntityEdge,
    EpisodicEdge,
    HasEpisodeEdge,
    NextEpisodeEdge,
)
from graphiti_core.edges import Edge as GraphitiEdge

from anatid_core import Cond, Edge

from . import mapping as m
from .errors import edge_not_found
from .runner import ReadTarget, StoreRunner

M = TypeVar("M", bound=GraphitiEdge)


class EdgeCrud(Generic[M]):
    """save / save_bulk / delete* / get_by_* for the edges of one relationship type."""

    rel: str

    def __init__(self, db: StoreRunner) -> None:
        self._db = db

    def to_core(self, edge: M) -> Edge:
        return m.to_edge(edge)

    def from_core(self, edge: Edge, embedding: list[float] | None) -> M:
        return m.from_edge(edge, embedding)  # type: ignore[return-value]

    def _models(self, edges: list[Edge]) -> list[M]:
        return [self.from_core(e, None) for e in edges if e.rel == self.rel]

    async def write_edges(self, make: Any) -> None:
        """Upsert the edges ``make()`` builds (on the worker thread), skipping dangling ones."""
        await self._db.write(lambda s: s.upsert_edges(make(), missing_endpoints="skip"))

    async def save(self, executor: QueryExecutor, edge: M, tx: Transaction | None = None) -> None:
        await self.write_edges(lambda: [self.to_core(edge)])

    async def save_bulk(
        self,
        executor: QueryExecutor,
        edges: list[M],
        tx: Transaction | None = None,
        batch_size: int = 100,
    ) -> None:
        await self.write_edges(lambda: [self.to_core(e) for e in edges])

    async def save_payloads(self, payloads: list[dict[str, Any]]) -> None:
        """Save Graphiti's bulk edge dicts (model dumps)."""
        await self.write_edges(lambda: [m.plain_payload_edge(p, self.rel) for p in payloads])

    async def delete(self, executor: QueryExecutor, edge: M, tx: Transaction | None = None) -> None:
        """Erase the edge (every version); see :mod:`anatid_graphiti.erasure`."""
        await self._db.remove(lambda s: ([], [e.id for e in s.find_edges(ids=[edge.uuid])]))

    async def delete_by_uuids(
        self, executor: QueryExecutor, uuids: list[str], tx: Transaction | None = None
    ) -> None:
        if uuids:
            await self._db.remove(
                lambda s: ([], [e.id for e in s.find_edges(ids=list(uuids), rels=[self.rel])])
            )

    async def get_by_uuid(self, executor: QueryExecutor, uuid: str) -> M:
        found = await self._db.small_read(
            lambda r: self._models([e for e in [r.get_edge(uuid)] if e]), 1
        )
        if not found:
            raise edge_not_found(uuid)
        return found[0]

    async def get_by_uuids(self, executor: QueryExecutor, uuids: list[str]) -> list[M]:
        if not uuids:
            return []
        return await self._db.small_read(
            lambda r: self._models(r.get_edges(list(uuids))), len(uuids)
        )

    async def get_by_group_ids(
        self,
        executor: QueryExecutor,
        group_ids: list[str],
        limit: int | None = None,
        uuid_cursor: str | None = None,
    ) -> list[M]:
        where = [[Cond("id", "<", uuid_cursor)]] if uuid_cursor else None
        return await self._db.read(
            lambda r: self._models(
                r.find_edges(
                    groups=list(group_ids),
                    rels=[self.rel],
                    where=where,
                    order_by="-id",
                    limit=limit,
                )
            )
        )


class AnatidEntityEdgeOperations(EdgeCrud[EntityEdge], EntityEdgeOperations):
    rel = m.RELATES_TO

    async def save_payloads(self, payloads: list[dict[str, Any]]) -> None:
        """Save Graphiti's bulk entity-edge dicts (attributes flattened into the top level)."""
        await self.write_edges(lambda: [m.entity_payload_edge(p) for p in payloads])

    async def get_between_nodes(
        self, executor: QueryExecutor, source_node_uuid: str, target_node_uuid: str
    ) -> list[EntityEdge]:
        return await self._db.read(
            lambda r: self._models(
                r.edges_between([source_node_uuid], [target_node_uuid], rels=[m.RELATES_TO])
            )
        )

    async def get_by_node_uuid(self, executor: QueryExecutor, node_uuid: str) -> list[EntityEdge]:
        return await self._db.read(
            lambda r: self._models(r.edges_of([node_uuid], direction="both", rels=[m.RELATES_TO]))
        )

    async def embeddings(
        self, uuids: list[str], *, must_exist: bool = False
    ) -> dict[str, list[float]]:
        """Fact embeddings by uuid; with ``must_exist`` a missing edge raises EdgeNotFoundError."""

        def run(r: ReadTarget) -> dict[str, list[float]]:
            vectors = r.get_embeddings(list(uuids), kind="edge")
            if must_exist:
                for uuid in uuids:
                    if uuid not in vectors and r.get_edge(uuid) is None:
                        raise edge_not_found(uuid)
            return vectors

        return await self._db.read(run)

    async def load_embeddings(self, executor: QueryExecutor, edge: EntityEdge) -> None:
        vectors = await self.embeddings([edge.uuid], must_exist=True)
        edge.fact_embedding = vectors.get(edge.uuid)

    async def load_embeddings_bulk(
        self, executor: QueryExecutor, edges: list[EntityEdge], batch_size: int = 100
    ) -> None:
        vectors = await self.embeddings([e.uuid for e in edges])
        for edge in edges:
            if edge.uuid in vectors:
                edge.fact_embedding = vectors[edge.uuid]


class AnatidEpisodicEdgeOperations(EdgeCrud[EpisodicEdge], EpisodicEdgeOperations):
    rel = m.MENTIONS


class AnatidCommunityEdgeOperations(EdgeCrud[CommunityEdge], CommunityEdgeOperations):
    rel = m.HAS_MEMBER


class AnatidHasEpisodeEdgeOperations(EdgeCrud[HasEpisodeEdge], HasEpisodeEdgeOperations):
    rel = m.HAS_EPISODE


class AnatidNextEpisodeEdgeOperations(EdgeCrud[NextEpisodeEdge], NextEpisodeEdgeOperations):
    rel = m.NEXT_EPISODE


__all__ = [
    "AnatidCommunityEdgeOperations",
    "AnatidEntityEdgeOperations",
    "AnatidEpisodicEdgeOperations",
    "AnatidHasEpisodeEdgeOperations",
    "AnatidNextEpisodeEdgeOperations",
    "EdgeCrud",
]
