"""How Graphiti's records are stored as anatid nodes and edges, both ways.

This module is public: ``anatid-migrate`` loads migrated data through it so that a migrated file is
byte-for-byte what the driver itself would have written.

Nodes (``labels`` tell the kinds apart; every Graphiti uuid is the anatid id)::

    EntityNode     labels = its labels + 'Entity'   name = name    text = summary
                   embedding = name_embedding (space 'name')
                   props = {created_at, attributes}
    EpisodicNode   labels = ('Episodic',)           name = name    text = content [+ source_description]
                   valid_from = valid_at
                   props = {created_at, source, source_description, entity_edges, episode_metadata}
    CommunityNode  labels = ('Community',)          name = name    text = summary
                   embedding = name_embedding (space 'name')   props = {created_at}
    SagaNode       labels = ('Saga',)               name = name    text = summary
                   props = {created_at, first_episode_uuid, last_episode_uuid,
                            last_summarized_at, last_summarized_episode_valid_at}

Edges (``rel`` is the Neo4j relationship type)::

    EntityEdge       RELATES_TO    name = name   text = fact
                     embedding = fact_embedding (space 'fact')
                     valid_from = valid_at   valid_to = invalid_at
                     props = {created_at, expired_at, episodes, reference_time, attributes}
    EpisodicEdge     MENTIONS      props = {created_at}
    CommunityEdge    HAS_MEMBER    props = {created_at}
    HasEpisodeEdge   HAS_EPISODE   props = {created_at}
    NextEpisodeEdge  NEXT_EPISODE  props = {created_at}

Why these choices:

* The store's full-text index covers ``name`` + ``text``; Neo4j's Graphiti indexes cover entity
  name + summary, edge name + fact, community name and episode content + source description. So an
  episode's source description is appended to its text after a blank line, and cut off again on
  the way back (its length is known from props), so ``content`` round-trips exactly.
* Attributes are kept nested under ``props['attributes']`` so that no attribute name can collide
  with Graphiti's own fields, and datetimes inside them come back as datetimes.
* Valid time lives in the store's ``valid_from``/``valid_to`` columns, which must be aware and
  ordered. A Graphiti time that the columns cannot hold exactly (a naive datetime, a non-UTC
  offset, or ``invalid_at`` before ``valid_at``) is also kept verbatim in ``props['_exact']`` and
  returned from there, so every value round-trips exactly, ``None`` included.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from datetime import datetime, timezone
from typing import Any

from graphiti_core.edges import (
    CommunityEdge,
    EntityEdge,
    EpisodicEdge,
    HasEpisodeEdge,
    NextEpisodeEdge,
)
from graphiti_core.edges import Edge as GraphitiEdge
from graphiti_core.nodes import (
    CommunityNode,
    EntityNode,
    EpisodeType,
    EpisodicNode,
    SagaNode,
)
from graphiti_core.nodes import Node as GraphitiNode

from anatid_core import Edge, Node

ENTITY, EPISODIC, COMMUNITY, SAGA = "Entity", "Episodic", "Community", "Saga"
RELATES_TO, MENTIONS, HAS_MEMBER = "RELATES_TO", "MENTIONS", "HAS_MEMBER"
HAS_EPISODE, NEXT_EPISODE = "HAS_EPISODE", "NEXT_EPISODE"

#: Vector spaces: entity and community name embeddings, entity edge fact embeddings.
NAME_SPACE = "name"
FACT_SPACE = "fact"

#: Separator between an episode's content and its source description in the indexed text.
_SOURCE_SEPARATOR = "\n\n"

#: Keys of Graphiti's bulk payload dicts; every other key is a flattened attribute.
ENTITY_PAYLOAD_KEYS = frozenset(
    {"uuid", "name", "group_id", "summary", "created_at", "name_embedding", "labels"}
)
EDGE_PAYLOAD_KEYS = frozenset(
    {
        "uuid",
        "source_node_uuid",
        "target_node_uuid",
        "name",
        "fact",
        "group_id",
        "episodes",
        "created_at",
        "expired_at",
        "valid_at",
        "invalid_at",
        "reference_time",
        "fact_embedding",
    }
)

NODE_KINDS: dict[type[GraphitiNode], str] = {
    EntityNode: ENTITY,
    EpisodicNode: EPISODIC,
    CommunityNode: COMMUNITY,
    SagaNode: SAGA,
}
EDGE_KINDS: dict[type[GraphitiEdge], str] = {
    EntityEdge: RELATES_TO,
    EpisodicEdge: MENTIONS,
    CommunityEdge: HAS_MEMBER,
    HasEpisodeEdge: HAS_EPISODE,
    NextEpisodeEdge: NEXT_EPISODE,
}


# ----------------------------------------------------------------------------- valid time


def _exact_time(value: datetime | None) -> bool:
    """True if the column's aware-UTC datetime gives ``value`` back exactly."""
    return value is None or value.tzinfo is timezone.utc


