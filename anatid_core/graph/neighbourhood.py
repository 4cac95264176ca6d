"""Graph reads: incident edges, neighbours, k-hop expansion and degrees (mixed into Reader)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Protocol, cast

from ..base.errors import InvalidInput
from ..base.identifiers import group_list, name_list
from ..base.lazy import lazy_props
from ..base.model import Direction, Edge, Kind, Node, Subgraph
from ..indexes.neighbour_tallies import NeighbourCounts
from ..indexes.registry import Indexes
from ..indexes.walk_index import Walk, expansion, index_for_walk, walked_items
from ..storage.arrow_arrays import int64s
from ..storage.connection import Connection
from ..storage.filters import SqlFilter
from ..storage.rows import EDGE_COLS, Visibility, edge_from_row, id_list
from ..storage.sql import rows_in
from ..storage.turns import verbs_take_turns

#: Deepest expansion answered by one SQL statement (see ``NeighbourhoodReads.expand``).
ONE_QUERY_MAX_DEPTH = 8
#: Records per read of :meth:`NeighbourhoodReads.neighbour_counts`' far nodes.
_RECORDS_PER_READ = 2_000


class RecordReads(Protocol):
    """What the graph verbs need from the reader they are mixed into."""

    connection: Connection
    indexes: Indexes
    visibility: Visibility

    def _query(self, sql: str, params: Any = ()) -> list[tuple[Any, ...]]: ...
    def _edge_filter(self, rels: Iterable[str] | None) -> SqlFilter: ...
    def get_nodes(self, ids: Iterable[str]) -> list[Node]: ...
    def _read_many(self, kind: Kind, wanted: list[str]) -> list[Any]: ...
    def _edges_between_rows(
        self, a: list[str], b: list[str], rels: list[str] | None, directed: bool
    ) -> list[tuple[Any, ...]] | None: ...
    def _edges_of_rows(
        self, ids: list[str], direction: str, rels: list[str] | None
    ) -> list[tuple[Any, ...]] | None: ...
    def _walk_from_memory(
        self, seeds: list[str], depth: int, sides: list[tuple[int, int]], rels: set[str] | None
    ) -> list[tuple[int, tuple[Any, ...]]] | None: ...
    def _from_memory(self, kind: Kind, ids: list[str]) -> list[Any] | None: ...


@verbs_take_turns
class NeighbourhoodReads(RecordReads):
    """The graph verbs of :class:`anatid_core.reads.Reader`."""

    def edges_of(
        self,
        node_ids: Iterable[str],
        *,
        direction: Direction = "both",
        rels: Iterable[str] | None = None,
    ) -> list[Edge]:
        ids = id_list(node_ids, "node_ids")
        if not ids:
            return []
        if rels is not None and not isinstance(rels, (str, list, tuple)):
            rels = name_list(rels, "rels")  # read twice: by the filter, by the memory path
        f = self._edge_filter(rels)
        # One indexed lookup per side, joined by UNION: an OR across src and dst would make
        # DuckDB scan the whole table (96 ms against ~1 ms at 2.3M edges).
        sides = {"out": ["src"], "in": ["dst"], "both": ["src", "dst"]}.get(direction)
        if sides is None:
            raise InvalidInput(f"direction must be 'out', 'in' or 'both', got {direction!r}")
        # From the in-memory current edges where they serve: an SQL statement was ~1 ms a
        # call whatever the node (Graphiti's facts of an entity, an episode's mentions)
        wanted = None if rels is None else [rels] if isinstance(rels, str) else list(rels)
        rows = self._edges_of_rows(ids, direction, wanted)
        if rows is not None:
            return [edge_from_row(row) for row in rows]
        parts, params = [], []
        for side in sides:
            source, condition, lookup = rows_in("edges", side, ids)
            parts.append(f"SELECT {EDGE_COLS} FROM {source} WHERE {condition} AND {f.sql()}")
            params += [*lookup, *f.params]
        rows = self._query(" UNION ".join(parts) + " ORDER BY 2", params)
        return [edge_from_row(row) for row in rows]

    def edge_ends(
        self,
        node_ids: Iterable[str],
        *,
        direction: Direction = "both",
        rels: Iterable[str] | None = None,
    ) -> list[tuple[str, str, str, str]]:
        """``(id, src, dst, rel)`` of the edges :meth:`edges_of` gives, by id, without their
        records: from the in-memory current edges, or the graph index of one rel (as
        :meth:`expand`'s), no record is decoded (the Cypher engine counts a pattern's
        relationships per node with it: a ``count(r)`` per entity built 2,000 rows and their
        records at 10k facts; issue 42). From the graph index, an edge whose other end is not a
        visible node is left out."""
        ids = id_list(node_ids, "node_ids")
        rels, sides = self._ends_arguments(direction, rels)
        if not ids:
            return []
        current = self.indexes.current
        if not self.connection.closed and self.visibility.is_current and current.usable():
            if current.view("edge") is not None:
                with self.indexes.consistent():
                    view = current.loaded("edge")
                    if view is not None:
                        return view.ends_at(ids, sides, None if rels is None else set(rels))
        if rels is not None and len(rels) == 1:
            walked = self._edge_ends_by_index(ids, direction, rels[0])
            if walked is not None:
                return walked
        found = self.edges_of(ids, direction=direction, rels=rels)
        return [(e.id, e.src, e.dst, e.rel) for e in found]

    def neighbour_counts(
        self,
        node_ids: Iterable[str],
        *,
        direction: Direction = "both",
        rels: Iterable[str] | None = None,
    ) -> NeighbourCounts:
        """For each node, how many of its edges (those :meth:`edges_of` gives it, in
        ``direction``, of ``rels``) lead to a visible node, by the edge's rel and that node's
        labels: ``{node: {(rel, labels): count}}``, a node with none left out. A self loop
        counts once; an edge between two of the nodes counts for each. What a pattern count
        needs (Cypher's ``(n)-[:T]-(:Label)`` counted per ``n``), without a record: from the
        in-memory current records, about an edge a microsecond; else from :meth:`edge_ends` and the
        far nodes' records."""
        ids = id_list(node_ids, "node_ids")
        rels, sides = self._ends_arguments(direction, rels)
        if not ids:
            return {}
        current = self.indexes.current
        if not self.connection.closed and self.visibility.is_current and current.usable():
            if current.view("edge") is not None and current.view("node") is not None:
                with self.indexes.consistent():
                    edges, nodes = current.loaded("edge"), current.loaded("node")
                    if edges is not None and nodes is not None:
                        wanted = None if rels is None else set(rels)
                        return edges.neighbour_counts(nodes, ids, sides, wanted)
        return self._neighbour_counts_read(ids, direction, rels)

    def _ends_arguments(
        self, direction: str, rels: Iterable[str] | None
    ) -> tuple[list[str] | None, list[int]]:
        """``rels`` as a sequence (checked) and the row positions of the ends ``direction``
        names (2: src, 3: dst), for :meth:`edge_ends` and :meth:`neighbour_counts`."""
        # a list read twice by the callers, checked as every verb's rels= (an int was an
        # untyped TypeError); one rel alone may be a str here
        rels = name_list([rels] if isinstance(rels, str) else rels, "rels")
        sides = {"out": [2], "in": [3], "both": [2, 3]}.get(direction)
        if sides is None:
            raise InvalidInput(f"direction must be 'out', 'in' or 'both', got {direction!r}")
        return rels, sides

    def _neighbour_counts_read(
        self, ids: list[str], direction: Direction, rels: Iterable[str] | None
    ) -> NeighbourCounts:
        """:meth:`neighbour_counts` from the edges' ends and the far nodes' records (a past
        view, or past the in-memory records' bound)."""
        wanted = set(ids)
        pairs: list[tuple[str, str, str]] = []  # (near, rel, far) per edge end
        for _, src, dst, rel in self.edge_ends(ids, direction=direction, rels=rels):
            if direction in ("out", "both") and src in wanted:
                pairs.append((src, rel, dst))
            if direction in ("in", "both") and dst in wanted:
                if direction == "both" and src == dst:
                    continue  # a self loop, counted leaving
                pairs.append((dst, rel, src))
        fars = list(dict.fromkeys(far for _, _, far in pairs))
        labels_of: dict[str, tuple[str, ...]] = {}
        with lazy_props():
            for start in range(0, len(fars), _RECORDS_PER_READ):
                for node in self.get_nodes(fars[start : start + _RECORDS_PER_READ]):
                    labels_of[node.id] = tuple(node.labels)
        out: NeighbourCounts = {}
        for near, rel, far in pairs:
            labels = labels_of.get(far)
            if labels is not None:
                tally = out.setdefault(near, {})
                tally[(rel, labels)] = tally.get((rel, labels), 0) + 1
        return out

    def _edge_ends_by_index(
        self, ids: list[str], direction: str, rel: str
    ) -> list[tuple[str, str, str, str]] | None:
        """:meth:`edge_ends` of one rel from the graph index :meth:`expand` uses (past the
        in-memory records' limit, as 125k edges at 100k facts are); None where SQL answers."""
        index = index_for_walk(self.indexes.graphs, self.visibility, [rel])
        if index is None:
            return None
        graph = index.graph
        positions = [e for _, e in expansion(index, ids, 1, direction)]
        if not positions:
            return []
        edge_ids = graph.edge_ids.take(int64s(positions)).to_pylist()
        src, dst = graph.src[positions].tolist(), graph.dst[positions].tolist()
        names = graph.ids
        found = [(i, names[a], names[b], rel) for i, a, b in zip(edge_ids, src, dst, strict=True)]
        return sorted(found)

    def edges_between(
        self,
        a_ids: Iterable[str],
        b_ids: Iterable[str],
        *,
        rels: Iterable[str] | None = None,
        directed: bool = True,
    ) -> list[Edge]:
        a, b = id_list(a_ids, "a_ids"), id_list(b_ids, "b_ids")
        if not a or not b:
            return []
        if rels is not None and not isinstance(rels, (str, list, tuple)):
            rels = list(rels)  # read twice: by the filter (which checks it), by the memory path
        f = self._edge_filter(rels)
        rows = self._edges_between_rows(a, b, None if rels is None else list(rels), directed)
        if rows is not None:
            return [edge_from_row(row) for row in rows]
        forward = (
            "r.src IN (SELECT unnest(?::VARCHAR[])) AND r.dst IN (SELECT unnest(?::VARCHAR[]))"
        )
        if directed:
            f.clauses.append(forward)
            params = f.params + [a, b]
        else:
            f.clauses.append(f"({forward}) OR ({forward})")
            params = f.params + [a, b, b, a]
        return [
            edge_from_row(row)
            for row in self._query(
                f"SELECT {EDGE_COLS} FROM edges r WHERE {f.sql()} ORDER BY r.id", params
            )
        ]

    def neighbours(
        self,
        node_ids: Iterable[str],
        *,
        direction: Direction = "both",
        rels: Iterable[str] | None = None,
        labels: Iterable[str] | None = None,
    ) -> list[Node]:
        ids = id_list(node_ids, "node_ids")
        label_list = name_list(labels, "labels")
        edges = self.edges_of(ids, direction=direction, rels=rels)
        seeds = set(ids)
        others: dict[str, None] = {}
        for e in edges:
            if direction in ("out", "both") and e.src in seeds:
                others[e.dst] = None
            if direction in ("in", "both") and e.dst in seeds:
                others[e.src] = None
        if not others:
            return []
        wanted = None if label_list is None else set(label_list)
        found = [
            n for n in self.get_nodes(list(others)) if wanted is None or wanted & set(n.labels)
        ]
        return sorted(found, key=lambda n: n.id)

    def expand(
        self,
        seeds: Iterable[str],
        *,
        depth: int = 1,
        direction: Direction = "both",
        rels: Iterable[str] | None = None,
        labels: Iterable[str] | None = None,
        groups: Iterable[str] | None = None,
    ) -> Subgraph:
        """Breadth-first expansion: one indexed edge query per hop, never revisiting a node.

        Nodes are fetched per hop only when ``labels``/``groups`` restrict which may be entered;
        otherwise once, at the end.
        """
        if depth < 0:
            raise InvalidInput(f"depth must be >= 0, got {depth}")
        seed_ids = list(dict.fromkeys(id_list(seeds, "seeds")))
        label_list, group_names = name_list(labels, "labels"), group_list(groups)
        label_set = None if label_list is None else set(label_list)
        group_set = None if group_names is None else set(group_names)
        filtered = label_set is not None or group_set is not None
        # The one-query plan re-joins every hop in one statement: fast for the usual shallow
        # depths, but its size grows with depth (depth=10**6 exhausted memory). Deeper
        # expansions walk hop by hop and stop when nothing new is reached.
        if not filtered and seed_ids and 0 < depth <= ONE_QUERY_MAX_DEPTH:
            return self._expand_in_one_query(seed_ids, depth, direction, rels)
        distance: dict[str, int] = dict.fromkeys(seed_ids, 0)
        via: dict[str, Edge] = {}
        nodes: dict[str, Node] = {}
        frontier = seed_ids
        for hop in range(1, depth + 1):
            if not frontier:
                break
            reach = self._reach(frontier, direction, rels)
            if filtered:
                fresh = self.get_nodes([i for i in reach if i not in distance])
                nodes.update((n.id, n) for n in fresh if _enterable(n, label_set, group_set))
            frontier = []
            for end, edges in reach.items():
                if filtered and end not in nodes and end not in distance:
                    continue
                for e in edges:
                    via[e.id] = e
                if end not in distance:
                    distance[end] = hop
                    frontier.append(end)
        found = {n.id: n for n in self.get_nodes([i for i in distance if i not in nodes])}
        found.update(nodes)
        return _subgraph(found, distance, via.values())

    def _reach(
        self, frontier: list[str], direction: Direction, rels: Iterable[str] | None
    ) -> dict[str, list[Edge]]:
        """The nodes one hop from the frontier, each with the edges that reach it."""
        front = set(frontier)
        reach: dict[str, list[Edge]] = {}
        for e in self.edges_of(frontier, direction=direction, rels=rels):
            if direction in ("out", "both") and e.src in front:
                reach.setdefault(e.dst, []).append(e)
            if direction in ("in", "both") and e.dst in front:
                reach.setdefault(e.src, []).append(e)
        return reach

    def _expand_in_one_query(
        self, seed_ids: list[str], depth: int, direction: Direction, rels: Iterable[str] | None
    ) -> Subgraph:
        """Unfiltered expansion as one chain of indexed joins, then one node fetch.

        Hop k joins the edges leaving the endpoints reached at hop k-1. Every endpoint of hop k is
        at distance <= k, so each edge found lies on a path of length <= depth; distances are the
        smallest hop at which a node is reached.
        """
        sides = {
            "out": [("src", "dst")],
            "in": [("dst", "src")],
            "both": [("src", "dst"), ("dst", "src")],
        }.get(direction)
        if sides is None:
            raise InvalidInput(f"direction must be 'out', 'in' or 'both', got {direction!r}")
        if rels is not None and not isinstance(rels, (str, list, tuple)):
            rels = list(rels)  # read twice below
        f = self._edge_filter(rels)  # validates rels
        at = {"src": 2, "dst": 3}  # positions in an edge row
        met = self._walk_from_memory(
            seed_ids,
            depth,
            [(at[near], at[far]) for near, far in sides],
            None if rels is None else set(rels),
        )
        if met is None:
            walked = self._expand_by_index(seed_ids, depth, direction, rels)
            if walked is not None:
                return walked
            met = [(r[0], r[1:]) for r in self._expand_rows(seed_ids, depth, sides, f)]
        met.sort(key=_by_hop_and_id)
        distance: dict[str, int] = dict.fromkeys(seed_ids, 0)
        edges: list[Edge] = []
        seen: set[int] = set()
        for hop, row in met:
            if row[0] in seen:  # its version id
                continue
            seen.add(row[0])
            e = edge_from_row(row)
            hop = int(hop)
            edges.append(e)
            for end in (e.src, e.dst):
                if end not in distance:
                    distance[end] = hop
        # the seeds were checked, the others read from the store: not checked again
        found = cast(list[Node], self._read_many("node", list(distance)))
        return _subgraph({n.id: n for n in found}, distance, edges)

    def _expand_by_index(
        self, seed_ids: list[str], depth: int, direction: str, rels: Iterable[str] | None
    ) -> Subgraph | None:
        """:meth:`_expand_in_one_query` over the in-memory index of the visible graph
        (:mod:`anatid_core.indexes.walk_index`), its records from the in-memory current records or
        the graph's record columns; None where SQL answers. At 1M nodes / 2.3M edges the two SQL
        steps cost ~5 ms where the walk costs well under one (issue 16)."""
        index = index_for_walk(self.indexes.graphs, self.visibility, rels)
        if index is None:
            return None
        graph = index.graph
        met = expansion(index, seed_ids, depth, direction)
        positions = [e for _, e in met]
        ids = graph.edge_ids.take(int64s(positions)).to_pylist()
        order = sorted(range(len(met)), key=lambda i: (met[i][0], ids[i]))
        edges = cast(
            list[Edge],
            walked_items(
                self._from_memory,
                self.connection,
                graph,
                "edge",
                [ids[i] for i in order],
                lambda: graph.edge_vids[[positions[i] for i in order]].tolist(),
            ),
        )
        distance: dict[str, int] = dict.fromkeys(seed_ids, 0)
        for i, e in zip(order, edges, strict=True):
            for end in (e.src, e.dst):
                if end not in distance:
                    distance[end] = met[i][0]
        known = [i for i in distance if graph.position(i) is not None]
        nodes = cast(
            list[Node],
            walked_items(
                self._from_memory,
                self.connection,
                graph,
                "node",
                known,
                lambda: Walk(index).node_rows(known),
            ),
        )
        return _subgraph({n.id: n for n in nodes}, distance, edges)

    def _expand_rows(
        self, seed_ids: list[str], depth: int, sides: list[tuple[str, str]], f: SqlFilter
    ) -> list[tuple[Any, ...]]:
        """``(hop, *edge row)`` of every edge met at each hop, by SQL (see the in-memory
        ``_KindView.walk`` for the same walk over the current records)."""
        ctes: list[str] = []
        params: list[Any] = []
        for hop in range(1, depth + 1):
            source = "SELECT unnest(?::VARCHAR[])" if hop == 1 else f"SELECT nxt FROM h{hop - 1}"
            parts = []
            for near, far in sides:
                # Carry every column: joining back on vid later would scan the whole table.
                parts.append(
                    f"SELECT {hop} AS hop, r.{far} AS nxt, {EDGE_COLS} FROM edges r "
                    f"WHERE r.{near} IN ({source}) AND {f.sql()}"
                )
                if hop == 1:
                    params.append(seed_ids)
                params.extend(f.params)
            ctes.append(f"h{hop} AS ({' UNION ALL '.join(parts)})")
        # Deduplicating in SQL (a window over the union) doubles the query time: do it below.
        sql = f"WITH {', '.join(ctes)} " + " UNION ALL ".join(
            f"SELECT * EXCLUDE (nxt) FROM h{h}" for h in range(1, depth + 1)
        )
        return self._query(sql, params)

    def degrees(
        self,
        node_ids: Iterable[str],
        *,
        direction: Direction = "in",
        rels: Iterable[str] | None = None,
    ) -> dict[str, int]:
        ids = id_list(node_ids, "node_ids")
        counts = dict.fromkeys(ids, 0)
        if not ids:
            return counts
        wanted = set(ids)
        for e in self.edges_of(ids, direction=direction, rels=rels):
            if direction in ("out", "both") and e.src in wanted:
                counts[e.src] += 1
            if direction in ("in", "both") and e.dst in wanted:
                counts[e.dst] += 1
        return counts


def _by_hop_and_id(met: tuple[int, tuple[Any, ...]]) -> tuple[int, str]:
    return met[0], met[1][1]


def _subgraph(found: dict[str, Node], distance: dict[str, int], edges: Iterable[Edge]) -> Subgraph:
    """The reached nodes that are visible (a seed that is not reaches nothing and is dropped),
    with the edges between them."""
    distance = {i: d for i, d in distance.items() if i in found}
    kept = [e for e in edges if e.src in distance and e.dst in distance]
    return Subgraph(nodes=[found[i] for i in distance], edges=kept, distance=distance)


def _enterable(node: Node, labels: set[str] | None, groups: set[str] | None) -> bool:
    return (labels is None or not labels.isdisjoint(node.labels)) and (
        groups is None or node.group in groups
    )
