"""Running a parsed query: each clause turns a stream of row batches into another.

Rows stream through MATCH, UNWIND, CALL and projections that need no whole input (no
aggregate or ORDER BY), so a LIMIT stops the reads early; the rest gather their
input first. The values handed back are converted by the shape at the end (a node becomes
what the shape says a returned node is).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from operator import itemgetter
from typing import Any

from ..base.errors import CypherError
from ..base.lazy import solid
from .aggregates import aggregate_calls
from .columns import ColumnPlan, column_plan, column_rows
from .counting import (
    CountPlan,
    LabelPlan,
    count_plan,
    counted_rows,
    label_columns,
    label_plan,
    label_set_rows,
)
from .errors import unsupported
from .expressions import Evaluator, Row
from .graph import Graph
from .limits import CHECK_EVERY, Deadline, unbounded
from .matching import Matcher
from .procedures import CORE_PROCEDURES
from .projection import Projector, distinct_rows
from .reach_columns import ReachPlan, reach_column_rows, reach_plan
from .rel_columns import RelColumnPlan, rel_column_plan, rel_column_rows
from .scope import Analysis
from .shape import Procedure, Shape
from .syntax import (
    Call,
    Clause,
    Expr,
    Match,
    ProcedureCall,
    Query,
    Return,
    SingleQuery,
    Unwind,
    With,
    walk,
)
from .target import ReadTarget
from .values import NodeRef, RelRef

Stream = Iterator[list[Row]]

#: Plans kept per parsed text (per query of a UNION and per shape).
KEPT_PLANS = 16

#: Rows of one batch UNWIND gives.
UNWIND_BATCH = 10_000


@dataclass(frozen=True)
class CypherResult:
    """A query's answer: column names and rows (tuples in column order)."""

    columns: list[str]
    rows: list[tuple[Any, ...]]

    def records(self) -> list[dict[str, Any]]:
        """The rows as dicts from column name to value (a row is as long as ``columns``)."""
        columns = self.columns
        # a dict display per row for the usual one to three columns: ``dict(zip(...))`` cost
        # 0.9 us a row, a display 0.16 (3,000 entities of a group at 100k facts; issue 42)
        if len(columns) == 1:
            (c0,) = columns
            return [{c0: a} for (a,) in self.rows]
        if len(columns) == 2:
            c0, c1 = columns
            return [{c0: a, c1: b} for a, b in self.rows]
        if len(columns) == 3:
            c0, c1, c2 = columns
            return [{c0: a, c1: b, c2: c} for a, b, c in self.rows]
        return [dict(zip(columns, row, strict=True)) for row in self.rows]

    def __len__(self) -> int:
        return len(self.rows)


#: Given what the engine reads, offers the file to a waiting process; returns what to read
#: from afterwards (a snapshot of the same instant), or None to read on from the same target.
Pause = Callable[[ReadTarget], "ReadTarget | None"]