def _aware(value: datetime) -> datetime:
    """The instant of a datetime, a naive one read as UTC (as Graphiti's ``ensure_utc`` does)."""
    return value.replace(tzinfo=timezone.utc) if value.tzinfo is None else value


def _valid_columns(
    props: dict[str, Any], start: tuple[str, datetime | None], end: tuple[str, datetime | None]
) -> tuple[datetime | None, datetime | None]:
    """``valid_from``/``valid_to`` for two Graphiti times; inexact ones go to props['_exact']."""
    (start_key, start_value), (end_key, end_value) = start, end
    vf = None if start_value is None else _aware(start_value)
    vt = None if end_value is None else _aware(end_value)
    exact: dict[str, Any] = {}
    if not _exact_time(start_value):
        exact[start_key] = start_value
    if not _exact_time(end_value):
        exact[end_key] = end_value
    if vf is not None and vt is not None and vt < vf:
        # An interval that ends before it starts was never valid: store it empty.
        exact[end_key] = end_value
        vt = vf
    if exact:
        props["_exact"] = exact
    return vf, vt


def _time(item: Node | Edge, key: str, column: datetime | None) -> datetime | None:
    exact = item.props.get("_exact")
    if isinstance(exact, Mapping) and key in exact:
        return exact[key]
    return column


# -------------------------------------------------------------------------------- nodes


def _labels(labels: list[str] | tuple[str, ...], kind: str) -> tuple[str, ...]:
    return tuple(dict.fromkeys([*labels, kind]))


def entity_node(node: EntityNode) -> Node:
    return entity_payload_node(
        {
            "uuid": node.uuid,
            "name": node.name,
            "group_id": node.group_id,
            "summary": node.summary,
            "created_at": node.created_at,
            "name_embedding": node.name_embedding,
            "labels": node.labels,
        },
        dict(node.attributes or {}),
    )


def entity_payload_node(
    data: Mapping[str, Any], attributes: Mapping[str, Any] | None = None
) -> Node:
    """An entity from Graphiti's bulk payload dict (attributes flattened into the top level)."""
    if attributes is None:
        attributes = split_attributes(data, ENTITY_PAYLOAD_KEYS)
    return Node(
        id=data["uuid"],
        group=data.get("group_id") or "",
        labels=_labels(list(data.get("labels") or []), ENTITY),
        name=data.get("name") or "",
        text=data.get("summary") or "",
        props={"created_at": data.get("created_at"), "attributes": dict(attributes)},
        embedding=data.get("name_embedding"),
        space=NAME_SPACE,
    )


def split_attributes(data: Mapping[str, Any], core_keys: frozenset[str]) -> dict[str, Any]:
    """The attributes of a bulk payload dict: every key Graphiti did not put there itself.

    With a KUZU provider Graphiti sends them as one JSON string under ``attributes`` instead.
    """
    packed = data.get("attributes")
    if isinstance(packed, str) and "attributes" not in core_keys:
        return dict(json.loads(packed or "{}"))
    return {k: v for k, v in data.items() if k not in core_keys}


def episode_node(node: EpisodicNode) -> Node:
    return episode_payload_node(dict(node))


def episode_payload_node(data: Mapping[str, Any]) -> Node:
    """An episode from a model dump (``source`` may be an EpisodeType or its string value)."""
    source = data.get("source")
    source_value = source.value if isinstance(source, EpisodeType) else str(source)
    content = data.get("content") or ""
    description = data.get("source_description") or ""
    props: dict[str, Any] = {
        "created_at": data.get("created_at"),
        "source": source_value,
        "source_description": description,
        "entity_edges": list(data.get("entity_edges") or []),
        "episode_metadata": data.get("episode_metadata"),
    }
    valid_from, _ = _valid_columns(props, ("valid_at", data.get("valid_at")), ("", None))
    return Node(
        id=data["uuid"],
        group=data.get("group_id") or "",
        labels=(EPISODIC,),
        name=data.get("name") or "",
        text=content + _SOURCE_SEPARATOR + description if description else content,
        props=props,
        valid_from=valid_from,
    )


def community_node(node: CommunityNode) -> Node:
    return Node(
        id=node.uuid,
        group=node.group_id,
        labels=(COMMUNITY,),
        name=node.name,
        text=node.summary,
        props={"created_at": node.created_at},
        embedding=node.name_embedding,
        space=NAME_SPACE,
    )


