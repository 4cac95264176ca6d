"""Edge hooks of Graphiti's legacy ``GraphOperationsInterface`` (see :mod:`.legacy`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from graphiti_core.edges import EntityEdge, HasEpisodeEdge, NextEpisodeEdge
from graphiti_core.errors import EdgeNotFoundError, GroupsEdgesNotFoundError

from . import mapping as m

if TYPE_CHECKING:
    from .driver import GraphitiDriver


def _rels_of(cls: Any) -> list[str] | None:
    return [m.EDGE_KINDS[cls]] if cls in m.EDGE_KINDS else None


def _dumps(items: list[Any]) -> list[dict[str, Any]]:
    return [i if isinstance(i, dict) else i.model_dump() for i in items]


def _models(cls: Any, items: list[Any]) -> list[Any]:
    return [i if isinstance(i, cls) else cls(**i) for i in items]


class EdgeHooks:
    """Entity, episodic, community, has-episode and next-episode edge hooks."""

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


def _entity_edge_payload(edge: EntityEdge) -> dict[str, Any]:
    payload = edge.model_dump(exclude={"attributes"})
    for key, value in (edge.attributes or {}).items():
        payload.setdefault(key, value)
    return payload
