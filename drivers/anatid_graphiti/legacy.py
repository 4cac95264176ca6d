"""Graphiti's legacy hook interface ``GraphOperationsInterface``, as a thin adapter.

Graphiti's model classes and maintenance helpers call these hooks first and fall back to raw
Cypher on ``NotImplementedError``; every method here is implemented (none raises it), each by
delegating to the driver's operations objects (``driver.entity_node_ops`` ...), which are the real
implementation and what Graphiti's planned phase 2 switches to.

Where Graphiti's own Neo4j fallback raises on an empty result (``EpisodicEdge.get_by_uuids``, the
``get_by_group_ids`` of entity and episodic edges), so does the adapter, so model methods behave
the same on both backends.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from graphiti_core.driver.graph_operations.graph_operations import GraphOperationsInterface
from graphiti_core.edges import (
    EntityEdge,
    HasEpisodeEdge,
    NextEpisodeEdge,
)
from graphiti_core.errors import EdgeNotFoundError, GroupsEdgesNotFoundError
from graphiti_core.nodes import CommunityNode, EntityNode, EpisodicNode, SagaNode

from . import mapping as m

if TYPE_CHECKING:
    from .driver import GraphitiDriver

#: Labels a ``Node.delete_by_*`` class method reaches on Neo4j, by class.
_NODE_CLASS_LABELS: dict[Any, list[str]] = {
    EntityNode: [m.ENTITY],
    EpisodicNode: [m.EPISODIC],
    CommunityNode: [m.COMMUNITY],
    SagaNode: [m.SAGA],
}
_BASE_NODE_LABELS = [m.ENTITY, m.EPISODIC, m.COMMUNITY]


def _labels_of(cls: Any) -> list[str]:
    return _NODE_CLASS_LABELS.get(cls, _BASE_NODE_LABELS)


def _rels_of(cls: Any) -> list[str] | None:
    return [m.EDGE_KINDS[cls]] if cls in m.EDGE_KINDS else None


def _dumps(items: list[Any]) -> list[dict[str, Any]]:
    return [i if isinstance(i, dict) else i.model_dump() for i in items]


def _models(cls: Any, items: list[Any]) -> list[Any]:
    return [i if isinstance(i, cls) else cls(**i) for i in items]


class AnatidGraphOperations(GraphOperationsInterface):
    """Every ``GraphOperationsInterface`` hook, delegating to the driver's operations."""

    # --------------------------------------------------------------------- entity nodes

    async def node_save(self, node: Any, driver: GraphitiDriver) -> None:
        if isinstance(node, EntityNode):
            return await driver.entity_node_ops.save(driver, node)
        await driver.graph_ops.save_nodes([node])

    async def node_delete(self, node: Any, driver: GraphitiDriver) -> None:
        # Called by Entity/Episodic/Community ``delete``: detach-delete whatever the kind.
        await driver.graph_ops.delete_nodes([node.uuid], [*_BASE_NODE_LABELS, m.SAGA])

    async def node_save_bulk(
        self,
        _cls: Any,
        driver: GraphitiDriver,
        transaction: Any,
        nodes: list[Any],
        batch_size: int = 100,
    ) -> None:
        await driver.entity_node_ops.save_payloads([n for n in nodes if isinstance(n, dict)])
        models = [n for n in nodes if not isinstance(n, dict)]
        if models:
            await driver.entity_node_ops.save_bulk(driver, models)

    async def node_delete_by_group_id(
        self, _cls: Any, driver: GraphitiDriver, group_id: str, batch_size: int = 100
    ) -> None:
        await driver.graph_ops.delete_nodes_of_group(group_id, _labels_of(_cls))

    async def node_delete_by_uuids(
        self,
        _cls: Any,
        driver: GraphitiDriver,
        uuids: list[str],
        group_id: str | None = None,
        batch_size: int = 100,
    ) -> None:
        await driver.graph_ops.delete_nodes(uuids, _labels_of(_cls), group_id)

    async def node_get_by_uuid(self, _cls: Any, driver: GraphitiDriver, uuid: str) -> Any:
        return await driver.entity_node_ops.get_by_uuid(driver, uuid)

    async def node_get_by_uuids(
        self, _cls: Any, driver: GraphitiDriver, uuids: list[str], group_id: str | None = None
    ) -> list[Any]:
        nodes = await driver.entity_node_ops.get_by_uuids(driver, uuids)
        return [n for n in nodes if group_id is None or n.group_id == group_id]

    async def node_get_by_group_ids(
        self,
        _cls: Any,
        driver: GraphitiDriver,
        group_ids: list[str],
        limit: int | None = None,
        uuid_cursor: str | None = None,
    ) -> list[Any]:
        return await driver.entity_node_ops.get_by_group_ids(driver, group_ids, limit, uuid_cursor)

    async def node_get_by_names(
        self, _cls: Any, driver: GraphitiDriver, names: list[str], group_ids: list[str]
    ) -> list[Any]:
        return await driver.entity_node_ops.get_by_names(names, group_ids)

    async def node_get_by_attribute_values(
        self,
        _cls: Any,
        driver: GraphitiDriver,
        group_id: str,
        attributes: dict[str, Any],
        node_labels: list[str] | None = None,
        limit: int = 100,
    ) -> list[Any]:
        return await driver.entity_node_ops.get_by_attribute_values(
            group_id, attributes, node_labels, limit
        )

    async def node_load_embeddings(self, node: Any, driver: GraphitiDriver) -> None:
        await driver.entity_node_ops.load_embeddings(driver, node)

    async def node_load_embeddings_bulk(
        self, driver: GraphitiDriver, nodes: list[Any], batch_size: int = 100
    ) -> dict[str, list[float]]:
        return await driver.entity_node_ops.embeddings([n.uuid for n in nodes])

    # -------------------------------------------------------------------------- episodes

    async def episodic_node_save(self, node: Any, driver: GraphitiDriver) -> None:
        await driver.episode_node_ops.save(driver, node)

    async def episodic_node_delete(self, node: Any, driver: GraphitiDriver) -> None:
        await driver.episode_node_ops.delete(driver, node)

    async def episodic_node_save_bulk(
        self,
        _cls: Any,
        driver: GraphitiDriver,
        transaction: Any,
        nodes: list[Any],
        batch_size: int = 100,
    ) -> None:
        await driver.episode_node_ops.save_payloads(
            [n if isinstance(n, dict) else dict(n) for n in nodes]
        )

    async def episodic_edge_save_bulk(
        self,
        _cls: Any,
        driver: GraphitiDriver,
        transaction: Any,
        episodic_edges: list[Any],
        batch_size: int = 100,
    ) -> None:
        await driver.episodic_edge_ops.save_payloads(_dumps(episodic_edges))

    async def episodic_node_delete_by_group_id(
        self, _cls: Any, driver: GraphitiDriver, group_id: str, batch_size: int = 100
    ) -> None:
        await driver.episode_node_ops.delete_by_group_id(driver, group_id)

    async def episodic_node_delete_by_uuids(
        self,
        _cls: Any,
        driver: GraphitiDriver,
        uuids: list[str],
        group_id: str | None = None,
        batch_size: int = 100,
    ) -> None:
        await driver.graph_ops.delete_nodes(uuids, [m.EPISODIC], group_id)

    async def episodic_node_get_by_uuid(self, _cls: Any, driver: GraphitiDriver, uuid: str) -> Any:
        return await driver.episode_node_ops.get_by_uuid(driver, uuid)

    async def episodic_node_get_by_uuids(
        self, _cls: Any, driver: GraphitiDriver, uuids: list[str]
    ) -> list[Any]:
        return await driver.episode_node_ops.get_by_uuids(driver, uuids)

    async def episodic_node_get_by_group_ids(
        self,
        _cls: Any,
        driver: GraphitiDriver,
        group_ids: list[str],
        limit: int | None = None,
        uuid_cursor: str | None = None,
    ) -> list[Any]:
        return await driver.episode_node_ops.get_by_group_ids(driver, group_ids, limit, uuid_cursor)

    async def retrieve_episodes(
        self,
        driver: GraphitiDriver,
        reference_time: Any,
        last_n: int = 3,
        group_ids: list[str] | None = None,
        source: Any | None = None,
        saga: str | None = None,
    ) -> list[Any]:
        return await driver.episode_node_ops.retrieve_episodes(
            driver, reference_time, last_n, group_ids, source, saga
        )

    async def episodic_node_get_by_entity_node_uuid(
        self, _cls: Any, driver: GraphitiDriver, entity_node_uuid: str
    ) -> list[Any]:
        return await driver.episode_node_ops.get_by_entity_node_uuid(driver, entity_node_uuid)

    # ----------------------------------------------------------------------- communities

    async def community_node_save(self, node: Any, driver: GraphitiDriver) -> None:
        await driver.community_node_ops.save(driver, node)

    async def community_node_delete(self, node: Any, driver: GraphitiDriver) -> None:
        await driver.community_node_ops.delete(driver, node)

    async def community_node_save_bulk(
        self,
        _cls: Any,
        driver: GraphitiDriver,
        transaction: Any,
        nodes: list[Any],
        batch_size: int = 100,
    ) -> None:
        await driver.community_node_ops.save_bulk(driver, _models(CommunityNode, nodes))

    async def community_node_delete_by_group_id(
        self, _cls: Any, driver: GraphitiDriver, group_id: str, batch_size: int = 100
    ) -> None:
        await driver.community_node_ops.delete_by_group_id(driver, group_id)

    async def community_node_delete_by_uuids(
        self,
        _cls: Any,
        driver: GraphitiDriver,
        uuids: list[str],
        group_id: str | None = None,
        batch_size: int = 100,
    ) -> None:
        await driver.graph_ops.delete_nodes(uuids, [m.COMMUNITY], group_id)

    async def community_node_get_by_uuid(self, _cls: Any, driver: GraphitiDriver, uuid: str) -> Any:
        return await driver.community_node_ops.get_by_uuid(driver, uuid)

    async def community_node_get_by_uuids(
        self, _cls: Any, driver: GraphitiDriver, uuids: list[str]
    ) -> list[Any]:
        return await driver.community_node_ops.get_by_uuids(driver, uuids)

    async def community_node_get_by_group_ids(
        self,
        _cls: Any,
        driver: GraphitiDriver,
        group_ids: list[str],
        limit: int | None = None,
        uuid_cursor: str | None = None,
    ) -> list[Any]:
        return await driver.community_node_ops.get_by_group_ids(
            driver, group_ids, limit, uuid_cursor
        )

    async def community_node_load_name_embedding(self, node: Any, driver: GraphitiDriver) -> None:
        await driver.community_node_ops.load_name_embedding(driver, node)

    # ----------------------------------------------------------------------------- sagas

    async def saga_node_save(self, node: Any, driver: GraphitiDriver) -> None:
        await driver.saga_node_ops.save(driver, node)

    async def saga_node_delete(self, node: Any, driver: GraphitiDriver) -> None:
        await driver.saga_node_ops.delete(driver, node)

    async def saga_node_save_bulk(
        self,
        _cls: Any,
        driver: GraphitiDriver,
        transaction: Any,
        nodes: list[Any],
        batch_size: int = 100,
    ) -> None:
        await driver.saga_node_ops.save_bulk(driver, _models(SagaNode, nodes))

    async def saga_node_delete_by_group_id(
        self, _cls: Any, driver: GraphitiDriver, group_id: str, batch_size: int = 100
    ) -> None:
        await driver.saga_node_ops.delete_by_group_id(driver, group_id)

    async def saga_node_delete_by_uuids(
        self,
        _cls: Any,
        driver: GraphitiDriver,
        uuids: list[str],
        group_id: str | None = None,
        batch_size: int = 100,
    ) -> None:
        await driver.graph_ops.delete_nodes(uuids, [m.SAGA], group_id)

    async def saga_node_get_by_uuid(self, _cls: Any, driver: GraphitiDriver, uuid: str) -> Any:
        return await driver.saga_node_ops.get_by_uuid(driver, uuid)

    async def saga_node_get_by_uuids(
        self, _cls: Any, driver: GraphitiDriver, uuids: list[str]
    ) -> list[Any]:
        return await driver.saga_node_ops.get_by_uuids(driver, uuids)

    async def saga_node_get_by_group_ids(
        self,
        _cls: Any,
        driver: GraphitiDriver,
        group_ids: list[str],
        limit: int | None = None,
        uuid_cursor: str | None = None,
    ) -> list[Any]:
        return await driver.saga_node_ops.get_by_group_ids(driver, group_ids, limit, uuid_cursor)

    async def saga_get_previous_episode_uuid(
        self, driver: GraphitiDriver, saga_uuid: str, current_episode_uuid: str
    ) -> str | None:
        return await driver.saga_node_ops.previous_episode_uuid(saga_uuid, current_episode_uuid)

    async def saga_get_episode_contents(
        self, driver: GraphitiDriver, saga_uuid: str, since: Any | None = None, limit: int = 200
    ) -> list[tuple[str, Any, Any]]:
        return await driver.saga_node_ops.episode_contents(saga_uuid, since, limit)

    # ----------------------------------------------------------------------- entity edges

    async def edge_save(self, edge: Any, driver: GraphitiDriver) -> None:
        if isinstance(edge, EntityEdge):
            return await driver.entity_edge_ops.save(driver, edge)
        await driver.graph_ops.save_edges([edge])

    async def edge_delete(self, edge: Any, driver: GraphitiDriver) -> None:
        # Called by Entity/Episodic/Community edges' ``delete``: any relationship type.
        await driver.graph_ops.delete_edges([edge.uuid])

    async def edge_save_bulk(
        self,
        _cls: Any,
        driver: GraphitiDriver,
        transaction: Any,
        edges: list[Any],
        batch_size: int = 100,
    ) -> None:
        await driver.entity_edge_ops.save_payloads(
            [e if isinstance(e, dict) else _entity_edge_payload(e) for e in edges]
        )

    async def edge_delete_by_uuids(
        self, _cls: Any, driver: GraphitiDriver, uuids: list[str], group_id: str | None = None
    ) -> None:
        await driver.graph_ops.delete_edges(uuids, _rels_of(_cls), group_id)

    async def edge_get_by_uuid(self, _cls: Any, driver: GraphitiDriver, uuid: str) -> Any:
        return await driver.entity_edge_ops.get_by_uuid(driver, uuid)

    async def edge_get_by_uuids(
        self, _cls: Any, driver: GraphitiDriver, uuids: list[str]
    ) -> list[Any]:
        return await driver.entity_edge_ops.get_by_uuids(driver, uuids)

    async def edge_get_by_group_ids(
        self,
        _cls: Any,
        driver: GraphitiDriver,
        group_ids: list[str],
        limit: int | None = None,
        uuid_cursor: str | None = None,
    ) -> list[Any]:
        edges = await driver.entity_edge_ops.get_by_group_ids(driver, group_ids, limit, uuid_cursor)
        if not edges:
            raise GroupsEdgesNotFoundError(group_ids)
        return edges

    async def edge_load_embeddings(self, edge: Any, driver: GraphitiDriver) -> None:
        await driver.entity_edge_ops.load_embeddings(driver, edge)

    async def edge_load_embeddings_bulk(
        self, driver: GraphitiDriver, edges: list[Any], batch_size: int = 100
    ) -> dict[str, list[float]]:
        return await driver.entity_edge_ops.embeddings([e.uuid for e in edges])

    async def edge_get_between_nodes(
        self, _cls: Any, driver: GraphitiDriver, source_node_uuid: str, target_node_uuid: str
    ) -> list[Any]:
        return await driver.entity_edge_ops.get_between_nodes(
            driver, source_node_uuid, target_node_uuid
        )

    async def edge_get_by_node_uuid(
        self, _cls: Any, driver: GraphitiDriver, node_uuid: str
    ) -> list[Any]:
        return await driver.entity_edge_ops.get_by_node_uuid(driver, node_uuid)

    # --------------------------------------------------------------------- episodic edges

    async def episodic_edge_save(self, edge: Any, driver: GraphitiDriver) -> None:
        await driver.episodic_edge_ops.save(driver, edge)

    async def episodic_edge_delete(self, edge: Any, driver: GraphitiDriver) -> None:
        await driver.episodic_edge_ops.delete(driver, edge)

    async def episodic_edge_delete_by_uuids(
        self, _cls: Any, driver: GraphitiDriver, uuids: list[str], group_id: str | None = None
    ) -> None:
        await driver.graph_ops.delete_edges(uuids, [m.MENTIONS], group_id)

    async def episodic_edge_get_by_uuid(self, _cls: Any, driver: GraphitiDriver, uuid: str) -> Any:
        return await driver.episodic_edge_ops.get_by_uuid(driver, uuid)

    async def episodic_edge_get_by_uuids(
        self, _cls: Any, driver: GraphitiDriver, uuids: list[str]
    ) -> list[Any]:
        edges = await driver.episodic_edge_ops.get_by_uuids(driver, uuids)
        if not edges:
            raise EdgeNotFoundError(uuids[0] if uuids else "")
        return edges

    async def episodic_edge_get_by_group_ids(
        self,
        _cls: Any,
        driver: GraphitiDriver,
        group_ids: list[str],
        limit: int | None = None,
        uuid_cursor: str | None = None,
    ) -> list[Any]:
        edges = await driver.episodic_edge_ops.get_by_group_ids(
            driver, group_ids, limit, uuid_cursor
        )
        if not edges:
            raise GroupsEdgesNotFoundError(group_ids)
        return edges

    # -------------------------------------------------------------------- community edges

    async def community_edge_save(self, edge: Any, driver: GraphitiDriver) -> None:
        await driver.community_edge_ops.save(driver, edge)

    async def community_edge_delete(self, edge: Any, driver: GraphitiDriver) -> None:
        await driver.community_edge_ops.delete(driver, edge)

    async def community_edge_delete_by_uuids(
        self, _cls: Any, driver: GraphitiDriver, uuids: list[str], group_id: str | None = None
    ) -> None:
        await driver.graph_ops.delete_edges(uuids, [m.HAS_MEMBER], group_id)

    async def community_edge_get_by_uuid(self, _cls: Any, driver: GraphitiDriver, uuid: str) -> Any:
        return await driver.community_edge_ops.get_by_uuid(driver, uuid)

    async def community_edge_get_by_uuids(
        self, _cls: Any, driver: GraphitiDriver, uuids: list[str]
    ) -> list[Any]:
        return await driver.community_edge_ops.get_by_uuids(driver, uuids)

    async def community_edge_get_by_group_ids(
        self,
        _cls: Any,
        driver: GraphitiDriver,
        group_ids: list[str],
        limit: int | None = None,
        uuid_cursor: str | None = None,
    ) -> list[Any]:
        return await driver.community_edge_ops.get_by_group_ids(
            driver, group_ids, limit, uuid_cursor
        )

    # ------------------------------------------------------------------ has-episode edges

    async def has_episode_edge_save(self, edge: Any, driver: GraphitiDriver) -> None:
        await driver.has_episode_edge_ops.save(driver, edge)

    async def has_episode_edge_delete(self, edge: Any, driver: GraphitiDriver) -> None:
        await driver.has_episode_edge_ops.delete(driver, edge)

    async def has_episode_edge_save_bulk(
        self,
        _cls: Any,
        driver: GraphitiDriver,
        transaction: Any,
        edges: list[Any],
        batch_size: int = 100,
    ) -> None:
        await driver.has_episode_edge_ops.save_bulk(driver, _models(HasEpisodeEdge, edges))

    async def has_episode_edge_delete_by_uuids(
        self, _cls: Any, driver: GraphitiDriver, uuids: list[str], group_id: str | None = None
    ) -> None:
        await driver.graph_ops.delete_edges(uuids, [m.HAS_EPISODE], group_id)

    async def has_episode_edge_get_by_uuid(
        self, _cls: Any, driver: GraphitiDriver, uuid: str
    ) -> Any:
        return await driver.has_episode_edge_ops.get_by_uuid(driver, uuid)

    async def has_episode_edge_get_by_uuids(
        self, _cls: Any, driver: GraphitiDriver, uuids: list[str]
    ) -> list[Any]:
        return await driver.has_episode_edge_ops.get_by_uuids(driver, uuids)

    async def has_episode_edge_get_by_group_ids(
        self,
        _cls: Any,
        driver: GraphitiDriver,
        group_ids: list[str],
        limit: int | None = None,
        uuid_cursor: str | None = None,
    ) -> list[Any]:
        return await driver.has_episode_edge_ops.get_by_group_ids(
            driver, group_ids, limit, uuid_cursor
        )

    # ----------------------------------------------------------------- next-episode edges

    async def next_episode_edge_save(self, edge: Any, driver: GraphitiDriver) -> None:
        await driver.next_episode_edge_ops.save(driver, edge)

    async def next_episode_edge_delete(self, edge: Any, driver: GraphitiDriver) -> None:
        await driver.next_episode_edge_ops.delete(driver, edge)

    async def next_episode_edge_save_bulk(
        self,
        _cls: Any,
        driver: GraphitiDriver,
        transaction: Any,
        edges: list[Any],
        batch_size: int = 100,
    ) -> None:
        await driver.next_episode_edge_ops.save_bulk(driver, _models(NextEpisodeEdge, edges))

    async def next_episode_edge_delete_by_uuids(
        self, _cls: Any, driver: GraphitiDriver, uuids: list[str], group_id: str | None = None
    ) -> None:
        await driver.graph_ops.delete_edges(uuids, [m.NEXT_EPISODE], group_id)

    async def next_episode_edge_get_by_uuid(
        self, _cls: Any, driver: GraphitiDriver, uuid: str
    ) -> Any:
        return await driver.next_episode_edge_ops.get_by_uuid(driver, uuid)

    async def next_episode_edge_get_by_uuids(
        self, _cls: Any, driver: GraphitiDriver, uuids: list[str]
    ) -> list[Any]:
        return await driver.next_episode_edge_ops.get_by_uuids(driver, uuids)

    async def next_episode_edge_get_by_group_ids(
        self,
        _cls: Any,
        driver: GraphitiDriver,
        group_ids: list[str],
        limit: int | None = None,
        uuid_cursor: str | None = None,
    ) -> list[Any]:
        return await driver.next_episode_edge_ops.get_by_group_ids(
            driver, group_ids, limit, uuid_cursor
        )

    # ---------------------------------------------------------------- search, maintenance

    async def get_mentioned_nodes(self, driver: GraphitiDriver, episodes: list[Any]) -> list[Any]:
        return await driver.graph_ops.get_mentioned_nodes(driver, episodes)

    async def get_communities_by_nodes(self, driver: GraphitiDriver, nodes: list[Any]) -> list[Any]:
        return await driver.graph_ops.get_communities_by_nodes(driver, nodes)

    async def clear_data(self, driver: GraphitiDriver, group_ids: list[str] | None = None) -> None:
        await driver.graph_ops.clear_data(driver, group_ids)

    async def get_community_clusters(
        self, driver: GraphitiDriver, group_ids: list[str] | None
    ) -> list[list[Any]]:
        return await driver.graph_ops.get_community_clusters(driver, group_ids)

    async def remove_communities(
        self, driver: GraphitiDriver, group_ids: list[str] | None = None
    ) -> None:
        await driver.graph_ops.remove_communities(driver, group_ids)

    async def determine_entity_community(
        self, driver: GraphitiDriver, entity: Any
    ) -> tuple[Any | None, bool]:
        return await driver.graph_ops.determine_entity_community(driver, entity)


def _entity_edge_payload(edge: EntityEdge) -> dict[str, Any]:
    payload = edge.model_dump(exclude={"attributes"})
    for key, value in (edge.attributes or {}).items():
        payload.setdefault(key, value)
    return payload


__all__ = ["AnatidGraphOperations"]
