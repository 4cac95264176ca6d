"""Aggregating functions over a group of rows: count, collect, sum, avg, min, max, stdev,
percentiles. Nulls are skipped, as openCypher does (``count(*)`` counts rows)."""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Sequence
from typing import Any, Protocol, cast

from .syntax import Call, Expr, Var
from .values import OVERFLOW, fits_int64, group_key, is_number, order, type_name

AGGREGATES = frozenset(
    {
        "count",
        "collect",
        "sum",
        "avg",
        "min",
        "max",
        "stdev",
        "stdevp",
        "percentilecont",
        "percentiledisc",
    }
)
Row = dict[str, Any]


class Evaluator(Protocol):
    def eval(self, expr: Expr, row: Row, aggs: Any = None) -> Any: ...

    def error(self, expr: Expr, message: str) -> Exception: ...

    def row_function(self, expr: Expr) -> Callable[[Row], Any]: ...


def aggregate_calls(expr: Expr) -> list[Call]:
    """The aggregate calls in ``expr`` (not those nested in another aggregate's argument)."""
    found: list[Call] = []
    stack: list[Any] = [expr]  # a loop, not a recursion: a chain of 10,000 ORs is 10,000 deep
    while stack:
        node = stack.pop()
        if isinstance(node, Call) and node.name in AGGREGATES:
            found.append(node)
        elif isinstance(node, Expr):
            stack.extend(reversed(list(vars(node).values())))
        elif isinstance(node, (list, tuple)):
            stack.extend(reversed(node))
    return found


def reducer(ev: Evaluator, call: Call) -> Callable[[Sequence[Row]], Any]:
    """``rows -> the aggregate of the group rows``, its argument's function found once: a
    grouping asks it of each group (3,000 groups of a row each, a count per node; issue 42)."""
    if call.star:
        return len
    if not call.args:

        def missing(rows: Sequence[Row]) -> Any:
            raise ev.error(call, f"{call.name}() needs an argument")

        return missing
    value = ev.row_function(call.args[0])

    def general(rows: Sequence[Row]) -> Any:
        return _aggregate(ev, call, rows, [v for v in map(value, rows) if v is not None])

    arg = call.args[0]
    if call.name != "sum" or call.distinct or len(call.args) != 1 or arg.__class__ is not Var:
        return general
    name = cast(Var, arg).name

    def one_int(rows: Sequence[Row]) -> Any:
        # a group of one row holding an int (count(r) per node, summed by .counting: 3,000
        # groups of one row each): that int, as the general path gives it
        if len(rows) == 1:
            v = rows[0].get(name)
            if v.__class__ is int and fits_int64(cast(int, v)):
                return v
        return general(rows)

    return one_int


def _aggregate(ev: Evaluator, call: Call, rows: Sequence[Row], values: list[Any]) -> Any:
    """The aggregate of the group ``rows``, whose argument's non-null values are ``values``."""
    if call.distinct:
        seen: dict[Any, Any] = {}
        for v in values:
            seen.setdefault(group_key(v), v)
        values = list(seen.values())
    name = call.name
    if name == "count":
        return len(values)
    if name == "sum" and all(v.__class__ is int for v in values):  # most sums: no bool, no float
        total = sum(values)
        if not fits_int64(total):
            raise ev.error(call, f"sum(): {OVERFLOW}")
        return total
    if name == "collect":
        return values
    if name in ("min", "max"):
        if not values:
            return None
        key = functools.cmp_to_key(order)
        return min(values, key=key) if name == "min" else max(values, key=key)
    if name in ("sum", "avg", "stdev", "stdevp"):
        for v in values:
            if not is_number(v):
                raise ev.error(call, f"{name}() adds numbers, got {type_name(v)}")
        total = _numeric(name, values)
        if isinstance(total, int) and not fits_int64(total):
            raise ev.error(call, f"{name}(): {OVERFLOW}")
        return total
    extra = [ev.eval(a, rows[0]) for a in call.args[1:]] if rows else [0.5]
    return _percentile(ev, call, values, extra)


def _numeric(name: str, values: list[Any]) -> Any:
    if name == "sum":
        if all(isinstance(v, int) for v in values):
            return sum(values)
        return _fsum(values)
    if not values:
        return None if name == "avg" else 0.0
    mean = _fsum(values) / len(values)
    if name == "avg":
        return mean
    n = len(values) - (1 if name == "stdev" else 0)
    if n <= 0:
        return 0.0
    # a product, not ** 2: a float squared past the floats raises OverflowError
    return math.sqrt(_fsum([(v - mean) * (v - mean) for v in values]) / n)


def _fsum(values: list[Any]) -> float:
    """The exact float sum; past the floats, infinity (or NaN) as the plain sum gives it (fsum
    raises OverflowError on its way there: sum() of two 1e308 was an untyped error)."""
    try:
        return math.fsum(values)
    except OverflowError:
        return float(sum(values))


def _percentile(ev: Evaluator, call: Call, values: list[Any], extra: list[Any]) -> Any:
    if not extra or not is_number(extra[0]) or not 0 <= extra[0] <= 1:
        raise ev.error(call, f"{call.name}() needs a percentile between 0.0 and 1.0")
    if not values:
        return None
    for v in values:
        if not is_number(v):  # sorting a string among numbers was an untyped TypeError
            raise ev.error(call, f"{call.name}() takes numbers, got {type_name(v)}")
    p = float(extra[0])
    ordered = sorted(values)
    if call.name == "percentiledisc":
        index = max(0, math.ceil(p * len(ordered)) - 1)
        return ordered[index]
    position = p * (len(ordered) - 1)
    low = math.floor(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)
