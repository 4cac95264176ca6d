"""Reading a node's columns without its record (issue 42).

``MATCH (n:Entity) WHERE n.group_id = $g RETURN n.uuid AS uuid, n.name AS name`` built, for
each of a group's entities, a record, a reference, a row binding it and two property reads
through the shape: about 8 us a node, where the answer needs two of its columns. When a query
starts with one MATCH of one named node alone (no relationship, no path, not OPTIONAL), and the
MATCH's WHERE, its property map and the projection after it read that node only as ``n.key``
where the shape says ``key`` is exactly a column of every node the pattern's labels admit
(:class:`~anatid_core.cypher.shape.ExactFields`), the plan below reads those columns alone
(``find_node_columns``), from the same narrowed scan in the same order, and gives a row per node
holding each ``n.key`` under a hidden name. The pattern's labels, its property map and the
WHERE are checked on those values, and the projection reads them in place of ``n.key``: the
same rows, in the same order, with the same values.

A column promises the property only where it holds a string (``ExactFields``): a node whose
column holds anything else has that property read through its record, as before. Any other
query runs as before.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, replace
from typing import Any, cast

from ..base.errors import InvalidInput
from ..base.model import Cond
from .aggregates import AGGREGATES
from .errors import CypherError
from .expressions import Row
from .graph import Graph, exact_field
from .limits import CHECK_EVERY, check_size
from .matching import Matcher
from .syntax import (
    Call,
    Clause,
    Expr,
    MapOf,
    Match,
    Projection,
    ProjectionItem,
    Prop,
    Return,
    SortItem,
    Var,
    With,
    children,
    names_in,
    own_names,
    swapped,
    walk,
)
from .values import equals, type_name


@dataclass
class ColumnPlan:
    node: str  # the variable of the MATCH's one node
    start: Match  # the MATCH, as written
    labels: list[str] | None  # the store labels its scan reads
    keys: list[str]  # the properties of the node read, each as ``hidden(node, key)``
    columns: list[str]  # what the scan reads: id, labels, and each key's column
    reads: dict[int, Expr]  # each ``node.key`` of the MATCH's WHERE -> its hidden name
    clauses: list[Clause]  # what follows the MATCH, its projection reading the hidden names
    with_ids: bool  # whether each row holds its node's id (under ``hidden_id``)
    with_labels: bool = False  # whether it holds its stored labels (under ``hidden_labels``)


def hidden(node: str, key: str) -> str:
    """The row key holding ``node.key`` (no variable can be named so)."""
    return f"\x00{node}.{key}"


def hidden_id(node: str) -> str:
    """The row key holding the id of ``node``'s record, where asked for (``with_ids``): no
    variable's, no ``hidden`` one's, not counting's ``\x00count``."""
    return f"\x00id\x00{node}"


def hidden_labels(node: str) -> str:
    """The row key holding the stored labels of ``node``'s record, where asked for
    (``with_labels``)."""
    return f"\x00{node}:labels"


def column_plan(
    clauses: list[Clause], matcher: Matcher, *, with_ids: bool = False, with_labels: bool = False
) -> ColumnPlan | None:
    """The plan for a query whose first MATCH and projection it describes (module docstring),
    else None. ``with_ids``: each row holds its node's id too (under ``hidden_id``)."""
    start = first_match(clauses)
    if start is None:
        return None
    match, after = start
    part = match.patterns[0]
    node = part.nodes[0]
    if part.path_var is not None or part.rels or node.var is None:
        return None
    if node.props is not None and not isinstance(node.props, MapOf):
        return None  # a map parameter: its keys are known only when it runs
    name = node.var
    if node.props is not None and name in names_in(node.props):
        return None
    reads = prop_reads(match, after, [name])
    if reads is None:
        return None
    keys = list(dict.fromkeys(p.key for p in reads.values()))
    if isinstance(node.props, MapOf):
        keys += [k for k, _ in node.props.items if k not in keys]
    labels = matcher.store_labels(node)
    columns = ["id", "labels"]
    shape = matcher.graph.shape
    for key in keys:
        field = shape.field_of("node", key)
        if field is None or not exact_field(shape, "node", key, labels):
            return None
        columns.append(field)
    by_id = hidden_reads(reads)
    return ColumnPlan(
        name, match, labels, keys, columns, by_id, projected(clauses, by_id), with_ids,
        with_labels,
    )  # fmt: skip


