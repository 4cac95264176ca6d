"""Graphiti's edge models as anatid edges and back (see :mod:`anatid_graphiti.mapping`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from graphiti_core.edges import (
    CommunityEdge,
    EntityEdge,
    EpisodicEdge,
    HasEpisodeEdge,
    NextEpisodeEdge,
)
from graphiti_core.edges import Edge as GraphitiEdge

from anatid_core import Edge

from .records import (
    EDGE_KINDS,
    EDGE_PAYLOAD_KEYS,
    FACT_SPACE,
    HAS_EPISODE,
    HAS_MEMBER,
    MENTIONS,
    NEXT_EPISODE,
    RELATES_TO,
    split_attributes,
    stored_time,
    valid_columns,
)


def entity_edge(edge: EntityEdge) -> Edge:
    return entity_payload_edge(
        {
            "uuid": edge.uuid,
            "source_node_uuid": edge.source_node_uuid,
            "target_node_uuid": edge.target_node_uuid,
            "name": edge.name,
            "fact": edge.fact,
            "group_id": edge.group_id,
            "episodes": edge.episodes,
            "created_at": edge.created_at,
            "expired_at": edge.expired_at,
            "valid_at": edge.valid_at,
            "invalid_at": edge.invalid_at,
            "reference_time": edge.reference_time,
            "fact_embedding": edge.fact_embedding,
        },
        dict(edge.attributes or {}),
    )


def entity_payload_edge(
    data: Mapping[str, Any], attributes: Mapping[str, Any] | None = None
) -> Edge:
    """An entity edge from Graphiti's bulk payload dict (attributes flattened at the top level)."""
    if attributes is None:
        attributes = split_attributes(data, EDGE_PAYLOAD_KEYS)
    props: dict[str, Any] = {
        "created_at": data.get("created_at"),
        "expired_at": data.get("expired_at"),
        "episodes": list(data.get("episodes") or []),
        "reference_time": data.get("reference_time"),
        "attributes": dict(attributes),
    }
    valid_from, valid_to = valid_columns(
        props, ("valid_at", data.get("valid_at")), ("invalid_at", data.get("invalid_at"))
    )
    return Edge(
        id=data["uuid"],
        src=data["source_node_uuid"],
        dst=data["target_node_uuid"],
        rel=RELATES_TO,
        group=data.get("group_id") or "",
        name=data.get("name") or "",
        text=data.get("fact") or "",
        props=props,
        embedding=data.get("fact_embedding"),
        space=FACT_SPACE,
        valid_from=valid_from,
        valid_to=valid_to,
    )


def plain_payload_edge(data: Mapping[str, Any], rel: str) -> Edge:
    """A MENTIONS / HAS_MEMBER / HAS_EPISODE / NEXT_EPISODE edge from its model dump."""
    return Edge(
        id=data["uuid"],
        src=data["source_node_uuid"],
        dst=data["target_node_uuid"],
        rel=rel,
        group=data.get("group_id") or "",
        props={"created_at": data.get("created_at")},
    )


def to_edge(edge: GraphitiEdge) -> Edge:
    """Any Graphiti edge model as an anatid edge."""
    if isinstance(edge, EntityEdge):
        return entity_edge(edge)
    for cls, rel in EDGE_KINDS.items():
        if isinstance(edge, cls):
            return plain_payload_edge(edge.model_dump(), rel)
    raise TypeError(f"no anatid mapping for Graphiti edge type {type(edge).__name__}")


def to_entity_edge(edge: Edge, embedding: list[float] | None = None) -> EntityEdge:
    p = edge.props
    return EntityEdge(
        uuid=edge.id,
        source_node_uuid=edge.src,
        target_node_uuid=edge.dst,
        group_id=edge.group,
        name=edge.name,
        fact=edge.text,
        fact_embedding=embedding,
        episodes=list(p.get("episodes") or []),
        created_at=p["created_at"],
        expired_at=p.get("expired_at"),
        valid_at=stored_time(edge, "valid_at", edge.valid_from),
        invalid_at=stored_time(edge, "invalid_at", edge.valid_to),
        reference_time=p.get("reference_time"),
        attributes=dict(p.get("attributes") or {}),
    )


_PLAIN_EDGE_MODELS: dict[str, type[GraphitiEdge]] = {
    MENTIONS: EpisodicEdge,
    HAS_MEMBER: CommunityEdge,
    HAS_EPISODE: HasEpisodeEdge,
    NEXT_EPISODE: NextEpisodeEdge,
}


def to_plain_edge(edge: Edge) -> GraphitiEdge:
    model = _PLAIN_EDGE_MODELS[edge.rel]
    return model(
        uuid=edge.id,
        group_id=edge.group,
        source_node_uuid=edge.src,
        target_node_uuid=edge.dst,
        created_at=edge.props["created_at"],
    )


def from_edge(edge: Edge, embedding: list[float] | None = None) -> GraphitiEdge:
    """An anatid edge as the Graphiti model of its relationship type."""
    if edge.rel == RELATES_TO:
        return to_entity_edge(edge, embedding)
    if edge.rel in _PLAIN_EDGE_MODELS:
        return to_plain_edge(edge)
    raise ValueError(f"edge {edge.id!r} has rel {edge.rel!r}, not a Graphiti relationship type")


__all__ = [
    "entity_edge",
    "entity_payload_edge",
    "from_edge",
    "plain_payload_edge",
    "to_edge",
    "to_entity_edge",
    "to_plain_edge",
]
