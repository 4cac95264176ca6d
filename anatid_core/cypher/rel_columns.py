"""Reading a relationship's and its two nodes' columns without their records (issue 42).

``MATCH (n:Entity)-[r:RELATES_TO]->(m:Entity) WHERE r.group_id = $g AND r.invalid_at IS NULL
AND n.name STARTS WITH $p RETURN n.name, r.fact, m.name LIMIT 10`` read ~155 of a group's facts
for its ten rows, each a record and a reference, with its near node's record, and each
property through the shape. When a query's first MATCH is one relationship between two nodes,
read from the relationship (its scan narrowed by an equality: ``Matcher.starts_at_rel``), and
the MATCH's WHERE, the patterns' property maps and the projection after it read the three only
as ``x.key``, where the shape says ``key`` is exactly a column of every record the pattern's
labels or types admit (:class:`~anatid_core.cypher.shape.ExactFields`) or is null where a
column is (:class:`~anatid_core.cypher.shape.NullFields`), the plan reads those columns alone:
the relationships' from the same narrowed scan, in the same order (``find_edge_columns``), then
their ends' by id (``get_node_columns``). A row per match holds each ``x.key`` under a hidden
name (``columns.hidden``); the types, labels, maps and WHERE are checked on them, and the
projection reads them in place of ``x.key``: the same rows, in the same order, with the same
values as the matcher's.

An exact field's column promises only where it holds a string: a property whose column holds
anything else is read through its record, as before. A null field is read only where whether
it is null is all that is asked (``r.invalid_at IS NULL``): read for its value, most of its
records would be read anyway (``ORDER BY r.valid_at``), and they are bound as before. The
WHERE's conjuncts on the relationship alone are checked before its ends are read, those on it and its
near node before its far node is (as the matcher does); the whole WHERE is checked last.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, cast

from ..base.model import Cond
from .column_tests import Checks, ColumnTest, RowTest, checks, sure
from .columns import (
    first_match,
    hidden,
    hidden_reads,
    narrowed_pages,
    projected,
    prop_reads,
    read_others,
    wanted_map,
)
from .expressions import Row
from .graph import COLUMN_PAGES, Graph, exact_field, null_field
from .limits import check_size
from .matching import PUSHED_CONJUNCTS, Matcher, conjuncts, growing_chunks, may_hold
from .shape import Shape
from .syntax import (
    Binary,
    Clause,
    Expr,
    IsNull,
    Literal,
    MapOf,
    Match,
    NodePattern,
    Prop,
    Return,
    Var,
    With,
    names_in,
    swapped,
    walk,
)
from .values import equals

#: The names of unnamed patterns' hidden columns (no variable can be named so).
_UNNAMED = ("\x00near", "\x00rel", "\x00far")
#: Where a relationship's column holds its property: where it is a string (an exact field);
#: or, a null field read only by ``IS [NOT] NULL``, whether it is null is all that is asked,
#: and the column (null or not) stands for it.
EXACT, NULLNESS = range(2)
#: Where a relationship's tuple holds its id, ends and store rel; its keys' columns follow.
_ID, _SRC, _DST, _REL, _KEYS = range(5)
_ENDS = {"out": ((_SRC, _DST),), "in": ((_DST, _SRC),), "both": ((_SRC, _DST), (_DST, _SRC))}


#: WHERE conjuncts (as written, reading the hidden names) on the relationship alone, on its near
#: node alone, and on the two.
Stages = tuple[list[tuple[Expr, Expr]], list[tuple[Expr, Expr]], list[tuple[Expr, Expr]]]


@dataclass
class End:
    """One node of the pattern: its hidden name, its pattern, the keys read of it, and where
    each is in the nodes' column tuple (id, labels, then the fields of both ends)."""

    name: str
    pattern: NodePattern
    keys: list[str]
    at: list[int]
    names: list[str]  # the hidden names of its keys, in their order
    sure: ColumnTest  # whether a tuple's columns at ``at`` all hold strings (column_tests)
    row: Callable[[tuple[Any, ...]], Row]  # a tuple's row: each key's value under its name