def first_match(clauses: list[Clause]) -> tuple[Match, With | Return] | None:
    """A query's first MATCH, of one pattern and not OPTIONAL, and the projection right after
    it; None where it starts otherwise."""
    if len(clauses) < 2 or not isinstance(clauses[0], Match):
        return None
    match, after = clauses[0], clauses[1]
    if match.optional or len(match.patterns) != 1 or not isinstance(after, (With, Return)):
        return None
    return match, after


def prop_reads(match: Match, after: With | Return, names: list[str]) -> dict[int, Prop] | None:
    """Each ``name.key`` that ``match``'s WHERE and the projection ``after`` it read, by id,
    for the variables ``names``; None where they read one of them otherwise (whole, in a
    scope binding it again, inside a pattern), a WITH's WHERE reads one, or a sort key reads
    one that DISTINCT or an aggregate leaves out of scope."""
    proj = after.projection
    if proj.star:
        return None
    if isinstance(after, With) and after.where and not names_in(after.where).isdisjoint(names):
        return None
    reads: dict[int, Prop] = {}
    exprs: list[Any] = [match.where, *(i.expr for i in proj.items), *(s.expr for s in proj.order)]
    exprs += [proj.skip, proj.limit]
    for name in names:
        if not all(e is None or _reads_as_props(e, name, reads) for e in exprs):
            return None
        if not _sorts_by_columns(proj, name):
            return None
    return reads


def hidden_reads(reads: dict[int, Prop]) -> dict[int, Expr]:
    """Each read of ``reads`` -> the variable of its hidden name (``swapped`` puts it there)."""
    return {i: Var(p.pos, hidden(cast(Var, p.subject).name, p.key)) for i, p in reads.items()}


def projected(clauses: list[Clause], by_id: dict[int, Expr]) -> list[Clause]:
    """What follows a plan's MATCH, its projection (``clauses[1]``) reading the hidden names
    in place of the reads ``by_id`` swaps."""
    after = clauses[1]
    assert isinstance(after, (With, Return))
    proj = after.projection
    items = [ProjectionItem(swapped(i.expr, by_id), i.alias, i.text) for i in proj.items]
    order = [SortItem(swapped(s.expr, by_id), s.descending, s.text) for s in proj.order]
    return [replace(after, projection=replace(proj, items=items, order=order)), *clauses[2:]]


def column_rows(plan: ColumnPlan, matcher: Matcher, graph: Graph) -> Iterator[list[Row]]:
    """The plan's rows (module docstring), a page of the scan at a time."""
    node = plan.start.patterns[0].nodes[0]
    check = matcher.ev.deadline.check
    check()
    read = matcher.first_read(plan.start, plan.labels)
    if read is None:
        return  # no value wanted: no node matches
    wanted = wanted_map(node.props, matcher)
    if wanted is None:
        return  # a null map matches nothing
    # what is left to check of the WHERE and the map where the read narrowed (without what
    # it holds on every node), and the whole of them where it could not
    narrowed_checks = (
        _test(read.where, plan.reads, matcher),
        [(hidden(plan.node, k), v) for k, v in wanted.items() if k != read.known],
    )
    whole_checks = (
        _test(plan.start.where, plan.reads, matcher),
        [(hidden(plan.node, k), v) for k, v in wanted.items()],
    )
    groups = [frozenset(g) for g in node.labels]
    fits: dict[tuple[str, ...], bool] = {}  # stored labels -> whether the pattern's fit
    names = [hidden(plan.node, key) for key in plan.keys]
    make = _row_maker(names, hidden_id(plan.node) if plan.with_ids else None)
    if plan.with_labels:
        make = _with_labels(make, hidden_labels(plan.node))
    last: Any = None  # the last label set met and whether it fits (the in-memory rows share
    fit = False  # one tuple per set: mostly the same object row after row)

    def scan(conds: list[Cond]) -> Iterator[Sequence[tuple[Any, ...]]]:
        return graph.scan_node_columns(plan.labels, conds, plan.columns)

    for page, narrowed in narrowed_pages(scan, read.conds):
        check()
        test, given = narrowed_checks if narrowed else whole_checks
        out: list[Row] = []
        for i, values in enumerate(page):
            if not i & CHECK_EVERY:
                check()
            if groups:
                stored = values[1]
                if stored is not last:
                    fit = fits.get(stored)  # type: ignore[assignment]
                    if fit is None:
                        shown = graph.labels_of_stored(stored)
                        fit = fits[stored] = all(not g.isdisjoint(shown) for g in groups)
                    last = stored
                if not fit:
                    continue
            row = make(values)
            if None in values:  # a null column (they hold strings or null): not a promise
                read_others(graph, values[0], plan.keys, names, row)
            if given and not all(equals(row[k], v) is True for k, v in given):
                continue
            if test is None or test(row):
                out.append(row)
        check_size(len(out))
        if out:
            yield out


