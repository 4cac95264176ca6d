"""Which variables each clause may use, known from the query alone (issue 42).

The engine met an unknown variable only when a row reached the expression that used it, so
whether a query was valid depended on the data: ``MATCH (n:P) RETURN m`` failed and
``MATCH (n:Nope) RETURN m`` answered no rows; ``RETURN *`` took its columns from the first row,
so ``... RETURN * UNION MATCH (n:Nope) RETURN *`` had "different columns". Neo4j reports both
before it runs. :func:`analyse` walks the clauses in order, as Neo4j's semantic analysis does:
MATCH and OPTIONAL MATCH define their pattern's variables, UNWIND and CALL ... YIELD theirs,
WITH replaces the scope by its columns; list comprehensions, quantifiers, ``reduce`` and
pattern comprehensions define theirs inside; a pattern in a WHERE may bind new ones there. An unknown variable is a CypherError
before any read, and each ``*`` projection gets its columns.

Where the scope cannot be known from the text (a CALL without YIELD: its columns are the
procedure's, which the record shape defines), nothing after it is checked and ``*`` takes its
columns from the rows as before. ORDER BY, SKIP, LIMIT and a WITH's WHERE are checked against
the variables before and after the projection together: this refuses only what neither could
mean.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, fields
from typing import Any

from ..base.errors import CypherError
from .errors import runtime_error
from .syntax import (
    Expr,
    ListComprehension,
    Match,
    NodePattern,
    PatternComprehension,
    PatternPart,
    PatternPredicate,
    ProcedureCall,
    Projection,
    Quantifier,
    Query,
    Reduce,
    RelPattern,
    Return,
    SingleQuery,
    Unwind,
    Var,
    With,
)

#: The variables in scope, or None where the text does not say (after a CALL without YIELD).
Names = frozenset[str] | None
#: The query's deadline, called as a long walk goes.
Check = Callable[[], None] | None


@dataclass
class Analysis:
    """What the query's text alone says: the columns of each ``*`` projection (by the
    projection's ``id``), where they are known."""

    star_columns: dict[int, list[str]] = field(default_factory=dict)
    #: What the engine chose from the text once, kept for the text's later runs (its plans
    #: per query of a UNION and per shape: :class:`~anatid_core.cypher.engine.Plans`).
    kept: dict[Any, Any] = field(default_factory=dict)


def analyse(query: Query, source: str, check: Callable[[], None] | None = None) -> Analysis:
    """Check every variable of ``query`` is defined where it is used (CypherError naming the
    first that is not, with its place), and the parts of a UNION return the same columns.
    ``check`` (the query's deadline) is called as the walk goes."""
    analysis = Analysis()
    columns = [_single(part, source, analysis, check) for part in query.parts]
    known = [c for c in columns if c is not None]
    for other in known[1:]:
        if other != known[0]:
            raise CypherError(
                f"the queries of a UNION return different columns: {known[0]} and {other}"
            )
    return analysis


def _single(part: SingleQuery, source: str, analysis: Analysis, check: Check) -> list[str] | None:
    """Check one query of a UNION; its columns, if the text says them."""
    scope: Names = frozenset()
    columns: list[str] | None = []
    for clause in part.clauses:
        if isinstance(clause, Match):
            scope = _defined_by_patterns(clause.patterns, scope)
            for pattern in clause.patterns:
                _check_pattern(pattern, scope, source, check)
            _check(clause.where, scope, source, check)
        elif isinstance(clause, Unwind):
            _check(clause.expr, scope, source, check)
            scope = None if scope is None else scope | {clause.var}
        elif isinstance(clause, (With, Return)):
            projected = _projection(clause.projection, scope, source, analysis, check)
            if isinstance(clause, With):
                _check(clause.where, _union(scope, projected), source, check)
            scope = None if projected is None else frozenset(projected)
            columns = projected
        elif isinstance(clause, ProcedureCall):
            for arg in clause.args or []:
                _check(arg, scope, source, check)
            if clause.yields is None:
                scope = columns = None  # the procedure's outputs: the shape's, not the text's
            else:
                scope = None if scope is None else scope | {v for _, v in clause.yields}
                columns = [v for _, v in clause.yields]
            _check(clause.where, scope, source, check)
    return columns


