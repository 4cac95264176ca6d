"""A WHERE's simple conjuncts decided on a record's column tuple, before its row is built
(issue 42).

The relationship column plan (:mod:`.rel_columns`) checked each conjunct on a row dict built
for every relationship it scanned and every node it read: at 10k facts the filtered LIMIT 10
(``r.invalid_at IS NULL AND n.name STARTS WITH $p``) built ~80 relationship rows and ~80 node
rows a query to keep ten, ~15 us a relationship. A conjunct of the forms below is decided on
the tuple itself; the others, and every conjunct of a tuple whose exact columns do not all hold
strings (its properties are read through the record), are checked on its row as before.

A tuple is *sure* when each exact column it holds is a string: then that column is the
property (:class:`~anatid_core.cypher.shape.ExactFields`), and a null-field column is null
exactly where its property is (:class:`~anatid_core.cypher.shape.NullFields`). On a sure
tuple, these decide exactly as ``matching.may_hold`` does on the row (true, or not):

* ``x IS [NOT] NULL``: on a null field, whether its column is null; on an exact one, a string
  is not null;
* ``x = v``, ``v = x``, ``x <> v``, ``x STARTS WITH v``, ``x ENDS WITH v``, ``x CONTAINS v``,
  ``v`` a string literal or parameter (another value's comparison is left to the row);
* ``x IN v``, ``v`` a list (of literals and parameters, or a parameter) of strings (other
  items: left to the row);
* a pattern map's ``key: v``, ``v`` a string.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from .expressions import Row
from .syntax import Binary, Expr, IsNull, ListOf, Literal, Param, Var

#: A check decided on a sure tuple.
ColumnTest = Callable[[tuple[Any, ...]], bool]
#: A check on a row (``matching.may_hold`` of a conjunct, or a map entry's).
RowTest = Callable[[Row], bool]

#: Where each hidden name's value is in the tuple, and whether its column is the property
#: (exact) rather than standing for its nullness alone.
Places = Mapping[str, tuple[int, bool]]

_TEXT: dict[str, Callable[[str, str], bool]] = {
    "=": str.__eq__,
    "<>": str.__ne__,
    "STARTS": str.startswith,
    "ENDS": str.endswith,
    "CONTAINS": str.__contains__,
}


@dataclass(frozen=True)
class Checks:
    """One stage's checks: those decided on a sure tuple (as one test, None for none), the
    rest on its row, and all of them on a row (for a tuple that is not sure)."""

    on_columns: ColumnTest | None
    on_row: tuple[RowTest, ...]
    every: tuple[RowTest, ...]

    def columns_pass(self, values: tuple[Any, ...]) -> bool:
        return self.on_columns is None or self.on_columns(values)

    def row_passes(self, row: Row) -> bool:
        return all(test(row) for test in self.on_row)

    def all_pass(self, row: Row) -> bool:
        return all(test(row) for test in self.every)


def checks(tests: list[tuple[Expr, RowTest]], places: Places, params: Mapping[str, Any]) -> Checks:
    """The checks of ``tests`` (each a conjunct reading hidden names, and its row test):
    those :func:`column_test` decides, on the tuple."""
    on_columns, on_row = [], []
    for expr, test in tests:
        decided = column_test(expr, places, params)
        if decided is None:
            on_row.append(test)
        else:
            on_columns.append(decided)
    return Checks(_all_of(on_columns), tuple(on_row), tuple(t for _, t in tests))


def _all_of(tests: list[ColumnTest]) -> ColumnTest | None:
    """One test for all of ``tests`` (this runs per relationship and node a query reads: a
    generator per call cost more than the tests)."""
    if not tests:
        return None
    if len(tests) == 1:
        return tests[0]
    if len(tests) == 2:
        first, second = tests
        return lambda values: first(values) and second(values)

    def every(values: tuple[Any, ...]) -> bool:
        for test in tests:
            if not test(values):
                return False
        return True

    return every


def column_test(expr: Expr, places: Places, params: Mapping[str, Any]) -> ColumnTest | None:
    """``expr`` decided on a sure tuple (module docstring), or None where it is not one of
    those forms."""
    if isinstance(expr, IsNull) and isinstance(expr.operand, Var):
        place = places.get(expr.operand.name)
        if place is None:
            return None
        at, exact, negated = *place, expr.negated
        if exact:  # a string: never null
            return lambda values: negated
        return lambda values: (values[at] is None) != negated
    if not isinstance(expr, Binary):
        return None
    left, right = expr.left, expr.right
    if expr.op == "=" and not isinstance(left, Var):
        left, right = right, left  # v = x
    if not isinstance(left, Var):
        return None
    place = places.get(left.name)
    if place is None or not place[1]:
        return None  # a null field's column says only whether it is null
    at = place[0]
    given = _constant(right, params)
    if expr.op == "IN":
        if given.__class__ is not list or any(v.__class__ is not str for v in given):
            return None
        among = frozenset(given)
        return lambda values: values[at] in among
    test = _TEXT.get(expr.op)
    if test is None or given.__class__ is not str:
        return None
    return lambda values: test(values[at], given)


def _constant(expr: Expr, params: Mapping[str, Any]) -> Any:
    """The value of a literal or a given parameter; a marker no test takes otherwise."""
    if isinstance(expr, Literal):
        return expr.value
    if isinstance(expr, Param) and expr.name in params:
        return params[expr.name]
    if isinstance(expr, ListOf):  # ['a', $b]: a generated IN list
        items = [_constant(item, params) for item in expr.items]
        return _UNKNOWN if any(i is _UNKNOWN for i in items) else items
    return _UNKNOWN


_UNKNOWN = object()


def sure(exact_at: list[int]) -> ColumnTest:
    """Whether a tuple is sure (module docstring): its columns at ``exact_at`` hold strings."""
    if not exact_at:
        return lambda values: True
    if len(exact_at) == 1:
        (at,) = exact_at
        return lambda values: values[at].__class__ is str
    if len(exact_at) == 2:
        a, b = exact_at
        return lambda values: values[a].__class__ is str and values[b].__class__ is str
    return lambda values: all(values[i].__class__ is str for i in exact_at)
