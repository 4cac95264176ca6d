"""WITH and RETURN: projecting, grouping with aggregates, DISTINCT, ORDER BY, SKIP, LIMIT.

A projection with no aggregate or ORDER BY streams (its SKIP and LIMIT cut the stream, so
the reads before it stop early; DISTINCT keeps the first row of each value as they come); the
others gather their input. ORDER BY sees the
projected columns and, unless the projection aggregates or is DISTINCT, the variables before
it, as openCypher says.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator
from typing import Any, cast

from ..base.errors import CypherError
from .aggregates import aggregate_calls, reducer
from .expressions import Evaluator, Row
from .limits import CHECK_EVERY, check_size
from .scope import Analysis
from .syntax import Call, Expr, Projection, ProjectionItem, Var
from .values import group_key, native_order, order

Stream = Iterator[list[Row]]


class Projector:
    def __init__(self, ev: Evaluator, analysis: Analysis) -> None:
        self.ev = ev
        self.analysis = analysis
        self._aggregates: dict[int, bool] = {}

    def project(self, proj: Projection, stream: Stream) -> tuple[Stream, list[str]]:
        first = next(stream, None)
        batches: Stream = iter(() if first is None else [first])
        if first is not None:
            batches = _chain(first, stream)
        scope = first[0] if first else {}
        items = self._items(proj, scope)
        names = [item.alias or item.text for item in items]
        if len(set(names)) != len(names):
            raise CypherError(f"a projection names two columns alike: {names}")
        aggregating = any(aggregate_calls(item.expr) for item in items)
        if not aggregating and not proj.order:
            return self._streamed(proj, items, names, batches), names
        rows: list[Row] = []
        for batch in batches:
            self.ev.deadline.check()
            rows.extend(batch)
            check_size(len(rows))
        self.ev.graph.rows_at_hand = rows
        if aggregating:
            out, keep = self._grouped(items, names, rows), None
        else:
            out = []
            project = self._rows(items, names)
            check = self.ev.deadline.check
            for i, row in enumerate(rows):
                if not i & CHECK_EVERY:
                    check()
                out.append(project(row))
            keep = rows
        if proj.distinct:
            out, keep = distinct_rows(out, names), None
        if proj.order:
            out = self._sorted(proj, items, names, out, keep, aggregating or proj.distinct)
        start, stop = self._window(proj)
        return iter([out[start:stop]]), names

    def _items(self, proj: Projection, scope: Row) -> list[ProjectionItem]:
        items = list(proj.items)
        if proj.star:
            named = {i.alias or i.text for i in items}
            visible = self.analysis.star_columns.get(id(proj))
            if visible is None:  # not known from the text: the variables of the first row
                visible = sorted(k for k in scope if not k.startswith("\x00") and k not in named)
            items = [ProjectionItem(Var(proj.pos, k), None, k) for k in visible] + items
            if not items and scope:
                raise CypherError("RETURN * with no variables in scope")
        return items

    def _rows(self, items: list[ProjectionItem], names: list[str]) -> Callable[[Row], Row]:
        """``row -> {name: value}`` for the items, their expressions compiled once."""
        fns = [(n, self.ev.row_function(i.expr)) for i, n in zip(items, names, strict=True)]
        if all(i.expr.__class__ is Var for i in items) and 1 <= len(items) <= 3:
            return _plain_rows(items, names, fns)
        # one or two items (most projections) without a comprehension's frame per row
        if len(fns) == 1:
            [(n0, f0)] = fns
            return lambda row: {n0: f0(row)}
        if len(fns) == 2:
            [(n0, f0), (n1, f1)] = fns
            return lambda row: {n0: f0(row), n1: f1(row)}
        return lambda row: {name: fn(row) for name, fn in fns}

    def _streamed(
        self, proj: Projection, items: list[ProjectionItem], names: list[str], batches: Stream
    ) -> Stream:
        """The projected rows as the input comes; DISTINCT keeps the first of each (so a
        LIMIT after it stops the reads too: issue 42's ``*1..3`` ... DISTINCT ... LIMIT read
        every path first)."""
        start, stop = self._window(proj)
        seen = 0
        if stop == 0:
            return
        keys: set[Any] | None = set() if proj.distinct else None
        project = self._rows(items, names)
        for batch in batches:
            self.ev.deadline.check()
            self.ev.graph.rows_at_hand = batch
            if keys is None:
                lo = max(0, start - seen)
                hi = len(batch) if stop is None else max(0, min(len(batch), stop - seen))
                seen += len(batch)
                rows = [project(row) for row in batch[lo:hi]]
            else:
                rows = []
                for row in batch:
                    projected = project(row)
                    key = tuple(group_key(projected[n]) for n in names)
                    if key in keys:
                        continue
                    keys.add(key)
                    seen += 1
                    if seen > start:
                        rows.append(projected)
                    if stop is not None and seen >= stop:
                        break
                check_size(len(keys))
            if rows:
                yield rows
            if stop is not None and seen >= stop:
                return  # before asking for the next batch: the reads behind it stop here

    def _grouped(self, items: list[ProjectionItem], names: list[str], rows: list[Row]) -> list[Row]:
        keys = [(i, n) for i, n in zip(items, names, strict=True) if not aggregate_calls(i.expr)]
        calls: list[Call] = [c for item in items for c in aggregate_calls(item.expr)]
        groups: dict[Any, tuple[Row, list[Row]]] = {}
        key_fns = [self.ev.row_function(i.expr) for i, _ in keys]
        key_names = [n for _, n in keys]
        check = self.ev.deadline.check
        if len(key_fns) == 1:  # one grouping key (most): no list, map and tuple per row
            [fn], [key_name] = key_fns, key_names
            for i, row in enumerate(rows):
                if not i & CHECK_EVERY:
                    check()
                value = fn(row)
                key = group_key(value)
                group = groups.get(key)
                if group is None:
                    group = groups[key] = ({key_name: value}, [])
                group[1].append(row)
        else:
            for i, row in enumerate(rows):
                if not i & CHECK_EVERY:
                    check()
                values = [fn(row) for fn in key_fns]
                key = tuple(map(group_key, values))
                group = groups.get(key)
                if group is None:  # the dict of a group's values once per group, not per row
                    group = groups[key] = (dict(zip(key_names, values, strict=True)), [])
                group[1].append(row)
        if not groups and not keys:
            groups[()] = ({}, [])  # aggregates over no rows: count 0, collect []
        # each column from the group's key, its aggregate's value (an item that is one call,
        # most are) or its expression over those; in column order
        columns = [
            (name, self._group_column(item, name, key_names, calls))
            for item, name in zip(items, names, strict=True)
        ]
        reducers = [(id(c), reducer(self.ev, c)) for c in calls]
        out = []
        for i, (values, members) in enumerate(groups.values()):
            if not i & CHECK_EVERY:
                check()
            aggs = {at: reduce(members) for at, reduce in reducers}
            sample = members[0] if members else {}
            row = {name: value(values, aggs, sample) for name, value in columns}
            out.append(row)
        return out

    def _group_column(
        self, item: ProjectionItem, name: str, key_names: list[str], calls: list[Call]
    ) -> Callable[[Row, dict[int, Any], Row], Any]:
        """``(group's key values, aggregates, a member row) -> the column's value``."""
        if name in key_names:
            return lambda values, aggs, sample: values[name]
        if any(item.expr is c for c in calls):
            at = id(item.expr)
            return lambda values, aggs, sample: aggs[at]
        expr, ev = item.expr, self.ev
        return lambda values, aggs, sample: ev.eval(expr, sample, aggs)

    def _sorted(
        self,
        proj: Projection,
        items: list[ProjectionItem],
        names: list[str],
        out: list[Row],
        before: list[Row] | None,
        projected_only: bool,
    ) -> list[Row]:
        by_text = {item.text: name for item, name in zip(items, names, strict=True)}
        for name in names:  # ORDER BY an alias: its column, as evaluating it on the row gives
            by_text.setdefault(name, name)
        sorted_by = [by_text.get(sort.text) for sort in proj.order]
        if all(column is not None for column in sorted_by):  # columns only (most): no scope
            columns = [[row[c] for row in out] for c in sorted_by]  # type: ignore[index]
        else:
            keyed: list[list[Any]] = []
            for i, row in enumerate(out):
                if not i & CHECK_EVERY:
                    self.ev.deadline.check()
                scope = row if projected_only or before is None else {**before[i], **row}
                keyed.append(
                    [
                        row[column]
                        if column is not None
                        else self._sort_value(sort.expr, scope, projected_only)
                        for sort, column in zip(proj.order, sorted_by, strict=True)
                    ]
                )
            columns = [[keys[j] for keys in keyed] for j in range(len(proj.order))]
        natives = [native_order(column) for column in columns]
        if all(key is not None for key in natives):
            # one stable sort per key, the last first, of the rows' positions by Python's own
            # comparisons (not ``order``'s), each key a list looked up in C: a lambda per row
            # and sort was most of an ORDER BY over 3,000 groups (issue 42)
            positions = list(range(len(out)))
            for j in reversed(range(len(proj.order))):
                self.ev.deadline.check()
                key, column = natives[j], columns[j]
                assert key is not None
                keys = column if None not in column else list(map(key, column))
                positions.sort(key=keys.__getitem__, reverse=proj.order[j].descending)
            return [out[i] for i in positions]

        # Cypher's own order (kinds mixed, a NaN, naive and aware datetimes): a call a comparison
        indexed = [(keys, i) for i, keys in enumerate(zip(*columns, strict=True))]

        def cmp(a: tuple[tuple[Any, ...], int], b: tuple[tuple[Any, ...], int]) -> int:
            self.ev.deadline.check()
            for sort, x, y in zip(proj.order, a[0], b[0], strict=True):
                c = order(x, y)
                if c:
                    return -c if sort.descending else c
            return 0

        indexed.sort(key=functools.cmp_to_key(cmp))
        return [out[i] for _, i in indexed]

    def _sort_value(self, expr: Expr, scope: Row, projected_only: bool) -> Any:
        aggregates = self._aggregates.get(id(expr))
        if aggregates is None:  # once per sort key, not per row (a walk of its tree)
            aggregates = self._aggregates[id(expr)] = bool(aggregate_calls(expr))
        if aggregates:
            raise CypherError(
                "ORDER BY an aggregate that is not a column: return it and order by its name"
            )
        try:
            return self.ev.row_function(expr)(scope)
        except CypherError:
            if projected_only:
                raise CypherError(
                    "after an aggregate or DISTINCT, ORDER BY can use only the projected columns"
                ) from None
            raise

    def _window(self, proj: Projection) -> tuple[int, int | None]:
        skip = self._count(proj.skip, "SKIP") if proj.skip is not None else 0
        limit = self._count(proj.limit, "LIMIT") if proj.limit is not None else None
        return skip, None if limit is None else skip + limit

    def _count(self, expr: Expr, what: str) -> int:
        value = self.ev.eval(expr, {})
        if not isinstance(value, int) or isinstance(value, bool) or value < 0:
            raise self.ev.error(expr, f"{what} takes a non-negative integer, got {value!r}")
        return value


def _chain(first: list[Row], rest: Stream) -> Stream:
    yield first
    yield from rest


def distinct_rows(rows: list[Row], names: list[str]) -> list[Row]:
    """The rows without repeats of their ``names`` columns (DISTINCT, UNION), first kept."""
    seen: dict[Any, Row] = {}
    for row in rows:
        seen.setdefault(tuple(group_key(row[n]) for n in names), row)
    return list(seen.values())


def _plain_rows(
    items: list[ProjectionItem], names: list[str], fns: list[tuple[str, Callable[[Row], Any]]]
) -> Callable[[Row], Row]:
    """``row -> {name: value}`` for one to three items that are variables: each looked up in
    the row, not called (a closure a value was a sixth of returning 3,000 entities' columns;
    issue 42); a variable not in the row gets the evaluator's error through ``fns``."""
    keys = [cast(Var, i.expr).name for i in items]

    def slow(row: Row) -> Row:
        return {name: fn(row) for name, fn in fns}

    if len(keys) == 1:
        [(n0, v0)] = zip(names, keys, strict=True)

        def one(row: Row) -> Row:
            try:
                return {n0: row[v0]}
            except KeyError:
                return slow(row)

        return one
    if len(keys) == 2:
        [(n0, v0), (n1, v1)] = zip(names, keys, strict=True)

        def two(row: Row) -> Row:
            try:
                return {n0: row[v0], n1: row[v1]}
            except KeyError:
                return slow(row)

        return two
    [(n0, v0), (n1, v1), (n2, v2)] = zip(names, keys, strict=True)

    def three(row: Row) -> Row:
        try:
            return {n0: row[v0], n1: row[v1], n2: row[v2]}
        except KeyError:
            return slow(row)

    return three
