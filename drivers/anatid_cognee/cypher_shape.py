"""How Cognee's graph looks to Cypher: LadybugDB's schema, Cognee's reference backend.

Cognee's LadybugDB adapter keeps every node in one ``Node`` table (``id``, ``name``, ``type``,
``created_at``, ``updated_at``, ``properties`` as a JSON string of the other fields, and the
provenance columns) and every edge in one ``EDGE`` relationship table (``relationship_name``,
``created_at``, ``updated_at``, ``properties``, provenance). A query Cognee or a user wrote for
LadybugDB (``MATCH (n:Node {type: 'Entity'})-[r:EDGE]->(m) RETURN n.name,
r.relationship_name``) reads the same here. Differences: ``created_at`` and ``updated_at`` are
both the time the current version was written (the store keeps every version; ``history``
has the first), a returned node or relationship is its column map with ``_label`` (and a
relationship's ``_src``/``_dst`` are Cognee node ids, not LadybugDB's internal ids), and there
is no ``_id``. The metadata Cognee keeps beside the graph is not part of it.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from datetime import datetime, timezone
from typing import Any

from anatid_core import CypherProcedure, Edge, Item, Kind, Node, Scope

from . import provenance
from .records import GRAPH_GROUP, PROVENANCE_FIELDS, node_data, returned_props

NODE_LABEL = "Node"
EDGE_TYPE = "EDGE"
#: Only Cognee's graph: the metadata group (and any other) stays out of Cypher's sight.
GRAPH_SCOPE = Scope.of(groups=[GRAPH_GROUP])


def _written_at(item: Item) -> datetime | None:
    # LadybugDB's TIMESTAMP columns come back as naive UTC datetimes.
    moment = item.tx_from
    return None if moment is None else moment.astimezone(timezone.utc).replace(tzinfo=None)


def _provenance_columns(item: Item) -> dict[str, Any]:
    columns = provenance.read(item.props)
    return {
        field: json.dumps(values) if values else None
        for field, values in zip(PROVENANCE_FIELDS, columns, strict=True)
    }


def node_columns(node: Node) -> dict[str, Any]:
    data = node_data(node)
    core = {key: data.pop(key, "") for key in ("id", "name", "type")}
    for key in PROVENANCE_FIELDS:
        data.pop(key, None)
    written = _written_at(node)
    return {
        **core,
        "created_at": written,
        "updated_at": written,
        "properties": json.dumps(data),
        **_provenance_columns(node),
    }


def edge_columns(edge: Edge) -> dict[str, Any]:
    props = returned_props(edge.props)
    for key in PROVENANCE_FIELDS:
        props.pop(key, None)
    written = _written_at(edge)
    return {
        "relationship_name": edge.rel,
        "created_at": written,
        "updated_at": written,
        "properties": json.dumps(props),
        **_provenance_columns(edge),
    }


class LadybugShape:
    """Cognee's graph as LadybugDB's tables (see the module docstring)."""

    procedures: Mapping[str, CypherProcedure] = {}

    def node_labels(self, node: Node) -> list[str]:
        return [NODE_LABEL]

    def node_properties(self, node: Node) -> dict[str, Any]:
        return node_columns(node)

    def rel_type(self, edge: Edge) -> str:
        return EDGE_TYPE

    def rel_properties(self, edge: Edge) -> dict[str, Any]:
        return edge_columns(edge)

    def embedding_key(self, item: Item) -> str | None:
        return None  # Cognee keeps vectors in its vector store, not on graph nodes

    def field_of(self, kind: Kind, key: str) -> str | None:
        if kind == "node" and key in ("id", "name"):
            return key
        return None

    def store_labels(self, labels: Sequence[str]) -> list[str] | None:
        return None  # every node is a Node: nothing to narrow by

    def store_rels(self, types: Sequence[str]) -> list[str] | None:
        return None

    def node_value(self, node: Node, props: Mapping[str, Any]) -> Any:
        return {"_label": NODE_LABEL, **props}

    def rel_value(self, edge: Edge, props: Mapping[str, Any]) -> Any:
        return {"_src": edge.src, "_dst": edge.dst, "_label": EDGE_TYPE, **props}


SHAPE = LadybugShape()

__all__ = [
    "EDGE_TYPE",
    "GRAPH_SCOPE",
    "NODE_LABEL",
    "SHAPE",
    "LadybugShape",
    "edge_columns",
    "node_columns",
]
