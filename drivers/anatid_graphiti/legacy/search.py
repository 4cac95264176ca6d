"""Graphiti's legacy hook interface ``SearchInterface``, as a thin adapter over the bundle's
``search`` operations (see :mod:`anatid_graphiti.legacy`).

Graphiti's ``search`` consumes these shapes: lists of models for the searches, ``(uuids, scores)``
for the two rerankers, ``{uuid: vector}`` for community embeddings.
"""

from __future__ import annotations

from typing import Any

from graphiti_core.driver.query_executor import QueryExecutor
from graphiti_core.driver.search_interface.search_interface import SearchInterface
from graphiti_core.search.search_filters import SearchFilters
from pydantic import PrivateAttr

from ..operations import Operations


class AnatidSearchInterface(SearchInterface):
    """Every ``SearchInterface`` hook: ``AnatidSearchInterface(operations)``."""

    _ops: Operations = PrivateAttr()

    def __init__(self, ops: Operations) -> None:
        super().__init__()
        self._ops = ops

    async def edge_fulltext_search(
        self,
        driver: QueryExecutor,
        query: str,
        search_filter: Any,
        group_ids: list[str] | None = None,
        limit: int = 100,
    ) -> list[Any]:
        return await self._ops.search.edge_fulltext_search(
            driver, query, search_filter, group_ids, limit
        )

    async def edge_similarity_search(
        self,
        driver: QueryExecutor,
        search_vector: list[float],
        source_node_uuid: str | None,
        target_node_uuid: str | None,
        search_filter: Any,
        group_ids: list[str] | None = None,
        limit: int = 100,
        min_score: float = 0.7,
    ) -> list[Any]:
        return await self._ops.search.edge_similarity_search(
            driver,
            search_vector,
            source_node_uuid,
            target_node_uuid,
            search_filter,
            group_ids,
            limit,
            min_score,
        )

    async def node_fulltext_search(
        self,
        driver: QueryExecutor,
        query: str,
        search_filter: Any,
        group_ids: list[str] | None = None,
        limit: int = 100,
    ) -> list[Any]:
        return await self._ops.search.node_fulltext_search(
            driver, query, search_filter, group_ids, limit
        )

    async def node_similarity_search(
        self,
        driver: QueryExecutor,
        search_vector: list[float],
        search_filter: Any,
        group_ids: list[str] | None = None,
        limit: int = 100,
        min_score: float = 0.7,
    ) -> list[Any]:
        return await self._ops.search.node_similarity_search(
            driver, search_vector, search_filter, group_ids, limit, min_score
        )

    async def episode_fulltext_search(
        self,
        driver: QueryExecutor,
        query: str,
        search_filter: Any,
        group_ids: list[str] | None = None,
        limit: int = 100,
    ) -> list[Any]:
        return await self._ops.search.episode_fulltext_search(
            driver, query, search_filter or SearchFilters(), group_ids, limit
        )

    async def edge_bfs_search(
        self,
        driver: QueryExecutor,
        bfs_origin_node_uuids: list[str] | None,
        bfs_max_depth: int,
        search_filter: Any,
        group_ids: list[str] | None = None,
        limit: int = 100,
    ) -> list[Any]:
        return await self._ops.search.edge_bfs_search(
            driver, bfs_origin_node_uuids or [], bfs_max_depth, search_filter, group_ids, limit
        )

    async def node_bfs_search(
        self,
        driver: QueryExecutor,
        bfs_origin_node_uuids: list[str] | None,
        search_filter: Any,
        bfs_max_depth: int,
        group_ids: list[str] | None = None,
        limit: int = 100,
    ) -> list[Any]:
        return await self._ops.search.node_bfs_search(
            driver, bfs_origin_node_uuids or [], search_filter, bfs_max_depth, group_ids, limit
        )

    async def community_fulltext_search(
        self,
        driver: QueryExecutor,
        query: str,
        group_ids: list[str] | None = None,
        limit: int = 100,
    ) -> list[Any]:
        return await self._ops.search.community_fulltext_search(driver, query, group_ids, limit)

    async def community_similarity_search(
        self,
        driver: QueryExecutor,
        search_vector: list[float],
        group_ids: list[str] | None = None,
        limit: int = 100,
        min_score: float = 0.6,
    ) -> list[Any]:
        return await self._ops.search.community_similarity_search(
            driver, search_vector, group_ids, limit, min_score
        )

    async def get_embeddings_for_communities(
        self, driver: QueryExecutor, communities: list[Any]
    ) -> dict[str, list[float]]:
        return await self._ops.community_node.embeddings([c.uuid for c in communities])

    async def node_distance_reranker(
        self,
        driver: QueryExecutor,
        node_uuids: list[str],
        center_node_uuid: str,
        min_score: float = 0,
    ) -> tuple[list[str], list[float]]:
        return await self._ops.search.node_distance_scores(node_uuids, center_node_uuid, min_score)

    async def episode_mentions_reranker(
        self, driver: QueryExecutor, node_uuids: list[list[str]], min_score: float = 0
    ) -> tuple[list[str], list[float]]:
        return await self._ops.search.episode_mentions_scores(node_uuids, min_score)

    def build_node_search_filters(self, search_filters: Any) -> Any:
        return self._ops.search.build_node_search_filters(search_filters)

    def build_edge_search_filters(self, search_filters: Any) -> Any:
        return self._ops.search.build_edge_search_filters(search_filters)


__all__ = ["AnatidSearchInterface"]
