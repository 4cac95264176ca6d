"""Counting a pattern's relationships per node from the adjacency, no row built (issue 42).

``MATCH (n:Entity {group_id: $g})-[r:RELATES_TO]-(:Entity) RETURN n.uuid, count(r)`` built a
row per relationship (2,000 at 10k facts), each with its relationship's and far node's records,
only to count them. When a query starts with one MATCH of one relationship, the projection after
it groups by expressions of one of its two nodes and aggregates only ``count(*)`` or ``count``
of the pattern's variables, and its WHERE reads that node alone, the plan below binds that node
(as the MATCH would, its WHERE applied), reads how many relationships each has to visible
nodes, by their type and the far node's labels (``neighbour_counts``: from the in-memory
current records, no record decoded), keeps those whose type and far labels fit the pattern and
gives one row per node carrying its count. The
projection then sums the counts where it counted rows: the same groups, in the same order,
with the same values (a node with no match gives no row, as it gives no rows).
Any other query, and any MATCH this plan does not describe exactly, runs as before.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, fields, replace
from typing import Any

from .aggregates import AGGREGATES
from .expressions import Row
from .graph import Graph
from .matching import Matcher
from .syntax import (
    Call,
    Clause,
    Expr,
    Match,
    NodePattern,
    PatternPart,
    Projection,
    ProjectionItem,
    RelPattern,
    Return,
    Var,
    With,
    children,
    names_in,
    own_names,
)
from .values import NodeRef

#: The row key holding how many matches a row stands for.
WEIGHT = "\x00count"


@dataclass
class CountPlan:
    near: NodePattern  # the node the counts are by (named)
    rel: RelPattern
    far: NodePattern
    direction: str  # of ``rel`` seen from ``near``
    start: Match  # the MATCH of ``near`` alone, with the WHERE
    projection: Clause  # the WITH or RETURN, its counts summing WEIGHT


def count_plan(clauses: list[Clause]) -> CountPlan | None:
    """The plan for a query whose first two clauses it describes (module docstring), else None."""
    if len(clauses) < 2 or not isinstance(clauses[0], Match):
        return None
    match, after = clauses[0], clauses[1]
    if not isinstance(after, (With, Return)) or match.optional or len(match.patterns) != 1:
        return None
    part = match.patterns[0]
    if part.path_var is not None or len(part.rels) != 1:
        return None
    rel = part.rels[0]
    if rel.variable or rel.props is not None:
        return None
    proj = after.projection
    if proj.star:
        return None
    counts, used = _counts_and_names(proj)
    if counts is None or not counts:
        return None
    if match.where is not None:
        used |= names_in(match.where)
    pattern_vars = [v for v in (part.nodes[0].var, rel.var, part.nodes[1].var) if v is not None]
    if len(set(pattern_vars)) != len(pattern_vars):
        return None
    if any(c.args and names_in(c.args[0]) - set(pattern_vars) for c in counts):
        return None
    for i in (0, 1):
        near, far = part.nodes[i], part.nodes[1 - i]
        if near.var is None or far.props is not None:
            continue
        if used & set(pattern_vars) - {near.var}:
            continue  # the relationship or the far node is read beyond a count
        direction = (
            rel.direction if i == 0 else {"out": "in", "in": "out"}.get(rel.direction, "both")
        )
        start = Match(match.pos, False, [PatternPart(part.pos, [near], [])], match.where)
        summed: dict[int, Expr] = {id(c): Call(c.pos, "sum", [Var(c.pos, WEIGHT)]) for c in counts}
        items = [ProjectionItem(_swap(it.expr, summed), it.alias, it.text) for it in proj.items]
        projection = replace(after, projection=replace(proj, items=items))
        return CountPlan(near, rel, far, direction, start, projection)
    return None


def counted_rows(plan: CountPlan, matcher: Matcher, graph: Graph) -> Iterator[list[Row]]:
    """The rows of the plan's ``near`` node, each with its count under WEIGHT (none for 0)."""
    rels = graph.shape.store_rels(plan.rel.types) if plan.rel.types else None
    types = set(plan.rel.types)
    groups = [frozenset(g) for g in plan.far.labels]
    fits: dict[tuple[str, tuple[str, ...]], bool] = {}  # (store rel, stored labels) -> a match?
    for batch in matcher.match(plan.start, [{}]):
        matcher.ev.deadline.check()
        refs: list[NodeRef] = [row[plan.near.var] for row in batch]  # type: ignore[index]
        tallies = graph.neighbour_counts([ref.id for ref in refs], plan.direction, rels)
        out = []
        for row, ref in zip(batch, refs, strict=True):
            count = 0
            for key, n in tallies.get(ref.id, {}).items():
                fit = fits.get(key)
                if fit is None:
                    fit = fits[key] = _fits(graph, types, groups, *key)
                if fit:
                    count += n
            if count:
                out.append({**row, WEIGHT: count})
        if out:
            yield out


def _fits(
    graph: Graph, types: set[str], groups: list[frozenset[str]], rel: str, stored: tuple[str, ...]
) -> bool:
    """Whether a relationship of store ``rel`` to a node of ``stored`` labels is of the
    pattern's types (if any) and reaches its far node (labels only: the plan has no props)."""
    if types and graph.rel_type_of(rel) not in types:
        return False
    labels = graph.labels_of_stored(stored)
    return all(not group.isdisjoint(labels) for group in groups)


def _counts_and_names(proj: Projection) -> tuple[list[Call] | None, set[str]]:
    """The projection's aggregate calls if each is a plain ``count`` (of ``*`` or a variable),
    else None; and the variables it reads outside them (sort keys included)."""
    counts: list[Call] = []
    used: set[str] = set()
    stack: list[Any] = [item.expr for item in proj.items]
    stack += [s.expr for s in proj.order]
    stack += [e for e in (proj.skip, proj.limit) if e is not None]
    while stack:
        node = stack.pop()
        if isinstance(node, Call) and node.name in AGGREGATES:
            plain = node.name == "count" and not node.distinct
            if not plain or not (
                node.star or len(node.args) == 1 and isinstance(node.args[0], Var)
            ):
                return None, used
            counts.append(node)
            continue
        used |= own_names(node)
        stack.extend(children(node))
    return counts, used


def _swap(expr: Expr, by_id: dict[int, Expr]) -> Expr:
    """``expr`` with the sub-expressions whose ``id`` is in ``by_id`` replaced."""
    if id(expr) in by_id:
        return by_id[id(expr)]
    changes = {}
    for f in fields(expr):
        value = getattr(expr, f.name)
        swapped = _swap_value(value, by_id)
        if swapped is not value:
            changes[f.name] = swapped
    return replace(expr, **changes) if changes else expr


def _swap_value(value: Any, by_id: dict[int, Expr]) -> Any:
    if isinstance(value, Expr):
        return _swap(value, by_id)
    if isinstance(value, (list, tuple)):
        items = [_swap_value(v, by_id) for v in value]
        if any(a is not b for a, b in zip(items, value, strict=True)):
            return items if isinstance(value, list) else tuple(items)
    return value
