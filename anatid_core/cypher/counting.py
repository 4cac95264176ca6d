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
with the same values (a node with no match gives no row, as it gives no rows). Neither node
needs a name (``MATCH ()-[r]->() RETURN count(r)``: counted from the first end); where the
projection reads nothing of the counted node, a batch's counts are summed into one row. A
projection reading the relationship as ``type(r)`` alone (``RETURN type(r), count(*)``) gets a
row per node and type, ``type(r)`` read from the row (TYPE); one reading the far node as
``labels(b)`` alone, a row per node and far label set, ``labels(b)`` read of a stand-in node
of that set (FAR: a shape labels a node by its stored labels alone); one reading the counted
node as ``labels(a)`` alone, the batch's rows summed by its label set, each with one of its
nodes (``MATCH (a)-[r]->(b) RETURN labels(a), type(r), labels(b), count(*)``, the schema an
agent asks for first: a row per label set, type and label set). The groups come in the order
the counts meet them, which Cypher leaves open without ORDER BY.
Any other query, and any MATCH this plan does not describe exactly, runs as before.

Counting nodes by their labels (``MATCH (n:Entity) WHERE n.group_id = $g UNWIND labels(n) AS
label RETURN label, count(*)``) likewise: when a query's first MATCH binds one node alone and
what follows reads it only as ``labels(n)`` (an ``UNWIND labels(n)`` first, or not) and
aggregates only ``count``, the plan binds the nodes as the MATCH does, its WHERE applied, and
gives one row per stored label set (a shape labels a node by its stored labels alone), carrying
how many nodes it stands for: the UNWIND and the grouping run once per label set, not per node.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, replace
from typing import Any

from ..base.model import Node
from .aggregates import AGGREGATES
from .columns import ColumnPlan, column_plan, column_rows, hidden_id, hidden_labels
from .expressions import Row
from .graph import Graph
from .limits import check_size
from .matching import Matcher
from .syntax import (
    Call,
    Clause,
    Expr,
    Literal,
    Match,
    NodePattern,
    PatternPart,
    Projection,
    ProjectionItem,
    RelPattern,
    Return,
    Unwind,
    Var,
    With,
    children,
    names_in,
    own_names,
    swapped,
)
from .values import NodeRef

#: The row key holding how many matches a row stands for.
WEIGHT = "\x00count"
#: The row key holding the type of the relationships a row counts (a plan by type).
TYPE = "\x00type"
#: The variable of the stand-in of a far node read only as ``labels(far)`` (a plan by labels).
FAR = "\x00far"
#: The variable of a count plan's near node where the pattern leaves it unnamed (no query
#: can name it: a NUL is no identifier).
_NEAR = "\x00near"


