"""What the node and edge mappings share: kinds, vector spaces, payload keys, valid time.

See :mod:`anatid_graphiti.mapping` for the mapping itself and why it is so.
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
from graphiti_core.nodes import CommunityNode, EntityNode, EpisodicNode, SagaNode
from graphiti_core.nodes import Node as GraphitiNode

from anatid_core import Edge, Node

ENTITY, EPISODIC, COMMUNITY, SAGA = "Entity", "Episodic", "Community", "Saga"
RELATES_TO, MENTIONS, HAS_MEMBER = "RELATES_TO", "MENTIONS", "HAS_MEMBER"
HAS_EPISODE, NEXT_EPISODE = "HAS_EPISODE", "NEXT_EPISODE"

#: Vector spaces: entity and community name embeddings, entity edge fact embeddings.
NAME_SPACE = "name"
FACT_SPACE = "fact"

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


def split_attributes(data: Mapping[str, Any], core_keys: frozenset[str]) -> dict[str, Any]:
    """The attributes of a bulk payload dict: every key Graphiti did not put there itself.

    With a KUZU provider Graphiti sends them as one JSON string under ``attributes`` instead.
    """
    packed = data.get("attributes")
    if isinstance(packed, str) and "attributes" not in core_keys:
        return dict(json.loads(packed or "{}"))
    return {k: v for k, v in data.items() if k not in core_keys}


# ----------------------------------------------------------------------------- valid time


def _exact_time(value: datetime | None) -> bool:
    """True if the column's aware-UTC datetime gives ``value`` back exactly."""
    return value is None or value.tzinfo is timezone.utc


def _aware(value: datetime) -> datetime:
    """The instant of a datetime, a naive one read as UTC (as Graphiti's ``ensure_utc`` does)."""
    return value.replace(tzinfo=timezone.utc) if value.tzinfo is None else value


def valid_columns(
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


def stored_time(item: Node | Edge, key: str, column: datetime | None) -> datetime | None:
    """A Graphiti time as stored: from props['_exact'] if it is there, else the column's."""
    exact = item.props.get("_exact")
    if isinstance(exact, Mapping) and key in exact:
        return exact[key]
    return column


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
    "split_attributes",
    "stored_time",
    "valid_columns",
]
