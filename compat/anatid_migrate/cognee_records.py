"""A Cognee memory as the host's interfaces hand it over, read from and written to any pair of
Cognee adapters (``GraphDBInterface`` + ``VectorDBInterface``): the graph (``get_graph_data``),
each node's and edge's provenance (``get_node_delete_data`` / ``get_edge_delete_data``), the
graph's metadata (``get_graph_metadata``: the marker that tells Cognee the graph holds its own
provenance, issue 32), and every vector collection (see :mod:`anatid_migrate.cognee_targets`).

Writes are upserts on every Cognee backend (nodes by id, edges by their triple, vector points by
id) and attaching a source ref a record already carries changes nothing, so writing the same
page twice leaves one record: an interrupted copy is completed by running it again.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np

from .closing import close_absent
from .cognee_targets import Point, collection_names, read_points, vector_kind, write_points
from .report import Tally
from .vectors import vector_digest

#: nodes, edges, node provenance, edge provenance, points per collection, graph metadata.
Memory = tuple[
    list[Any], list[Any], dict[Any, Any], dict[Any, Any], dict[str, list[Point]], dict[str, str]
]

#: Records per adapter call.
PAGE = 1000
PROVENANCE = ("source_ref_keys", "source_dataset_ids", "source_run_ids", "source_run_refs")


def normal(value: Any) -> Any:
    """The JSON form both sides compare (datetimes and UUIDs as text, keys sorted)."""
    return json.loads(json.dumps(value, sort_keys=True, default=str))


def pages(items: Sequence[Any], size: int = PAGE) -> Iterator[Sequence[Any]]:
    for start in range(0, len(items), size):
        yield items[start : start + size]


def tally_graph(tally: Tally, nodes: list[Any], edges: list[Any]) -> None:
    for node_id, props in nodes:
        tally.add(f"node:{props.get('type', '')}", [str(node_id), normal(props)])
    for src, dst, rel, props in edges:
        tally.add(f"edge:{rel}", [str(src), str(dst), rel, normal(props or {})])


def tally_provenance(tally: Tally, kind: str, found: dict[Any, Any]) -> None:
    for key, data in found.items():
        lists = [list(getattr(data, f)) for f in PROVENANCE]
        if any(lists):
            ident = key if isinstance(key, str) else [key.source_id, key.target_id,
                                                      key.relationship_name]  # fmt: skip
            tally.add(f"provenance:{kind}", [ident, lists])


def tally_points(tally: Tally, collection: str, points: list[Point]) -> None:
    for p in points:
        payload = {k: v for k, v in p.payload.items() if k != "id"}
        tally.add(f"vector:{collection}", [p.id, vector_digest(p.vector), normal(payload)])


async def read_provenance(graph: Any, nodes: list[Any], edges: list[Any]) -> tuple[dict, dict]:
    """Each node's and edge's provenance, through the adapter's own delete-data reads."""
    from cognee.infrastructure.databases.provenance import EdgeIdentity

    by_node: dict[Any, Any] = {}
    for page in pages([str(n[0]) for n in nodes]):
        by_node.update(await graph.get_node_delete_data(list(page)))
    by_edge: dict[Any, Any] = {}
    idents = [EdgeIdentity(str(s), str(d), r) for s, d, r, _ in edges]
    for page in pages(idents):
        by_edge.update(await graph.get_edge_delete_data(list(page)))
    return by_node, by_edge


def attach_plan(found: dict[Any, Any]) -> dict[tuple[tuple[str, str | None], ...], list[Any]]:
    """Group records by the attaches that rebuild their provenance: for each source ref in
    order, the pipeline run that first attached it (None when no run was recorded). Cognee's
    own ``provenance_after_attach`` then derives the dataset ids, run ids and run refs."""
    from cognee.infrastructure.databases.provenance.source_refs import (
        get_pipeline_run_id_from_source_run_ref,
        get_source_ref_key_from_source_run_ref,
    )

    plan: dict[tuple[tuple[str, str | None], ...], list[Any]] = {}
    for key, data in found.items():
        runs: dict[str, str] = {}
        for ref in data.source_run_refs:
            runs.setdefault(
                get_source_ref_key_from_source_run_ref(ref),
                str(get_pipeline_run_id_from_source_run_ref(ref)),
            )
        steps = tuple((k, runs.get(k)) for k in data.source_ref_keys)
        if steps:
            plan.setdefault(steps, []).append(key)
    return plan


async def write_provenance(graph: Any, by_node: dict, by_edge: dict) -> None:
    for steps, ids in attach_plan(by_node).items():
        for page in pages(ids):
            for key, run in steps:
                await graph.attach_node_source_refs(list(page), [key], run)
    for steps, idents in attach_plan(by_edge).items():
        for page in pages(idents):
            for key, run in steps:
                await graph.attach_edge_source_refs(list(page), [key], run)


async def read_metadata(graph: Any) -> dict[str, str]:
    """The graph's metadata (``delete_mode``, ``provenance_version``): Cognee's
    ``stores_provenance_in_graph`` reads it to route a deletion through the graph's provenance
    instead of its relational ledger. An adapter without it raises Cognee's
    ``UnsupportedProvenanceCapability``, and Cognee reads that as no metadata."""
    from cognee.infrastructure.databases.exceptions import UnsupportedProvenanceCapability

    try:
        return {str(k): str(v) for k, v in (await graph.get_graph_metadata()).items()}
    except UnsupportedProvenanceCapability:
        return {}


