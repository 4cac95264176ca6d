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

from .legacy_edges import EdgeHooks
from .legacy_nodes import NodeHooks

if TYPE_CHECKING:
    from .driver import GraphitiDriver


class AnatidGraphOperations(NodeHooks, EdgeHooks, GraphOperationsInterface):
    """Every ``GraphOperationsInterface`` hook, delegating to the driver's operations."""

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


__all__ = ["AnatidGraphOperations"]
