"""Every read verb, written once over a visibility predicate.

The store reads current versions; a view returned by ``as_of`` reads the versions that were
known at a transaction time and/or valid at a valid time. Both are :class:`Reader` subclasses.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import duckdb

from .codec import check_id, decode_props, from_micros
from .errors import InvalidInput
from .filters import SqlFilter, order_sql
from .model import Direction, Edge, Hit, Item, Kind, Node, RecallHit, Subgraph, Where

if TYPE_CHECKING:
    from .textindex import TextCache
    from .vectors import VectorCache

NODE_COLS = "r.vid, r.id, r.grp, r.labels, r.name, r.text, r.props, r.space, r.valid_from, r.valid_to, r.tx_from, r.tx_to"
EDGE_COLS = "r.vid, r.id, r.src, r.dst, r.rel, r.grp, r.name, r.text, r.props, r.space, r.valid_from, r.valid_to, r.tx_from, r.tx_to"


@dataclass(frozen=True)
class Visibility:
    """Which versions a read sees: current ones, or those of a past instant."""

    tx_us: int | None = None
    valid_us: int | None = None

    @property
    def is_current(self) -> bool:
        return self.tx_us is None and self.valid_us is None

    def sql(self, a: str = "r") -> str:
        if self.tx_us is None:
            parts = [f"{a}.tx_to IS NULL"]
        else:
            t = int(self.tx_us)
            parts = [f"{a}.tx_from <= {t}", f"({a}.tx_to IS NULL OR {a}.tx_to > {t})"]
        if self.valid_us is not None:
            v = int(self.valid_us)
            parts.append(f"({a}.valid_from IS NULL OR {a}.valid_from <= {v})")
            parts.append(f"({a}.valid_to IS NULL OR {a}.valid_to > {v})")
        return " AND ".join(parts)


def table_of(kind: Kind) -> str:
    if kind == "node":
        return "nodes"
    if kind == "edge":
        return "edges"
    raise InvalidInput(f"kind must be 'node' or 'edge', got {kind!r}")


def cols_of(kind: Kind) -> str:
    return NODE_COLS if kind == "node" else EDGE_COLS


def node_from_row(row: Sequence[Any]) -> Node:
    return Node(
        id=row[1],
        group=row[2],
        labels=tuple(row[3]),
        name=row[4],
        text=row[5],
        props=decode_props(row[6]),
        space=row[7] or "default",
        valid_from=from_micros(row[8]),
        valid_to=from_micros(row[9]),
        tx_from=from_micros(row[10]),
        tx_to=from_micros(row[11]),
        version=row[0],
    )


def edge_from_row(row: Sequence[Any]) -> Edge:
    return Edge(
        id=row[1],
        src=row[2],
        dst=row[3],
        rel=row[4],
        group=row[5],
        name=row[6],
        text=row[7],
        props=decode_props(row[8]),
        space=row[9] or "default",
        valid_from=from_micros(row[10]),
        valid_to=from_micros(row[11]),
        tx_from=from_micros(row[12]),
        tx_to=from_micros(row[13]),
        version=row[0],
    )


def item_from_row(kind: Kind, row: Sequence[Any]) -> Item:
    return node_from_row(row) if kind == "node" else edge_from_row(row)


#: Deepest expansion answered by one SQL statement (see ``Reader.expand``).
ONE_QUERY_MAX_DEPTH = 8


def _id_list(ids: Iterable[str], what: str = "ids") -> list[str]:
    if isinstance(ids, str):
        raise InvalidInput(f"{what} must be a list of ids, not a single string {ids!r:.80}")
    return [check_id(i, what=what[:-1] if what.endswith("s") else what) for i in ids]


class Reader:
    """The read verbs. Subclasses provide a cursor and a visibility."""

    vectors: VectorCache
    text_cache: TextCache

    def _cursor(self) -> duckdb.DuckDBPyConnection:  # pragma: no cover - abstract
        raise NotImplementedError

    def _visibility(self) -> Visibility:  # pragma: no cover - abstract
        raise NotImplementedError

    def _query(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        return self._cursor().execute(sql, list(params)).fetchall()

    # ---------------------------------------------------------------------------- by id

    def get_node(self, id: str) -> Node | None:
        check_id(id)
        rows = self._query(
            f"SELECT {NODE_COLS} FROM nodes r WHERE r.id = ? AND {self._visibility().sql()}", [id]
        )
        return node_from_row(rows[0]) if rows else None

    def get_nodes(self, ids: Iterable[str]) -> list[Node]:
        return self._get_many("node", ids)  # type: ignore[return-value]

    def get_edge(self, id: str) -> Edge | None:
        check_id(id)
        rows = self._query(
            f"SELECT {EDGE_COLS} FROM edges r WHERE r.id = ? AND {self._visibility().sql()}", [id]
        )
        return edge_from_row(rows[0]) if rows else None

    def get_edges(self, ids: Iterable[str]) -> list[Edge]:
        return self._get_many("edge", ids)  # type: ignore[return-value]

    def _get_many(self, kind: Kind, ids: Iterable[str]) -> list[Item]:
        wanted = _id_list(ids)
        if not wanted:
            return []
        rows = self._query(
            f"SELECT {cols_of(kind)} FROM {table_of(kind)} r "
            f"WHERE r.id IN (SELECT unnest(?::VARCHAR[])) AND {self._visibility().sql()}",
            [wanted],
        )
        by_id = {row[1]: item_from_row(kind, row) for row in rows}
        return [by_id[i] for i in dict.fromkeys(wanted) if i in by_id]

    # ----------------------------------------------------------------------------- lists

    def _filter(
        self,
        kind: Kind,
        *,
        ids: Iterable[str] | None = None,
        groups: Iterable[str] | None = None,
        labels: Iterable[str] | None = None,
        rels: Iterable[str] | None = None,
        names: Iterable[str] | None = None,
        src: Iterable[str] | None = None,
        dst: Iterable[str] | None = None,
        where: Where | None = None,
    ) -> SqlFilter:
        f = SqlFilter(kind)
        f.add(self._visibility().sql())
        f.any_of("id", ids)
        f.any_of("grp", groups)
        f.any_of("name", names)
        if kind == "node":
            if rels is not None or src is not None or dst is not None:
                raise InvalidInput("rels, src and dst filter edges, not nodes")
            f.labels_any(labels)
        else:
            if labels is not None:
                raise InvalidInput("labels filter nodes; filter edges with rels")
            f.any_of("rel", rels)
            f.any_of("src", src)
            f.any_of("dst", dst)
        f.where(where)
        return f

    def find_nodes(
        self,
        *,
        ids: Iterable[str] | None = None,
        groups: Iterable[str] | None = None,
        labels: Iterable[str] | None = None,
        names: Iterable[str] | None = None,
        where: Where | None = None,
        order_by: str | Sequence[str] | None = "id",
        limit: int | None = None,
        offset: int = 0,
    ) -> list[Node]:
        f = self._filter("node", ids=ids, groups=groups, labels=labels, names=names, where=where)
        return self._find("node", f, order_by, limit, offset)  # type: ignore[return-value]

    def find_edges(
        self,
        *,
        ids: Iterable[str] | None = None,
        groups: Iterable[str] | None = None,
        rels: Iterable[str] | None = None,
        names: Iterable[str] | None = None,
        src: Iterable[str] | None = None,
        dst: Iterable[str] | None = None,
        where: Where | None = None,
        order_by: str | Sequence[str] | None = "id",
        limit: int | None = None,
        offset: int = 0,
    ) -> list[Edge]:
        f = self._filter(
            "edge", ids=ids, groups=groups, rels=rels, names=names, src=src, dst=dst, where=where
        )
        return self._find("edge", f, order_by, limit, offset)  # type: ignore[return-value]

    def _find(
        self,
        kind: Kind,
        f: SqlFilter,
        order_by: str | Sequence[str] | None,
        limit: int | None,
        offset: int,
    ) -> list[Item]:
        sql = f"SELECT {cols_of(kind)} FROM {table_of(kind)} r WHERE {f.sql()} ORDER BY {order_sql(order_by, kind)}"
        params = list(f.params)
        if limit is not None:
            if not isinstance(limit, int) or isinstance(limit, bool) or limit < 0:
                raise InvalidInput(f"limit must be an int >= 0 (or None), got {limit!r:.40}")
            sql += " LIMIT ?"
            params.append(int(limit))
        if not isinstance(offset, int) or isinstance(offset, bool) or offset < 0:
            raise InvalidInput(f"offset must be an int >= 0, got {offset!r:.40}")
        if offset:
            sql += " OFFSET ?"
            params.append(int(offset))
        return [item_from_row(kind, row) for row in self._query(sql, params)]

    def count_nodes(self, **filters: Any) -> int:
        f = self._filter("node", **filters)
        return int(self._query(f"SELECT count(*) FROM nodes r WHERE {f.sql()}", f.params)[0][0])

    def count_edges(self, **filters: Any) -> int:
        f = self._filter("edge", **filters)
        return int(self._query(f"SELECT count(*) FROM edges r WHERE {f.sql()}", f.params)[0][0])

    # ----------------------------------------------------------------------------- graph

    def edges_of(
        self,
        node_ids: Iterable[str],
        *,
        direction: Direction = "both",
        rels: Iterable[str] | None = None,
    ) -> list[Edge]:
        ids = _id_list(node_ids, "node_ids")
        if not ids:
            return []
        f = self._filter("edge", rels=rels)
        # One indexed lookup per side, joined by UNION: an OR across src and dst would make
        # DuckDB scan the whole table (96 ms against ~1 ms at 2.3M edges).
        sides = {"out": ["src"], "in": ["dst"], "both": ["src", "dst"]}.get(direction)
        if sides is None:
            raise InvalidInput(f"direction must be 'out', 'in' or 'both', got {direction!r}")
        parts = [
            f"SELECT {EDGE_COLS} FROM edges r WHERE r.{side} IN (SELECT unnest(?::VARCHAR[])) "
            f"AND {f.sql()}"
            for side in sides
        ]
        params: list[Any] = []
        for _ in sides:
            params += [ids, *f.params]
        rows = self._query(" UNION ".join(parts) + " ORDER BY 2", params)
        return [edge_from_row(row) for row in rows]

    def edges_between(
        self,
        a_ids: Iterable[str],
        b_ids: Iterable[str],
        *,
        rels: Iterable[str] | None = None,
        directed: bool = True,
    ) -> list[Edge]:
        a, b = _id_list(a_ids, "a_ids"), _id_list(b_ids, "b_ids")
        if not a or not b:
            return []
        f = self._filter("edge", rels=rels)
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
        ids = _id_list(node_ids, "node_ids")
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
        return self.find_nodes(ids=list(others), labels=labels)

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
        seed_ids = list(dict.fromkeys(_id_list(seeds, "seeds")))
        label_set = None if labels is None else set(labels)
        group_set = None if groups is None else set(groups)
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
            front = set(frontier)
            reach: dict[str, list[Edge]] = {}
            for e in self.edges_of(frontier, direction=direction, rels=rels):
                if direction in ("out", "both") and e.src in front:
                    reach.setdefault(e.dst, []).append(e)
                if direction in ("in", "both") and e.dst in front:
                    reach.setdefault(e.src, []).append(e)
            if filtered:
                fresh = self.get_nodes([i for i in reach if i not in distance])
                nodes.update(
                    (n.id, n)
                    for n in fresh
                    if (label_set is None or label_set.intersection(n.labels))
                    and (group_set is None or n.group in group_set)
                )
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
        # Seeds that are not visible nodes reach nothing and are dropped.
        distance = {i: d for i, d in distance.items() if i in found}
        edges = [e for e in via.values() if e.src in distance and e.dst in distance]
        return Subgraph(nodes=[found[i] for i in distance], edges=edges, distance=distance)

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
        f = self._filter("edge", rels=rels)
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
        rows = sorted(self._query(sql, params), key=lambda r: (r[0], r[2]))
        distance: dict[str, int] = dict.fromkeys(seed_ids, 0)
        edges: list[Edge] = []
        seen: set[int] = set()
        for row in rows:
            if row[1] in seen:
                continue
            seen.add(row[1])
            hop, e = int(row[0]), edge_from_row(row[1:])
            edges.append(e)
            for end in (e.src, e.dst):
                if end not in distance:
                    distance[end] = hop
        found = {n.id: n for n in self.get_nodes(list(distance))}
        distance = {i: d for i, d in distance.items() if i in found}
        edges = [e for e in edges if e.src in distance and e.dst in distance]
        return Subgraph(nodes=[found[i] for i in distance], edges=edges, distance=distance)

    def degrees(
        self,
        node_ids: Iterable[str],
        *,
        direction: Direction = "in",
        rels: Iterable[str] | None = None,
    ) -> dict[str, int]:
        ids = _id_list(node_ids, "node_ids")
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

    # ---------------------------------------------------------------------------- history

    def history(self, id: str, *, kind: Kind | None = None) -> list[Item]:
        """Every version of ``id`` ever written (not purged), oldest first, whatever the view."""
        check_id(id)
        out: list[Item] = []
        for k in (kind,) if kind else ("node", "edge"):
            rows = self._query(
                f"SELECT {cols_of(k)} FROM {table_of(k)} r WHERE r.id = ? ORDER BY r.tx_from, r.vid",
                [id],
            )
            out.extend(item_from_row(k, row) for row in rows)
        return out

    def versions(
        self,
        kind: Kind = "node",
        *,
        groups: Iterable[str] | None = None,
        limit: int | None = None,
        offset: int = 0,
    ) -> list[Item]:
        """Every version of every record of ``kind`` ever written (not purged), in transaction
        order (``tx_from``, then version), whatever the view: the whole timeline, for exports and
        viewers that replay it. ``groups`` keeps only versions in those groups."""
        f = SqlFilter(kind)
        f.any_of("grp", groups)
        sql = f"SELECT {cols_of(kind)} FROM {table_of(kind)} r WHERE {f.sql()} ORDER BY r.tx_from, r.vid"
        params = list(f.params)
        if limit is not None:
            if not isinstance(limit, int) or isinstance(limit, bool) or limit < 0:
                raise InvalidInput(f"limit must be an int >= 0 (or None), got {limit!r:.40}")
            sql += " LIMIT ?"
            params.append(int(limit))
        if not isinstance(offset, int) or isinstance(offset, bool) or offset < 0:
            raise InvalidInput(f"offset must be an int >= 0, got {offset!r:.40}")
        if offset:
            sql += " OFFSET ?"
            params.append(int(offset))
        return [item_from_row(kind, row) for row in self._query(sql, params)]

    # ------------------------------------------------------------------------- embeddings

    def get_embeddings(self, ids: Iterable[str], *, kind: Kind = "node") -> dict[str, list[float]]:
        from .vectors import embeddings_of

        return embeddings_of(self, kind, _id_list(ids))

    def get_embedding_arrays(self, ids: Iterable[str], *, kind: Kind = "node") -> dict[str, Any]:
        """Like :meth:`get_embeddings`, as float32 numpy rows: no Python float per component,
        for bulk readers (verifying a migration of 100k x 1024 vectors)."""
        from .vectors import embedding_arrays_of

        return embedding_arrays_of(self, kind, _id_list(ids))

    # ---------------------------------------------------------------------------- search

    def search_text(
        self,
        query: str,
        *,
        kind: Kind = "node",
        k: int = 10,
        groups: Iterable[str] | None = None,
        labels: Iterable[str] | None = None,
        rels: Iterable[str] | None = None,
        ids: Iterable[str] | None = None,
        where: Where | None = None,
    ) -> list[Hit]:
        from .textindex import bm25_search

        f = self._filter(kind, ids=ids, groups=groups, labels=labels, rels=rels, where=where)
        only_tags = ids is None and where is None
        tags = labels if kind == "node" else rels
        return bm25_search(self, kind, query, k, f, groups=groups, labels=tags, only_tags=only_tags)

    def search_vector(
        self,
        vector: Sequence[float],
        *,
        kind: Kind = "node",
        space: str = "default",
        k: int = 10,
        groups: Iterable[str] | None = None,
        labels: Iterable[str] | None = None,
        rels: Iterable[str] | None = None,
        ids: Iterable[str] | None = None,
        where: Where | None = None,
        min_score: float | None = None,
    ) -> list[Hit]:
        from .vectors import cosine_search

        f = self._filter(kind, ids=ids, groups=groups, labels=labels, rels=rels, where=where)
        return cosine_search(
            self,
            kind,
            space,
            vector,
            k,
            f,
            min_score=min_score,
            groups=groups,
            labels=labels if kind == "node" else rels,
            only_tags=ids is None and where is None,
        )

    def recall(
        self,
        *,
        text: str | None = None,
        vector: Sequence[float] | None = None,
        seeds: Iterable[str] | None = None,
        kind: Kind = "node",
        k: int = 10,
        rrf_k: int = 60,
        depth: int = 1,
        space: str = "default",
        groups: Iterable[str] | None = None,
        labels: Iterable[str] | None = None,
        rels: Iterable[str] | None = None,
        where: Where | None = None,
    ) -> list[RecallHit]:
        from .recall import recall

        return recall(
            self,
            text=text,
            vector=vector,
            seeds=seeds,
            kind=kind,
            k=k,
            rrf_k=rrf_k,
            depth=depth,
            space=space,
            groups=groups,
            labels=labels,
            rels=rels,
            where=where,
        )