async def read_memory(graph: Any, vector: Any) -> Memory:
    """The whole memory through the two adapters: nodes, edges, provenance, collections and
    the graph's metadata."""
    nodes, edges = await graph.get_graph_data()
    by_node, by_edge = await read_provenance(graph, nodes, edges)
    points = {c: await read_points(vector, c) for c in await collection_names(vector)}
    return list(nodes), list(edges), by_node, by_edge, points, await read_metadata(graph)


def tally_memory(tally: Tally, memory: Memory) -> None:
    nodes, edges, by_node, by_edge, points, metadata = memory
    for key, value in metadata.items():
        tally.add("graph metadata", [key, value])
    tally_graph(tally, nodes, edges)
    tally_provenance(tally, "node", by_node)
    tally_provenance(tally, "edge", by_edge)
    for collection, rows in points.items():
        tally_points(tally, collection, rows)


def _prov_lists(data: Any) -> list[list[str]]:
    return [list(getattr(data, f)) for f in PROVENANCE]


def changed_only(memory: Memory, existing: Memory) -> Memory:
    """The records of ``memory`` that ``existing`` does not already hold as the host reads them
    (JSON values, provenance lists, float32 vectors): an import over a restored timeline then
    adds a version only for what changed on the backend since the export, and the unchanged
    records keep the exact values (UUIDs, datetimes) the timeline restored."""
    nodes, edges, by_node, by_edge, points, metadata = memory
    old_nodes = {str(i): normal(p) for i, p in existing[0]}
    old_edges = {(str(s), str(d), r): normal(p or {}) for s, d, r, p in existing[1]}
    return (
        [(i, p) for i, p in nodes if old_nodes.get(str(i)) != normal(p)],
        [e for e in edges if old_edges.get((str(e[0]), str(e[1]), e[2])) != normal(e[3] or {})],
        {k: v for k, v in by_node.items()
         if k not in existing[2] or _prov_lists(existing[2][k]) != _prov_lists(v)},
        {k: v for k, v in by_edge.items()
         if k not in existing[3] or _prov_lists(existing[3][k]) != _prov_lists(v)},
        {c: _changed_points(rows, existing[4].get(c, [])) for c, rows in points.items()},
        {k: v for k, v in metadata.items() if existing[5].get(k) != v},
    )  # fmt: skip


def _changed_points(rows: list[Point], old: list[Point]) -> list[Point]:
    before = {p.id: p for p in old}

    def same(p: Point) -> bool:
        q = before.get(p.id)
        return (q is not None and np.array_equal(q.vector, p.vector)
                and normal(q.payload) == normal(p.payload))  # fmt: skip

    return [p for p in rows if not same(p)]


class NodeRecord:
    """A node as ``add_nodes`` takes a DataPoint: LadybugAdapter reads ``model_dump()`` and
    takes no ``(id, properties)`` tuples."""

    def __init__(self, node_id: str, props: dict[str, Any]) -> None:
        self._fields = {**props, "id": node_id}

    def model_dump(self) -> dict[str, Any]:
        return dict(self._fields)


async def write_memory(
    graph: Any,
    vector: Any,
    memory: Memory,
    advance: Any,
    *,
    node_objects: bool = False,
) -> dict[str, int]:
    """Write the memory through the receiving adapters, page by page; records written per kind.
    ``node_objects`` hands nodes over as objects with ``model_dump`` instead of tuples.

    The graph's metadata goes first, as Cognee marks a graph while it is still empty
    (``mark_graph_provenance_if_empty``): a graph without it is read by Cognee as keeping its
    provenance in the relational ledger, and deletions would miss the provenance moved here."""
    nodes, edges, by_node, by_edge, points, metadata = memory
    written = {"metadata": 0, "nodes": 0, "edges": 0, "vectors": 0}
    if metadata:
        await graph.set_graph_metadata(metadata)
        written["metadata"] = len(metadata)
    for page in pages(nodes):
        batch = [NodeRecord(str(i), p) for i, p in page] if node_objects else list(page)
        await graph.add_nodes(batch)
        written["nodes"] += len(page)
        advance(len(page))
    for page in pages(edges):
        await graph.add_edges(list(page))
        written["edges"] += len(page)
        advance(len(page))
    await write_provenance(graph, by_node, by_edge)
    for collection, rows in points.items():
        if not rows:
            await _empty_collection(vector, collection)
        for page in pages(rows):
            await write_points(vector, collection, list(page))
            written["vectors"] += len(page)
            advance(len(page))
    return written


async def _empty_collection(vector: Any, collection: str) -> None:
    """An empty collection moves too where the backend can hold one without a row."""
    if vector_kind(vector) == "anatid":
        await vector.create_collection(collection)


def close_gone(store: Any, memory: Memory) -> int:
    """Delete from the anatid ``store`` (an import over a restored timeline) every graph node,
    graph edge and vector row that the backend's ``memory`` no longer holds; the number of
    records deleted (see :mod:`anatid_migrate.closing`). A collection's own record is left
    alone: a collection without points does not move to a backend, so its absence there says
    nothing. So are the file's metadata records (``cognee.meta``), the adapter's own."""
    from anatid_cognee.records import GRAPH_GROUP, edge_id
    from anatid_cognee.vector_adapter import ROW_GROUP_PREFIX
    from anatid_cognee.vector_adapter import row_id as point_row_id

    nodes_, edges_, _, _, points, _ = memory
    nodes = {str(i) for i, _ in nodes_}
    nodes.update(point_row_id(c, p.id) for c, rows in points.items() for p in rows)
    edges = {edge_id(str(s), str(d), str(r)) for s, d, r, _ in edges_}

    def in_scope(group: str) -> bool:
        return group == GRAPH_GROUP or group.startswith(ROW_GROUP_PREFIX)

    return close_absent(store, nodes, edges, in_scope)
