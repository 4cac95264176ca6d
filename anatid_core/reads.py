"""Every read verb, written once over a visibility predicate.

The store reads current versions; a view returned by ``as_of`` reads the versions that were
known at a transaction time and/or valid at a valid time. Both are :class:`Reader` subclasses,
built over a :class:`~anatid_core.storage.connection.Connection` and the store's in-memory
indexes (:class:`~anatid_core.indexes.registry.Indexes`).
"""

from __future__ import annotations

import bisect
import operator
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any, Protocol, cast

from .base.codec import all_fine, check_id, from_micros, to_micros
from .base.errors import InvalidInput
from .base.model import Cond, Edge, Hit, Item, Kind, Node, RecallHit, Where
from .graph.evidence import EvidenceReads
from .graph.hubs import HubReads
from .graph.neighbourhood import NeighbourhoodReads
from .graph.whole_graph import GraphAlgorithms
from .hits import Ranked
from .indexes.current_records import GROUP_AT, SCAN_COLUMNS, Row, ScanFilter
from .indexes.registry import Indexes
from .name_lookup import NameLookups
from .rank_fusion import (
    GraphArm,
    check_arms,
    check_graph_arm,
    check_weights,
    fuse,
    khop_arm,
    pagerank_arm,
    pool_size,
)
from .row_reads import RowReads
from .storage.column_tuples import ColumnTuples, with_times
from .storage.connection import Connection
from .storage.embeddings import embedding_arrays_of, embeddings_of
from .storage.filters import SqlFilter, order_sql, page_sql, record_filter
from .storage.rows import (
    EDGE_AT,
    NODE_AT,
    Visibility,
    cols_of,
    id_list,
    item_from_row,
    table_of,
)
from .storage.sql import rows_in
from .storage.turns import WouldWait, in_turn, takes_turn_itself, verbs_take_turns
from .text_search import bm25_ranking, bm25_search
from .vector_search import cosine_ranking, cosine_search

if TYPE_CHECKING:  # the engine is imported by the first query (issue 44: not by `anatid stats`)
    from .cypher.run import CypherResult, Prepared, Shape

#: Most records the in-memory recency order walks for one newest-first query before SQL answers.
NEWEST_SCAN = 5_000

#: The columns ``find_node_columns`` reads: their position in a node row (rows.NODE_COLS) and
#: their SQL.
NODE_COLUMNS: dict[str, tuple[int, str]] = {
    name: (NODE_AT[name], f"r.{'grp' if name == 'group' else name}")
    for name in ("id", "group", "labels", "name", "text")
}
#: The columns ``find_edge_columns`` reads, as NODE_COLUMNS (rows.EDGE_COLS); the times are
#: microseconds there, given as datetimes (as an Edge holds them).
EDGE_COLUMNS: dict[str, tuple[int, str]] = {
    name: (EDGE_AT[name], f"r.{'grp' if name == 'group' else name}")
    for name in ("id", "src", "dst", "rel", "group", "name", "text", "valid_from", "valid_to")
}
#: Most columns one read gives (a column may be asked twice; not without end).
MAX_COLUMNS = 64
_TIME_COLUMNS = frozenset({"valid_from", "valid_to"})


def _listed(values: Iterable[str] | None) -> Iterable[str] | None:
    """An iterable argument read once (a generator), so that two paths can look at it."""
    return values if values is None or isinstance(values, (str, list, tuple)) else list(values)


def _valid_from_bound(where: Where | None) -> int | None:
    """The latest valid_from (microseconds) allowed by ``[[Cond("valid_from", "<=" or "<",
    t)]]``; None for any other filter."""
    if not isinstance(where, (list, tuple)) or len(where) != 1:
        return None
    conj = where[0]
    if not isinstance(conj, (list, tuple)) or len(conj) != 1 or not isinstance(conj[0], Cond):
        return None
    cond = conj[0]
    if cond.field != "valid_from" or cond.op not in ("<=", "<"):
        return None
    value = cond.value
    if not isinstance(value, datetime) or value.tzinfo is None or value.utcoffset() is None:
        return None
    micros = to_micros(value, what="valid_from")
    return micros if cond.op == "<=" else micros - 1


