"""Expressions compiled to closures, for those evaluated once per row (issue 42).

Walking the syntax tree per row (a dispatch by type, a method call per node and the
aggregate map passed down) cost about a third of a label scan's time once its records
were cheap. The common shapes, variables, properties of nodes and relationships,
literals, parameters, comparisons, ``IS NULL``, string predicates, ``AND``/``OR``/``NOT`` and
calls of (non-aggregate) functions, become closures that do the same work with the same helpers (:func:`~.values.equals`,
:func:`~.values.compare`, the evaluator's truth check); anything else, and any case the
closure does not expect (a missing variable, a property of a map), is handed to the
evaluator, so every answer and every error is the evaluator's.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Protocol

from . import functions
from .aggregates import AGGREGATES
from .graph import Graph
from .syntax import Binary, Call, Expr, IsNull, Literal, Param, Prop, Unary, Var
from .values import NodeRef, RelRef, compare, equals

Row = dict[str, Any]
Compiled = Callable[[Row], Any]


class Evaluator(Protocol):
    """What the closures hand over to (:class:`~.expressions.Evaluator`)."""

    params: Mapping[str, Any]
    graph: Graph

    def eval(self, expr: Expr, row: Row, aggs: Any = None) -> Any: ...

    def truth_of(self, expr: Expr, value: Any) -> bool | None: ...

    def error(self, expr: Expr, message: str) -> Exception: ...


#: Deeper than this, a sub-expression is left to the evaluator (its loops over long
#: ``OR`` chains need no recursion; a compiled closure would).
_DEPTH = 24
#: What a variable lookup gives for a name the row does not hold (the evaluator then says why).
_UNBOUND = object()
_ORDER: dict[str, Callable[[int], bool]] = {
    "<": lambda c: c < 0,
    "<=": lambda c: c <= 0,
    ">": lambda c: c > 0,
    ">=": lambda c: c >= 0,
}


class Compiler:
    """Closures for one query's expressions, each made once (keyed by the node's ``id``)."""

    def __init__(self, ev: Evaluator) -> None:
        self.ev = ev
        self._values: dict[int, Compiled] = {}
        self._truths: dict[int, Compiled] = {}

    def value(self, expr: Expr) -> Compiled:
        """``row -> ev.eval(expr, row)``, compiled."""
        fn = self._values.get(id(expr))
        if fn is None:
            fn = self._values[id(expr)] = self._build(expr, 0)
        return fn

    def truth(self, expr: Expr) -> Compiled:
        """``row -> ev.truth(expr, row)``, compiled."""
        fn = self._truths.get(id(expr))
        if fn is None:
            fn = self._truths[id(expr)] = self._truth(expr, self._build(expr, 0))
        return fn

    def _truth(self, expr: Expr, value: Compiled) -> Compiled:
        truth_of = self.ev.truth_of

        def truth(row: Row) -> Any:
            v = value(row)
            return v if v is None or v is True or v is False else truth_of(expr, v)

        return truth

    def _fallback(self, expr: Expr) -> Compiled:
        ev = self.ev
        return lambda row: ev.eval(expr, row)

    def _build(self, e: Expr, depth: int) -> Compiled:
        if depth > _DEPTH:
            return self._fallback(e)
        if isinstance(e, Literal):
            constant = e.value
            return lambda row: constant
        if isinstance(e, Param):
            if e.name not in self.ev.params:
                return self._fallback(e)  # the evaluator says which one is missing
            given = self.ev.params[e.name]
            return lambda row: given
        if isinstance(e, Var):
            return self._var(e)
        if isinstance(e, Prop):
            return self._prop(e, depth)
        if isinstance(e, IsNull):
            operand, negated = self._build(e.operand, depth + 1), e.negated
            return lambda row: (operand(row) is None) != negated
        if isinstance(e, Unary) and e.op == "NOT":
            inner = self._truth(e.operand, self._build(e.operand, depth + 1))

            def negation(row: Row) -> Any:
                v = inner(row)
                return None if v is None else not v

            return negation
        if isinstance(e, Binary):
            left, right = self._build(e.left, depth + 1), self._build(e.right, depth + 1)
            if e.op in ("AND", "OR"):
                return self._logic(e, left, right)
            return self._comparison(e, left, right)
        if isinstance(e, Call) and e.name not in AGGREGATES and e.name in functions.FUNCTIONS:
            return self._call(e, [self._build(a, depth + 1) for a in e.args])
        return self._fallback(e)

    def _call(self, e: Call, args: list[Compiled]) -> Compiled:
        """A function call (``labels(n)``, ``toLower(n.name)``): its arguments' closures, then
        the function, as the evaluator calls it."""
        fn, graph, ev = functions.FUNCTIONS[e.name], self.ev.graph, self.ev

        def call(row: Row) -> Any:
            values = [a(row) for a in args]
            try:
                return fn(graph, values)
            except functions.ArgumentError as exc:
                raise ev.error(e, f"{e.name}(): {exc}") from None

        return call

    def _var(self, e: Var) -> Compiled:
        name, ev = e.name, self.ev

        def var(row: Row) -> Any:
            try:
                return row[name]
            except KeyError:
                return ev.eval(e, row)  # not defined: the evaluator's error

        return var

    def _prop(self, e: Prop, depth: int) -> Compiled:
        key, ev, graph = e.key, self.ev, self.ev.graph
        if isinstance(e.subject, Var):  # ``n.key``: the variable read here, one call less
            name = e.subject.name
            # the last record read here and its value: rows of one node in a row (``n.uuid``
            # of a start node in every row of its paths) read it once (a query's records do
            # not change while it runs)
            last: Any = object()
            value: Any = None

            def var_prop(row: Row) -> Any:
                nonlocal last, value
                s = row.get(name, _UNBOUND)
                if s is last:
                    return value
                if s.__class__ is NodeRef or s.__class__ is RelRef:
                    value = graph.property(s, key)
                    last = s
                    return value
                if s is None:
                    return None
                return ev.eval(e, row)  # not defined, a map, a date: as the evaluator says

            return var_prop

        subject = self._build(e.subject, depth + 1)

        def prop(row: Row) -> Any:
            s = subject(row)
            if s is None:
                return None
            if s.__class__ is NodeRef or s.__class__ is RelRef:
                return graph.property(s, key)
            return ev.eval(e, row)  # a map, a date, or an error: as the evaluator says

        return prop

    def _logic(self, e: Binary, left: Compiled, right: Compiled) -> Compiled:
        first, second = self._truth(e.left, left), self._truth(e.right, right)
        if e.op == "AND":

            def conjunction(row: Row) -> Any:
                a = first(row)
                if a is False:
                    return False
                b = second(row)
                return False if b is False else (None if a is None or b is None else True)

            return conjunction

        def disjunction(row: Row) -> Any:
            a = first(row)
            if a is True:
                return True
            b = second(row)
            return True if b is True else (None if a is None or b is None else False)

        return disjunction

    def _comparison(self, e: Binary, left: Compiled, right: Compiled) -> Compiled:
        op = e.op
        if op == "=":
            return lambda row: equals(left(row), right(row))
        if op == "<>":

            def different(row: Row) -> Any:
                same = equals(left(row), right(row))
                return None if same is None else not same

            return different
        if op in _ORDER:
            holds = _ORDER[op]

            def ordered(row: Row) -> Any:
                c = compare(left(row), right(row))
                return None if c is None else holds(c)

            return ordered
        if op in ("STARTS", "ENDS", "CONTAINS"):
            test: Callable[[str, str], bool] = {
                "STARTS": str.startswith,
                "ENDS": str.endswith,
                "CONTAINS": lambda a, b: b in a,
            }[op]

            def text(row: Row) -> Any:
                a, b = left(row), right(row)
                if a.__class__ is not str or b.__class__ is not str:
                    return None if a is None or b is None else _text_of(a, b, test)
                return test(a, b)

            return text
        return self._fallback(e)


def _text_of(a: Any, b: Any, test: Callable[[str, str], bool]) -> Any:
    """A string predicate of values not both exactly ``str`` (a subclass, or another type)."""
    if not isinstance(a, str) or not isinstance(b, str):
        return None
    return test(a, b)
