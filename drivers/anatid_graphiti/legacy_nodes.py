"""Node hooks of Graphiti's legacy ``GraphOperationsInterface`` (see :mod:`.legacy`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from graphiti_core.nodes import CommunityNode, EntityNode, EpisodicNode, SagaNode

from . import mapping as m

if TYPE_CHECKING:
    from .driver import GraphitiDriver

_NODE_CLASS_LABELS: dict[Any, list[str]] = {
    EntityNode: [m.ENTITY],
    EpisodicNode: [m.EPISODIC],
    CommunityNode: [m.COMMUNITY],
    SagaNode: [m.SAGA],
}
_BASE_NODE_LABELS = [m.ENTITY, m.EPISODIC, m.COMMUNITY]


def _labels_of(cls: Any) -> list[str]:
    return _NODE_CLASS_LABELS.get(cls, _BASE_NODE_LABELS)


def _dumps(items: list[Any]) -> list[dict[str, Any]]:
    return [i if isinstance(i, dict) else i.model_dump() for i in items]


def _models(cls: Any, items: list[Any]) -> list[Any]:
    return [i if isinstance(i, cls) else cls(**i) for i in items]


class NodeHooks:
    """Entity, episode, community and saga node hooks, delegating to the node operations."""

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
