"""Cognee records in, anatid records out, and back.

A graph node is a core ``Node`` in the ``cognee.graph`` group: its id is ``str(DataPoint.id)``,
its one label is the DataPoint type, ``name`` is the BM25-indexed name, ``text`` the DataPoint's
other index fields (``metadata["index_fields"]``: a chunk's ``text``, a summary's ``text``), so
that BM25 and ``anatid search`` find what Cognee embeds; ``props`` holds every field of
``model_dump()`` exactly as given (UUIDs, datetimes and nested dicts round-trip
in the core). Reads hand them back the way LadybugDB does (JSON values, :mod:`.values`) unless
``exact`` is asked for.
A graph edge is a core ``Edge`` keyed by its Cognee identity ``(source, target,
relationship_name)``. Graph provenance (source refs) rides in one reserved property that reads
strip off, so Cognee never sees it among the node's properties.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any

from anatid_core import Edge, Node

from .values import as_json, storable_fields

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
    props = storable_fields(fields, _NOT_PROPS)
    name = props.get("name")
    node_type = props.get("type")
    text = indexed_text(props)
    if provenance:
        props[PROVENANCE_KEY] = dict(provenance)
    return Node(
        id=str(fields.get("id", "")),
        group=GRAPH_GROUP,
        labels=(str(node_type),) if node_type not in (None, "") else (),
        name=name if isinstance(name, str) else "",
        text=text,
        props=props,
    )


def indexed_text(props: Mapping[str, Any]) -> str:
    """The full text of a node: the string values of its DataPoint's ``index_fields`` other
    than ``name`` (already the core's name), one per line.

    Cognee embeds these fields and its CHUNKS search finds them; the core's BM25 indexes only
    a record's ``name`` and ``text``, so a chunk's words must be in ``text`` for ``anatid
    search`` to find it (issue 44). Reads never return it: Cognee sees ``props`` alone."""
    metadata = props.get("metadata")
    fields = metadata.get("index_fields") if isinstance(metadata, Mapping) else None
    if not isinstance(fields, list):
        return ""
    values = (props.get(f) for f in dict.fromkeys(fields) if isinstance(f, str) and f != "name")
    return "\n".join(v for v in values if isinstance(v, str) and v)


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
    props = storable_fields(properties or {}, _NOT_EDGE_PROPS)
    if provenance:
        props[PROVENANCE_KEY] = dict(provenance)
    return Edge(
        id=edge_id(src, dst, rel), src=src, dst=dst, rel=rel, group=GRAPH_GROUP, props=props
    )


def visible_props(props: Mapping[str, Any]) -> dict[str, Any]:
    """A record's properties as stored, the provenance key removed (exact types; for writes)."""
    if PROVENANCE_KEY in props:
        return {k: v for k, v in props.items() if k != PROVENANCE_KEY}
    return dict(props)


def returned_props(props: Mapping[str, Any], exact: bool = False) -> dict[str, Any]:
    """A record's properties as a read returns them: JSON values, or exact with ``exact``."""
    visible = visible_props(props)
    return visible if exact else as_json(visible)


def node_type(node: Node) -> str:
    props_type = node.props.get("type")
    if isinstance(props_type, str):
        return props_type
    return node.labels[0] if node.labels else ""


def node_properties(node: Node, exact: bool = False) -> NodeData:
    """``{name, type, ...properties}``: the per-node dict of ``get_graph_data`` (no ``id``).

    LadybugDB keeps ``name`` and ``type`` in string columns written as ``str(value)`` (a
    missing name is ``""``) and returns them over the property blob; so does this."""
    props = returned_props(node.props, exact)
    props.pop("id", None)
    if exact:
        return {"name": node.name, "type": node_type(node), **props}
    name = props.pop("name", node.name)
    props.pop("type", None)
    return {"name": str(name), "type": str(node_type(node)), **props}


def node_data(node: Node, exact: bool = False) -> NodeData:
    """``{id, name, type, ...properties}``: what ``get_node``/``get_nodes`` return."""
    return {"id": node.id, **node_properties(node, exact)}


def node_tuple(node: Node, exact: bool = False) -> tuple[str, NodeData]:
    return node.id, node_properties(node, exact)


def edge_tuple(edge: Edge, exact: bool = False) -> EdgeData:
    return edge.src, edge.dst, edge.rel, returned_props(edge.props, exact)


def plain_node_tuple(row: tuple[str, tuple[str, ...], str, dict[str, Any]]) -> tuple[str, NodeData]:
    """:func:`node_tuple` (JSON values) of a core ``node_rows(plain_props=True)`` row.

    The props already hold JSON values, so ``type`` cannot tell a stored string from a
    stored UUID or datetime; the label can (``graph_node`` writes it as ``str(type)``): a
    string type equal to the label is that string, anything else reads as the label, as
    :func:`node_type` does for non-string types."""
    node_id, labels, name, props = row
    props.pop(PROVENANCE_KEY, None)
    props.pop("id", None)
    plain_name = props.pop("name", name)
    stored_type = props.pop("type", None)
    label = labels[0] if labels else ""
    if isinstance(stored_type, str) and (not labels or label == stored_type):
        label = stored_type
    return node_id, {"name": str(plain_name), "type": label, **props}


def plain_edge_tuple(row: tuple[str, str, str, dict[str, Any]]) -> EdgeData:
    """:func:`edge_tuple` (JSON values) of a core ``edge_rows(plain_props=True)`` row."""
    row[3].pop(PROVENANCE_KEY, None)
    return row  # already (src, dst, rel, props): no second tuple per edge of the whole graph


def edge_dict(edge: Edge, exact: bool = False) -> dict[str, Any]:
    """The middle element of ``get_connections`` triples: ``relationship_name`` + properties."""
    return {"relationship_name": edge.rel, **returned_props(edge.props, exact)}


def unique_strings(values: Iterable[Any]) -> list[str]:
    """Stringified values, de-duplicated in first-seen order."""
    return list(dict.fromkeys(str(value) for value in values))