def _projection(
    proj: Projection, scope: Names, source: str, analysis: Analysis, check: Check
) -> list[str] | None:
    """Check a WITH's or RETURN's items; its column names (None where unknown)."""
    for item in proj.items:
        _check(item.expr, scope, source, check)
    named = [item.alias or item.text for item in proj.items]
    if proj.star:
        if scope is None:
            columns = None
        else:
            star = sorted(v for v in scope if v not in named)
            if not star and not named:
                raise CypherError("RETURN * with no variables in scope")
            analysis.star_columns[id(proj)] = star
            columns = star + named
    else:
        columns = named
    after = _union(scope, columns)
    for sort in proj.order:
        _check(sort.expr, after, source, check)
    _check(proj.skip, after, source, check)
    _check(proj.limit, after, source, check)
    return columns


def _union(scope: Names, columns: list[str] | None) -> Names:
    return None if scope is None or columns is None else scope | frozenset(columns)


def _defined_by_patterns(patterns: list[PatternPart], scope: Names) -> Names:
    if scope is None:
        return None
    names = set(scope)
    for pattern in patterns:
        names.update(_pattern_variables(pattern))
    return frozenset(names)


def _pattern_variables(pattern: PatternPart) -> set[str]:
    names = {n.var for n in pattern.nodes if n.var} | {r.var for r in pattern.rels if r.var}
    if pattern.path_var:
        names.add(pattern.path_var)
    return names


def _check_pattern(pattern: PatternPart, scope: Names, source: str, check: Check) -> None:
    """A pattern's property maps may use the pattern's own variables (``(a)-->(b {k: a.k})``)."""
    for part in _pattern_elements(pattern):
        _check(part.props, scope, source, check)


def _check(expr: Expr | None, scope: Names, source: str, check: Check = None) -> None:
    """Every variable of ``expr`` is in ``scope`` (or bound inside it). A walk with a stack of
    its own: a chain of 10,000 ORs is 10,000 levels deep."""
    if scope is None:
        return
    stack: list[tuple[Any, frozenset[str]]] = [(expr, scope)]
    walked = 0
    while stack:
        value, names = stack.pop()
        walked += 1
        if check is not None and not walked & 4095:
            check()
        if isinstance(value, (list, tuple)):  # pushed last first: the query's first use first
            stack.extend((item, names) for item in reversed(value))
        elif isinstance(value, Var):
            if value.name not in names:
                raise runtime_error(source, value.pos, f"variable `{value.name}` is not defined")
        elif isinstance(value, (ListComprehension, Quantifier)):
            inner = names | {value.var}
            stack.extend((part, inner) for part in (getattr(value, "project", None), value.where))
            stack.append((value.source, names))
        elif isinstance(value, Reduce):
            inner = names | {value.acc, value.var}
            stack.extend([(value.step, inner), (value.source, names), (value.init, names)])
        elif isinstance(value, (PatternPredicate, PatternComprehension)):
            inner = names | _pattern_variables(value.pattern)
            if isinstance(value, PatternComprehension):
                stack.extend([(value.project, inner), (value.where, inner)])
            stack.extend((part.props, inner) for part in _pattern_elements(value.pattern)[::-1])
        elif isinstance(value, Expr):
            stack.extend((getattr(value, f.name), names) for f in reversed(fields(value)))


def _pattern_elements(pattern: PatternPart) -> list[NodePattern | RelPattern]:
    return [*pattern.nodes, *pattern.rels]


__all__ = ["Analysis", "analyse"]