@dataclass
class RelColumnPlan:
    start: Match  # the MATCH, as written
    rel_name: str  # the relationship's hidden name
    rels: list[str] | None  # the store rels its scan reads
    rel_keys: list[str]  # the relationship's properties read (its tuple's columns after _REL)
    rel_columns: list[str]  # id, src, dst, rel, then each key's field
    promises: list[int]  # per key: where its column holds the property (EXACT, NULLNESS)
    near: End
    far: End
    node_columns: list[str]  # id, labels, then the fields the ends' keys read
    where: Expr | None  # the MATCH's WHERE, reading the hidden names
    stages: Stages  # WHERE conjuncts on the relationship, its near node, and the two
    clauses: list[Clause]  # what follows the MATCH, its projection reading the hidden names


def rel_column_plan(clauses: list[Clause], matcher: Matcher) -> RelColumnPlan | None:
    """The plan for a query whose first MATCH and projection it describes (module docstring),
    else None."""
    start = first_match(clauses)
    if start is None:
        return None
    match, after = start
    part = match.patterns[0]
    if part.path_var is not None or len(part.rels) != 1 or part.rels[0].variable:
        return None
    near, far, rel = part.nodes[0], part.nodes[1], part.rels[0]
    named = [p.var for p in (near, rel, far) if p.var is not None]
    if len(set(named)) < len(named):
        return None  # (a)-[r]-(a): one node at both ends
    for pattern in (near, rel, far):
        props = pattern.props
        if props is not None and (not isinstance(props, MapOf) or names_in(props)):
            return None  # a map parameter, or one reading a variable: known only per row
    if not matcher.starts_at_rel(match):
        return None
    reads = prop_reads(match, after, named)
    if reads is None:
        return None
    patterns = (near, rel, far)
    names = [p.var or unnamed for p, unnamed in zip(patterns, _UNNAMED, strict=True)]
    keys = {n: keys_of(n, p, reads) for n, p in zip(names, patterns, strict=True)}
    shape = matcher.graph.shape
    rels = shape.store_rels(rel.types) if rel.types else None
    fields = _rel_fields(shape, match, after, names[1], keys[names[1]], rels, reads)
    ends = ends_of(matcher, [(names[0], near, keys[names[0]]), (names[2], far, keys[names[2]])])
    if fields is None or ends is None:
        return None
    node_columns, (near_end, far_end) = ends
    by_id = hidden_reads(reads)
    stages = where_stages(match.where, by_id, names[1], names[0])
    where = None if match.where is None else swapped(match.where, by_id)
    return RelColumnPlan(
        match, names[1], rels, keys[names[1]], ["id", "src", "dst", "rel", *fields[0]],
        fields[1], near_end, far_end, node_columns, where, stages, projected(clauses, by_id),
    )  # fmt: skip


def _rel_fields(
    shape: Shape,
    match: Match,
    after: With | Return,
    name: str,
    keys: list[str],
    rels: list[str] | None,
    reads: dict[int, Prop],
) -> tuple[list[str], list[int]] | None:
    """The column of each of the relationship's ``keys`` and what it promises (``EXACT``,
    ``NULLNESS``), or None where one has no column that says it."""
    fields, promises = [], []
    tested = _null_tested(match, after)
    rel = match.patterns[0].rels[0]
    for key in keys:
        field = shape.field_of("edge", key)
        if field is not None and exact_field(shape, "edge", key, rels):
            promises.append(EXACT)
        else:
            # a null field read for its value: the records of those not null would be read
            # (most of a group's ``valid_at``: ORDER BY r.valid_at was a fifth slower so)
            field = null_field(shape, "edge", key, rels)
            read = [i for i, p in reads.items() if p.key == key and _of(p) == name]
            in_map = isinstance(rel.props, MapOf) and key in dict(rel.props.items)
            if field is None or in_map or not all(i in tested for i in read):
                return None
            promises.append(NULLNESS)
        fields.append(field)
    return fields, promises


