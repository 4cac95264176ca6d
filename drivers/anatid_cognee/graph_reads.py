"""The graph adapter's read methods: nodes, edges, neighbourhoods and filtered subgraphs.

Each method is one or two core read verbs plus the translation back into Cognee's shapes:
``get_node`` dicts carry ``id``; ``get_graph_data``-style node tuples are ``(id, {name, type,
...})``; edge tuples are ``(source, target, relationship_name, properties)`` in the edge's real
direction. Reads go through ``reads`` (the store, or a historical view on an ``as_of`` adapter).
"""

from __future__ import annotations

from typing import Any
from uuid import UUID

from cognee.exceptions import CogneeValidationError

from anatid_core import Cond, Edge, Node, gc_paused

from .adapter_base import SMALL_READ, StoreBacked
from .nodesets import common_neighbours, plain_nodeset
from .records import (
    GRAPH_GROUP,
    EdgeData,
    NodeData,
    edge_dict,
    edge_tuple,
    node_data,
    node_tuple,
    plain_edge_tuple,
    plain_node_tuple,
    unique_strings,
)

GROUPS = [GRAPH_GROUP]


def _graph_nodes(reads: Any, ids: list[str]) -> list[Node]:
    return [n for n in reads.get_nodes(ids) if n.group == GRAPH_GROUP] if ids else []


def _edges_among(reads: Any, ids: list[str]) -> list[Edge]:
    """Every edge whose two endpoints are both in ``ids`` (each edge once)."""
    if not ids:
        return []
    return reads.edges_between(ids, ids, directed=True)


def _endpoint_triples(
    reads: Any, edges: list[Edge], middle: Any, exact: bool, anchor: str | None = None
) -> list[tuple[Any, Any, Any]]:
    """``(source dict, middle(edge), target dict)`` for edges whose endpoints both exist.

    With ``anchor``, each triple starts at that node whatever the edge's direction, as
    LadybugDB's undirected ``MATCH (n)-[r]-(m) WHERE n.id = $id`` returns them (the edge's
    ``source_node_id``/``target_node_id`` properties still tell the real direction)."""
    by_id = {
        n.id: node_data(n, exact)
        for n in _graph_nodes(
            reads, unique_strings(endpoint for e in edges for endpoint in (e.src, e.dst))
        )
    }
    triples = []
    for e in edges:
        if e.src not in by_id or e.dst not in by_id:
            continue
        first, second = (e.dst, e.src) if anchor is not None and e.dst == anchor else (e.src, e.dst)
        triples.append((by_id[first], middle(e), by_id[second]))
    return triples