def saga_node(node: SagaNode) -> Node:
    return Node(
        id=node.uuid,
        group=node.group_id,
        labels=(SAGA,),
        name=node.name,
        text=node.summary,
        props={
            "created_at": node.created_at,
            "first_episode_uuid": node.first_episode_uuid,
            "last_episode_uuid": node.last_episode_uuid,
            "last_summarized_at": node.last_summarized_at,
            "last_summarized_episode_valid_at": node.last_summarized_episode_valid_at,
        },
    )


def to_node(node: GraphitiNode) -> Node:
    """Any Graphiti node model as an anatid node."""
    if isinstance(node, EntityNode):
        return entity_node(node)
    if isinstance(node, EpisodicNode):
        return episode_node(node)
    if isinstance(node, CommunityNode):
        return community_node(node)
    if isinstance(node, SagaNode):
        return saga_node(node)
    raise TypeError(f"no anatid mapping for Graphiti node type {type(node).__name__}")


def to_entity(node: Node, embedding: list[float] | None = None) -> EntityNode:
    return EntityNode(
        uuid=node.id,
        name=node.name,
        group_id=node.group,
        labels=list(node.labels),
        created_at=node.props["created_at"],
        summary=node.text,
        attributes=dict(node.props.get("attributes") or {}),
        name_embedding=embedding,
    )


def to_episode(node: Node) -> EpisodicNode:
    description = node.props.get("source_description") or ""
    content = (
        node.text[: len(node.text) - len(description) - len(_SOURCE_SEPARATOR)]
        if description
        else node.text
    )
    return EpisodicNode(
        uuid=node.id,
        name=node.name,
        group_id=node.group,
        labels=[],
        created_at=node.props["created_at"],
        source=EpisodeType.from_str(node.props.get("source") or "message"),
        source_description=description,
        content=content,
        valid_at=_time(node, "valid_at", node.valid_from),  # type: ignore[arg-type]
        entity_edges=list(node.props.get("entity_edges") or []),
        episode_metadata=node.props.get("episode_metadata"),
    )


def to_community(node: Node, embedding: list[float] | None = None) -> CommunityNode:
    return CommunityNode(
        uuid=node.id,
        name=node.name,
        group_id=node.group,
        labels=[],
        created_at=node.props["created_at"],
        summary=node.text,
        name_embedding=embedding,
    )


def to_saga(node: Node) -> SagaNode:
    p = node.props
    return SagaNode(
        uuid=node.id,
        name=node.name,
        group_id=node.group,
        labels=[],
        created_at=p["created_at"],
        summary=node.text,
        first_episode_uuid=p.get("first_episode_uuid"),
        last_episode_uuid=p.get("last_episode_uuid"),
        last_summarized_at=p.get("last_summarized_at"),
        last_summarized_episode_valid_at=p.get("last_summarized_episode_valid_at"),
    )


def node_kind(node: Node) -> str | None:
    """'Entity', 'Episodic', 'Community' or 'Saga' (None for a node Graphiti did not write)."""
    for kind in (ENTITY, EPISODIC, COMMUNITY, SAGA):
        if kind in node.labels:
            return kind
    return None


def from_node(node: Node, embedding: list[float] | None = None) -> GraphitiNode:
    """An anatid node as the Graphiti model of its kind."""
    kind = node_kind(node)
    if kind == ENTITY:
        return to_entity(node, embedding)
    if kind == EPISODIC:
        return to_episode(node)
    if kind == COMMUNITY:
        return to_community(node, embedding)
    if kind == SAGA:
        return to_saga(node)
    raise ValueError(f"node {node.id!r} has labels {node.labels}, none of them a Graphiti kind")


# -------------------------------------------------------------------------------- edges


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
    valid_from, valid_to = _valid_columns(
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
        valid_at=_time(edge, "valid_at", edge.valid_from),
        invalid_at=_time(edge, "invalid_at", edge.valid_to),
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
    "COMMUNITY",
    "EDGE_KINDS",
    "EDGE_PAYLOAD_KEYS",
    "ENTITY",
    "ENTITY_PAYLOAD_KEYS",
    "EPISODIC",
    "FACT_SPACE",
    "HAS_EPISODE",
    "HAS_MEMBER",
    "MENTIONS",
    "NAME_SPACE",
    "NEXT_EPISODE",
    "NODE_KINDS",
    "RELATES_TO",
    "SAGA",
    "community_node",
    "entity_edge",
    "entity_node",
    "entity_payload_edge",
    "entity_payload_node",
    "episode_node",
    "episode_payload_node",
    "from_edge",
    "from_node",
    "node_kind",
    "plain_payload_edge",
    "saga_node",
    "split_attributes",
    "to_community",
    "to_edge",
    "to_entity",
    "to_entity_edge",
    "to_episode",
    "to_node",
    "to_plain_edge",
    "to_saga",
]