class Engine:
    def __init__(
        self,
        source: str,
        params: Mapping[str, Any],
        target: ReadTarget,
        shape: Shape,
        deadline: Deadline | None = None,
        pause: Pause | None = None,
        analysis: Analysis | None = None,
    ) -> None:
        self.source = source
        self.graph = Graph(target, shape)
        self.ev = Evaluator(source, params, self.graph)
        self.deadline = self.ev.deadline = deadline or unbounded()
        if pause is not None:
            self.deadline.pause = lambda: self._pause(pause)
        self.matcher = Matcher(self.ev, self.graph)
        self.projector = Projector(self.ev, analysis or Analysis())

    def release(self) -> None:
        """Drop everything the query held, once its answer is built.

        The engine's parts refer to one another (the evaluator's table of bound methods and
        the compiled closures over it, the matcher and the compiler holding the evaluator, the
        deadline's pause closure holding the engine), so, left to reference counting, a
        query's whole working set (its graph of read records and caches) stays until the
        cycle collector finds it: each query's leftovers aged into the collector's middle
        generation, and its passes over them were a quarter of a query's time (issue 42,
        entities of a group at 10k facts). Emptying each part breaks every cycle at once."""
        self.deadline.pause = None
        for part in (self.ev.compiled, self.projector, self.matcher, self.ev, self.graph):
            vars(part).clear()

    def _pause(self, pause: Pause) -> None:
        """Let another process have the file; read on from what ``pause`` returns (a snapshot
        of the instant the query had reached), or the same target."""
        target = pause(self.graph.target)
        if target is not None:
            self.graph.target = target

    def run(self, tree: Query) -> CypherResult:
        results = [self._single(part) for part in tree.parts]
        columns = results[0][0]
        rows: list[Row] = []
        for i, (part_columns, part_rows) in enumerate(results):
            if part_columns != columns:
                raise CypherError(
                    f"the queries of a UNION return different columns: {columns} and {part_columns}"
                )
            rows.extend(part_rows)
            if i and not tree.union_all[i - 1]:
                rows = distinct_rows(rows, columns)
        return CypherResult(columns, self._output(columns, rows))

    def _output(self, columns: list[str], rows: list[Row]) -> list[tuple[Any, ...]]:
        """The rows as tuples in column order, records made plain. Mostly every value is a
        string, number or null already: then it is the tuples alone (a generator per row
        calling ``_out`` per value was a tenth of a 3,000-row answer; issue 42)."""
        if len(columns) == 1:
            column = columns[0]
            tuples = [(r[column],) for r in rows]
        elif columns:
            get = itemgetter(*columns)
            tuples = [get(r) for r in rows]
        else:
            tuples = [() for _ in rows]
        if {v.__class__ for t in tuples for v in t} <= _PLAIN:
            return tuples
        for t in tuples:  # every record returned is noted first: their embeddings in one read
            for value in t:
                if value.__class__ not in _PLAIN:
                    self.graph.will_read(value)
        out = self._out
        return [
            t if all(v.__class__ in _PLAIN for v in t) else tuple(out(v) for v in t) for t in tuples
        ]

    def _single(self, query: SingleQuery) -> tuple[list[str], list[Row]]:
        stream: Stream = iter([[{}]])
        columns: list[str] = []
        plans = self._plans(query)
        clauses = plans.clauses
        if plans.counts is not None:  # counts from the adjacency, not a row per match
            stream = counted_rows(plans.counts, self.matcher, self.graph, plans.columns)
        elif plans.labels is not None:  # a row per label set, not per node (.counting)
            stream = label_set_rows(plans.labels, self.matcher, self.graph)
        elif plans.columns is not None:  # a node's columns, not its record (.columns)
            stream = column_rows(plans.columns, self.matcher, self.graph)
        elif plans.rel_columns is not None:  # a relationship's and its ends' (.rel_columns)
            stream = rel_column_rows(plans.rel_columns, self.matcher, self.graph)
        elif plans.reach is not None:  # the nodes a walk reaches, by columns (.reach_columns)
            stream = reach_column_rows(plans.reach, self.matcher, self.graph)
        self.matcher.distinct_after |= plans.distinct_after
        for clause in clauses:
            stream, columns = self._clause(clause, stream, columns)
        rows: list[Row] = []
        for batch in stream:
            self.deadline.check()
            rows.extend(batch)
        return columns, rows

    def _plans(self, query: SingleQuery) -> Plans:
        """The plans of ``query`` for this engine's shape: made on the text's first run with
        the shape, then kept with its parse (their choice walked the query's tree: a fifth of
        a 30-row query's time)."""
        kept = self.projector.analysis.kept
        shape = self.graph.shape
        key = (id(query), id(shape))  # (the shape is held with its plans: its id stays its own)
        found = kept.get(key)
        if found is not None:
            return found[1]
        plans = make_plans(query, self.matcher)
        if len(kept) >= KEPT_PLANS:  # a shape made anew for every call: kept no longer
            kept.clear()
        kept[key] = (shape, plans)
        return plans

    def _clause(
        self, clause: Clause, stream: Stream, columns: list[str]
    ) -> tuple[Stream, list[str]]:
        if isinstance(clause, Match):
            return (out for batch in stream for out in self.matcher.match(clause, batch)), []
        if isinstance(clause, Unwind):
            return self._unwind(clause, stream), []
        if isinstance(clause, With):
            projected, names = self.projector.project(clause.projection, stream)
            if clause.where is not None:
                where = clause.where
                test = self.ev.compiled.truth(where)
                projected = ([r for r in b if test(r)] for b in projected)
            return projected, names
        if isinstance(clause, Return):
            return self.projector.project(clause.projection, stream)
        if isinstance(clause, ProcedureCall):
            return self._call(clause, stream)
        raise unsupported(self.source, clause.pos, type(clause).__name__)

    def _unwind(self, clause: Unwind, stream: Stream) -> Stream:
        """The rows of UNWIND in batches of at most ``UNWIND_BATCH``: a long list streams, so
        a LIMIT after it stops early and no batch outgrows the row bound."""
        out: list[Row] = []
        items = self.ev.row_function(clause.expr)
        check, var = self.deadline.check, clause.var
        for batch in stream:
            for i, row in enumerate(batch):
                if not i & CHECK_EVERY:
                    check()
                value = items(row)
                if value is None:
                    continue
                for item in value if isinstance(value, list) else [value]:
                    out.append({**row, var: item})
                    if len(out) >= UNWIND_BATCH:
                        yield out
                        out = []
                        self.deadline.check()
        if out:
            yield out

    # ------------------------------------------------------------------------ procedures

    def _procedure(self, clause: ProcedureCall) -> Procedure:
        name = clause.name.lower()
        procedure = self.graph.shape.procedures.get(name) or CORE_PROCEDURES.get(name)
        if procedure is None:
            raise unsupported(self.source, clause.pos, f"CALL {clause.name}")
        return procedure

    def _call(self, clause: ProcedureCall, stream: Stream) -> tuple[Stream, list[str]]:
        procedure = self._procedure(clause)
        given = len(clause.args or [])
        if procedure.arity is not None and not procedure.arity[0] <= given <= procedure.arity[1]:
            low, high = procedure.arity
            takes = "no arguments" if high == 0 else f"{low} to {high} arguments"
            raise CypherError(f"{clause.name}() takes {takes}, got {given}")
        yields = clause.yields or [(o, o) for o in procedure.outputs]
        for output, _ in yields:
            if output not in procedure.outputs:
                raise CypherError(
                    f"{clause.name} yields {', '.join(procedure.outputs)}, not {output}"
                )

        def calls(batch: list[Row]) -> list[Row]:
            out = []
            for row in batch:
                args = [self.ev.eval(a, row) for a in clause.args or []]
                for result in procedure.run(self.graph.target, self.graph.shape, args):
                    values = {alias: self.graph.wrap(result.get(o)) for o, alias in yields}
                    extended = {**row, **values}
                    if clause.where is None or self.ev.truth(clause.where, extended):
                        out.append(extended)
            return out

        return (calls(batch) for batch in stream), [alias for _, alias in yields]

    # ----------------------------------------------------------------------------- output

    def _out(self, value: Any) -> Any:
        if value.__class__ in _PLAIN:
            return value
        if isinstance(value, NodeRef):
            record = self.graph.record(value)
            if record is None:
                return None
            props = _present(self.graph.properties(value))
            return self.graph.shape.node_value(solid(record), props)
        if isinstance(value, RelRef):
            props = _present(self.graph.properties(value))
            return self.graph.shape.rel_value(solid(value.record), props)
        if isinstance(value, list):
            return [self._out(v) for v in value]
        if isinstance(value, dict):
            return {k: self._out(v) for k, v in value.items()}
        return value


