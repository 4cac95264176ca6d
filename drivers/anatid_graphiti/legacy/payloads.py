"""Graphiti's bulk hooks receive models or plain dicts (``add_nodes_and_edges_bulk`` passes dicts
for some kinds, models for others): the conversions the node and edge hooks share."""

from __future__ import annotations

from typing import Any

from graphiti_core.edges import EntityEdge


def dumps(items: list[Any]) -> list[dict[str, Any]]:
    """Every item as a dict: dicts as they are, models through ``model_dump()``."""
    return [i if isinstance(i, dict) else i.model_dump() for i in items]


def models(cls: Any, items: list[Any]) -> list[Any]:
    """Every item as a ``cls`` model: models as they are, dicts through ``cls(**item)``."""
    return [i if isinstance(i, cls) else cls(**i) for i in items]


def entity_edge_payload(edge: EntityEdge) -> dict[str, Any]:
    """An entity edge as Graphiti's bulk dict: its attributes flattened into the top level."""
    payload = edge.model_dump(exclude={"attributes"})
    for key, value in (edge.attributes or {}).items():
        payload.setdefault(key, value)
    return payload


__all__ = ["dumps", "entity_edge_payload", "models"]
