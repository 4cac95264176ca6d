"""Evaluating expressions over a row (a map from variable to value).

Null propagates as in openCypher: an operator with a null operand gives null, AND/OR/XOR/NOT
follow three-valued logic, and WHERE keeps a row only when its predicate is true.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping
from datetime import date, datetime
from typing import Any, Protocol, cast

from ..base.errors import CypherError
from . import functions
from .aggregates import AGGREGATES
from .compiled import Compiled, Compiler
from .errors import runtime_error, unsupported
from .graph import Graph
from .limits import CHECK_EVERY, Deadline, check_list, check_string, unbounded
from .regex_guard import explosive
from .syntax import (
    Binary,
    Call,
    Case,
    Expr,
    HasLabels,
    Index,
    IsNull,
    ListComprehension,
    ListOf,
    Literal,
    MapOf,
    MapProjection,
    Param,
    PatternComprehension,
    PatternPart,
    PatternPredicate,
    Prop,
    Quantifier,
    Reduce,
    Slice,
    Unary,
    Var,
)
from .values import (
    OVERFLOW,
    NodeRef,
    RelRef,
    compare,
    equals,
    fits_int64,
    is_number,
    type_name,
)

Row = dict[str, Any]


class PatternTester(Protocol):
    def exists(self, pattern: PatternPart, row: Row) -> bool: ...

    def matches(self, pattern: PatternPart, row: Row) -> list[Row]: ...


class Evaluator:
    def __init__(self, source: str, params: Mapping[str, Any], graph: Graph) -> None:
        self.source = source
        self.params = params
        self.graph = graph
        self.matcher: PatternTester | None = None
        self.deadline: Deadline = unbounded()
        self._regexes: dict[str, re.Pattern[str]] = {}
        #: Closures for the expressions evaluated per row (:mod:`.compiled`).
        self.compiled = Compiler(self)
        self._dispatch: dict[type, Callable[[Any, Row, Mapping[int, Any] | None], Any]] = {
            Literal: lambda e, r, a: e.value,
            Param: self._param,
            Var: self._var,
            Prop: self._prop,
            Index: self._index,
            Slice: self._slice,
            ListOf: lambda e, r, a: [self.eval(i, r, a) for i in e.items],
            MapOf: lambda e, r, a: {k: self.eval(v, r, a) for k, v in e.items},
            MapProjection: self._map_projection,
            Unary: self._unary,
            Binary: self._binary,
            IsNull: lambda e, r, a: (self.eval(e.operand, r, a) is None) != e.negated,
            HasLabels: self._has_labels,
            Call: self._call,
            Case: self._case,
            ListComprehension: self._comprehension,
            Quantifier: self._quantifier,
            PatternPredicate: self._pattern,
            Reduce: self._reduce,
            PatternComprehension: self._pattern_comprehension,
        }

    def error(self, expr: Expr, message: str) -> CypherError:
        return runtime_error(self.source, expr.pos, message)

    def eval(self, expr: Expr, row: Row, aggs: Mapping[int, Any] | None = None) -> Any:
        return self._dispatch[type(expr)](expr, row, aggs)

    def row_function(self, expr: Expr) -> Compiled:
        """``row -> eval(expr, row)`` (no aggregate values), compiled once per query."""
        return self.compiled.value(expr)

    def truth(self, expr: Expr, row: Row, aggs: Mapping[int, Any] | None = None) -> bool | None:
        return self.truth_of(expr, self.eval(expr, row, aggs))

    # ------------------------------------------------------------------------------ atoms

    def _param(self, e: Param, row: Row, aggs: Any) -> Any:
        if e.name not in self.params:
            raise self.error(e, f"the query uses ${e.name}, which was not given")
        return self.params[e.name]

    def _var(self, e: Var, row: Row, aggs: Any) -> Any:
        if e.name not in row:
            raise self.error(e, f"variable `{e.name}` is not defined")
        return row[e.name]

    def _prop(self, e: Prop, row: Row, aggs: Any) -> Any:
        subject = self.eval(e.subject, row, aggs)
        if subject is None:
            return None
        if isinstance(subject, (NodeRef, RelRef)):
            return self.graph.property(subject, e.key)
        if isinstance(subject, dict):
            return subject.get(e.key)
        if isinstance(subject, (datetime, date)) and e.key in functions.TEMPORAL_FIELDS:
            return functions.temporal_field(subject, e.key)
        raise self.error(e, f"cannot read property {e.key!r} of {type_name(subject)}")

    def _index(self, e: Index, row: Row, aggs: Any) -> Any:
        subject = self.eval(e.subject, row, aggs)
        index = self.eval(e.index, row, aggs)
        if subject is None or index is None:
            return None
        if isinstance(subject, list):
            if not isinstance(index, int) or isinstance(index, bool):
                raise self.error(e, f"a list index must be an integer, got {type_name(index)}")
            return subject[index] if -len(subject) <= index < len(subject) else None
        if isinstance(subject, (dict, NodeRef, RelRef)):
            if not isinstance(index, str):
                raise self.error(e, f"a map key must be a string, got {type_name(index)}")
            if isinstance(subject, dict):
                return subject.get(index)
            return self.graph.property(subject, index)
        raise self.error(e, f"cannot index {type_name(subject)}")

    def _slice(self, e: Slice, row: Row, aggs: Any) -> Any:
        subject = self.eval(e.subject, row, aggs)
        start = 0 if e.start is None else self.eval(e.start, row, aggs)
        end = None if e.end is None else self.eval(e.end, row, aggs)
        if subject is None or start is None or (e.end is not None and end is None):
            return None
        if not isinstance(subject, list):
            raise self.error(e, f"cannot slice {type_name(subject)}")
        for bound in (start, end):
            if bound is not None and (not isinstance(bound, int) or isinstance(bound, bool)):
                # Python's slice of a string bound was an untyped TypeError
                raise self.error(e, f"a slice bound must be an integer, got {type_name(bound)}")
        return subject[start:end]

    def _map_projection(self, e: MapProjection, row: Row, aggs: Any) -> Any:
        """Neo4j's semantics: null if the subject is null; ``.key`` is null when the property
        is missing; ``.*`` every property (nulls are absent); a later key replaces an earlier."""
        subject = self.eval(e.subject, row, aggs)
        if subject is None:
            return None
        if not isinstance(subject, (dict, NodeRef, RelRef)):
            what = type_name(subject)
            raise self.error(e, f"a map projection needs a node, relationship or map, got {what}")
        out: dict[str, Any] = {}
        for kind, key, expr in e.items:
            if kind == "*":
                if isinstance(subject, dict):
                    out.update(subject)
                else:
                    props = self.graph.properties(subject)
                    out.update((k, v) for k, v in props.items() if v is not None)
            elif kind == ".":
                out[key] = (
                    subject.get(key)
                    if isinstance(subject, dict)
                    else self.graph.property(subject, key)
                )
            else:
                assert expr is not None
                out[key] = self.eval(expr, row, aggs)
        return out

    # -------------------------------------------------------------------------- operators

    def _unary(self, e: Unary, row: Row, aggs: Any) -> Any:
        if e.op == "NOT":
            value = self.truth(e.operand, row, aggs)
            return None if value is None else not value
        value = self.eval(e.operand, row, aggs)
        if value is None:
            return None
        if not is_number(value):
            raise self.error(e, f"cannot apply unary {e.op} to {type_name(value)}")
        if e.op != "-":
            return value
        if isinstance(value, int) and not fits_int64(-value):
            raise self.error(e, OVERFLOW)
        return -value

    def _binary(self, e: Binary, row: Row, aggs: Any) -> Any:
        """A chain of binary operators down the left (a OR b OR c ..., a + b + c ...) folded
        in a loop from its innermost operand, so that 10,000 of them need no deep recursion."""
        spine = [e]
        while isinstance(spine[-1].left, Binary):
            spine.append(spine[-1].left)
        value = self.eval(spine[-1].left, row, aggs)
        check = self.deadline.check
        for i, node in enumerate(reversed(spine)):
            if not i & 4095:  # a chain of a million ORs is seconds a row
                check()
            value = self._apply(node, value, row, aggs)
        return value

    def _apply(self, e: Binary, left: Any, row: Row, aggs: Any) -> Any:
        """``e`` given its left operand's value."""
        op = e.op
        if op in ("AND", "OR", "XOR"):
            return self._logic(e, self.truth_of(e.left, left), row, aggs)
        right = self.eval(e.right, row, aggs)
        if op == "=":
            return equals(left, right)
        if op == "<>":
            same = equals(left, right)
            return None if same is None else not same
        if op in ("<", "<=", ">", ">="):
            c = compare(left, right)
            if c is None:
                return None
            return {"<": c < 0, "<=": c <= 0, ">": c > 0, ">=": c >= 0}[op]
        if op == "IN":
            return self._in(e, left, right)
        if left is None or right is None:
            return None
        if op == "||":  # Neo4j 5's concatenation: of two strings, or of two lists
            if isinstance(left, str) and isinstance(right, str):
                check_string(len(left) + len(right))
                return left + right
            if isinstance(left, list) and isinstance(right, list):
                check_list(len(left) + len(right))
                return left + right
            raise self.error(
                e,
                f"|| joins two strings or two lists, not {type_name(left)} and {type_name(right)}",
            )
        if op in ("STARTS", "ENDS", "CONTAINS", "=~"):
            if not isinstance(left, str) or not isinstance(right, str):
                return None
            if op == "STARTS":
                return left.startswith(right)
            if op == "ENDS":
                return left.endswith(right)
            if op == "CONTAINS":
                return right in left
            compiled = self._regex(e, right)
            self.deadline.check()
            return compiled.fullmatch(left) is not None
        return self._arithmetic(e, left, right)

    def truth_of(self, expr: Expr, value: Any) -> bool | None:
        if value is None or isinstance(value, bool):
            return value
        raise self.error(expr, f"expected a boolean, got {type_name(value)} {_show(value)}")

    def _logic(self, e: Binary, left: bool | None, row: Row, aggs: Any) -> bool | None:
        if e.op == "AND" and left is False:
            return False
        if e.op == "OR" and left is True:
            return True
        right = self.truth(e.right, row, aggs)
        if e.op == "AND":
            return False if right is False else (None if None in (left, right) else True)
        if e.op == "OR":
            return True if right is True else (None if None in (left, right) else False)
        return None if None in (left, right) else left != right

    def _in(self, e: Binary, left: Any, right: Any) -> bool | None:
        if right is None:
            return None
        if not isinstance(right, list):
            raise self.error(e, f"IN needs a list on its right, got {type_name(right)}")
        unknown = False
        for item in right:
            same = equals(left, item)
            if same:
                return True
            if same is None:
                unknown = True
        return None if unknown else False

    def _regex(self, e: Binary, pattern: str) -> re.Pattern[str]:
        compiled = self._regexes.get(pattern)
        if compiled is None:
            why = explosive(pattern)
            if why is not None:
                raise unsupported(
                    self.source,
                    e.pos,
                    f"the regular expression {pattern!r}",
                    f"{why}, so one match can run for hours and no deadline can stop it; "
                    "write it without the nested repetition, as (a+)+ is a+",
                )
            try:
                compiled = self._regexes[pattern] = re.compile(pattern)
            except re.error as exc:
                raise self.error(e, f"bad regular expression {pattern!r}: {exc}") from None
        return compiled

    def _arithmetic(self, e: Binary, left: Any, right: Any) -> Any:
        op = e.op
        if op == "+":
            if isinstance(left, list):
                check_list(len(left) + (len(right) if isinstance(right, list) else 1))
                return left + right if isinstance(right, list) else [*left, right]
            if isinstance(right, list):
                check_list(len(right) + 1)
                return [left, *right]
            if isinstance(left, str) and isinstance(right, (str, int, float)):
                text = right if isinstance(right, str) else functions.to_string(right)
                check_string(len(left) + len(text))
                return left + text
            if isinstance(right, str) and is_number(left):
                text = functions.to_string(left)
                check_string(len(text) + len(right))
                return text + right
        if not (is_number(left) and is_number(right)):
            raise self.error(e, f"cannot apply {op} to {type_name(left)} and {type_name(right)}")
        try:
            return numeric(op, cast(float, left), cast(float, right))
        except ZeroDivisionError:
            raise self.error(e, "division by zero") from None
        except OverflowError:
            raise self.error(e, OVERFLOW) from None

    # ---------------------------------------------------------------------------- the rest

    def _has_labels(self, e: HasLabels, row: Row, aggs: Any) -> bool | None:
        subject = self.eval(e.subject, row, aggs)
        if subject is None:
            return None
        if isinstance(subject, RelRef):
            kind = self.graph.shape.rel_type(subject.record)
            return all(kind in group for group in e.labels)
        if not isinstance(subject, NodeRef):
            raise self.error(e, f"cannot test the labels of {type_name(subject)}")
        labels = self.graph.label_set(subject)
        return all(any(label in labels for label in group) for group in e.labels)

    def _call(self, e: Call, row: Row, aggs: Mapping[int, Any] | None) -> Any:
        if e.name in AGGREGATES:
            if aggs is None or id(e) not in aggs:
                raise self.error(e, f"{e.name}() aggregates: use it in WITH or RETURN")
            return aggs[id(e)]
        fn = functions.FUNCTIONS.get(e.name)
        if fn is None:
            raise functions.unknown_function(self.source, e)
        args = [self.eval(a, row, aggs) for a in e.args]
        try:
            return fn(self.graph, args)
        except functions.ArgumentError as exc:
            raise self.error(e, f"{e.name}(): {exc}") from None

    def _case(self, e: Case, row: Row, aggs: Any) -> Any:
        if e.subject is not None:
            subject = self.eval(e.subject, row, aggs)
            for when, then in e.whens:
                if equals(subject, self.eval(when, row, aggs)):
                    return self.eval(then, row, aggs)
        else:
            for when, then in e.whens:
                if self.truth(when, row, aggs):
                    return self.eval(then, row, aggs)
        return None if e.default is None else self.eval(e.default, row, aggs)

    def _items(self, e: ListComprehension | Quantifier, row: Row, aggs: Any) -> list[Any] | None:
        source = self.eval(e.source, row, aggs)
        if source is None:
            return None
        if not isinstance(source, list):
            raise self.error(e, f"expected a list to iterate, got {type_name(source)}")
        return source

    def _comprehension(self, e: ListComprehension, row: Row, aggs: Any) -> Any:
        source = self._items(e, row, aggs)
        if source is None:
            return None
        out = []
        for item in source:
            self.deadline.check()
            inner = {**row, e.var: item}
            if e.where is not None and not self.truth(e.where, inner, aggs):
                continue
            out.append(item if e.project is None else self.eval(e.project, inner, aggs))
        return out

    def _quantifier(self, e: Quantifier, row: Row, aggs: Any) -> bool | None:
        source = self._items(e, row, aggs)
        if source is None:
            return None
        results = []
        for item in source:
            self.deadline.check()
            results.append(self.truth(e.where, {**row, e.var: item}, aggs))
        trues = sum(1 for r in results if r is True)
        unknown = any(r is None for r in results)
        if e.kind == "all":
            return False if False in results else (None if unknown else True)
        if e.kind == "any":
            return True if trues else (None if unknown else False)
        if e.kind == "none":
            return False if trues else (None if unknown else True)
        if trues > 1:
            return False
        return None if unknown else trues == 1

    def _pattern(self, e: PatternPredicate, row: Row, aggs: Any) -> bool:
        assert self.matcher is not None
        return self.matcher.exists(e.pattern, row)

    def _reduce(self, e: Reduce, row: Row, aggs: Any) -> Any:
        source = self.eval(e.source, row, aggs)
        if source is None:
            return None
        if not isinstance(source, list):
            raise self.error(e, f"reduce() expects a list to iterate, got {type_name(source)}")
        acc = self.eval(e.init, row, aggs)
        for i, item in enumerate(source):
            if not i & CHECK_EVERY:
                self.deadline.check()
            acc = self.eval(e.step, {**row, e.acc: acc, e.var: item}, aggs)
        return acc

    def _pattern_comprehension(self, e: PatternComprehension, row: Row, aggs: Any) -> Any:
        assert self.matcher is not None
        out = []
        for inner in self.matcher.matches(e.pattern, row):
            self.deadline.check()
            if e.where is not None and not self.truth(e.where, inner, aggs):
                continue
            out.append(self.eval(e.project, inner, aggs))
            check_list(len(out))
        return out