def ends_of(
    matcher: Matcher, ends: list[tuple[str, NodePattern, list[str]]]
) -> tuple[list[str], list[End]] | None:
    """The nodes' columns (id, labels, then the fields both ends' keys read) and each end,
    or None where a key is not exactly a column of the nodes its pattern admits."""
    shape = matcher.graph.shape
    columns, out = ["id", "labels"], []
    for name, pattern, keys in ends:
        labels, at = matcher.store_labels(pattern), []
        for key in keys:
            field = shape.field_of("node", key)
            if field is None or not exact_field(shape, "node", key, labels):
                return None
            if field not in columns:
                columns.append(field)
            at.append(columns.index(field))
        names = [hidden(name, k) for k in keys]
        out.append(End(name, pattern, keys, at, names, sure(at), _row_of(names, at)))
    return columns, out


def _row_of(names: list[str], at: list[int]) -> Callable[[tuple[Any, ...]], Row]:
    """``values -> {name: values[at]}`` for each of ``names`` (a dict display for one or two:
    a comprehension per node reached was a twentieth of a walk's time)."""
    if len(names) == 1:
        (n0,), (a0,) = names, at
        return lambda values: {n0: values[a0]}
    if len(names) == 2:
        (n0, n1), (a0, a1) = names, at
        return lambda values: {n0: values[a0], n1: values[a1]}
    pairs = list(zip(names, at, strict=True))
    return lambda values: {name: values[i] for name, i in pairs}


def _null_tested(match: Match, after: With | Return) -> set[int]:
    """The ids of the expressions that ``match``'s WHERE and the projection ``after`` it test
    for null alone (``x IS NULL``, ``x IS NOT NULL``)."""
    proj = after.projection
    exprs: list[Any] = [match.where, *(i.expr for i in proj.items), *(s.expr for s in proj.order)]
    return {id(e.operand) for x in exprs if x is not None for e in walk(x) if isinstance(e, IsNull)}


def _of(read: Prop) -> str:
    """The variable ``read`` reads a property of (``prop_reads`` gives only ``Var.key``)."""
    return cast(Var, read.subject).name


def keys_of(name: str, pattern: Any, reads: dict[int, Prop]) -> list[str]:
    """The keys of ``name`` read as ``name.key``, then those of its pattern's map."""
    keys = list(dict.fromkeys(p.key for p in reads.values() if _of(p) == name))
    if isinstance(pattern.props, MapOf):
        keys += [k for k, _ in pattern.props.items if k not in keys]
    return keys


def where_stages(where: Expr | None, by_id: dict[int, Expr], rel: str, near: str) -> Stages:
    """The WHERE's top-level conjuncts reading the relationship alone (or nothing), the near
    node alone, and the two: each as written and reading the hidden names."""
    if where is None:
        return [], [], []
    parts = conjuncts(where)
    if len(parts) > PUSHED_CONJUNCTS:
        return [], [], []  # a generated chain: checked once, at the end
    at_rel, at_node, at_near = [], [], []
    for part in parts:
        used = names_in(part)
        if used <= {rel}:
            at_rel.append((part, swapped(part, by_id)))
        elif used <= {near}:
            at_node.append((part, swapped(part, by_id)))
        elif used <= {rel, near}:
            at_near.append((part, swapped(part, by_id)))
    return at_rel, at_node, at_near