#: Values handed back as they are (no record, list or map inside).
_PLAIN = frozenset({str, int, float, bool, type(None)})
#: Functions whose value may differ from call to call (the clock read at each call, without
#: an argument): a row more or fewer changes the answer.
_RANDOM = frozenset({"rand", "timestamp", "datetime"})


@dataclass(frozen=True)
class Plans:
    """How one query of a UNION runs, chosen from its text and the shape alone."""

    clauses: list[Clause]  # what runs over the plan's rows (all of them, with no plan)
    counts: CountPlan | None  # ``count(r)`` per node from the adjacency (.counting)
    labels: LabelPlan | None  # a row per label set (.counting)
    #: A node's columns, not its record (.columns); with ``counts``, its near node's.
    columns: ColumnPlan | None
    #: A relationship's and its two nodes' columns, not their records (.rel_columns).
    rel_columns: RelColumnPlan | None
    #: The nodes a first MATCH's walk reaches, by their columns (.reach_columns).
    reach: ReachPlan | None
    distinct_after: frozenset[int]  # the MATCHes whose distinct rows alone count


def make_plans(query: SingleQuery, matcher: Matcher) -> Plans:
    """The plans of ``query``: the counting ones first (.counting), else the column plan; the
    MATCHes a DISTINCT follows (walked for the nodes they reach, where the matcher may)."""
    clauses = query.clauses
    counts = count_plan(clauses)
    labels = None if counts is not None else label_plan(clauses)
    if labels is not None:
        labels = label_columns(labels, matcher)
    columns = rel_columns = reach = None
    if counts is not None:
        clauses = [counts.projection, *clauses[2:]]
        # its near node read by its columns where it can be
        columns = column_plan([counts.start, *clauses], matcher, with_ids=True)
    elif labels is not None:
        clauses = labels.clauses
    else:
        columns = column_plan(clauses, matcher)
        rel_columns = None if columns is not None else rel_column_plan(clauses, matcher)
        if columns is None and rel_columns is None and len(clauses) > 1:
            reach = reach_plan(clauses, matcher, _only_distinct_rows(clauses[1]))
    if columns is not None:
        clauses = columns.clauses
    elif rel_columns is not None:
        clauses = rel_columns.clauses
    elif reach is not None:
        clauses = reach.clauses
    distinct_after = frozenset(
        id(clause)
        for clause, after in zip(clauses, [*clauses[1:], None], strict=True)
        if isinstance(clause, Match) and _only_distinct_rows(after)
    )
    return Plans(clauses, counts, labels, columns, rel_columns, reach, distinct_after)


def _only_distinct_rows(clause: Clause | None) -> bool:
    """Whether only the distinct rows of the clause before ``clause`` count: ``clause``
    projects them DISTINCT, with no aggregate (it counts rows) and nothing random or read from
    the clock (a value a row)."""
    if not isinstance(clause, (With, Return)) or not clause.projection.distinct:
        return False
    proj = clause.projection
    exprs: list[Expr] = [item.expr for item in proj.items] + [sort.expr for sort in proj.order]
    exprs += [e for e in (proj.skip, proj.limit) if e is not None]
    if isinstance(clause, With) and clause.where is not None:
        exprs.append(clause.where)
    return not any(aggregate_calls(e) or _calls_random(e) for e in exprs)


def _calls_random(expr: Expr) -> bool:
    return any(
        isinstance(node, Call) and node.name in _RANDOM and not node.args for node in walk(expr)
    )


def _present(props: dict[str, Any]) -> dict[str, Any]:
    """A returned node's or relationship's properties: a null one is absent, as in Neo4j
    (a property set to null does not exist; keys() and properties() omit it too)."""
    return {k: v for k, v in props.items() if v is not None}


__all__ = ["CypherResult", "Engine"]
