"""The graph methods Cognee looks up beyond the abstract interface, implemented natively.

Temporal retrieval (Timestamp windows and anchors), graph-view seeding and bounded
neighbourhoods, the legacy document-delete helpers, and graph metrics.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterable
from typing import Any

from cognee.infrastructure.databases.graph.bounded_neighborhood import (
    DEFAULT_NEIGHBORHOOD_CHUNK_SIZE,
    chunk_members,
    order_members,
    unique_node_ids,
    validate_bounded_neighborhood_args,
)
from cognee.infrastructure.databases.graph.degree_seeds import EDGE_SAMPLE_ROWS
from cognee.infrastructure.databases.graph.graph_db_interface import (
    temporal_anchors_from_rows,
    timestamp_overlaps,
)

from anatid_core import Cond, Node

from .adapter_base import StoreBacked
from .records import (
    GRAPH_GROUP,
    EdgeData,
    NodeData,
    edge_tuple,
    node_data,
    node_tuple,
    unique_strings,
)

GROUPS = [GRAPH_GROUP]
DOCUMENT_TYPES = (
    "TextDocument",
    "PdfDocument",
    "AudioDocument",
    "ImageDocument",
    "UnstructuredDocument",
)


def _window(start: int | None, end: int | None) -> list[list[Cond]]:
    """``where`` for Timestamp nodes whose ``[time_at, time_until)`` may meet ``[start, end)``.

    ``time_until`` defaults to ``time_at + 1000`` when absent, hence the second branch. The
    exact test is re-applied in Python (``timestamp_overlaps``) on what this returns.
    """
    base = [Cond("props.time_at", "is not null")]
    if end is not None:
        base.append(Cond("props.time_at", "<", int(end)))
    if start is None:
        return [base]
    return [
        [*base, Cond("props.time_until", ">", int(start))],
        [*base, Cond("props.time_until", "is null"), Cond("props.time_at", ">", int(start) - 1000)],
    ]


def _timestamp_dict(node: Node) -> dict[str, Any]:
    props = node.props
    time_at = int(props["time_at"])
    until = props.get("time_until")
    return {
        "id": node.id,
        "type": "Timestamp",
        "timestamp_str": props.get("timestamp_str"),
        "time_at": time_at,
        "time_until": int(until) if until not in (None, "") else time_at + 1000,
    }


def _in_window(nodes: Iterable[Node], start: int | None, end: int | None) -> dict[str, Node]:
    return {
        n.id: n
        for n in nodes
        if n.props.get("type") == "Timestamp"
        and timestamp_overlaps({**n.props, "id": n.id}, start, end)
    }


class GraphExtras(StoreBacked):
    """Native implementations of the optional graph methods."""

    async def get_timestamps_in_range(
        self, start: int | None, end: int | None
    ) -> list[dict[str, Any]]:
        def work(r: Any) -> list[dict[str, Any]]:
            nodes = r.find_nodes(
                groups=GROUPS,
                labels=["Timestamp"],
                where=_window(start, end),
                order_by=["props.time_at", "id"],
            )
            return [_timestamp_dict(n) for n in _in_window(nodes, start, end).values()]

        return await self._read(work)

    async def get_temporal_anchors(
        self,
        chunk_ids: Iterable[str],
        entity_ids: Iterable[str],
        start: int | None,
        end: int | None,
    ) -> dict[str, set[str]]:
        chunks = sorted({str(i) for i in chunk_ids})
        entities = sorted({str(i) for i in entity_ids})
        if not chunks and not entities:
            return temporal_anchors_from_rows([], [], [])

        def work(r: Any) -> dict[str, set[str]]:
            direct_edges = r.edges_of(chunks + entities, direction="out")
            contains = [e for e in direct_edges if e.rel == "contains" and e.src in set(chunks)]
            contained = {
                n.id
                for n in r.get_nodes(unique_strings(e.dst for e in contains))
                if n.props.get("type") == "Entity"
            }
            via_edges = r.edges_of(sorted(contained), direction="out") if contained else []
            targets = unique_strings(e.dst for e in [*direct_edges, *via_edges])
            stamps = _in_window(r.get_nodes(targets), start, end)
            direct = [(e.src, e.dst) for e in direct_edges if e.dst in stamps]
            reaches: dict[str, set[str]] = {}
            for e in via_edges:
                if e.dst in stamps:
                    reaches.setdefault(e.src, set()).add(e.dst)
            via = [
                (e.src, e.dst, stamp)
                for e in contains
                if e.dst in reaches
                for stamp in sorted(reaches[e.dst])
            ]
            return temporal_anchors_from_rows(direct, via, chunks)

        return await self._read(work)

    async def get_top_degree_node_ids(self, top_k: int) -> list[str]:
        """Nodes ranked by degree in a bounded edge sample, then any nodes to fill ``top_k``."""
        if top_k < 1:
            raise ValueError("top_k must be >= 1")

        def work(r: Any) -> list[str]:
            degree: dict[str, int] = {}
            for e in r.find_edges(groups=GROUPS, limit=EDGE_SAMPLE_ROWS):
                for endpoint in (e.src, e.dst):
                    degree[endpoint] = degree.get(endpoint, 0) + 1
            seeds = [i for i, _ in sorted(degree.items(), key=lambda kv: (-kv[1], kv[0]))][:top_k]
            if len(seeds) < top_k:
                taken = set(seeds)
                for n in r.find_nodes(groups=GROUPS, limit=top_k + len(seeds)):
                    if n.id not in taken:
                        seeds.append(n.id)
            return seeds[:top_k]

        return await self._read(work)

    async def iter_bounded_neighborhood(
        self,
        node_ids: list[str],
        depth: int,
        max_nodes: int,
        chunk_size: int = DEFAULT_NEIGHBORHOOD_CHUNK_SIZE,
        property_keys: list[str] | None = None,
    ) -> AsyncIterator[tuple[list[tuple[str, NodeData]], list[EdgeData]]]:
        """Breadth-first from the seeds, one hop per query, stopping once ``max_nodes`` ids
        are held; then the members' content and the edges among them."""
        validate_bounded_neighborhood_args(depth, max_nodes, chunk_size)
        seeds = unique_node_ids(node_ids)
        if not seeds:
            return

        def work(r: Any) -> tuple[list[tuple[str, NodeData]], list[EdgeData], list[str]]:
            present = [n.id for n in r.get_nodes(seeds) if n.group == GRAPH_GROUP]
            members = list(present)
            frontier = list(present)
            for _hop in range(depth):
                if not frontier or len(members) >= max_nodes:
                    break
                held = set(members)
                fresh = [
                    n.id
                    for n in r.neighbours(frontier, direction="both")
                    if n.id not in held and n.group == GRAPH_GROUP
                ]
                fresh = fresh[: max_nodes - len(members)]
                members.extend(fresh)
                frontier = fresh
            nodes = [node_tuple(n, self.exact_values) for n in r.get_nodes(members)]
            edges = [
                edge_tuple(e, self.exact_values)
                for e in r.edges_between(members, members, directed=True)
            ]
            return nodes, edges, present

        nodes, edges, present = await self._read(work)
        ordered = order_members(nodes, edges, present, max_nodes)
        for chunk in chunk_members(ordered, edges, chunk_size, property_keys):
            yield chunk

    async def get_document_subgraph(self, data_id: str) -> dict[str, list[NodeData]] | None:
        """What deleting a document removes (Cognee's legacy delete path)."""
        return await self._read(_document_subgraph, str(data_id), self.exact_values)

    async def get_degree_one_nodes(self, node_type: str) -> list[NodeData]:
        if not node_type or node_type not in ["Entity", "EntityType"]:
            raise ValueError("node_type must be either 'Entity' or 'EntityType'")

        def work(r: Any) -> list[NodeData]:
            nodes = r.find_nodes(groups=GROUPS, labels=[node_type])
            degree = r.degrees([n.id for n in nodes], direction="both") if nodes else {}
            return [node_data(n, self.exact_values) for n in nodes if degree.get(n.id, 0) == 1]

        return await self._read(work)

    async def get_graph_metrics(self, include_optional: bool = False) -> dict[str, Any]:
        def work(r: Any) -> dict[str, Any]:
            ids = [n.id for n in r.find_nodes(groups=GROUPS)]
            pairs = [(e.src, e.dst) for e in r.find_edges(groups=GROUPS)]
            metrics = _metrics(ids, pairs, include_optional)
            if include_optional:
                metrics.update(_optional_metrics(r))
            return metrics

        return await self._read(work)