def _show(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def numeric(op: str, left: float, right: float) -> float:
    """Cypher arithmetic on two numbers: integer division truncates towards zero and ``%``
    takes the dividend's sign (as Java's); a float division by zero is infinite or NaN;
    an integer one raises ZeroDivisionError, an integer result past 64 bits OverflowError."""
    if op in ("+", "-", "*"):
        result = left + right if op == "+" else left - right if op == "-" else left * right
        if isinstance(result, int) and not fits_int64(result):
            raise OverflowError
        return result
    if op == "^":
        try:
            power = float(left) ** float(right)
        except (OverflowError, ZeroDivisionError):
            return math.inf
        # a negative base to a fractional power: NaN, as Java's Math.pow (Python's is complex)
        return math.nan if isinstance(power, complex) else power
    both_int = isinstance(left, int) and isinstance(right, int)
    if both_int and right == 0:
        raise ZeroDivisionError
    if op == "/":
        if both_int:
            q = int(abs(left) // abs(right))
            q = q if (left >= 0) == (right >= 0) else -q
            if not fits_int64(q):  # the lowest integer divided by -1
                raise OverflowError
            return q
        if right == 0:
            if left == 0 or math.isnan(left):
                return math.nan
            return math.copysign(math.inf, left) * math.copysign(1, right)
        return left / right
    if both_int:
        return int(math.fmod(left, right))
    return math.fmod(left, right) if right != 0 else math.nan
