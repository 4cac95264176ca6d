"""Node hooks of Graphiti's legacy ``GraphOperationsInterface`` (see :mod:`anatid_graphiti.legacy`).

Entity nodes have hooks of their own (``node_save`` ... ``node_load_embeddings_bulk``); episodes,
communities and sagas share one family of hooks (:func:`node_kind_hooks`), which the class below
writes out only where an episode hook differs.
"""

from __future__ import annotations

from typing import Any

from graphiti_core.driver.query_executor import QueryExecutor
from graphiti_core.nodes import CommunityNode, EntityNode, EpisodicNode, Node, SagaNode

from .. import mapping as m
from ..node_ops import NodeCrud
from .hooks import GraphHooks, HookTable, caller_asked_embeddings, getter_hooks, table, with_hooks
from .payloads import models

# ``Node.delete_by_group_id`` / ``Node.delete_by_uuids`` reach Entity, Episodic and Community
# nodes whichever class they are called on: Graphiti's own queries for Neo4j, FalkorDB and Kuzu
# ignore the class (``MATCH (n:Entity|Episodic|Community ...)``), and the differential harness
# holds us to that (tests/graphiti/differential). Sagas only go through SagaNode.
_BASE_NODE_LABELS = [m.ENTITY, m.EPISODIC, m.COMMUNITY]


def _labels_of(cls: Any) -> list[str]:
    return [m.SAGA] if cls is SagaNode else _BASE_NODE_LABELS


def node_kind_hooks(field: str, model: Any = None) -> HookTable:
    """``save``, ``delete``, ``save_bulk`` (if ``model``: saved as such models), the deletes and
    the getters of the node kind ``ops.<field>``."""

    def kind(hooks: GraphHooks) -> NodeCrud[Any]:
        return getattr(hooks.ops, field)

    async def save(self: GraphHooks, node: Any, driver: QueryExecutor) -> None:
        await kind(self).save(driver, node)

    async def delete(self: GraphHooks, node: Any, driver: QueryExecutor) -> None:
        await kind(self).delete(driver, node)

    async def save_bulk(
        self: GraphHooks,
        _cls: Any,
        driver: QueryExecutor,
        transaction: Any,
        nodes: list[Any],
        batch_size: int = 100,
    ) -> None:
        await kind(self).save_bulk(driver, models(model, nodes))

    async def delete_by_group_id(
        self: GraphHooks, _cls: Any, driver: QueryExecutor, group_id: str, batch_size: int = 100
    ) -> None:
        await kind(self).delete_by_group_id(driver, group_id)

    async def delete_by_uuids(
        self: GraphHooks,
        _cls: Any,
        driver: QueryExecutor,
        uuids: list[str],
        group_id: str | None = None,
        batch_size: int = 100,
    ) -> None:
        await self.ops.graph.delete_nodes(uuids, [kind(self).kind], group_id)

    hooks = table(save, delete, delete_by_group_id, delete_by_uuids)
    if model is not None:
        hooks.update(table(save_bulk))
    return {**hooks, **getter_hooks(field)}