class GraphReads(StoreBacked):
    """Read half of :class:`~anatid_cognee.AnatidGraphAdapter`."""

    async def is_empty(self) -> bool:
        return await self._read(lambda r: not r.find_nodes(groups=GROUPS, limit=1))

    async def has_node(self, node_id: str) -> bool:
        return await self.get_node(node_id) is not None

    async def get_node(self, node_id: str) -> NodeData | None:
        found = await self.get_nodes([node_id])
        return found[0] if found else None

    async def get_nodes(self, node_ids: list[str]) -> list[NodeData]:
        ids = unique_strings(node_ids)
        if not ids:
            return []
        if self.exact_values:
            return await self._read(lambda r: [node_data(n, True) for n in _graph_nodes(r, ids)])

        def work(r: Any) -> list[NodeData]:
            # Rows with props read straight into JSON values, as get_graph_data (issue 16):
            # no Node objects, no JSON round trip of their exact values.
            rows = r.node_rows(ids=ids, groups=GROUPS, plain_props=True)
            by_id = {node_id: data for node_id, data in map(plain_node_tuple, rows)}
            return [{"id": i, **by_id[i]} for i in ids if i in by_id]

        return await (self._small_read(work) if len(ids) <= SMALL_READ else self._read(work))

    async def has_edge(self, source_id: str, target_id: str, relationship_name: str) -> bool:
        return bool(await self.has_edges([(source_id, target_id, relationship_name)]))

    async def has_edges(self, edges: list[Any]) -> list[Any]:
        """The subset of ``(source, target, relationship_name[, ...])`` edges that exist."""
        from .records import edge_id

        wanted = [(str(e[0]), str(e[1]), str(e[2])) for e in edges]
        if not wanted:
            return []

        def work(r: Any) -> list[tuple[str, str, str]]:
            found = {e.id for e in r.get_edges([edge_id(*w) for w in wanted])}
            return [w for w in wanted if edge_id(*w) in found]

        return await self._read(work)

    async def get_graph_data(self) -> tuple[list[tuple[str, NodeData]], list[EdgeData]]:
        def work(r: Any) -> tuple[list[tuple[str, NodeData]], list[EdgeData]]:
            if self.exact_values:
                nodes = r.find_nodes(groups=GROUPS)
                if not nodes:
                    return [], []
                return [node_tuple(n, True) for n in nodes], [
                    edge_tuple(e, True) for e in r.find_edges(groups=GROUPS)
                ]
            # The whole graph: bulk rows with props read straight into JSON values, not
            # Node/Edge objects whose exact values as_json would write out again (issue 16).
            with gc_paused():  # the shapes are built from the rows: no collector passes either
                rows = r.node_rows(groups=GROUPS, plain_props=True)
                if not rows:
                    return [], []
                return [plain_node_tuple(row) for row in rows], [
                    plain_edge_tuple(row) for row in r.edge_rows(groups=GROUPS, plain_props=True)
                ]

        return await self._read(work)

    async def get_graph_counts(self) -> tuple[int, int]:
        return await self._read(
            lambda r: (r.count_nodes(groups=GROUPS), r.count_edges(groups=GROUPS))
        )

    async def get_edges(self, node_id: str) -> list[Any]:
        """``(node, relationship_name, other)`` for every edge at ``node_id`` (node first)."""
        return await self._read(
            lambda r: _endpoint_triples(
                r,
                r.edges_of([str(node_id)], direction="both"),
                lambda e: e.rel,
                self.exact_values,
                str(node_id),
            )
        )

    async def get_connections(
        self, node_id: str | UUID
    ) -> list[tuple[NodeData, dict[str, Any], NodeData]]:
        """``(node, {relationship_name, ...properties}, other)`` for every edge at ``node_id``,
        the node first as LadybugDB returns them (``source_node_id`` in the properties tells
        the direction)."""
        return await self._read(
            lambda r: _endpoint_triples(
                r,
                r.edges_of([str(node_id)], direction="both"),
                lambda e: edge_dict(e, self.exact_values),
                self.exact_values,
                str(node_id),
            )
        )

    async def get_neighbors(self, node_id: str) -> list[NodeData]:
        def work(r: Any) -> list[NodeData]:
            neighbours = r.neighbours([str(node_id)], direction="both")
            return [node_data(n, self.exact_values) for n in neighbours if n.group == GRAPH_GROUP]

        return await self._read(work)

    async def get_neighborhood(
        self, node_ids: list[str], depth: int = 1, edge_types: list[str] | None = None
    ) -> tuple[list[tuple[str, NodeData]], list[EdgeData]]:
        """Undirected k-hop neighbourhood; with ``edge_types`` every edge on the path must be
        of an allowed type. Returns every edge among the returned nodes."""
        seeds = unique_strings(node_ids)
        if not seeds:
            return [], []

        def work(r: Any) -> tuple[list[tuple[str, NodeData]], list[EdgeData]]:
            # Unrestricted expansion is one query in the core; only graph nodes have edges,
            # so the group check can wait until the nodes are in hand.
            sub = r.expand(
                seeds,
                depth=max(int(depth), 0),
                direction="both",
                rels=list(edge_types) if edge_types else None,
            )
            nodes = [n for n in sub.nodes if n.group == GRAPH_GROUP]
            if not nodes:
                return [], []
            # Every edge among the reached nodes (of any type). Unfiltered, the expansion has
            # all of them except those joining two nodes of the last hop.
            if edge_types:
                edges = {e.id: e for e in _edges_among(r, [n.id for n in nodes])}
            else:
                last = [n.id for n in nodes if sub.distance[n.id] == depth]
                edges = {e.id: e for e in sub.edges}
                for e in _edges_among(r, last):
                    edges.setdefault(e.id, e)
            return [node_tuple(n, self.exact_values) for n in nodes], [
                edge_tuple(e, self.exact_values) for e in edges.values()
            ]

        return await self._read(work)

    async def get_id_filtered_graph_data(
        self, target_ids: list[str]
    ) -> tuple[list[tuple[str, NodeData]], list[EdgeData]]:
        """Edges touching ``target_ids`` and their endpoint nodes."""
        if not target_ids:
            return [], []
        if not all(isinstance(x, str) for x in target_ids):
            raise CogneeValidationError("target_ids must be a list of strings")
        ids = unique_strings(target_ids)

        def work(r: Any) -> tuple[list[tuple[str, NodeData]], list[EdgeData]]:
            edges = r.edges_of(ids, direction="both")
            if not edges:
                return [], []
            endpoints = unique_strings(x for e in edges for x in (e.src, e.dst))
            return [node_tuple(n, self.exact_values) for n in _graph_nodes(r, endpoints)], [
                edge_tuple(e, self.exact_values) for e in edges
            ]

        return await self._read(work)

    async def get_filtered_graph_data(
        self, attribute_filters: list[dict[str, list[str | int]]]
    ) -> tuple[list[tuple[str, NodeData]], list[EdgeData]]:
        """Nodes matching every filter (IN over each list; ``type``/``name``/``id`` or any
        property), plus the edges among them."""
        query = _node_query(attribute_filters)
        if query is None:
            return [], []

        def work(r: Any) -> tuple[list[tuple[str, NodeData]], list[EdgeData]]:
            if self.exact_values:
                nodes = r.find_nodes(groups=GROUPS, **query)
                if not nodes:
                    return [], []
                return [node_tuple(n, True) for n in nodes], [
                    edge_tuple(e, True) for e in _edges_among(r, [n.id for n in nodes])
                ]
            # Plain rows, as get_graph_data (issue 16): the current records in memory answer
            # the type/name/id filters and the edges among the nodes without SQL.
            rows = r.node_rows(groups=GROUPS, plain_props=True, **query)
            if not rows:
                return [], []
            edges = r.edge_rows(among=[row[0] for row in rows], plain_props=True)
            return [plain_node_tuple(row) for row in rows], [plain_edge_tuple(row) for row in edges]

        return await self._read(work)

    async def get_nodeset_subgraph(
        self, node_type: type[Any], node_name: list[str], node_name_filter_operator: str = "OR"
    ) -> tuple[list[Any], list[Any]]:
        """Nodes of ``node_type`` named in ``node_name``, their neighbours (with "AND": only
        neighbours adjacent to every one of them), and the edges among all of these."""
        label = node_type.__name__
        names = [str(n) for n in node_name or []]
        if not names:
            return [], []

        def work(r: Any) -> tuple[list[tuple[str, NodeData]], list[EdgeData]]:
            if self.exact_values:
                return _exact_nodeset(r, label, names, node_name_filter_operator)
            return plain_nodeset(r, GROUPS, label, names, node_name_filter_operator)

        return await self._read(work)

    async def get_triplets_batch(self, offset: int, limit: int) -> list[dict[str, Any]]:
        if offset < 0:
            raise ValueError(f"Offset must be non-negative, got {offset}")
        if limit < 0:
            raise ValueError(f"Limit must be non-negative, got {limit}")

        def work(r: Any) -> list[dict[str, Any]]:
            edges = r.find_edges(
                groups=GROUPS, order_by=["src", "dst", "rel"], limit=limit, offset=offset
            )
            return [
                {"start_node": s, "relationship_properties": rel, "end_node": t}
                for s, rel, t in _endpoint_triples(
                    r,
                    edges,
                    lambda e: {**edge_dict(e, self.exact_values), "relationship_name": e.rel},
                    self.exact_values,
                )
            ]

        return await self._read(work)

    async def get_entity_type_names(self, entity_ids: list[str]) -> dict[str, str]:
        """One hop over ``is_a``: entity id -> the name of its EntityType."""
        ids = unique_strings(entity_ids)
        if not ids:
            return {}

        def work(r: Any) -> dict[str, str]:
            edges = r.edges_of(ids, direction="out", rels=["is_a"])
            types = {
                n.id: n.name
                for n in _graph_nodes(r, unique_strings(e.dst for e in edges))
                if n.props.get("type") == "EntityType" and n.name
            }
            wanted = set(ids)
            return {e.src: types[e.dst] for e in edges if e.src in wanted and e.dst in types}

        return await self._read(work)


