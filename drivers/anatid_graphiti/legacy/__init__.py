"""Graphiti's legacy hook interfaces, ``GraphOperationsInterface`` and ``SearchInterface``, as thin
adapters over one driver's operations bundle (:class:`anatid_graphiti.operations.Operations`).

Graphiti's model classes and maintenance helpers call these hooks first and fall back to raw
Cypher on ``NotImplementedError``; every hook here is implemented (none raises it), each by
delegating to the operations objects that the driver's ``*_ops`` properties return, which are the
real implementation and what Graphiti's planned phase 2 switches to. The hooks need nothing else
of the driver: Graphiti passes it to every hook, and they hand it on as the operations'
``executor``.

Where Graphiti's own Neo4j fallback raises on an empty result (``EpisodicEdge.get_by_uuids``, the
``get_by_group_ids`` of entity and episodic edges), so does the adapter, so model methods behave
the same on both backends.

Modules: :mod:`.hooks` (the bundle-holding base, hooks written once per kind), :mod:`.nodes`,
:mod:`.edges`, :mod:`.search`, :mod:`.payloads` (bulk payload conversions).
"""

from __future__ import annotations

from typing import Any

from graphiti_core.driver.query_executor import QueryExecutor

from ..operations import Operations
from .edges import EdgeHooks
from .nodes import NodeHooks
from .search import AnatidSearchInterface


class AnatidGraphOperations(NodeHooks, EdgeHooks):
    """Every ``GraphOperationsInterface`` hook: ``AnatidGraphOperations(operations)``."""

    # Pydantic gives every model class its own field-based __init__ (for type checkers too), so
    # the constructor taking the bundle is the composed class's.
    def __init__(self, ops: Operations) -> None:
        super().__init__()
        self._ops = ops

    # ---------------------------------------------------------------- search, maintenance

    async def get_mentioned_nodes(self, driver: QueryExecutor, episodes: list[Any]) -> list[Any]:
        return await self.ops.graph.get_mentioned_nodes(driver, episodes)

    async def get_communities_by_nodes(self, driver: QueryExecutor, nodes: list[Any]) -> list[Any]:
        return await self.ops.graph.get_communities_by_nodes(driver, nodes)

    async def clear_data(self, driver: QueryExecutor, group_ids: list[str] | None = None) -> None:
        await self.ops.graph.clear_data(driver, group_ids)

    async def get_community_clusters(
        self, driver: QueryExecutor, group_ids: list[str] | None
    ) -> list[list[Any]]:
        return await self.ops.graph.get_community_clusters(driver, group_ids)

    async def remove_communities(
        self, driver: QueryExecutor, group_ids: list[str] | None = None
    ) -> None:
        await self.ops.graph.remove_communities(driver, group_ids)

    async def determine_entity_community(
        self, driver: QueryExecutor, entity: Any
    ) -> tuple[Any | None, bool]:
        return await self.ops.graph.determine_entity_community(driver, entity)


__all__ = ["AnatidGraphOperations", "AnatidSearchInterface"]
