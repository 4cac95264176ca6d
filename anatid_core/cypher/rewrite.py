"""Rewrites of a parsed query that keep its answers and let the matcher narrow its reads.

One so far: a WHERE's chain of equalities of one property, ``n.name = 'a' OR n.name = 'b' OR
...``, is ``n.name IN ['a', 'b', ...]``. The matcher reads the nodes (or relationships) of
an ``IN`` on a field by that field, where it checks every other record against the chain
otherwise: at 100,000 nodes (``anatid cypher``, the whole command) thirty such ORs took 5.3 s
and three thousand ran past the 30 s deadline; as an ``IN``, 0.5-0.8 s. The two forms
agree on every row, nulls included (``x = null`` is null, and so is ``x IN [null]``; an ``IN``
is an OR of equalities in Cypher's three-valued logic), so long as evaluating a compared
value cannot fail or depend on the row: only literals and parameters are gathered (a missing
parameter is then refused for every row, as Neo4j refuses it before running, where the chain
stopped at the first true equality and never asked).
"""

from __future__ import annotations

from .syntax import Binary, Expr, ListOf, Literal, Match, Param, Prop, Query, Var, With, operands


def rewrite(tree: Query) -> None:
    """Rewrite ``tree``'s WHERE clauses in place (see the module docstring)."""
    for part in tree.parts:
        for clause in part.clauses:
            if isinstance(clause, (Match, With)) and clause.where is not None:
                clause.where = equality_chains_as_in(clause.where)


def equality_chains_as_in(where: Expr) -> Expr:
    """``where`` with each top-level conjunct that is a chain of equalities of one property
    to literals or parameters written as that property ``IN`` their list (``where`` itself
    changed in place, or the new expression where it is such a chain)."""
    whole = _as_in(where)
    if whole is not None:
        return whole
    stack = [where]
    while stack:  # a loop: a chain of 10,000 ANDs is 10,000 deep
        expr = stack.pop()
        if not (isinstance(expr, Binary) and expr.op == "AND"):
            continue
        for side in ("left", "right"):
            child = getattr(expr, side)
            if isinstance(child, Binary) and child.op == "AND":
                stack.append(child)
                continue
            found = _as_in(child)
            if found is not None:
                setattr(expr, side, found)
    return where


def _as_in(expr: Expr) -> Binary | None:
    """``prop IN [values]`` for a chain of at least two ``prop = value`` (either way round)
    or ``prop IN [values]`` joined by OR, all of one ``variable.key``; else None."""
    if not (isinstance(expr, Binary) and expr.op == "OR"):
        return None
    subject: Prop | None = None
    key: tuple[str, str] | None = None
    values: list[Expr] = []
    for e in operands(expr, "OR"):  # in the chain's order: its values keep it in the list
        found = _compared(e)
        if found is None:
            return None
        prop, given = found
        if subject is None:
            subject, key = prop, _key_of(prop)
        elif _key_of(prop) != key:
            return None
        values.extend(given)
    assert subject is not None
    return Binary(expr.pos, "IN", subject, ListOf(expr.pos, values))


def _compared(e: Expr) -> tuple[Prop, list[Expr]] | None:
    """(the property, the values it is compared with) of ``var.key = value``, ``value =
    var.key`` or ``var.key IN [values]``, the values literals or parameters; else None."""
    if not isinstance(e, Binary):
        return None
    if e.op == "=":
        for prop, value in ((e.left, e.right), (e.right, e.left)):
            if isinstance(prop, Prop) and isinstance(prop.subject, Var) and _is_given(value):
                return prop, [value]
        return None
    prop = e.left
    if e.op == "IN" and isinstance(prop, Prop) and isinstance(prop.subject, Var):
        if isinstance(e.right, ListOf) and all(_is_given(item) for item in e.right.items):
            return prop, list(e.right.items)
    return None


def _key_of(prop: Prop) -> tuple[str, str]:
    assert isinstance(prop.subject, Var)  # (_compared gives no other)
    return prop.subject.name, prop.key


def _is_given(e: Expr) -> bool:
    return isinstance(e, (Literal, Param))


__all__ = ["equality_chains_as_in", "rewrite"]