def _document_subgraph(r: Any, data_id: str, exact: bool) -> dict[str, list[NodeData]]:
    empty: dict[str, list[NodeData]] = {
        "document": [],
        "chunks": [],
        "orphan_entities": [],
        "made_from_nodes": [],
        "orphan_types": [],
    }
    doc = r.get_node(data_id)
    if doc is None or doc.props.get("type") not in DOCUMENT_TYPES:
        return empty

    def typed(ids: Iterable[str], node_type: str) -> list[Node]:
        return [n for n in r.get_nodes(unique_strings(ids)) if n.props.get("type") == node_type]

    def other_docs_reach(ids: list[str], via_contains: bool) -> set[str]:
        """Which of ``ids`` hang (through a chunk) off a document other than ``doc``."""
        if not ids:
            return set()
        out: set[str] = set()
        in_edges = r.edges_of(ids, direction="in", rels=["contains"]) if via_contains else []
        chunks = (
            {n.id for n in typed((e.src for e in in_edges), "DocumentChunk")}
            if via_contains
            else set()
        )
        part_of = r.edges_of(sorted(chunks), direction="out", rels=["is_part_of"]) if chunks else []
        other_docs = {
            n.id
            for n in r.get_nodes(unique_strings(e.dst for e in part_of))
            if n.props.get("type") in DOCUMENT_TYPES and n.id != doc.id
        }
        shared_chunks = {e.src for e in part_of if e.dst in other_docs}
        for e in in_edges:
            if e.src in shared_chunks:
                out.add(e.dst)
        return out

    chunks = typed(
        (e.src for e in r.edges_of([doc.id], direction="in", rels=["is_part_of"])), "DocumentChunk"
    )
    chunk_ids = [c.id for c in chunks]
    contained = (
        typed((e.dst for e in r.edges_of(chunk_ids, direction="out", rels=["contains"])), "Entity")
        if chunk_ids
        else []
    )
    shared = other_docs_reach([n.id for n in contained], via_contains=True)
    orphans = [n for n in contained if n.id not in shared]
    made = (
        typed(
            (e.src for e in r.edges_of(chunk_ids, direction="in", rels=["made_from"])),
            "TextSummary",
        )
        if chunk_ids
        else []
    )
    type_edges = (
        r.edges_of([n.id for n in orphans], direction="out", rels=["is_a"]) if orphans else []
    )
    types = typed((e.dst for e in type_edges), "EntityType")
    kept_types = []
    for t in types:
        users = [e.src for e in r.edges_of([t.id], direction="in", rels=["is_a"])]
        if not other_docs_reach(users, via_contains=True):
            kept_types.append(t)
    return {
        "document": [node_data(doc, exact)],
        "chunks": [node_data(n, exact) for n in chunks],
        "orphan_entities": [node_data(n, exact) for n in orphans],
        "made_from_nodes": [node_data(n, exact) for n in made],
        "orphan_types": [node_data(n, exact) for n in kept_types],
    }