def _scan_filter(
    kind: Kind, lists: dict[str, Iterable[str] | None], where: Where | None
) -> tuple[ScanFilter, str | None] | None:
    """The columns a read filters by and the values each allows (:data:`ScanFilter`), and the
    id the records must come after (``Cond("id", ">", id)``: a scan paging by key), if it
    filters by nothing else: list arguments, and ``where`` of one conjunction of ``=`` / ``in``
    on those columns with strings. None for any other filter."""
    allowed: dict[int, frozenset[str]] = {}
    after: str | None = None
    at = SCAN_COLUMNS[kind]

    def narrow(field: str, values: Any) -> bool:
        if isinstance(values, str) or not isinstance(values, (list, tuple)):
            return False
        if not all(isinstance(v, str) for v in values):
            return False
        held = allowed.get(at[field])
        allowed[at[field]] = frozenset(values) if held is None else held & frozenset(values)
        return True

    for field, values in lists.items():
        if values is not None and not narrow(field, values):
            return None
    if where is not None:
        if not isinstance(where, (list, tuple)) or len(where) != 1:
            return None
        for cond in where[0]:
            if not isinstance(cond, Cond) or cond.field not in at:
                return None
            if cond.op == "=" and isinstance(cond.value, str):
                narrow(cond.field, [cond.value])
            elif cond.field == "id" and cond.op == ">" and isinstance(cond.value, str):
                after = cond.value if after is None else max(after, cond.value)
            elif cond.op != "in" or not narrow(cond.field, cond.value):
                return None
    return tuple(sorted(allowed.items())), after


def _surely_fine(
    lists: Mapping[str, Iterable[str] | None], labels: Iterable[str] | None, where: Where | None
) -> bool:
    """Whether the SQL filter would pass every name and value of a read's lists, labels and
    ``where`` of one conjunction of ``=``, ``in`` and ``>``: each is a str that
    :func:`~anatid_core.base.codec.all_fine` passes as an id (what the filter's checks of ids,
    groups and texts pass, and more). Then a read the in-memory records answer need not build
    the filter only to check them: a tenth of a Cypher page's read (issue 42). False says only
    that the filter must look."""
    values: list[object] = []
    for given in (*lists.values(), labels):
        if given is not None:
            if not isinstance(given, (list, tuple)):
                return False
            values.extend(given)
    if where is not None:
        if not isinstance(where, (list, tuple)) or len(where) != 1:
            return False
        if not isinstance(where[0], (list, tuple)):
            return False
        for cond in where[0]:
            if not isinstance(cond, Cond) or cond.op not in ("=", "in", ">"):
                return False
            if cond.op != "in":
                values.append(cond.value)
            elif isinstance(cond.value, (list, tuple)):
                values.extend(cond.value)
            else:
                return False
    return all_fine((), tuple(values))


def _checked_columns(columns: Sequence[str], known: Mapping[str, Any]) -> list[str]:
    """``columns`` as a list, each one of ``known`` (at least one), else InvalidInput."""
    wanted = list(columns) if not isinstance(columns, str) else [columns]
    if not wanted or any(c not in known for c in wanted) or isinstance(columns, str):
        raise InvalidInput(f"columns must be some of {', '.join(known)}, got {columns!r:.80}")
    if len(wanted) > MAX_COLUMNS:
        raise InvalidInput(f"at most {MAX_COLUMNS} columns a read, got {len(wanted)}")
    return wanted


def _labels_as_tuples(found: list[tuple[Any, ...]], wanted: list[str]) -> list[tuple[Any, ...]]:
    """SQL's rows of the columns ``wanted`` with each ``labels`` a tuple (SQL gives a list or
    null), as a record's labels and the in-memory rows' are."""
    at = [i for i, c in enumerate(wanted) if c == "labels"]
    if not at:
        return found
    return [tuple(tuple(v or ()) if i in at else v for i, v in enumerate(t)) for t in found]


class _Pinnable(Protocol):
    """A Store or a View: what a Reader is when it runs a query (both can pin an instant)."""

    def as_of(self, tx_time: datetime | None, valid_time: datetime | None) -> Any: ...


