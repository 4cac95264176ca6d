"""Fact and node search: Graphiti's recipes, the date filters, and the ``as_of`` view.

The recipes are those Graphiti's ``search`` uses (hybrid BM25 + cosine, fused by RRF, or ranked
by graph distance around a centre node). Without an embedder the cosine half is dropped, so the
read tools still answer (by full text) on a server that has no model configured.
"""

from __future__ import annotations

from datetime import datetime

from graphiti_core.edges import EntityEdge
from graphiti_core.nodes import EntityNode
from graphiti_core.search.search_config import (
    EdgeSearchMethod,
    NodeSearchMethod,
    SearchConfig,
)
from graphiti_core.search.search_config_recipes import (
    EDGE_HYBRID_SEARCH_NODE_DISTANCE,
    EDGE_HYBRID_SEARCH_RRF,
    NODE_HYBRID_SEARCH_NODE_DISTANCE,
    NODE_HYBRID_SEARCH_RRF,
)
from graphiti_core.search.search_filters import ComparisonOperator, DateFilter, SearchFilters

from anatid_core import InvalidInput

from .inputs import BadInput, search_filters, uuid_arg
from .memory import Memory


def _recipe(base: SearchConfig, limit: int, vectors: bool) -> SearchConfig:
    config = base.model_copy(deep=True)  # the recipes are module globals: never mutate them
    config.limit = limit
    if not vectors:
        if config.edge_config is not None:
            config.edge_config.search_methods = [
                m
                for m in config.edge_config.search_methods
                if m != EdgeSearchMethod.cosine_similarity
            ]
        if config.node_config is not None:
            config.node_config.search_methods = [
                m
                for m in config.node_config.search_methods
                if m != NodeSearchMethod.cosine_similarity
            ]
    return config


def date_range(after: datetime | None, before: datetime | None) -> list[list[DateFilter]] | None:
    """``[[>= after, <= before]]`` (one AND group), or None when neither bound is given."""
    group = []
    if after is not None:
        group.append(
            DateFilter(date=after, comparison_operator=ComparisonOperator.greater_than_equal)
        )
    if before is not None:
        group.append(
            DateFilter(date=before, comparison_operator=ComparisonOperator.less_than_equal)
        )
    return [group] if group else None


async def _check_center(memory: Memory, center: str | None, as_of: datetime | None) -> None:
    if center is not None:
        uuid_arg("center_node_uuid", center)
        try:
            await EntityNode.get_by_uuid(memory.at(as_of), center)
        except InvalidInput as exc:  # not an id at all (a NUL, a lone surrogate, too long)
            raise BadInput(f"center_node_uuid is not usable as a uuid ({exc})") from None
        except Exception as exc:
            raise BadInput(
                f"center_node_uuid {center!r:.80} is not an entity in this memory"
            ) from exc


async def facts(
    memory: Memory,
    query: str,
    group_ids: list[str],
    limit: int,
    center: str | None,
    search_filter: SearchFilters,
    as_of: datetime | None,
) -> list[EntityEdge]:
    await _check_center(memory, center, as_of)
    base = EDGE_HYBRID_SEARCH_RRF if center is None else EDGE_HYBRID_SEARCH_NODE_DISTANCE
    config = _recipe(base, limit, vectors="embedder" not in memory.clients.missing)
    results = await memory.graphiti.search_(
        query,
        config=config,
        group_ids=group_ids,
        center_node_uuid=center,
        search_filter=search_filter,
        driver=memory.at(as_of),
    )
    return results.edges[:limit]


async def nodes(
    memory: Memory,
    query: str,
    group_ids: list[str],
    limit: int,
    center: str | None,
    labels: list[str] | None,
    as_of: datetime | None,
) -> list[EntityNode]:
    await _check_center(memory, center, as_of)
    base = NODE_HYBRID_SEARCH_RRF if center is None else NODE_HYBRID_SEARCH_NODE_DISTANCE
    config = _recipe(base, limit, vectors="embedder" not in memory.clients.missing)
    results = await memory.graphiti.search_(
        query,
        config=config,
        group_ids=group_ids,
        center_node_uuid=center,
        search_filter=search_filters("entity_types", node_labels=labels),
        driver=memory.at(as_of),
    )
    return results.nodes[:limit]


__all__ = ["date_range", "facts", "nodes"]