@dataclass
class CountPlan:
    near: NodePattern  # the node the counts are by (named)
    rel: RelPattern
    far: NodePattern
    direction: str  # of ``rel`` seen from ``near``
    start: Match  # the MATCH of ``near`` alone, with the WHERE
    projection: Clause  # the WITH or RETURN, its counts summing WEIGHT
    by_type: bool = False  # a row per type of relationship, its ``type(r)`` read as TYPE
    far_labels: bool = False  # a row per far label set, its ``labels(far)`` read of FAR
    #: the projection reads ``near`` only as ``labels(near)``: rows summed by its label set
    near_labels: bool = False
    #: the projection reads nothing of ``near`` but its labels (``MATCH ()-[r]->() RETURN
    #: count(r)``): a batch's counts summed into a row per type, far and near label set (one
    #: with none of these), not a row per node
    collapsed: bool = False


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
    typed = _type_calls(proj, rel.var)  # ``type(r)``: read from the counts' types (TYPE)
    if typed:
        items = [ProjectionItem(swapped(it.expr, typed), it.alias, it.text) for it in proj.items]
        proj = replace(proj, items=items)
    counts, _ = _counts_and_names(proj)
    if not counts:
        return None
    pattern_vars = [v for v in (part.nodes[0].var, rel.var, part.nodes[1].var) if v is not None]
    if len(set(pattern_vars)) != len(pattern_vars):
        return None
    if any(c.args and names_in(c.args[0]) - set(pattern_vars) for c in counts):
        return None
    for i in (0, 1):
        near, far = part.nodes[i], part.nodes[1 - i]
        if far.props is not None:
            continue
        if near.var is None:  # ``MATCH ()-[r]->() RETURN count(r)``: named here, read by no one
            near = replace(near, var=_NEAR)
        # ``labels(far)``: read from a stand-in of each label set the counts meet (FAR)
        far_calls = _labels_calls(proj, far.var)
        seen = proj
        if far_calls:
            items = [
                ProjectionItem(swapped(it.expr, far_calls), it.alias, it.text) for it in proj.items
            ]
            seen = replace(proj, items=items)
        counts, read = _counts_and_names(seen)
        if not counts:
            continue
        used = read if match.where is None else read | names_in(match.where)
        if used & set(pattern_vars) - {near.var}:
            continue  # the relationship or the far node is read beyond a count
        direction = (
            rel.direction if i == 0 else {"out": "in", "in": "out"}.get(rel.direction, "both")
        )
        start = Match(match.pos, False, [PatternPart(part.pos, [near], [])], match.where)
        summed: dict[int, Expr] = {id(c): Call(c.pos, "sum", [Var(c.pos, WEIGHT)]) for c in counts}
        items = [ProjectionItem(swapped(it.expr, summed), it.alias, it.text) for it in seen.items]
        projection = replace(after, projection=replace(seen, items=items))
        near_labels = near.var in read and _reads_only_labels(seen, near.var)
        collapsed = near.var not in read or near_labels
        return CountPlan(
            near, rel, far, direction, start, projection,
            by_type=bool(typed), far_labels=bool(far_calls), near_labels=near_labels,
            collapsed=collapsed,
        )  # fmt: skip
    return None


def counted_rows(
    plan: CountPlan, matcher: Matcher, graph: Graph, near: ColumnPlan | None = None
) -> Iterator[list[Row]]:
    """The rows of the plan's ``near`` node, each with its count under WEIGHT (none for 0);
    with ``near`` (the plan's MATCH of its near node and projection, read by its columns:
    :mod:`.columns`), rows of those columns, no record bound."""
    rels = graph.shape.store_rels(plan.rel.types) if plan.rel.types else None
    types = set(plan.rel.types)
    groups = [frozenset(g) for g in plan.far.labels]
    fits: dict[tuple[str, tuple[str, ...]], bool] = {}  # (store rel, stored labels) -> a match?
    if near is None:
        batches = matcher.match(plan.start, [{}])
        at = plan.near.var  # a bound node's reference
    else:
        batches = column_rows(near, matcher, graph)
        at = hidden_id(near.node)  # its id
    assert at is not None
    # a row's own node where the projection reads only its labels (the matcher binds it)
    by_labels = plan.near_labels and near is None
    collapsed = plan.collapsed and (by_labels or not plan.near_labels)
    stand_ins: dict[tuple[str, ...], NodeRef] = {}  # far label set -> its FAR
    for batch in batches:
        matcher.ev.deadline.check()
        ids = [row[at] for row in batch]
        if near is None:
            ids = [ref.id for ref in ids]
        tallies = graph.neighbour_counts(ids, plan.direction, rels)
        out: list[Row] = []
        totals: dict[tuple[Any, ...], int] = {}  # (collapsed: the batch's counts, by group)
        kept: dict[tuple[str, ...] | None, Row] = {}  # a row of each near label set
        for row, id in zip(batch, ids, strict=True):
            counted: dict[tuple[Any, ...], int] = {}  # (type, far label set) -> count
            for key, n in tallies.get(id, {}).items():
                fit = fits.get(key)
                if fit is None:
                    fit = fits[key] = _fits(graph, types, groups, *key)
                if not fit:
                    continue
                group = (
                    graph.rel_type_of(key[0]) if plan.by_type else None,
                    key[1] if plan.far_labels else None,
                )
                counted[group] = counted.get(group, 0) + n
            if not collapsed:
                out.extend(_counted(row, group, n, stand_ins) for group, n in counted.items())
                continue
            labels = tuple(graph.labels(row[at])) if by_labels else None
            if counted:
                kept.setdefault(labels, row)
            for group, n in counted.items():
                whole = (labels, *group)
                totals[whole] = totals.get(whole, 0) + n
        if collapsed:
            out = [
                _counted(kept[labels] if by_labels else {}, group, n, stand_ins)
                for (labels, *group), n in totals.items()
            ]
        if out:
            yield out


