"""Edge hooks of Graphiti's legacy ``GraphOperationsInterface`` (see :mod:`anatid_graphiti.legacy`).

Entity edges have hooks of their own (``edge_save`` ... ``edge_get_by_node_uuid``); episodic,
community, has-episode and next-episode edges share one family of hooks (:func:`edge_kind_hooks`),
which the class below writes out only where an episodic-edge hook differs.
"""

from __future__ import annotations

from typing import Any

from graphiti_core.driver.query_executor import QueryExecutor
from graphiti_core.edges import Edge, EntityEdge, HasEpisodeEdge, NextEpisodeEdge
from graphiti_core.errors import EdgeNotFoundError, GroupsEdgesNotFoundError

from .. import mapping as m
from ..edge_ops import EdgeCrud
from .hooks import GraphHooks, HookTable, caller_asked_embeddings, getter_hooks, table, with_hooks
from .payloads import dumps, entity_edge_payload, models


def _rels_of(cls: Any) -> list[str] | None:
    return [m.EDGE_KINDS[cls]] if cls in m.EDGE_KINDS else None


def _found(edges: list[Any], missing: Exception) -> list[Any]:
    """The edges, or ``missing`` raised when there are none (as Graphiti's Neo4j fallback does)."""
    if not edges:
        raise missing
    return edges


def edge_kind_hooks(field: str, model: Any = None) -> HookTable:
    """``save``, ``delete``, ``save_bulk`` (if ``model``: saved as such models),
    ``delete_by_uuids`` and the getters of the edge kind ``ops.<field>``."""

    def kind(hooks: GraphHooks) -> EdgeCrud[Any]:
        return getattr(hooks.ops, field)

    async def save(self: GraphHooks, edge: Any, driver: QueryExecutor) -> None:
        await kind(self).save(driver, edge)

    async def delete(self: GraphHooks, edge: Any, driver: QueryExecutor) -> None:
        await kind(self).delete(driver, edge)

    async def save_bulk(
        self: GraphHooks,
        _cls: Any,
        driver: QueryExecutor,
        transaction: Any,
        edges: list[Any],
        batch_size: int = 100,
    ) -> None:
        await kind(self).save_bulk(driver, models(model, edges))

    async def delete_by_uuids(
        self: GraphHooks,
        _cls: Any,
        driver: QueryExecutor,
        uuids: list[str],
        group_id: str | None = None,
    ) -> None:
        await self.ops.graph.delete_edges(uuids, [kind(self).rel], group_id)

    hooks = table(save, delete, delete_by_uuids)
    if model is not None:
        hooks.update(table(save_bulk))
    return {**hooks, **getter_hooks(field)}


@with_hooks(
    episodic_edge=edge_kind_hooks("episodic_edge"),
    community_edge=edge_kind_hooks("community_edge"),
    has_episode_edge=edge_kind_hooks("has_episode_edge", HasEpisodeEdge),
    next_episode_edge=edge_kind_hooks("next_episode_edge", NextEpisodeEdge),
)
class EdgeHooks(GraphHooks):
    """Edge hooks, delegating to the edge operations of the bundle."""

    # ----------------------------------------------------------------------- entity edges

    async def edge_save(self, edge: Any, driver: QueryExecutor) -> None:
        if isinstance(edge, EntityEdge):
            return await self.ops.entity_edge.save(driver, edge)
        await self.ops.graph.save_edges([edge])

    async def edge_delete(self, edge: Any, driver: QueryExecutor) -> None:
        # Called by Entity/Episodic/Community edges' ``delete``: any relationship type.
        await self.ops.graph.delete_edges([edge.uuid])

    async def edge_save_bulk(
        self,
        _cls: Any,
        driver: QueryExecutor,
        transaction: Any,
        edges: list[Any],
        batch_size: int = 100,
    ) -> None:
        await self.ops.entity_edge.save_payloads(
            [e if isinstance(e, dict) else entity_edge_payload(e) for e in edges]
        )

    async def edge_delete_by_uuids(
        self, _cls: Any, driver: QueryExecutor, uuids: list[str], group_id: str | None = None
    ) -> None:
        # ``remove_episode`` deletes its facts through the base class, before the episode: that
        # purge may wait for the episode's compaction (StoreRunner.remove).
        step = "part" if _cls is Edge else ""
        await self.ops.graph.delete_edges(uuids, _rels_of(_cls), group_id, step=step)

    async def edge_get_by_uuid(self, _cls: Any, driver: QueryExecutor, uuid: str) -> Any:
        return await self.ops.entity_edge.get_by_uuid(driver, uuid)

    async def edge_get_by_uuids(
        self, _cls: Any, driver: QueryExecutor, uuids: list[str]
    ) -> list[Any]:
        return await self.ops.entity_edge.get_by_uuids(driver, uuids)

    async def edge_get_by_group_ids(
        self,
        _cls: Any,
        driver: QueryExecutor,
        group_ids: list[str],
        limit: int | None = None,
        uuid_cursor: str | None = None,
    ) -> list[Any]:
        embeddings = caller_asked_embeddings()
        edges = await self.ops.entity_edge.get_by_group_ids(driver, group_ids, limit, uuid_cursor)
        if embeddings:
            await self.ops.entity_edge.load_embeddings_bulk(driver, edges)
        return _found(edges, GroupsEdgesNotFoundError(group_ids))

    async def edge_load_embeddings(self, edge: Any, driver: QueryExecutor) -> None:
        await self.ops.entity_edge.load_embeddings(driver, edge)

    async def edge_load_embeddings_bulk(
        self, driver: QueryExecutor, edges: list[Any], batch_size: int = 100
    ) -> dict[str, list[float]]:
        return await self.ops.entity_edge.embeddings([e.uuid for e in edges])

    async def edge_get_between_nodes(
        self, _cls: Any, driver: QueryExecutor, source_node_uuid: str, target_node_uuid: str
    ) -> list[Any]:
        return await self.ops.entity_edge.get_between_nodes(
            driver, source_node_uuid, target_node_uuid
        )

    async def edge_get_by_node_uuid(
        self, _cls: Any, driver: QueryExecutor, node_uuid: str
    ) -> list[Any]:
        return await self.ops.entity_edge.get_by_node_uuid(driver, node_uuid)

    # ---------------------------------------- episodic edges (besides edge_kind_hooks)

    async def episodic_edge_save_bulk(
        self,
        _cls: Any,
        driver: QueryExecutor,
        transaction: Any,
        episodic_edges: list[Any],
        batch_size: int = 100,
    ) -> None:
        await self.ops.episodic_edge.save_payloads(dumps(episodic_edges))

    # Graphiti's own Neo4j fallbacks raise on an empty result here; so do these.

    async def episodic_edge_get_by_uuids(
        self, _cls: Any, driver: QueryExecutor, uuids: list[str]
    ) -> list[Any]:
        edges = await self.ops.episodic_edge.get_by_uuids(driver, uuids)
        return _found(edges, EdgeNotFoundError(uuids[0] if uuids else ""))

    async def episodic_edge_get_by_group_ids(
        self,
        _cls: Any,
        driver: QueryExecutor,
        group_ids: list[str],
        limit: int | None = None,
        uuid_cursor: str | None = None,
    ) -> list[Any]:
        edges = await self.ops.episodic_edge.get_by_group_ids(driver, group_ids, limit, uuid_cursor)
        return _found(edges, GroupsEdgesNotFoundError(group_ids))


__all__ = ["EdgeHooks", "edge_kind_hooks"]