def rel_column_rows(plan: RelColumnPlan, matcher: Matcher, graph: Graph) -> Iterator[list[Row]]:
    """The plan's rows (module docstring), a chunk of the scan at a time."""
    check = matcher.ev.deadline.check
    check()
    rel = plan.start.patterns[0].rels[0]
    read = matcher.first_rel_read(plan.start)
    if read is None:
        return  # no value wanted: no relationship matches
    conds, source = read
    maps = [wanted_map(p.props, matcher) for p in (plan.near.pattern, rel, plan.far.pattern)]
    if any(m is None for m in maps):
        return  # a null map matches nothing
    near_map, rel_map, far_map = (
        map_entries(name, m)  # type: ignore[arg-type]
        for name, m in zip((plan.near.name, plan.rel_name, plan.far.name), maps, strict=True)
    )
    truth, params = matcher.ev.compiled.truth, matcher.ev.params
    rel_names = [hidden(plan.rel_name, k) for k in plan.rel_keys]
    rel_places = {
        name: (_KEYS + i, promise == EXACT)
        for i, (name, promise) in enumerate(zip(rel_names, plan.promises, strict=True))
    }

    def staged(stage: list[tuple[Expr, Expr]]) -> list[tuple[Expr, RowTest]]:
        return [(e, row_check(truth(e))) for _, e in stage]

    # the conjunct the scan is narrowed by holds on each relationship it reads (the WHERE
    # checks it once more at the end); where the store refused its value, it is checked here
    rel_tests = [*_map_tests(rel_map), *staged(plan.stages[0])]
    narrowed_rel = [
        *_map_tests(rel_map),
        *staged([s for s in plan.stages[0] if s[0] is not source]),
    ]
    on_rel = {
        True: checks(narrowed_rel, rel_places, params),
        False: checks(rel_tests, rel_places, params),
    }
    at_near = [truth(e) for _, e in plan.stages[2]]
    test = None if plan.where is None else truth(plan.where)
    types = frozenset(rel.types)
    ends = _ENDS[rel.direction]
    nodes = NodeColumns(graph, plan.node_columns)
    near_checks = nodes.checks(plan.near, near_map, staged(plan.stages[1]), params)
    far_checks = nodes.checks(plan.far, far_map, [], params)
    rel_sure = sure([i for i, exact in rel_places.values() if exact])

    def scan(narrowing: list[Cond]) -> Iterator[Sequence[tuple[Any, ...]]]:
        return graph.scan_rel_columns(plan.rels, narrowing, plan.rel_columns)

    for page, narrowed in narrowed_pages(scan, conds):
        at_rel = on_rel[narrowed]
        # the first chunk a first page's whole (a LIMIT met in it stops there; read in
        # pieces of 32, its ends cost three reads more: 14% of issue 42's filtered LIMIT 10)
        for chunk in growing_chunks(page, COLUMN_PAGES[0]):
            check()
            if types:
                chunk = [t for t in chunk if graph.rel_type_of(t[_REL]) in types]
            pairs = [
                (row, values, values[a], values[b])
                for row, values in _rel_rows(graph, chunk, plan, rel_names, rel_sure, at_rel)
                for a, b in ends[: 1 if values[_SRC] == values[_DST] else 2]
            ]
            check_size(len(pairs))
            nodes.read([near for _, _, near, _ in pairs])
            grown = []
            for row, values, near, far in pairs:
                # (a node's own tests are asked once per node: it ends many relationships)
                held = nodes.passing(plan.near, 0, near, near_checks)
                if held is not None:
                    if row is None:  # (built only now: most are ruled out by their near end)
                        row = dict(zip(rel_names, values[_KEYS:], strict=True))
                    row = row | held
                    if not at_near or all(may_hold(t, row) for t in at_near):
                        grown.append((row, far))
            nodes.read([far for _, far in grown])
            out = []
            for row, far in grown:
                held = nodes.passing(plan.far, 1, far, far_checks)
                if held is not None:
                    row = row | held
                    if test is None or test(row):
                        out.append(row)
            if out:
                yield out


def map_entries(name: str, given: dict[str, Any]) -> list[tuple[str, Any]]:
    """A pattern's map's entries (its value: ``wanted_map``) under the hidden names of
    ``name``'s keys."""
    return [(hidden(name, k), v) for k, v in given.items()]


def row_check(test: Any) -> RowTest:
    """``test`` (a compiled conjunct) as a stage's check: whether it may hold on a row."""
    return lambda row: may_hold(test, row)


def _map_tests(entries: list[tuple[str, Any]]) -> list[tuple[Expr, RowTest]]:
    """A pattern map's entries as conjuncts (``hidden = value``) and their row tests."""
    return [(_entry(k, v), _entry_holds(k, v)) for k, v in entries]


def _entry(name: str, value: Any) -> Expr:
    return Binary(0, "=", Var(0, name), Literal(0, value))


def _entry_holds(name: str, value: Any) -> RowTest:
    return lambda row: equals(row[name], value) is True


