"""Every read verb, written once over a visibility predicate.

The store reads current versions; a view returned by ``as_of`` reads the versions that were
known at a transaction time and/or valid at a valid time. Both are :class:`Reader` subclasses.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

import duckdb

from .codec import check_id
from .errors import InvalidInput
from .filters import SqlFilter, order_sql
from .graph import GraphReads
from .model import Edge, Hit, Item, Kind, Node, RecallHit, Where
from .rows import (  # re-exported: other modules read rows through reads
    EDGE_COLS,
    NODE_COLS,
    Visibility,
    _id_list,
    cols_of,
    edge_from_row,
    item_from_row,
    node_from_row,
    table_of,
)

if TYPE_CHECKING:
    from .textindex import TextCache
    from .vectors import VectorCache


class Reader(GraphReads):
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

    def _edge_filter(self, rels: Iterable[str] | None) -> SqlFilter:
        return self._filter("edge", rels=rels)

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