@verbs_take_turns
class Reader(RowReads, NameLookups, NeighbourhoodReads, EvidenceReads, HubReads, GraphAlgorithms):
    """The read verbs over a connection, seeing what ``visibility`` lets through."""

    def __init__(self, connection: Connection, indexes: Indexes, visibility: Visibility) -> None:
        self.connection = connection
        self.indexes = indexes
        self.visibility = visibility

    def _query(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        return self.connection.query(sql, params)

    # ---------------------------------------------------------------------------- by id

    def get_node(self, id: str) -> Node | None:
        return self._get_one("node", id)  # type: ignore[return-value]

    def get_nodes(self, ids: Iterable[str]) -> list[Node]:
        return self._get_many("node", ids)  # type: ignore[return-value]

    def get_edge(self, id: str) -> Edge | None:
        return self._get_one("edge", id)  # type: ignore[return-value]

    def get_edges(self, ids: Iterable[str]) -> list[Edge]:
        return self._get_many("edge", ids)  # type: ignore[return-value]

    def _get_one(self, kind: Kind, id: str) -> Item | None:
        check_id(id)
        found = self._from_memory(kind, [id])
        if found is not None:
            return found[0] if found else None
        source, condition, params = rows_in(table_of(kind), "id", [id])
        rows = self._query(
            f"SELECT {cols_of(kind)} FROM {source} "
            f"WHERE {condition} AND {self.visibility.sql(kind=kind)}",
            params,
        )
        return item_from_row(kind, rows[0]) if rows else None

    def _get_many(self, kind: Kind, ids: Iterable[str]) -> list[Item]:
        return self._read_many(kind, id_list(ids))

    def _read_many(self, kind: Kind, wanted: list[str]) -> list[Item]:
        """The visible records of ``wanted``, ids already checked (a verb's own ids, read from
        the store: checking 50 ids again was a tenth of a one-hop ``expand``), in order."""
        if not wanted:
            return []
        found = self._from_memory(kind, list(dict.fromkeys(wanted)))
        if found is not None:
            return found
        source, condition, params = rows_in(table_of(kind), "id", list(dict.fromkeys(wanted)))
        rows = self._query(
            f"SELECT {cols_of(kind)} FROM {source} "
            f"WHERE {condition} AND {self.visibility.sql(kind=kind)}",
            params,
        )
        by_id = {row[1]: item_from_row(kind, row) for row in rows}
        return [by_id[i] for i in dict.fromkeys(wanted) if i in by_id]

    def _from_memory(self, kind: Kind, ids: list[str]) -> list[Item] | None:
        """The current records of ``ids`` (in order, missing ones left out) from the in-memory view
        (:mod:`anatid_core.indexes.current_records`); None where SQL must answer (a past view, this
        thread's own transaction, the view off or too big)."""
        rows = self._rows_from_memory(kind, ids)
        return None if rows is None else [item_from_row(kind, row) for row in rows]

    def _rows_from_memory(self, kind: Kind, ids: list[str]) -> list[Row] | None:
        """The in-memory current rows of ``ids`` (as :meth:`_from_memory`)."""
        current = self.indexes.current
        if self.connection.closed or not self.visibility.is_current or not current.usable():
            return None
        if current.view_for_reads(kind) is None:
            return None
        with self.indexes.consistent():  # never half of a commit
            view = current.loaded(kind)  # dropped meanwhile (another process's commit): SQL
            if view is None:
                return None
            rows = [view.by_id.get(i) for i in ids]
        return [row for row in rows if row is not None]

    def get_node_columns(self, ids: Iterable[str], columns: Sequence[str]) -> list[tuple[Any, ...]]:
        """For each node of ``ids`` there is (in their order, missing ones left out), the
        tuple of its ``columns`` (as ``find_node_columns``), no record built: from the
        in-memory current records where ``get_nodes`` reads them, else one statement. Cypher
        read a relationship's ends' records to read a column or two of each (issue 42)."""
        wanted = _checked_columns(columns, NODE_COLUMNS)
        found_ids = list(dict.fromkeys(id_list(ids)))
        if not found_ids:
            return []
        get = operator.itemgetter(*(NODE_COLUMNS[c][0] for c in wanted))
        rows = self._rows_from_memory("node", found_ids)
        if rows is not None:  # (their labels are tuples there already)
            return [get(row) for row in rows] if len(wanted) > 1 else [(get(r),) for r in rows]
        source, condition, params = rows_in("nodes", "id", found_ids)
        rows = self._query(
            f"SELECT r.id, {', '.join(NODE_COLUMNS[c][1] for c in wanted)} FROM {source} "
            f"WHERE {condition} AND {self.visibility.sql(kind='node')}",
            params,
        )
        by_id = {row[0]: row[1:] for row in rows}
        return _labels_as_tuples([by_id[i] for i in found_ids if i in by_id], wanted)

    # ----------------------------------------------------------------------------- lists

    def _filter(self, kind: Kind, **filters: Any) -> SqlFilter:
        return record_filter(kind, visible=self.visibility.sql(kind=kind), **filters)

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
        f, lists, labels = self._node_filters(ids, groups, labels, names, where)
        if lists["id"] is None and labels is None and lists["name"] is None:
            newest = self._newest_from_memory(
                "node", lists["group"], where, order_by, limit, offset
            )
            if newest is not None:
                return newest  # type: ignore[return-value]
        found = self._scan_from_memory("node", lists, labels, where, order_by, limit, offset)
        if found is not None:
            return found  # type: ignore[return-value]
        return self._find("node", f, order_by, limit, offset)  # type: ignore[return-value]

    def count_label_sets(
        self,
        *,
        ids: Iterable[str] | None = None,
        groups: Iterable[str] | None = None,
        labels: Iterable[str] | None = None,
        names: Iterable[str] | None = None,
        where: Where | None = None,
    ) -> dict[tuple[str, ...], int]:
        """How many of the nodes ``find_nodes`` gives for these filters carry each stored label
        set, the sets in the order of their first node's id. From the in-memory current records
        where ``find_nodes`` reads them (no record built: Cypher's count by label, issue 42),
        else one grouped statement."""
        f, lists, labels = self._node_filters(ids, groups, labels, names, where)
        rows = self._scan_rows_from_memory("node", lists, labels, where, None, 0)
        if rows is not None:
            counts: dict[tuple[str, ...], int] = {}
            for row in rows:  # in id order: the sets come in their first node's order
                key = tuple(row[3] or ())
                counts[key] = counts.get(key, 0) + 1
            return counts
        sql = (
            f"SELECT r.labels, count(*) FROM nodes r WHERE {f.sql()} "
            "GROUP BY r.labels ORDER BY min(r.id)"
        )
        return {tuple(ls or ()): int(n) for ls, n in self._query(sql, f.params)}

    def find_node_columns(
        self,
        columns: Sequence[str],
        *,
        labels: Iterable[str] | None = None,
        where: Where | None = None,
        limit: int | None = None,
    ) -> list[tuple[Any, ...]]:
        """For each node ``find_nodes(labels=labels, where=where, limit=limit)`` gives (in id
        order), the tuple of its ``columns`` (of ``id``, ``group``, ``labels`` as a tuple,
        ``name``, ``text``), no record built: from the in-memory current records where
        ``find_nodes`` reads them, else one statement. Cypher's ``MATCH (n:Entity) WHERE
        n.group_id = $g RETURN n.uuid, n.name`` built a record per node only to read two of
        its columns (issue 42)."""
        wanted = _checked_columns(columns, NODE_COLUMNS)
        labels = _listed(labels)
        lists: dict[str, Iterable[str] | None] = {"id": None, "group": None, "name": None}
        rows = self._column_rows_from_memory("node", lists, labels, where, limit)
        if rows is not None:  # (their labels are tuples there already)
            get = operator.itemgetter(*(NODE_COLUMNS[c][0] for c in wanted))
            return [get(row) for row in rows] if len(wanted) > 1 else [(get(r),) for r in rows]
        f = self._filter("node", labels=labels, where=where)
        page, page_params = page_sql(limit, 0)
        sql = (
            f"SELECT {', '.join(NODE_COLUMNS[c][1] for c in wanted)} FROM nodes r "
            f"WHERE {f.sql()} ORDER BY r.id{page}"
        )
        return _labels_as_tuples(self._query(sql, [*f.params, *page_params]), wanted)

    def find_edge_columns(
        self,
        columns: Sequence[str],
        *,
        rels: Iterable[str] | None = None,
        where: Where | None = None,
        limit: int | None = None,
    ) -> list[tuple[Any, ...]]:
        """For each edge ``find_edges(rels=rels, where=where, limit=limit)`` gives (in id
        order), the tuple of its ``columns`` (of ``id``, ``src``, ``dst``, ``rel``, ``group``,
        ``name``, ``text``, ``valid_from``, ``valid_to``, each the Edge field's value), no record
        built: from the in-memory current records where ``find_edges`` reads them, else one
        statement. Cypher's filtered scan of a group's facts built a record per relationship
        to read three of its columns (issue 42)."""
        found = self.find_edge_columns_lazily(columns, rels=rels, where=where, limit=limit)
        return found.built() if isinstance(found, ColumnTuples) else list(found)

    def find_edge_columns_lazily(
        self,
        columns: Sequence[str],
        *,
        rels: Iterable[str] | None = None,
        where: Where | None = None,
        limit: int | None = None,
    ) -> Sequence[tuple[Any, ...]]:
        """:meth:`find_edge_columns`, each slice's tuples built as it is read where the
        in-memory records answer (:class:`~anatid_core.storage.column_tuples.ColumnTuples`): a
        Cypher scan reads its pages in chunks and stops at its LIMIT."""
        wanted = _checked_columns(columns, EDGE_COLUMNS)
        rels = _listed(rels)
        lists = dict.fromkeys(("id", "group", "name", "src", "dst"), None) | {"rel": rels}
        rows = self._column_rows_from_memory("edge", lists, None, where, limit)
        times = [i for i, c in enumerate(wanted) if c in _TIME_COLUMNS]
        if rows is not None:
            return ColumnTuples(rows, [EDGE_COLUMNS[c][0] for c in wanted], times)
        f = self._filter("edge", rels=rels, where=where)
        page, page_params = page_sql(limit, 0)
        sql = (
            f"SELECT {', '.join(EDGE_COLUMNS[c][1] for c in wanted)} FROM edges r "
            f"WHERE {f.sql()} ORDER BY r.id{page}"
        )
        found = self._query(sql, [*f.params, *page_params])
        return with_times(found, times) if times else found

    def _column_rows_from_memory(
        self,
        kind: Kind,
        lists: dict[str, Iterable[str] | None],
        labels: Iterable[str] | None,
        where: Where | None,
        limit: int | None,
    ) -> list[tuple[Any, ...]] | None:
        """The in-memory current rows a column read (``find_node_columns``,
        ``find_edge_columns``) gives, in id order; None where SQL answers. Arguments that
        every check passes answer at once (:func:`_surely_fine`); any other goes through the
        SQL filter first, which refuses it as the SQL read would."""
        fine = _surely_fine(lists, labels, where)
        rows = self._scan_rows_from_memory(kind, lists, labels, where, limit, 0) if fine else None
        if rows is None and not fine:
            self._filter(kind, labels=labels, rels=lists.get("rel"), where=where)
            rows = self._scan_rows_from_memory(kind, lists, labels, where, limit, 0)
        return rows

    def _node_filters(
        self,
        ids: Iterable[str] | None,
        groups: Iterable[str] | None,
        labels: Iterable[str] | None,
        names: Iterable[str] | None,
        where: Where | None,
    ) -> tuple[SqlFilter, dict[str, Iterable[str] | None], Iterable[str] | None]:
        """A node read's SQL filter (the arguments checked), its column lists and labels."""
        groups, ids, labels, names = map(_listed, (groups, ids, labels, names))
        f = self._filter("node", ids=ids, groups=groups, labels=labels, names=names, where=where)
        return f, {"id": ids, "group": groups, "name": names}, labels

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
        groups, ids, rels, names, src, dst = map(_listed, (groups, ids, rels, names, src, dst))
        f = self._filter(
            "edge", ids=ids, groups=groups, rels=rels, names=names, src=src, dst=dst, where=where
        )
        if ids is None and rels is None and names is None and src is None and dst is None:
            newest = self._newest_from_memory("edge", groups, where, order_by, limit, offset)
            if newest is not None:
                return newest  # type: ignore[return-value]
        lists = {"id": ids, "group": groups, "name": names, "rel": rels, "src": src, "dst": dst}
        found = self._scan_from_memory("edge", lists, None, where, order_by, limit, offset)
        if found is not None:
            return found  # type: ignore[return-value]
        return self._find("edge", f, order_by, limit, offset)  # type: ignore[return-value]

    def _scan_from_memory(
        self,
        kind: Kind,
        lists: dict[str, Iterable[str] | None],
        labels: Iterable[str] | None,
        where: Where | None,
        order_by: str | Sequence[str] | None,
        limit: int | None,
        offset: int,
    ) -> list[Item] | None:
        """``find_*`` filtered by columns only (ids, groups, names, labels, rels, ends, and
        ``where`` equalities on those), by id, from the in-memory current records
        (:meth:`~anatid_core.indexes.current_records._KindView.scan`): a label or group scan
        of the Cypher engine was an SQL statement per page (5-11 ms at 10k facts; issue 42).
        None where SQL answers: another filter or order, a past view, this thread's
        transaction. The arguments were checked by the SQL filter already."""
        if order_by not in (None, "id"):
            return None
        rows = self._scan_rows_from_memory(kind, lists, labels, where, limit, offset)
        return None if rows is None else [item_from_row(kind, row) for row in rows]

    def _scan_rows_from_memory(
        self,
        kind: Kind,
        lists: dict[str, Iterable[str] | None],
        labels: Iterable[str] | None,
        where: Where | None,
        limit: int | None,
        offset: int,
    ) -> list[tuple[Any, ...]] | None:
        """The in-memory current rows of :meth:`_scan_from_memory`, in id order."""
        scan = _scan_filter(kind, lists, where)
        if scan is None or isinstance(labels, str):
            return None
        columns, after = scan
        wanted = None if labels is None else frozenset(labels)
        page_sql(limit, offset)  # refuses a bad limit or offset as the SQL read does
        current = self.indexes.current
        if self.connection.closed or not self.visibility.is_current or not current.usable():
            return None
        if current.view(kind) is None:
            return None
        with self.indexes.consistent():
            view = current.loaded(kind)
            if view is None:
                return None
            rows = view.scan(columns, wanted)
            if after is not None:  # rows are in id order, as SQL's
                at_id = operator.itemgetter(SCAN_COLUMNS[kind]["id"])
                offset += bisect.bisect_right(rows, after, key=at_id)
            return rows[offset:] if limit is None else rows[offset : offset + limit]

    def _walk_from_memory(
        self, seeds: list[str], depth: int, sides: list[tuple[int, int]], rels: set[str] | None
    ) -> list[tuple[int, tuple[Any, ...]]] | None:
        """``(hop, edge row)`` of an unfiltered expansion from the in-memory current edges (see
        ``NeighbourhoodReads._expand_in_one_query``); None where SQL answers."""
        current = self.indexes.current
        if self.connection.closed or not self.visibility.is_current or not current.usable():
            return None
        if current.view("edge") is None:
            return None
        with self.indexes.consistent():
            view = current.loaded("edge")
            return None if view is None else view.walk(seeds, depth, sides, rels)

    def _newest_from_memory(
        self,
        kind: Kind,
        groups: Iterable[str] | None,
        where: Where | None,
        order_by: str | Sequence[str] | None,
        limit: int | None,
        offset: int,
    ) -> list[Item] | None:
        """``find_*(groups=..., where=[[Cond("valid_from", "<=", t)]], order_by="-valid_from",
        limit=n)``: the newest records valid from an instant on or before ``t`` (Graphiti's
        ``retrieve_episodes``), from the in-memory recency order
        (:mod:`anatid_core.indexes.current_records`). None where SQL answers: another query shape, a
        past view, this thread's transaction."""
        if order_by != "-valid_from" or not isinstance(limit, int) or limit <= 0 or offset != 0:
            return None
        bound = _valid_from_bound(where)
        current = self.indexes.current
        if bound is None or self.connection.closed or not self.visibility.is_current:
            return None
        if not current.usable() or current.view(kind) is None:
            return None
        wanted = None if groups is None else set(groups)
        at_group = GROUP_AT[kind]
        rows: list[Row] = []
        with self.indexes.consistent():
            view = current.loaded(kind)
            if view is None:
                return None
            if view.recency is None and self.connection.refuses_waiting():
                raise WouldWait("the recency order is to be sorted first")  # all records
            order = view.newest()
            start = bisect.bisect_left(order, (-bound, ""))
            for i in range(start, len(order)):
                if len(rows) == limit:
                    break
                if i - start > NEWEST_SCAN:  # a rare group among many: the SQL index is better
                    return None
                row = view.by_id[order[i][1]]
                if wanted is None or row[at_group] in wanted:
                    rows.append(row)
        return [item_from_row(kind, row) for row in rows]

    def _find(
        self,
        kind: Kind,
        f: SqlFilter,
        order_by: str | Sequence[str] | None,
        limit: int | None,
        offset: int,
    ) -> list[Item]:
        order, order_params = order_sql(order_by, kind)
        return self._page(kind, f, order, limit, offset, order_params)

    def _page(
        self,
        kind: Kind,
        f: SqlFilter,
        order: str,
        limit: int | None,
        offset: int,
        order_params: Sequence[Any] = (),
    ) -> list[Item]:
        page, page_params = page_sql(limit, offset)
        sql = f"SELECT {cols_of(kind)} FROM {table_of(kind)} r WHERE {f.sql()} ORDER BY {order}"
        rows = self._query(sql + page, [*f.params, *order_params, *page_params])
        return [item_from_row(kind, row) for row in rows]

    def count_nodes(self, **filters: Any) -> int:
        return self._count("node", filters)

    def count_edges(self, **filters: Any) -> int:
        return self._count("edge", filters)

    def _count(self, kind: Kind, filters: dict[str, Any]) -> int:
        f = self._filter(kind, **filters)
        sql = f"SELECT count(*) FROM {table_of(kind)} r WHERE {f.sql()}"
        return int(self._query(sql, f.params)[0][0])

    def label_sets(self) -> list[tuple[str, ...]]:
        """The distinct label sets of the visible nodes, sorted: one statement, where a schema
        read (Cypher's ``db.labels()``) read every record (0.15 s at 100k facts)."""
        f = self._filter("node")
        rows = self._query(f"SELECT DISTINCT r.labels FROM nodes r WHERE {f.sql()}", f.params)
        return sorted({tuple(row[0]) for row in rows})

    def rel_names(self) -> list[str]:
        """The distinct rels of the visible edges, sorted (``db.relationshipTypes()``: 0.7 s at
        100k facts when it read every edge)."""
        f = self._filter("edge")
        rows = self._query(f"SELECT DISTINCT r.rel FROM edges r WHERE {f.sql()}", f.params)
        return sorted(row[0] for row in rows)

    # ----------------------------------------------------------------------------- cypher

    @takes_turn_itself
    def cypher(
        self,
        query: str,
        params: Mapping[str, Any] | None = None,
        *,
        shape: Shape | None = None,
        timeout: float | None = None,
    ) -> CypherResult:
        """Run a read-only Cypher query (docs/cypher.md: the subset, the shapes of values).

        On a view (``store.as_of(t).cypher(...)``) it reads the graph as the view sees it. A
        write clause raises CypherWriteRefused before any read; a construct outside the subset
        raises CypherUnsupported naming it and its place. ``shape`` says how records look as
        nodes and relationships (a driver passes its host's); by default a node's labels are
        its labels and its properties its ``props`` with ``id``, ``name``, ``group``, ``text``.
        ``timeout`` (seconds; else ``ANATID_CYPHER_TIMEOUT``, else 30) bounds how long it runs:
        past it, CypherTimeout.

        A long query does not keep other processes out: when one waits for the file, the
        query hands it over between two reads and takes it back; from then on it reads the
        snapshot of the instant it had reached (``as_of`` that instant), so its answer is the
        answer of one instant, whatever is written meanwhile.
        """
        from .cypher.run import prepare_cypher

        # read and checked before the file is taken: a text of megabytes takes seconds to
        # parse, and a process waiting for the file would wait for that too
        prepared = prepare_cypher(query, params, timeout=timeout)
        return self._run_cypher(prepared, shape)

    @in_turn
    def _run_cypher(self, prepared: Prepared, shape: Shape | None) -> CypherResult:
        from .cypher.run import run_prepared

        return run_prepared(self, prepared, shape=shape, pause=self._cypher_pause)

    def _cypher_pause(self, target: Any) -> Any:
        """Offer the file to a waiting process in the middle of a query (:meth:`cypher`); the
        view to read from afterwards: a current view is pinned to the instant every commit so
        far is at or before, first (a view of a past instant stays as it is)."""
        connection = self.connection
        if not connection.others_wait():
            return None
        if connection.refuses_waiting():  # a caller on an event loop: on a thread instead
            raise WouldWait("another process waits for the file")
        pinned = None
        if target is self and self.visibility.tx_us is None:
            instant = from_micros(connection.committed_until())
            valid = from_micros(self.visibility.valid_us)
            pinned = cast(_Pinnable, self).as_of(instant, valid)
        connection.pause()
        return pinned

    # ---------------------------------------------------------------------------- history

    def history(self, id: str, *, kind: Kind | None = None) -> list[Item]:
        """Every version of ``id`` ever written (not purged), oldest first, whatever the view's
        instant (a scoped view still shows only versions inside its wall)."""
        check_id(id)
        out: list[Item] = []
        for k in (kind,) if kind else ("node", "edge"):
            wall = "".join(f" AND {p}" for p in self.visibility.scope_sql("r", k))
            rows = self._query(
                f"SELECT {cols_of(k)} FROM {table_of(k)} r WHERE r.id = ?{wall} "
                "ORDER BY r.tx_from, r.vid",
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
        for part in self.visibility.scope_sql("r", kind):  # whatever the instant, never the wall
            f.add(part)
        f.any_of("grp", groups)
        return self._page(kind, f, "r.tx_from, r.vid", limit, offset)

    # ------------------------------------------------------------------------- embeddings

    def get_embeddings(self, ids: Iterable[str], *, kind: Kind = "node") -> dict[str, list[float]]:
        return embeddings_of(self.connection, self.visibility, kind, id_list(ids))

    def get_embedding_arrays(self, ids: Iterable[str], *, kind: Kind = "node") -> dict[str, Any]:
        """Like :meth:`get_embeddings`, as float32 numpy rows: no Python float per component,
        for bulk readers (verifying a migration of 100k x 1024 vectors)."""
        return embedding_arrays_of(self.connection, self.visibility, kind, id_list(ids))

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
        f = self._filter(kind, ids=ids, groups=groups, labels=labels, rels=rels, where=where)
        return bm25_search(
            self.connection,
            self.indexes,
            self.visibility,
            kind,
            query,
            k,
            f,
            groups=groups,
            labels=labels if kind == "node" else rels,
            only_tags=ids is None and where is None,
        )

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
        f = self._filter(kind, ids=ids, groups=groups, labels=labels, rels=rels, where=where)
        return cosine_search(
            self.connection,
            self.indexes,
            self.visibility,
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
        graph_arm: GraphArm = "khop",
        weights: Mapping[str, float] | None = None,
    ) -> list[RecallHit]:
        """Fuse the text, vector and graph arms asked for (see :mod:`anatid_core.rank_fusion`).

        The graph arm ranks what lies around ``seeds``: by hop count within ``depth``
        (``graph_arm="khop"``, arm ``"graph"``), or by personalized PageRank from the seeds
        over the whole visible graph (``graph_arm="pagerank"``, arm ``"pagerank"``). Its ranks
        count after the text and vector arms' pool, so a record only the graph arm found ranks
        below every record that matched the query, unless ``weights`` (by arm name: ``"text"``,
        ``"vector"``, ``"graph"``, ``"pagerank"``; 1 each by default) weighs the graph arm up."""
        check_arms(text, vector, seeds)
        check_graph_arm(graph_arm)
        arm_weights = check_weights(weights)
        if k <= 0:
            return []
        pool = pool_size(k)
        arms: dict[str, list[Hit] | list[Ranked]] = {}
        tags = {"groups": groups, "labels": labels if kind == "node" else rels}
        only_tags = where is None
        if text is not None:
            f = self._filter(kind, groups=groups, labels=labels, rels=rels, where=where)
            arms["text"] = bm25_ranking(
                self.connection,
                self.indexes,
                self.visibility,
                kind,
                text,
                pool,
                f,
                **tags,
                only_tags=only_tags,
            )
        if vector is not None:
            f = self._filter(kind, groups=groups, labels=labels, rels=rels, where=where)
            arms["vector"] = cosine_ranking(
                self.connection,
                self.indexes,
                self.visibility,
                kind,
                space,
                vector,
                pool,
                f,
                **tags,
                only_tags=only_tags,
            )
        if seeds is not None and graph_arm == "pagerank":
            arms["pagerank"] = self._pagerank_arm(
                list(seeds), kind, pool, groups=groups, labels=labels, rels=rels
            )
        elif seeds is not None:
            seed_ids = list(seeds)
            sub = self.expand(seed_ids, depth=depth, direction="both", rels=rels)
            arms["graph"] = khop_arm(sub, kind, seed_ids, depth, pool, groups=groups, labels=labels)
        return fuse(arms, k, rrf_k, lambda ids: self._items(kind, ids), weights=arm_weights)

    def _items(self, kind: Kind, ids: list[str]) -> dict[str, Item]:
        """The visible records of ``ids``, by id (the rows a fusion's winners need)."""
        found: list[Node] | list[Edge] = (
            self.get_nodes(ids) if kind == "node" else self.get_edges(ids)
        )
        return {r.id: r for r in found}

    def _pagerank_arm(
        self,
        seeds: list[str],
        kind: Kind,
        pool: int,
        *,
        groups: Iterable[str] | None,
        labels: Iterable[str] | None,
        rels: Iterable[str] | None,
    ) -> list[Hit]:
        """The PageRank arm: unknown seeds reach nothing (as in the k-hop arm), so they are
        dropped rather than refused."""
        rels = _listed(rels)
        known = [n.id for n in self.get_nodes(list(dict.fromkeys(id_list(seeds, "seeds"))))]
        if not known:
            return []
        # Enough of the best nodes for the result filters to leave a pool (and, for edges, to
        # score both ends of the edges at the best ones); not every node: each costs a read.
        ranked = self.pagerank(known, k=4 * pool + len(known), rels=rels)
        return pagerank_arm(
            ranked, kind, known, pool, self, groups=groups, labels=labels, rels=rels
        )
