"""Cognee records in, anatid records out, and back.

A graph node is a core ``Node`` in the ``cognee.graph`` group: its id is ``str(DataPoint.id)``,
its one label is the DataPoint type, ``name`` is the BM25-indexed name, and ``props`` holds every
other field of ``model_dump()`` exactly as given (UUIDs, datetimes and nested dicts round-trip).
A graph edge is a core ``Edge`` keyed by its Cognee identity ``(source, target,
relationship_name)``. Graph provenance (source refs) rides in one reserved property that reads
strip off, so Cognee never sees it among the node's properties.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any

from anatid_core import Edge, Node

GRAPH_GROUP = "cognee.graph"
META_GROUP = "cognee.meta"
METADATA_NODE_ID = "cognee.graph.metadata"
#: The reserved property holding a record's graph provenance (see provenance.py).
PROVENANCE_KEY = "_anatid_provenance"
#: Columns Ladybug keeps outside the property blob; never stored as plain properties.
PROVENANCE_FIELDS = ("source_ref_keys", "source_dataset_ids", "source_run_ids", "source_run_refs")

_NOT_EDGE_PROPS = frozenset((PROVENANCE_KEY, *PROVENANCE_FIELDS))
_NOT_PROPS = _NOT_EDGE_PROPS | {"id"}

NodeData = dict[str, Any]
EdgeData = tuple[str, str, str, dict[str, Any]]


def node_fields(node: Any) -> dict[str, Any]:
    """The flat field dict of whatever Cognee hands ``add_nodes``.

    DataPoints and other pydantic models (``model_dump``), ``(id, properties)`` tuples, or plain
    objects.
    """
    if isinstance(node, tuple):
        node_id, properties = node[0], (node[1] if len(node) > 1 else None)
        return {**dict(properties or {}), "id": node_id}
    if hasattr(node, "model_dump"):
        return node.model_dump()
    if isinstance(node, Mapping):
        return dict(node)
    return dict(vars(node))


def graph_node(fields: dict[str, Any], provenance: Mapping[str, Any] | None = None) -> Node:
    """A core node for one Cognee node's fields (``id`` required; ``name``/``type`` optional)."""
    props = {k: v for k, v in fields.items() if k not in _NOT_PROPS}
    name = props.get("name")
    node_type = props.get("type")
    if provenance:
        props[PROVENANCE_KEY] = dict(provenance)
    return Node(
        id=str(fields.get("id", "")),
        group=GRAPH_GROUP,
        labels=(str(node_type),) if node_type not in (None, "") else (),
        name=name if isinstance(name, str) else "",
        props=props,
    )


def edge_id(source_id: str, target_id: str, relationship_name: str) -> str:
    """The core edge id of a Cognee edge identity (unambiguous for any id strings)."""
    return json.dumps([source_id, relationship_name, target_id], ensure_ascii=False)


def graph_edge(
    source_id: Any,
    target_id: Any,
    relationship_name: Any,
    properties: Mapping[str, Any] | None,
    provenance: Mapping[str, Any] | None = None,
) -> Edge:
    src, dst, rel = str(source_id), str(target_id), str(relationship_name)
    props = {k: v for k, v in (properties or {}).items() if k not in _NOT_EDGE_PROPS}
    if provenance:
        props[PROVENANCE_KEY] = dict(provenance)
    return Edge(
        id=edge_id(src, dst, rel), src=src, dst=dst, rel=rel, group=GRAPH_GROUP, props=props
    )


def visible_props(props: Mapping[str, Any]) -> dict[str, Any]:
    """A record's properties as Cognee sees them: the provenance key removed."""
    if PROVENANCE_KEY in props:
        return {k: v for k, v in props.items() if k != PROVENANCE_KEY}
    return dict(props)


def node_type(node: Node) -> str:
    props_type = node.props.get("type")
    if isinstance(props_type, str):
        return props_type
    return node.labels[0] if node.labels else ""


def node_properties(node: Node) -> NodeData:
    """``{name, type, ...properties}``: the per-node dict of ``get_graph_data`` (no ``id``)."""
    data: NodeData = {"name": node.name, "type": node_type(node)}
    data.update(node.props)
    data.pop(PROVENANCE_KEY, None)
    return data


def node_data(node: Node) -> NodeData:
    """``{id, name, type, ...properties}``: what ``get_node``/``get_nodes`` return."""
    return {"id": node.id, **node_properties(node)}


def node_tuple(node: Node) -> tuple[str, NodeData]:
    return node.id, node_properties(node)


def edge_tuple(edge: Edge) -> EdgeData:
    return edge.src, edge.dst, edge.rel, visible_props(edge.props)


def edge_dict(edge: Edge) -> dict[str, Any]:
    """The middle element of ``get_connections`` triples: ``relationship_name`` + properties."""
    return {"relationship_name": edge.rel, **visible_props(edge.props)}


def unique_strings(values: Iterable[Any]) -> list[str]:
    """Stringified values, de-duplicated in first-seen order."""
    return list(dict.fromkeys(str(value) for value in values))