def _row_maker(names: list[str], id_name: str | None) -> Callable[[tuple[Any, ...]], Row]:
    """``values -> {name: value}`` of the columns after id and labels, and the id under
    ``id_name`` if given (a dict display for one to three: ``dict(zip(...))`` cost 0.9 us a
    row, a display 0.16)."""
    if id_name is not None:
        plain = _row_maker(names, None)

        def with_id(values: tuple[Any, ...]) -> Row:
            row = plain(values)
            row[id_name] = values[0]
            return row

        return with_id
    if len(names) == 1:
        (n0,) = names
        return lambda v: {n0: v[2]}
    if len(names) == 2:
        n0, n1 = names
        return lambda v: {n0: v[2], n1: v[3]}
    if len(names) == 3:
        n0, n1, n2 = names
        return lambda v: {n0: v[2], n1: v[3], n2: v[4]}
    return lambda v: dict(zip(names, v[2:], strict=True))


def _with_labels(
    make: Callable[[tuple[Any, ...]], Row], name: str
) -> Callable[[tuple[Any, ...]], Row]:
    """``make``, the stored labels (the scan's second column) added under ``name``."""

    def with_labels(values: tuple[Any, ...]) -> Row:
        row = make(values)
        row[name] = values[1]
        return row

    return with_labels


def narrowed_pages(
    scan: Callable[[list[Cond]], Iterator[Sequence[tuple[Any, ...]]]], conds: list[Cond]
) -> Iterator[tuple[Sequence[tuple[Any, ...]], bool]]:
    """The pages of ``scan(conds)``, each with whether ``conds`` narrowed it (as the
    matcher's ``_scan``: a value the store refuses is compared here, the scan narrowed by
    nothing)."""
    try:
        for page in scan(conds):
            yield page, bool(conds)
    except InvalidInput:
        if not conds:
            raise
        for page in scan([]):
            yield page, False


def _test(where: Expr | None, reads: dict[int, Expr], matcher: Matcher) -> Any:
    """``where`` reading the hidden names, compiled (None for no WHERE)."""
    return None if where is None else matcher.ev.compiled.truth(swapped(where, reads))


def wanted_map(props: Expr | None, matcher: Matcher) -> dict[str, Any] | None:
    """The pattern's property map's value (``{}`` for none), None for a null one."""
    if props is None:
        return {}
    wanted = matcher.ev.eval(props, {})
    if wanted is not None and not isinstance(wanted, dict):
        raise CypherError(f"a pattern's properties must be a map, got {type_name(wanted)}")
    return wanted


def read_others(graph: Graph, id: str, keys: list[str], names: list[str], row: Row) -> None:
    """The properties whose column holds no string, read through the node's record."""
    ref = graph.node(id)
    for key, name in zip(keys, names, strict=True):
        if row[name].__class__ is not str:
            row[name] = graph.property(ref, key)


def _reads_as_props(expr: Expr, name: str, reads: dict[int, Prop]) -> bool:
    """Whether ``expr`` reads variable ``name`` only as ``name.key`` (noting each such read
    in ``reads``; a scope binding ``name`` again counts as another read)."""
    stack: list[Any] = [expr]
    while stack:
        item = stack.pop()
        if isinstance(item, Prop) and isinstance(item.subject, Var):
            if item.subject.name == name:
                reads[id(item)] = item
            continue
        if name in own_names(item):
            return False
        if not isinstance(item, (Expr, list, tuple)) and name in names_in(item):
            return False  # inside a pattern, which ``swapped`` leaves as it is
        stack.extend(children(item))
    return True


def _sorts_by_columns(proj: Projection, name: str) -> bool:
    """Whether each sort key reading the node is an item's column where only the columns are
    in scope (DISTINCT or aggregates): there the engine's error for it stays its own."""
    aggregating = any(
        isinstance(e, Call) and e.name in AGGREGATES for item in proj.items for e in walk(item.expr)
    )
    if not (proj.distinct or aggregating):
        return True
    texts = {item.text for item in proj.items}
    return all(s.text in texts or name not in names_in(s.expr) for s in proj.order)
