"""Bulk reads as plain rows, without Node/Edge objects (mixed into Reader; issue 16).

``node_rows``/``edge_rows`` serve hosts that build their own shapes from a record's columns
(Cognee's ``(id, {...})`` tuples): no model object per record, and props optionally straight into
JSON values. The current state is read from the in-memory view
(:mod:`anatid_core.indexes.current_records`) where it can answer; every other read (a past view,
this thread's transaction, the view off, a ``where`` filter on props) goes to SQL. Both paths return
the same rows, in id order.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any, Protocol

from .base.codec import decode_props, decode_props_plain, gc_paused
from .base.model import Kind, Where
from .indexes.current_records import GROUP_AT, Row, row_id
from .indexes.registry import Indexes
from .storage.connection import Connection
from .storage.filters import SqlFilter
from .storage.rows import Visibility, id_list
from .storage.sql import rows_in
from .storage.turns import verbs_take_turns

NodeRow = tuple[str, tuple[str, ...], str, dict[str, Any]]
EdgeRow = tuple[str, str, str, dict[str, Any]]

#: Where the labels and the name sit in a node row, the ends and the rel in an edge row (rows.NODE_COLS /
#: rows.EDGE_COLS).
_LABELS, _NAME, _SRC, _DST, _REL = 3, 4, 2, 3, 4


def _listed(values: Iterable[str] | None) -> Iterable[str] | None:
    """An iterable argument read once (a generator), so that two paths can look at it."""
    return values if values is None or isinstance(values, (str, list, tuple)) else list(values)


class _ReaderParts(Protocol):
    """What the row verbs need from the reader they are mixed into."""

    connection: Connection
    indexes: Indexes
    visibility: Visibility

    def _query(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]: ...
    def _filter(self, kind: Kind, **filters: Any) -> SqlFilter: ...


def _node_test(
    labels: Iterable[str] | None, names: Iterable[str] | None
) -> Callable[[Row], bool] | None:
    """The in-memory form of the ``labels`` (any of) and ``names`` filters; None if neither."""
    label_set = None if labels is None else set(labels)
    name_set = None if names is None else set(names)
    if label_set is None and name_set is None:
        return None

    def passes(row: Row) -> bool:
        if name_set is not None and row[_NAME] not in name_set:
            return False
        return label_set is None or not label_set.isdisjoint(row[_LABELS])

    return passes


def _node_pick(
    labels: Iterable[str] | None, names: Iterable[str] | None
) -> Callable[[Any], Iterable[str]] | None:
    """The candidates of the ``labels``/``names`` filters from the view's node index (names
    first: a name is held by few nodes, a label often by many); None if neither is given."""
    if names is not None:
        wanted = list(names)
        return lambda view: view.tags.with_names(wanted)
    if labels is not None:
        wanted = list(labels)
        return lambda view: view.tags.with_labels(wanted)
    return None


@verbs_take_turns
class RowReads(_ReaderParts):
    """The plain-row verbs of :class:`anatid_core.reads.Reader`."""

    def node_rows(
        self,
        *,
        ids: Iterable[str] | None = None,
        groups: Iterable[str] | None = None,
        labels: Iterable[str] | None = None,
        names: Iterable[str] | None = None,
        where: Where | None = None,
        plain_props: bool = False,
    ) -> list[NodeRow]:
        """``(id, labels, name, props)`` of every visible node of ``ids`` (default: all) in
        ``groups``, carrying one of ``labels``, named one of ``names`` and passing ``where``
        (as :meth:`~anatid_core.reads.Reader.find_nodes` filters them), by id: a bulk read
        without :class:`Node` objects. ``plain_props`` gives props as plain JSON values
        (:func:`~anatid_core.base.codec.decode_props_plain`) instead of the exact types."""
        wanted, chosen = _listed(groups), _listed(ids)
        labels, names = _listed(labels), _listed(names)
        f = self._filter(  # checks the arguments first
            "node", ids=chosen, groups=wanted, labels=labels, names=names, where=where
        )
        decode = decode_props_plain if plain_props else decode_props
        rows = None
        if where is None:
            test, pick = _node_test(labels, names), _node_pick(labels, names)
            rows = self._current_rows("node", chosen, wanted, test, pick)
        with gc_paused():
            if rows is not None:  # (vid, id, grp, labels, name, text, props, ...)
                props = self._current_props("node", rows, 6, plain_props)
                return [(r[1], tuple(r[3]), r[4], p) for r, p in zip(rows, props, strict=True)]
            sql = (
                f"SELECT r.id, r.labels, r.name, r.props FROM nodes r WHERE {f.sql()} ORDER BY r.id"
            )
            return [(i, tuple(lb), n, decode(p)) for i, lb, n, p in self._query(sql, f.params)]

    def edge_rows(
        self,
        *,
        ids: Iterable[str] | None = None,
        groups: Iterable[str] | None = None,
        touching: Iterable[str] | None = None,
        among: Iterable[str] | None = None,
        plain_props: bool = False,
    ) -> list[EdgeRow]:
        """``(src, dst, rel, props)`` of every visible edge of ``ids`` (default: all) in
        ``groups``, with an end in ``touching`` (either end: ``edges_of(direction="both")``)
        and both ends in ``among`` (``edges_between(among, among)``), by id (see
        :meth:`node_rows`)."""
        wanted, chosen = _listed(groups), _listed(ids)
        near = None if touching is None else id_list(touching, "touching")
        inner = None if among is None else id_list(among, "among")
        f = self._filter("edge", ids=chosen, groups=wanted, src=inner, dst=inner)
        decode = decode_props_plain if plain_props else decode_props
        rows = self._current_edges(chosen, wanted, near, inner)
        with gc_paused():
            if rows is not None:  # (vid, id, src, dst, rel, grp, name, text, props, ...)
                props = self._current_props("edge", rows, 8, plain_props)
                return [(r[2], r[3], r[4], p) for r, p in zip(rows, props, strict=True)]
            return [(s, d, rel, decode(p)) for s, d, rel, p in self._edge_query(f, near)]

    def _current_props(
        self, kind: Kind, rows: list[Row], at: int, plain: bool
    ) -> list[dict[str, Any]]:
        """The decoded props (row position ``at``) of current rows: plain ones through the
        view's kept plain texts."""
        if plain:
            return self.indexes.current.plain_props(kind, rows, at)
        return [decode_props(r[at]) for r in rows]

    def _edge_query(self, f: SqlFilter, near: list[str] | None) -> list[tuple[Any, ...]]:
        cols = "r.src, r.dst, r.rel, r.props"
        if near is None:
            return self._query(
                f"SELECT {cols} FROM edges r WHERE {f.sql()} ORDER BY r.id", f.params
            )
        # One indexed lookup per end joined by UNION, as edges_of: an OR across src and dst
        # makes DuckDB scan the whole table.
        parts, params = [], []
        for end in ("src", "dst"):
            source, condition, lookup = rows_in("edges", end, near)
            parts.append(f"SELECT r.id, {cols} FROM {source} WHERE {condition} AND {f.sql()}")
            params += [*lookup, *f.params]
        sql = f"SELECT {cols} FROM ({' UNION '.join(parts)}) r ORDER BY r.id"
        return self._query(sql, params)

    def _current_rows(
        self,
        kind: Kind,
        ids: Iterable[str] | None,
        groups: Iterable[str] | None,
        test: Callable[[Row], bool] | None = None,
        pick: Callable[[Any], Iterable[str]] | None = None,
    ) -> list[Row] | None:
        """The current rows of ``kind`` (of ``ids``, if given; of the ids ``pick`` finds in
        the view, if given) in ``groups`` passing ``test``, by id, from the in-memory view (no
        table scan, no point queries); None where SQL must answer."""
        current = self.indexes.current
        if self.connection.closed or not self.visibility.is_current or not current.usable():
            return None
        if current.view(kind) is None:
            return None
        at = GROUP_AT[kind]
        wanted = None if groups is None else set(groups)
        with self.indexes.consistent():  # never half of a commit
            view = current.loaded(kind)
            if view is None:
                return None
            chosen = None if ids is None else set(ids)
            if pick is not None:
                picked = set(pick(view))
                chosen = picked if chosen is None else chosen & picked
            if chosen is None:
                found: Iterable[Row] = view.in_id_order()
            else:
                found = [r for r in map(view.by_id.get, chosen) if r is not None]
            rows = [
                r
                for r in found
                if (wanted is None or r[at] in wanted) and (test is None or test(r))
            ]
        if chosen is not None:
            rows.sort(key=row_id)
        return rows

    def _current_edges(
        self,
        ids: Iterable[str] | None,
        groups: Iterable[str] | None,
        near: list[str] | None,
        inner: list[str] | None,
    ) -> list[Row] | None:
        """:meth:`_current_rows` of edges, found through the view's endpoint index when
        ``touching`` or ``among`` names the nodes."""
        if near is None and inner is None:
            return self._current_rows("edge", ids, groups)
        near_set = None if near is None else set(near)
        inner_set = None if inner is None else set(inner)

        def test(row: Row) -> bool:
            if near_set is not None and row[_SRC] not in near_set and row[_DST] not in near_set:
                return False
            return inner_set is None or (row[_SRC] in inner_set and row[_DST] in inner_set)

        # The candidates: the edges at either end of the ``touching`` nodes, or those leaving
        # the ``among`` nodes (an edge with both ends inside has its source inside).
        if near_set is not None:
            ends = [(near_set, _SRC), (near_set, _DST)]
        else:
            assert inner_set is not None
            ends = [(inner_set, _SRC)]

        return self._current_rows("edge", ids, groups, test, _edges_at(ends))

    def _edges_between_rows(
        self, a: list[str], b: list[str], rels: list[str] | None, directed: bool
    ) -> list[Row] | None:
        """The current rows of ``edges_between(a, b, rels=rels, directed=directed)``, by id,
        from the view's endpoint index; None where SQL must answer."""
        a_set, b_set = set(a), set(b)
        rel_set = None if rels is None else set(rels)

        def test(row: Row) -> bool:
            if rel_set is not None and row[_REL] not in rel_set:
                return False
            src, dst = row[_SRC], row[_DST]
            return (src in a_set and dst in b_set) or (
                not directed and src in b_set and dst in a_set
            )

        ends = [(a_set, _SRC)] if directed else [(a_set, _SRC), (b_set, _SRC)]
        return self._current_rows("edge", None, None, test, _edges_at(ends))

    def _edges_of_rows(
        self, ids: list[str], direction: str, rels: list[str] | None
    ) -> list[Row] | None:
        """The current rows of ``edges_of(ids, direction=direction, rels=rels)``, by id, from
        the view's endpoint index; None where SQL must answer."""
        near = set(ids)
        ends = {"out": [(near, _SRC)], "in": [(near, _DST)]}.get(
            direction, [(near, _SRC), (near, _DST)]
        )
        rel_set = None if rels is None else set(rels)
        test = None if rel_set is None else (lambda row: row[_REL] in rel_set)
        return self._current_rows("edge", None, None, test, _edges_at(ends))


def _edges_at(ends: list[tuple[set[str], int]]) -> Callable[[Any], set[str]]:
    """A ``pick``: the ids of the edges whose end ``end`` (a row position) is one of ``nodes``,
    for each ``(nodes, end)``, from the view's endpoint index."""

    def pick(view: Any) -> set[str]:
        found: set[str] = set()
        for nodes, end in ends:
            index = view.ends[end]
            for node in nodes:
                found.update(index.get(node, ()))
        return found

    return pick


__all__ = ["EdgeRow", "NodeRow", "RowReads"]