def _node_query(attribute_filters: list[dict[str, list[Any]]]) -> dict[str, Any] | None:
    """``find_nodes`` arguments for Cognee attribute filters (AND across keys and dicts)."""
    ids: set[str] | None = None
    labels: set[str] | None = None
    names: set[str] | None = None
    conds: list[Cond] = []
    for filter_dict in attribute_filters or []:
        for attr, values in filter_dict.items():
            if not str(attr).isidentifier():
                raise CogneeValidationError(
                    f"Invalid attribute filter key '{attr}'. Only identifiers are allowed."
                )
            if not values:
                continue
            as_str = {str(v) for v in values}
            if attr == "id":
                ids = as_str if ids is None else ids & as_str
            elif attr == "type":
                labels = as_str if labels is None else labels & as_str
            elif attr == "name":
                names = as_str if names is None else names & as_str
            else:
                conds.append(Cond(f"props.{attr}", "in", list(values)))
    if ids is None and labels is None and names is None and not conds:
        return None
    query: dict[str, Any] = {}
    if ids is not None:
        query["ids"] = sorted(ids)
    if labels is not None:
        query["labels"] = sorted(labels)
    if names is not None:
        query["names"] = sorted(names)
    if conds:
        query["where"] = [conds]
    return query


def _exact_nodeset(
    r: Any, label: str, names: list[str], operator: str
) -> tuple[list[tuple[str, NodeData]], list[EdgeData]]:
    """``get_nodeset_subgraph`` with exact values, from Node/Edge objects."""
    found = r.find_nodes(groups=GROUPS, labels=[label], names=names)
    if not found:
        return [], []
    primary = [n.id for n in found]
    by_id = {n.id: n for n in found}
    for n in _nodeset_neighbours(r, primary, operator):
        by_id.setdefault(n.id, n)
    nodes = [n for n in by_id.values() if n.group == GRAPH_GROUP]
    kept = [n.id for n in nodes]
    return [(n.id, node_data(n, True)) for n in nodes], [
        edge_tuple(e, True) for e in _edges_among(r, kept)
    ]


