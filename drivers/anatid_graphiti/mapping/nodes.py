"""Graphiti's node models as anatid nodes and back (see :mod:`anatid_graphiti.mapping`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from graphiti_core.nodes import (
    CommunityNode,
    EntityNode,
    EpisodeType,
    EpisodicNode,
    SagaNode,
)
from graphiti_core.nodes import Node as GraphitiNode

from anatid_core import Node

from .records import (
    COMMUNITY,
    ENTITY,
    ENTITY_PAYLOAD_KEYS,
    EPISODIC,
    NAME_SPACE,
    SAGA,
    split_attributes,
    stored_time,
    valid_columns,
)

#: Separator between an episode's content and its source description in the indexed text.
_SOURCE_SEPARATOR = "\n\n"


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
    valid_from, _ = valid_columns(props, ("valid_at", data.get("valid_at")), ("", None))
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
        valid_at=stored_time(node, "valid_at", node.valid_from),  # type: ignore[arg-type]
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


__all__ = [
    "community_node",
    "entity_node",
    "entity_payload_node",
    "episode_node",
    "episode_payload_node",
    "from_node",
    "node_kind",
    "saga_node",
    "to_community",
    "to_entity",
    "to_episode",
    "to_node",
    "to_saga",
]