def _metrics(ids: list[str], pairs: list[tuple[str, str]], include_optional: bool) -> dict:
    num_nodes, num_edges = len(ids), len(pairs)
    sizes = _component_sizes(ids, pairs)
    return {
        "num_nodes": num_nodes,
        "num_edges": num_edges,
        "mean_degree": (2 * num_edges) / num_nodes if num_nodes else None,
        "edge_density": num_edges / (num_nodes * (num_nodes - 1)) if num_nodes > 1 else 0,
        "num_connected_components": len(sizes),
        "sizes_of_connected_components": sizes,
        "num_selfloops": sum(1 for s, t in pairs if s == t) if include_optional else -1,
        "diameter": -1,
        "avg_shortest_path_length": -1,
        "avg_clustering": -1,
    }


def _optional_metrics(r: Any) -> dict[str, Any]:
    """Diameter, average shortest path length and average clustering as Cognee 1.6.5's working
    backends define them (Neo4j's GDS, and what LadybugDB's queries ask for): over every pair of
    distinct nodes joined by a path, edges undirected (on a connected graph, networkx's
    ``diameter`` and ``average_shortest_path_length``, which Cognee's ground truth holds); -1
    where no pair is joined; clustering as networkx's ``average_clustering``, -1 without nodes.
    LadybugDB itself returns its failure dict here (issue 35; docs/drivers/cognee.md)."""
    d = r.distances(groups=GROUPS)
    clustering = r.average_clustering(groups=GROUPS)
    return {
        "diameter": d.diameter if d.pairs else -1,
        "avg_shortest_path_length": d.total / d.pairs if d.pairs else -1,
        "avg_clustering": clustering if clustering is not None else -1,
    }


def _component_sizes(ids: list[str], pairs: list[tuple[str, str]]) -> list[int]:
    """Connected component sizes (undirected), largest first; union-find."""
    parent = {i: i for i in ids}

    def find(x: str) -> str:
        root = x
        while parent[root] != root:
            root = parent[root]
        while parent[x] != root:
            parent[x], x = root, parent[x]
        return root

    for s, t in pairs:
        parent.setdefault(s, s)
        parent.setdefault(t, t)
        a, b = find(s), find(t)
        if a != b:
            parent[b] = a
    sizes: dict[str, int] = {}
    for x in parent:
        root = find(x)
        sizes[root] = sizes.get(root, 0) + 1
    return sorted(sizes.values(), reverse=True)