def _nodeset_neighbours(r: Any, primary: list[str], operator: str) -> list[Node]:
    """The primaries' neighbours; with "AND" only those adjacent to every primary."""
    if operator == "OR":
        return r.neighbours(primary, direction="both")
    ends = [(e.src, e.dst) for e in r.edges_of(primary, direction="both")]
    common = common_neighbours(primary, ends)
    return r.get_nodes(common) if common else []


class GraphHistory(StoreBacked):
    """What only a bitemporal store can answer: every version a node or edge went through."""

    async def history(self, node_id: str) -> list[dict[str, Any]]:
        """Every stored version of graph node ``node_id``, oldest first: ``{"properties":
        <get_node dict>, "tx_from", "tx_to" (None while current), "version"}``."""

        def work(r: Any) -> list[dict[str, Any]]:
            return [
                {
                    "properties": node_data(v, self.exact_values),
                    "tx_from": v.tx_from,
                    "tx_to": v.tx_to,
                    "version": v.version,
                }
                for v in r.history(str(node_id), kind="node")
                if v.group == GRAPH_GROUP
            ]

        return await self._read(work)

    async def edge_history(
        self, source_id: str, target_id: str, relationship_name: str
    ) -> list[dict[str, Any]]:
        """Every stored version of one edge, oldest first (``properties`` as in
        ``get_graph_data``)."""
        from .records import edge_id

        key = edge_id(str(source_id), str(target_id), str(relationship_name))

        def work(r: Any) -> list[dict[str, Any]]:
            return [
                {
                    "properties": edge_tuple(v, self.exact_values)[3],
                    "tx_from": v.tx_from,
                    "tx_to": v.tx_to,
                    "version": v.version,
                }
                for v in r.history(key, kind="edge")
            ]

        return await self._read(work)
