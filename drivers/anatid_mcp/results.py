"""Graphiti objects -> the dicts the tools return (the shapes of Graphiti's MCP server).

Embeddings never leave the server: they are large, and a client has no use for them.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from graphiti_core.edges import EntityEdge
from graphiti_core.nodes import EntityNode, EpisodicNode

from .responses import EdgeResult, NodeResult


def iso(value: datetime | None) -> str | None:
    return value.isoformat() if value is not None else None


def node_result(node: EntityNode) -> NodeResult:
    attrs = {k: v for k, v in (node.attributes or {}).items() if "embedding" not in k.lower()}
    return NodeResult(
        uuid=node.uuid,
        name=node.name,
        labels=list(node.labels or []),
        created_at=iso(node.created_at),
        summary=node.summary,
        group_id=node.group_id,
        attributes=attrs,
    )


def edge_result(edge: EntityEdge) -> EdgeResult:
    return EdgeResult(
        uuid=edge.uuid,
        name=edge.name,
        fact=edge.fact,
        source_node_uuid=edge.source_node_uuid,
        target_node_uuid=edge.target_node_uuid,
        group_id=edge.group_id,
        created_at=iso(edge.created_at),
        valid_at=iso(edge.valid_at),
        invalid_at=iso(edge.invalid_at),
    )


def fact_result(edge: EntityEdge) -> dict[str, Any]:
    """The whole edge as JSON (every field Graphiti has, dates as ISO text), minus its vector."""
    out = edge.model_dump(mode="json", exclude={"fact_embedding"})
    out.get("attributes", {}).pop("fact_embedding", None)
    return out


def episode_result(episode: EpisodicNode) -> dict[str, Any]:
    return {
        "uuid": episode.uuid,
        "name": episode.name,
        "content": episode.content,
        "created_at": iso(episode.created_at),
        "source": episode.source.value,
        "source_description": episode.source_description,
        "group_id": episode.group_id,
    }


def record_result(item: Any) -> dict[str, Any]:
    """Any Graphiti node or edge as JSON, minus vectors (for history and change lists)."""
    if isinstance(item, EntityEdge):
        return fact_result(item)
    if isinstance(item, EntityNode):
        return dict(node_result(item))
    if isinstance(item, EpisodicNode):
        return episode_result(item)
    out = item.model_dump(mode="json", exclude={"name_embedding", "fact_embedding"})
    return out


def kind_of(item: Any) -> str:
    """``fact``, ``entity``, ``episode`` ... the name a client knows the record by."""
    if isinstance(item, EntityEdge):
        return "fact"
    if isinstance(item, EntityNode):
        return "entity"
    if isinstance(item, EpisodicNode):
        return "episode"
    return type(item).__name__.removesuffix("Node").removesuffix("Edge").lower() or "record"


__all__ = [
    "edge_result",
    "episode_result",
    "fact_result",
    "iso",
    "kind_of",
    "node_result",
    "record_result",
]