def _counted(
    row: Row, group: Sequence[Any], n: int, stand_ins: dict[tuple[str, ...], NodeRef]
) -> Row:
    """``row`` counting ``n`` matches of one (type, far label set): TYPE the type (None: not
    read), FAR a stand-in node of the label set (None: not read)."""
    kind, far = group
    out = {**row, WEIGHT: n}
    if kind is not None:
        out[TYPE] = kind
    if far is not None:
        ref = stand_ins.get(far)
        if ref is None:
            name = f"\x00far{len(stand_ins)}"
            ref = stand_ins[far] = NodeRef(name, Node(id=name, labels=far))
        out[FAR] = ref
    return out


@dataclass
class LabelPlan:
    node: str  # the variable of the MATCH's one node
    start: Match  # the MATCH, as written
    clauses: list[Clause]  # what follows it, its counts summing WEIGHT
    #: the MATCH's nodes read by their columns where the store cannot count them (its WHERE
    #: reads columns the store does not narrow by: ``n.name STARTS WITH $p``); set by
    #: :func:`label_columns`
    columns: ColumnPlan | None = None


def label_columns(plan: LabelPlan, matcher: Matcher) -> LabelPlan:
    """``plan`` with its MATCH read by its nodes' columns and stored labels, where it can be
    (:mod:`.columns`: its WHERE reads the node only by columns)."""
    pos = plan.start.pos
    nothing = Return(
        pos, Projection(pos, False, False, [ProjectionItem(Literal(pos, None), "_", "_")])
    )
    columns = column_plan([plan.start, nothing], matcher, with_labels=True)
    return plan if columns is None else replace(plan, columns=columns)


def label_plan(clauses: list[Clause]) -> LabelPlan | None:
    """The plan for a query that counts the nodes of its first MATCH by their labels (module
    docstring), else None."""
    if len(clauses) < 2 or not isinstance(clauses[0], Match):
        return None
    match = clauses[0]
    if match.optional or len(match.patterns) != 1:
        return None
    part = match.patterns[0]
    if part.path_var is not None or part.rels or part.nodes[0].var is None:
        return None
    node = part.nodes[0].var
    at, counted = 1, {node}  # the clause after the MATCH (and its UNWIND); what count() may take
    first = clauses[1]
    if isinstance(first, Unwind) and _labels_of(first.expr, node) and first.var != node:
        at, counted = 2, {node, first.var}  # neither a node nor a label is ever null
    after = clauses[at] if at < len(clauses) else None
    if not isinstance(after, (With, Return)) or after.projection.star:
        return None
    proj = after.projection
    counts, _ = _counts_and_names(proj)
    if not counts or any(c.args and _var_name(c.args[0]) not in counted for c in counts):
        return None
    if not _reads_only_labels(proj, node):
        return None
    summed: dict[int, Expr] = {id(c): Call(c.pos, "sum", [Var(c.pos, WEIGHT)]) for c in counts}
    items = [ProjectionItem(swapped(it.expr, summed), it.alias, it.text) for it in proj.items]
    projection = replace(after, projection=replace(proj, items=items))
    return LabelPlan(node, match, [*clauses[1:at], projection, *clauses[at + 1 :]])