@with_hooks(
    episodic_node=node_kind_hooks("episode_node"),
    community_node=node_kind_hooks("community_node", CommunityNode),
    saga_node=node_kind_hooks("saga_node", SagaNode),
)
class NodeHooks(GraphHooks):
    """Node hooks, delegating to the node operations of the bundle."""

    # --------------------------------------------------------------------- entity nodes

    async def node_save(self, node: Any, driver: QueryExecutor) -> None:
        if isinstance(node, EntityNode):
            return await self.ops.entity_node.save(driver, node)
        await self.ops.graph.save_nodes([node])

    async def node_delete(self, node: Any, driver: QueryExecutor) -> None:
        # Called by Entity/Episodic/Community ``delete``: detach-delete whatever the kind. An
        # episode's delete is the last step of ``remove_episode``, which compacts once for it.
        step = "last" if isinstance(node, EpisodicNode) else ""
        await self.ops.graph.delete_nodes([node.uuid], [*_BASE_NODE_LABELS, m.SAGA], step=step)

    async def node_save_bulk(
        self,
        _cls: Any,
        driver: QueryExecutor,
        transaction: Any,
        nodes: list[Any],
        batch_size: int = 100,
    ) -> None:
        await self.ops.entity_node.save_payloads([n for n in nodes if isinstance(n, dict)])
        entities = [n for n in nodes if not isinstance(n, dict)]
        if entities:
            await self.ops.entity_node.save_bulk(driver, entities)

    async def node_delete_by_group_id(
        self, _cls: Any, driver: QueryExecutor, group_id: str, batch_size: int = 100
    ) -> None:
        await self.ops.graph.delete_nodes_of_group(group_id, _labels_of(_cls))

    async def node_delete_by_uuids(
        self,
        _cls: Any,
        driver: QueryExecutor,
        uuids: list[str],
        group_id: str | None = None,
        batch_size: int = 100,
    ) -> None:
        # ``remove_episode`` deletes its orphaned entities through the base class, before the
        # episode: that purge may wait for the episode's compaction (StoreRunner.remove).
        step = "part" if _cls is Node else ""
        await self.ops.graph.delete_nodes(uuids, _labels_of(_cls), group_id, step=step)

    async def node_get_by_uuid(self, _cls: Any, driver: QueryExecutor, uuid: str) -> Any:
        return await self.ops.entity_node.get_by_uuid(driver, uuid)

    async def node_get_by_uuids(
        self, _cls: Any, driver: QueryExecutor, uuids: list[str], group_id: str | None = None
    ) -> list[Any]:
        nodes = await self.ops.entity_node.get_by_uuids(driver, uuids)
        return [n for n in nodes if group_id is None or n.group_id == group_id]

    async def node_get_by_group_ids(
        self,
        _cls: Any,
        driver: QueryExecutor,
        group_ids: list[str],
        limit: int | None = None,
        uuid_cursor: str | None = None,
    ) -> list[Any]:
        embeddings = caller_asked_embeddings()
        nodes = await self.ops.entity_node.get_by_group_ids(driver, group_ids, limit, uuid_cursor)
        if embeddings:
            await self.ops.entity_node.load_embeddings_bulk(driver, nodes)
        return nodes

    async def node_get_by_names(
        self, _cls: Any, driver: QueryExecutor, names: list[str], group_ids: list[str]
    ) -> list[Any]:
        return await self.ops.entity_node.get_by_names(names, group_ids)

    async def node_get_by_attribute_values(
        self,
        _cls: Any,
        driver: QueryExecutor,
        group_id: str,
        attributes: dict[str, Any],
        node_labels: list[str] | None = None,
        limit: int = 100,
    ) -> list[Any]:
        return await self.ops.entity_node.get_by_attribute_values(
            group_id, attributes, node_labels, limit
        )

    async def node_load_embeddings(self, node: Any, driver: QueryExecutor) -> None:
        await self.ops.entity_node.load_embeddings(driver, node)

    async def node_load_embeddings_bulk(
        self, driver: QueryExecutor, nodes: list[Any], batch_size: int = 100
    ) -> dict[str, list[float]]:
        return await self.ops.entity_node.embeddings([n.uuid for n in nodes])

    # ------------------------------------------- episodes (besides the node_kind_hooks)

    async def episodic_node_save_bulk(
        self,
        _cls: Any,
        driver: QueryExecutor,
        transaction: Any,
        nodes: list[Any],
        batch_size: int = 100,
    ) -> None:
        await self.ops.episode_node.save_payloads(
            [n if isinstance(n, dict) else dict(n) for n in nodes]
        )

    async def retrieve_episodes(
        self,
        driver: QueryExecutor,
        reference_time: Any,
        last_n: int = 3,
        group_ids: list[str] | None = None,
        source: Any | None = None,
        saga: str | None = None,
    ) -> list[Any]:
        return await self.ops.episode_node.retrieve_episodes(
            driver, reference_time, last_n, group_ids, source, saga
        )

    async def episodic_node_get_by_entity_node_uuid(
        self, _cls: Any, driver: QueryExecutor, entity_node_uuid: str
    ) -> list[Any]:
        return await self.ops.episode_node.get_by_entity_node_uuid(driver, entity_node_uuid)

    # ----------------------------------------- communities, sagas (besides node_kind_hooks)

    async def community_node_load_name_embedding(self, node: Any, driver: QueryExecutor) -> None:
        await self.ops.community_node.load_name_embedding(driver, node)

    async def saga_get_previous_episode_uuid(
        self, driver: QueryExecutor, saga_uuid: str, current_episode_uuid: str
    ) -> str | None:
        return await self.ops.saga_node.previous_episode_uuid(saga_uuid, current_episode_uuid)

    async def saga_get_episode_contents(
        self, driver: QueryExecutor, saga_uuid: str, since: Any | None = None, limit: int = 200
    ) -> list[tuple[str, Any, Any]]:
        return await self.ops.saga_node.episode_contents(saga_uuid, since, limit)


__all__ = ["NodeHooks", "node_kind_hooks"]