def _rel_rows(
    graph: Graph,
    chunk: Sequence[tuple[Any, ...]],
    plan: RelColumnPlan,
    names: list[str],
    is_sure: ColumnTest,
    passing: Checks,
) -> list[tuple[Row | None, tuple[Any, ...]]]:
    """(its row, its tuple) of each relationship of ``chunk`` that passes the checks on the
    relationship alone, the row None where it is built later (the checks were decided on the
    tuple). Where an exact field's column holds no string, the keys are read through the
    relationship's record (the chunk's records read in one batch) and checked on its row."""
    rows: list[tuple[Row | None, tuple[Any, ...]]] = []
    unsure: list[tuple[Row, str]] = []
    for values in chunk:
        if not is_sure(values):
            row = dict(zip(names, values[_KEYS:], strict=True))
            unsure.append((row, values[_ID]))
            rows.append((row, values))
        elif passing.columns_pass(values):
            if passing.on_row:
                row = dict(zip(names, values[_KEYS:], strict=True))
                if passing.row_passes(row):
                    rows.append((row, values))
            else:
                rows.append((None, values))
    if not unsure:
        return rows
    refs = graph.rels({rid for _, rid in unsure})
    ruled_out = set()  # (its record ended meanwhile: another process's commit; or checked out)
    for row, rid in unsure:
        ref = refs.get(rid)
        if ref is not None:
            for key, name, promise in zip(plan.rel_keys, names, plan.promises, strict=True):
                if promise != NULLNESS:
                    row[name] = graph.property(ref, key)
        if ref is None or not passing.all_pass(row):
            ruled_out.add(rid)
    return [r for r in rows if r[1][_ID] not in ruled_out] if ruled_out else rows


class NodeColumns:
    """The ends' column tuples, read by id a chunk at a time and kept for the query."""

    def __init__(self, graph: Graph, columns: list[str]) -> None:
        self.graph = graph
        self.columns = columns
        self.known: dict[str, tuple[Any, ...] | None] = {}
        #: Per side (the near end, the far end, a two-hop's middle node): whether a stored label set fits its pattern,
        #: and what each node passing its checks holds (None: it does not pass).
        self.fits: tuple[dict[tuple[str, ...], bool], ...] = ({}, {}, {})
        self.passed: tuple[dict[str, Row | None], ...] = ({}, {}, {})

    def read(self, ids: list[str]) -> None:
        """Read the tuples of those of ``ids`` not read yet (a node not there: None)."""
        wanted = {i for i in ids if i not in self.known}
        if wanted:
            found = self.graph.node_columns(wanted, self.columns)
            for i in wanted:
                self.known[i] = found.get(i)

    def checks(
        self,
        end: End,
        given: list[tuple[str, Any]],
        tests: list[tuple[Expr, RowTest]],
        params: dict[str, Any] | Any,
    ) -> Checks:
        """``end``'s checks: the ``given`` map's entries, then the ``tests`` (WHERE conjuncts
        reading it alone), each decided on its tuple where it can be."""
        places = {name: (at, True) for name, at in zip(end.names, end.at, strict=True)}
        return checks([*_map_tests(given), *tests], places, params)

    def passing(self, end: End, side: int, node: str, checked: Checks) -> Row | None:
        """``end``'s keys of node id ``node`` (read) under their hidden names, or None where
        the node is not there or its labels or ``checked`` (its map, the WHERE's conjuncts
        reading it alone) rule it out; asked once per node and ``side``."""
        passed = self.passed[side]
        if node in passed:
            return passed[node]
        held = passed[node] = self._held(end, side, node, checked)
        return held

    def _held(self, end: End, side: int, node: str, checked: Checks) -> Row | None:
        values = self.known[node]
        if values is None:
            return None
        if end.pattern.labels:
            fits = self.fits[side]
            fit = fits.get(values[1])
            if fit is None:
                shown = self.graph.labels_of_stored(values[1])
                fit = fits[values[1]] = all(not shown.isdisjoint(g) for g in end.pattern.labels)
            if not fit:
                return None
        if not end.sure(values):  # read through the record
            row = {name: values[at] for name, at in zip(end.names, end.at, strict=True)}
            read_others(self.graph, values[0], end.keys, end.names, row)
            return row if checked.all_pass(row) else None
        if not checked.columns_pass(values):
            return None
        row = end.row(values)
        return row if not checked.on_row or checked.row_passes(row) else None