def label_set_rows(plan: LabelPlan, matcher: Matcher, graph: Graph) -> Iterator[list[Row]]:
    """One row per stored label set of the MATCH's nodes (the first node's row), in the order
    the sets are first met, each with how many nodes it stands for under WEIGHT."""
    matcher.ev.deadline.check()
    counted = matcher.label_set_counts(plan.start)
    if counted is not None:  # the store counted them: a stand-in node per set (its labels)
        check_size(len(counted))
        if counted:
            yield _label_set_stand_ins(plan, counted)
        return
    if plan.columns is not None:  # counted here from the columns, no record bound
        stored_at, by_set = hidden_labels(plan.columns.node), dict[tuple[str, ...], int]()
        for batch in column_rows(plan.columns, matcher, graph):
            for row in batch:
                stored = row[stored_at]
                by_set[stored] = by_set.get(stored, 0) + 1
            check_size(len(by_set))
        if by_set:
            yield _label_set_stand_ins(plan, by_set)
        return
    sets: dict[tuple[str, ...], list[Any]] = {}  # stored labels -> [first row, how many]
    for batch in matcher.match(plan.start, [{}]):
        matcher.ev.deadline.check()
        for row in batch:
            record = graph.record(row[plan.node])
            assert record is not None  # a bound node is a read one
            found = sets.get(record.labels)
            if found is None:
                sets[record.labels] = [row, 1]
            else:
                found[1] += 1
        check_size(len(sets))
    if sets:
        yield [{**row, WEIGHT: n} for row, n in sets.values()]


def _label_set_stand_ins(plan: LabelPlan, counted: dict[tuple[str, ...], int]) -> list[Row]:
    """A row per stored label set counted: a stand-in node of the set, how many it stands for."""
    return [
        {plan.node: NodeRef(f"\x00{i}", Node(id=f"\x00{i}", labels=stored)), WEIGHT: n}
        for i, (stored, n) in enumerate(counted.items())
    ]


def _var_name(expr: Expr) -> str | None:
    return expr.name if isinstance(expr, Var) else None


def _type_calls(proj: Projection, rel: str | None) -> dict[int, Expr]:
    """The projection items' ``type(rel)`` calls, by id, each to be read as the TYPE of its
    row (:func:`counted_rows`); none without a relationship variable."""
    if rel is None:
        return {}
    return _calls_read(proj, "type", rel, lambda call: Var(call.pos, TYPE))


def _labels_calls(proj: Projection, node: str | None) -> dict[int, Expr]:
    """The projection items' ``labels(node)`` calls, by id, each as ``labels(FAR)`` (a
    stand-in of the far label set its row counts: :func:`_counted`); none without a name."""
    if node is None:
        return {}
    return _calls_read(
        proj, "labels", node, lambda call: Call(call.pos, "labels", [Var(call.pos, FAR)])
    )


def _calls_read(
    proj: Projection, name: str, var: str, instead: Callable[[Call], Expr]
) -> dict[int, Expr]:
    """The projection items' ``name(var)`` calls, by id, each with what replaces it."""
    found: dict[int, Expr] = {}
    stack: list[Any] = [item.expr for item in proj.items]
    while stack:
        item = stack.pop()
        if _call_of(item, name, var):
            found[id(item)] = instead(item)
            continue
        stack.extend(children(item))
    return found


def _labels_of(expr: Expr, node: str) -> bool:
    """Whether ``expr`` is ``labels(node)``."""
    return _call_of(expr, "labels", node)


def _call_of(expr: Expr, name: str, var: str) -> bool:
    """Whether ``expr`` is ``name(var)``."""
    return (
        isinstance(expr, Call)
        and expr.name == name
        and not expr.distinct
        and len(expr.args) == 1
        and isinstance(expr.args[0], Var)
        and expr.args[0].name == var
    )


def _reads_only_labels(proj: Projection, node: str) -> bool:
    """Whether the projection reads ``node`` only as ``labels(node)`` or counts it (its
    aggregates are plain counts: :func:`_counts_and_names`)."""
    stack: list[Any] = [item.expr for item in proj.items]
    stack += [s.expr for s in proj.order]
    stack += [e for e in (proj.skip, proj.limit) if e is not None]
    while stack:
        item = stack.pop()
        if _labels_of(item, node) or isinstance(item, Call) and item.name in AGGREGATES:
            continue
        if node in own_names(item):
            return False
        stack.extend(children(item))
    return True


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
