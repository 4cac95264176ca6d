"""Walking for the nodes a variable-length relationship reaches, by their columns alone
(issue 42).

``MATCH (n:Entity {uuid: $uuid})-[:RELATES_TO*1..3]-(m:Entity) WHERE m.uuid <> n.uuid RETURN
DISTINCT m.uuid LIMIT 20`` is walked for the nodes it reaches, each once
(``Matcher._reach``), but each node reached was a record read, a reference, a partial match, a
row and two property reads through the shape: most of the query's time for ~30 nodes. When the
matcher would walk a query's first MATCH so from its first node, and the MATCH's WHERE, the two
nodes' maps and the projection after it read the two only as ``x.key`` on keys the shape says
are exactly columns (:class:`~anatid_core.cypher.shape.ExactFields`), the plan below reads
those columns alone: the first node's from the same narrowed scan, in the same order
(``Graph.scan_node_columns``), the nodes reached by id (``get_node_columns``), a chunk at a time as
the matcher's walk gives them, and walks by the relationships' ends (``Graph.ends``) as the
matcher does. A row per pair holds each ``x.key`` under a hidden name; the labels, the maps
and the WHERE are checked on them, and the projection reads them in place of ``x.key``: the
same rows, in the same order, with the same values as the matcher's.

Two fixed hops the matcher walks as sets of nodes (``Matcher._hop_twice``: ``MATCH (n {uuid:
$u})-[:R]-(:Entity)-[:R]-(m) WHERE m.uuid <> n.uuid RETURN DISTINCT m.uuid``, the middle node
and the relationships unnamed) are read so too: the middle nodes' labels and the far nodes'
columns by id.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from ..base.model import Cond
from .column_tests import Checks
from .columns import (
    first_match,
    hidden_reads,
    narrowed_pages,
    projected,
    prop_reads,
    wanted_map,
)
from .expressions import Row
from .graph import Graph
from .limits import CHECK_EVERY, check_size
from .matching import PATH_CHUNK, Matcher, growing_chunks
from .rel_columns import (
    End,
    NodeColumns,
    ends_of,
    keys_of,
    map_entries,
    row_check,
    where_stages,
)
from .syntax import Clause, Expr, MapOf, Match, RelPattern, names_in, swapped

#: A name no variable has, for the unnamed relationship: the conjuncts of the WHERE that read
#: no variable are left to the WHERE itself.
_NO_REL = "\x00rel"
#: The hidden name of a two-hop pattern's middle node (unnamed: none of its keys are read).
_MIDDLE = "\x00middle"
#: The nodes reached read in the walk's first chunk (the next ones double, up to PATH_CHUNK).
_FIRST_CHUNK = 8


@dataclass
class ReachPlan:
    start: Match  # the MATCH, as written
    rel: RelPattern  # its variable-length relationship, or its first of two (unnamed, no map)
    near: End  # the node walked from (read first)
    far: End  # the nodes reached
    middle: End | None  # two hops: the node between (unnamed, no map), with its second rel
    second: RelPattern | None
    near_labels: list[str] | None  # the store labels the first node's scan reads
    node_columns: list[str]  # id, labels, then the fields the two nodes' keys read
    near_stage: list[tuple[Expr, Expr]]  # the WHERE's conjuncts on the first node alone
    where: Expr | None  # the MATCH's WHERE, reading the hidden names
    clauses: list[Clause]  # what follows the MATCH, its projection reading the hidden names


def reach_plan(clauses: list[Clause], matcher: Matcher, distinct: bool) -> ReachPlan | None:
    """The plan for a query whose first MATCH and projection it describes (module docstring),
    else None; ``distinct``: whether only the MATCH's distinct rows count (the projection after
    it is DISTINCT)."""
    start = first_match(clauses)
    if start is None or not distinct:
        return None
    match, after = start
    part = match.patterns[0]
    hops = matcher.hops_twice_from_first_node(match)
    if not hops and not matcher.reaches_from_first_node(match):
        return None  # (one variable-length relationship, unnamed, from 1; the start ruled out)
    near, far, rel = part.nodes[0], part.nodes[-1], part.rels[0]
    if rel.props is not None or near.var is None or far.var is None:
        return None
    for node in (near, far):
        if node.props is not None and (not isinstance(node.props, MapOf) or names_in(node.props)):
            return None  # a map parameter, or one reading a variable: known only per row
    reads = prop_reads(match, after, [near.var, far.var])
    if reads is None:
        return None
    named = [(near.var, near, keys_of(near.var, near, reads)), (far.var, far, keys_of(far.var, far, reads))]  # fmt: skip
    ends = ends_of(matcher, [*named, (_MIDDLE, part.nodes[1], [])] if hops else named)
    if ends is None:
        return None
    node_columns, (near_end, far_end, *middle) = ends
    by_id = hidden_reads(reads)
    where = match.where
    _, near_stage, _ = where_stages(where, by_id, _NO_REL, near.var)  # (its rel is unnamed)
    return ReachPlan(
        match, rel, near_end, far_end, middle[0] if hops else None,
        part.rels[1] if hops else None, matcher.store_labels(near), node_columns, near_stage,
        None if where is None else swapped(where, by_id), projected(clauses, by_id),
    )  # fmt: skip


def reach_column_rows(plan: ReachPlan, matcher: Matcher, graph: Graph) -> Iterator[list[Row]]:
    """The plan's rows (module docstring): per page of first nodes, the nodes they reach, a
    length at a time (shortest first), a chunk at a time."""
    check = matcher.ev.deadline.check
    check()
    read = matcher.first_read(plan.start, plan.near_labels)
    if read is None:
        return  # no value wanted: no node matches
    near_map = wanted_map(plan.near.pattern.props, matcher)
    far_map = wanted_map(plan.far.pattern.props, matcher)
    if near_map is None or far_map is None:
        return  # a null map matches nothing
    truth, params = matcher.ev.compiled.truth, matcher.ev.params
    nodes = NodeColumns(graph, plan.node_columns)
    near_tests = [(e, row_check(truth(e))) for _, e in plan.near_stage]
    near_checks = nodes.checks(plan.near, map_entries(plan.near.name, near_map), near_tests, params)
    far_checks = nodes.checks(plan.far, map_entries(plan.far.name, far_map), [], params)
    test = None if plan.where is None else truth(plan.where)

    def scan(conds: list[Cond]) -> Iterator[Sequence[tuple[Any, ...]]]:
        return graph.scan_node_columns(plan.near_labels, conds, plan.node_columns)

    for page, _ in narrowed_pages(scan, read.conds):
        check()
        starts: list[tuple[str, Row]] = []
        for i, values in enumerate(page):
            if not i & CHECK_EVERY:
                check()
            node = str(values[0])
            nodes.known[node] = values
            held = nodes.passing(plan.near, 0, node, near_checks)
            if held is not None:
                starts.append((node, held))
        if not starts:
            continue
        if plan.middle is None:
            yield from _walk(plan, matcher, graph, nodes, starts, far_checks, test)
        else:
            middle_checks = nodes.checks(plan.middle, [], [], params)
            yield from _hop_twice(plan, matcher, nodes, starts, (middle_checks, far_checks), test)


def _walk(
    plan: ReachPlan,
    matcher: Matcher,
    graph: Graph,
    nodes: NodeColumns,
    starts: list[tuple[str, Row]],
    far_checks: Checks,
    test: Callable[[Row], Any] | None,
) -> Iterator[list[Row]]:
    """The rows of the nodes ``starts`` reach (``Matcher._reached``'s walk, by ids alone):
    each node once per start, at its shortest distance; a node not there is not walked on
    from."""
    check = matcher.ev.deadline.check
    rel = plan.rel
    wanted = set(rel.types)
    types = graph.shape.store_rels(rel.types) if rel.types else None
    met = [{at} for at, _ in starts]
    paths = [(i, at) for i, (at, _) in enumerate(starts)]
    steps, depth = 0, 0
    # the nodes reached are read and checked a chunk at a time, small first (a LIMIT 20 met
    # by 20 of them read 34 a query at 10k facts with chunks of 64, 28 so), then doubling
    size = _FIRST_CHUNK
    while paths and (rel.max_hops is None or depth < rel.max_hops):
        depth += 1
        grown: list[tuple[int, str]] = []
        for parents in growing_chunks(paths):
            check()
            ends = graph.ends(list(dict.fromkeys(at for _, at in parents)), rel.direction, types)
            longer: list[tuple[int, str]] = []
            for i, at in parents:
                check()
                reached = met[i]
                for _, store_rel, other in ends[at]:
                    if other in reached:
                        continue
                    if wanted and graph.rel_type_of(store_rel) not in wanted:
                        continue
                    reached.add(other)
                    longer.append((i, other))
                    steps += 1
                check_size(len(grown) + len(longer))
                check_size(steps, "steps")
            grown += longer
            start = 0
            while start < len(longer):
                chunk = longer[start : start + size]
                start += size
                size = min(size * 2, PATH_CHUNK)
                out = _rows_reached(plan, nodes, starts, chunk, far_checks, test)
                if out:
                    yield out
        nodes.read([other for _, other in grown])
        paths = [(i, other) for i, other in grown if nodes.known[other] is not None]


def _hop_twice(
    plan: ReachPlan,
    matcher: Matcher,
    nodes: NodeColumns,
    starts: list[tuple[str, Row]],
    checks: tuple[Checks, Checks],
    test: Callable[[Row], Any] | None,
) -> Iterator[list[Row]]:
    """The rows of the nodes two hops out from each of ``starts`` (``Matcher._hop_twice``'s
    sets, by ids alone, in its order): the middle nodes the first relationship reaches that
    fit the middle pattern, then the nodes their second reaches, each once per start."""
    assert plan.middle is not None and plan.second is not None
    check = matcher.ev.deadline.check
    middle_checks, far_checks = checks
    firsts = matcher.neighbours(plan.rel, [at for at, _ in starts])
    middles = list(dict.fromkeys(m for at, _ in starts for m in firsts[at]))
    nodes.read(middles)
    fitting = {m for m in middles if nodes.passing(plan.middle, 2, m, middle_checks) is not None}
    seconds = matcher.neighbours(plan.second, [m for m in middles if m in fitting])
    size = _FIRST_CHUNK
    for i, (at, _) in enumerate(starts):
        reached: dict[str, None] = {}
        for middle in firsts[at]:
            if middle in fitting:  # (a dense graph: a middle node's ends may be many)
                check()
                reached.update(dict.fromkeys(seconds[middle]))
                check_size(len(reached))
        far = list(reached)
        start = 0
        while start < len(far):
            chunk = far[start : start + size]
            start += size
            size = min(size * 2, PATH_CHUNK)
            out = _rows_reached(plan, nodes, starts, [(i, o) for o in chunk], far_checks, test)
            if out:
                yield out


def _rows_reached(
    plan: ReachPlan,
    nodes: NodeColumns,
    starts: list[tuple[str, Row]],
    reached: list[tuple[int, str]],
    far_checks: Checks,
    test: Callable[[Row], Any] | None,
) -> list[Row]:
    """The rows of the ``(start, node reached)`` pairs whose node (read now) passes its
    checks, and the pair the WHERE."""
    nodes.read([other for _, other in reached])
    out = []
    for i, other in reached:
        held = nodes.passing(plan.far, 1, other, far_checks)
        if held is not None:
            row = starts[i][1] | held
            if test is None or test(row):
                out.append(row)
    return out
