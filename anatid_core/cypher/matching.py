"""MATCH: binding patterns to the graph, a batch of rows at a time.

A pattern part starts at its most selective node (a bound variable, else a node whose
property map or WHERE fixes an id, a name or another field the store can narrow by, else a
label), then grows one relationship at a time to both sides; every step expands all partial
matches of the batch with one read per ``BATCH`` nodes. What the store narrowed by is checked
again here, with Cypher's equality, so a narrowing read only has to return a superset; where
the shape says the read is exact (:class:`~anatid_core.cypher.shape.ExactFields`), the WHERE
equality a lone node's scan was narrowed by is not checked again.
Relationships are unique within one MATCH (openCypher's relationship isomorphism).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from ..base.errors import (
    CypherError,
    CypherLimitExceeded,
    CypherTimeout,
    InvalidInput,
    UnsupportedOperation,
)
from ..base.model import Cond, Kind
from .errors import unsupported
from .expressions import Evaluator, Row
from .graph import BATCH, Graph, exact_field, prop_field
from .limits import CHECK_EVERY, check_size
from .syntax import (
    Binary,
    Expr,
    Index,
    ListOf,
    Literal,
    MapOf,
    Match,
    NodePattern,
    Param,
    PatternPart,
    Prop,
    RelPattern,
    Var,
    names_in,
    operands,
)
from .values import NodeRef, RelRef, equals, type_name

#: Field preference when several equalities could narrow a scan (most selective first).
_FIELD_RANK = {"id": 0, "name": 1, "text": 3, "group": 4}
#: The rank of a node read by its label alone (then 8: every node); below it, a read narrowed.
_LABEL_RANK = 7
#: The rank of a read narrowed by a group only.
_GROUP_RANK = 1 + _FIELD_RANK["group"]
#: The most disjuncts of a WHERE's OR read each from its own start (:meth:`Matcher._split_starts`);
#: past it, one read of everything, as before.
SPLIT_DISJUNCTS = 32
#: WHERE equalities by the variable whose property they compare (``_where_hints``).
Hints = dict[str, list[Expr]]


#: A WHERE of more top-level conjuncts than this is checked at the end only: each pushed one is
#: checked twice where it passes (early, then in the whole WHERE), a cost a generated chain of
#: thousands would pay per row.
PUSHED_CONJUNCTS = 64
#: A WHERE conjunct checked as soon as a partial match binds its variables (filter push-down):
#: the variables it mentions, its compiled test.
Early = tuple[frozenset[str], Callable[[Row], Any], Expr]


_T = TypeVar("_T")


@dataclass(slots=True)
class Partial:
    row: Row
    used: frozenset[str]  # relationship ids bound in this MATCH


@dataclass(frozen=True, slots=True)
class _Narrowing:
    """The store field a read is narrowed by, each input row's wanted values of it, the
    property and the WHERE equality they come from (None: the pattern's map)."""

    field: str
    values_per_row: list[list[Any]]
    key: str
    source: Expr | None


@dataclass(frozen=True)
class FirstRead:
    """How a first MATCH reads its one node (:meth:`Matcher.first_read`)."""

    conds: list[Cond]  # the store's conditions
    where: Expr | None  # the WHERE left to check (without an equality the read holds)
    known: str | None  # a key of the pattern's map the read holds on every node


@dataclass(slots=True)
class _Stages:
    """The conjuncts a relationship scan checks as it binds (:meth:`Matcher._start_rels`):
    those its relationship decides and those that need its near node too, and how many rows
    each has been asked of and passed. The one that passes fewer goes first, once each has
    seen ``_SEEN_FIRST``: both only drop rows, so the rows kept and their order are the same
    either way (issue 42's filtered LIMIT 10 passes 4 of 5 relationships on ``r.invalid_at IS
    NULL`` and 1 of 8 on ``n.name STARTS WITH $p``)."""

    at_rel: list[Callable[[Row], Any]]
    at_near: list[Callable[[Row], Any]]
    rel_seen: int = 0
    rel_passed: int = 0
    near_seen: int = 0
    near_passed: int = 0

    def near_first(self) -> bool:
        if not self.at_rel or not self.at_near:
            return False
        if self.rel_seen < _SEEN_FIRST or self.near_seen < _SEEN_FIRST:
            return False
        return self.near_passed * self.rel_seen < self.rel_passed * self.near_seen


class Matcher:
    def __init__(self, ev: Evaluator, graph: Graph) -> None:
        self.ev = ev
        self.graph = graph
        self._labels: dict[int, list[frozenset[str]]] = {}
        #: Pattern property maps of literals and parameters, evaluated once per query.
        self._constant_maps: dict[int, Any] = {}
        #: The relationships (by ``id`` of their pattern) that are the only one of their MATCH:
        #: no other can repeat them, so their partial matches need no set of used ids.
        self._lone: set[int] = set()
        #: The WHERE equality that holds on every node of the batch ``_start_nodes`` yielded
        #: last (an exact narrowed read's), and the WHEREs without one, by ids.
        self._held: Expr | None = None
        self._without: dict[tuple[int, int], Expr | None] = {}
        self._maps_without: dict[tuple[int, str], Expr] = {}
        #: The MATCH clauses (by ``id``) whose rows count only as distinct rows: a DISTINCT
        #: projection with nothing random follows (set by the engine); and the
        #: variable-length relationships of those walked for the nodes they reach (:meth:`_reach`).
        self.distinct_after: set[int] = set()
        #: Whether each MATCH (by ``id``) is walked for the nodes it reaches (:meth:`_reach`).
        self._reaches: dict[int, bool] = {}
        self._reaching: set[int] = set()
        #: Whether each MATCH (by ``id``) is walked as sets of nodes two hops out
        #: (:meth:`_two_hop`), and the pattern parts so walked.
        self._two_hops: dict[int, bool] = {}
        self._hopping: set[int] = set()
        ev.matcher = self

    # ----------------------------------------------------------------------------- clause

    def match(self, clause: Match, rows: list[Row]) -> Iterator[list[Row]]:
        """The rows of ``clause`` for a batch of input rows, in batches."""
        for part in clause.patterns:
            if part.path_var is not None:
                raise unsupported(self.ev.source, part.pos, "a named path (p = ...)")
        rels = [rel for part in clause.patterns for rel in part.rels]
        if len(rels) == 1 and not rels[0].variable:
            self._lone.add(id(rels[0]))
        reach = self._reaches.get(id(clause))
        if reach is None:  # asked once per clause, not per batch of input rows
            reach = self._reaches[id(clause)] = self._reach(clause)
        if reach:
            self._reaching.add(id(rels[0]))
        hops = self._two_hops.get(id(clause))
        if hops is None:
            hops = self._two_hops[id(clause)] = self._two_hop(clause)
        if hops:
            self._hopping.add(id(clause.patterns[0]))
        if not clause.optional:
            early = self._early(clause)
            lone = len(clause.patterns) == 1 and not clause.patterns[0].rels
            split = None if lone else self._split_starts(clause, rows)
            if split is not None:
                yield from self._union_of_starts(clause, rows, split, early)
                return
            for partials in self._parts(clause, [Partial(r, frozenset()) for r in rows], early):
                # a lone node's batch comes straight from _start_nodes: what it held is this
                # batch's (nothing runs between its yield and here)
                out = self._where(clause, partials, self._held if lone else None)
                if out:
                    yield out
            return
        # OPTIONAL MATCH: each input row keeps its matches, or one row with the new variables null
        matched: dict[int, list[Row]] = {i: [] for i in range(len(rows))}
        tagged = [Partial({**r, _ROW: i}, frozenset()) for i, r in enumerate(rows)]
        for partials in self._parts(clause, tagged):
            for row in self._where(clause, partials):
                matched[row.pop(_ROW)].append(row)
        new_vars = _new_variables(clause, rows[0] if rows else {})
        out: list[Row] = []
        for i, row in enumerate(rows):
            out.extend(matched[i] or [{**row, **dict.fromkeys(new_vars)}])
        if out:
            yield out

    def _split_starts(self, clause: Match, rows: list[Row]) -> list[tuple[Expr, Hints]] | None:
        """Each disjunct of a top-level OR of the WHERE with its hints, where each narrows the
        first read of the clause's one pattern part and the WHERE as a whole narrows none
        (``MATCH (a)-[r]->(b) WHERE a.name = $x OR b.name = $x``: read from each end in turn,
        not from every node and all its relationships); else None."""
        if len(rows) != 1 or len(clause.patterns) != 1 or clause.where is None:
            return None
        ors = [c for c in conjuncts(clause.where) if isinstance(c, Binary) and c.op == "OR"]
        if not ors:
            return None  # (most queries: asked before any plan)
        part, row = clause.patterns[0], rows[0]
        base = _where_hints(clause.where)
        if part.path_var is not None or self._first_read_rank(part, row, base) < _LABEL_RANK:
            return None  # the read is narrowed already
        for conjunct in ors:
            options = operands(conjunct, "OR")
            if not 1 < len(options) <= SPLIT_DISJUNCTS:
                continue
            split = [(option, _merged(base, _where_hints(option))) for option in options]
            # each part's read narrower than a group (most of a memory: a read per part of a
            # few groups would read it all again and again)
            if all(self._first_read_rank(part, row, hints) < _GROUP_RANK for _, hints in split):
                return split
        return None

    def _first_read_rank(self, part: PatternPart, row: Row, hints: Hints) -> int:
        """How few records ``part``'s first read takes, as :meth:`_node_rank` ranks a node's
        (a relationship read by a field: that field's rank)."""
        rank = self._node_rank(part, self._start(part, row, hints), row, hints)
        rel = self._rel_start(part, row, hints, rank)
        if rel is None:
            return rank
        field = self._field_rank("edge", part.rels[rel], hints, row)
        return rank if field is None else 1 + field

    def _union_of_starts(
        self,
        clause: Match,
        rows: list[Row],
        split: list[tuple[Expr, Hints]],
        early: tuple[Early, ...],
    ) -> Iterator[list[Row]]:
        """The clause's rows read from each disjunct's start in turn (:meth:`_split_starts`),
        each match from the start of the first disjunct true on it: each once, as one read of
        everything gives it. (The start of a disjunct finds every match it is true on; a row
        the WHERE passes has its OR evaluated left to right up to that first true disjunct,
        so asking the ones before it again raises nothing. Nothing is held per match.)"""
        partials = [Partial(r, frozenset()) for r in rows]
        tests = [self.ev.compiled.truth(option) for option, _ in split]
        for i, (_, hints) in enumerate(split):
            for batch in self._extend(clause, hints, 0, partials, early):
                passed = self._where(clause, batch)
                self.graph.rows_at_hand = passed
                out = [row for row in passed if _first_true(tests, row) == i]
                if out:
                    yield out

    def _parts(
        self, clause: Match, partials: list[Partial], early: tuple[Early, ...] = ()
    ) -> Iterator[list[Partial]]:
        """Every pattern part of the clause bound in turn; the first one's scan may page."""
        yield from self._extend(clause, _where_hints(clause.where), 0, partials, early)

    def _extend(
        self,
        clause: Match,
        hints: dict[str, list[Expr]],
        index: int,
        batch: list[Partial],
        early: tuple[Early, ...],
    ) -> Iterator[list[Partial]]:
        """Pattern parts ``index`` on bound for ``batch``. (A method, not a closure calling
        itself: that would be a reference cycle left to the collector at every query.)"""
        if index == len(clause.patterns):
            yield batch
            return
        last = index == len(clause.patterns) - 1
        for grown in self._part(clause.patterns[index], batch, hints, early, last):
            if grown:
                bound = grown[0].row.keys()  # the part's own conjuncts are checked
                rest = tuple(e for e in early if not e[0] <= bound)
                yield from self._extend(clause, hints, index + 1, grown, rest)

    def _early(self, clause: Match) -> tuple[Early, ...]:
        """The WHERE's top-level conjuncts, each to be checked as soon as a partial match binds
        the variables it mentions: a step then grows only the partial matches that can still
        pass (``MATCH (a)-->(b)-->(c) WHERE b.x > 5`` expands from the b that pass, not from
        every b). The whole WHERE is still checked at the end, so the answer is the same."""
        if clause.where is None:
            return ()
        parts = conjuncts(clause.where)
        if len(parts) > PUSHED_CONJUNCTS:
            return ()  # a generated chain: checked once, at the end, as it always was
        truth = self.ev.compiled.truth
        return tuple((frozenset(names_in(c)), truth(c), c) for c in parts)

    def _filtered(
        self, batch: list[Partial], early: tuple[Early, ...]
    ) -> tuple[list[Partial], tuple[Early, ...]]:
        """``batch`` without the partial matches that a conjunct whose variables they all bind
        rules out (false or null: the WHERE cannot hold then), and the conjuncts not checked
        yet. A conjunct that fails on a row with an error keeps it: the whole WHERE, checked at
        the end in its own order, says what it says of that row (its AND may not reach the
        failing part). The partial matches of a batch bind the same variables."""
        if not early or not batch:
            return batch, early
        bound = batch[0].row.keys()
        ready = [test for names, test, _ in early if names <= bound]
        if not ready:
            return batch, early
        rest = tuple(e for e in early if not e[0] <= bound)
        self.graph.rows_at_hand = [p.row for p in batch]
        check = self.ev.deadline.check
        out = []
        for i, p in enumerate(batch):
            if not i & CHECK_EVERY:
                check()
            if all(may_hold(test, p.row) for test in ready):
                out.append(p)
        return out, rest

    def _where(self, clause: Match, partials: list[Partial], held: Expr | None = None) -> list[Row]:
        rows = [p.row for p in partials]
        where = clause.where if held is None else self._where_without(clause.where, held)
        if where is not None:
            test = self.ev.compiled.truth(where)
            self.graph.rows_at_hand = rows
            rows = [r for r in rows if test(r)]
        if all(node.var is not None for part in clause.patterns for node in part.nodes):
            return rows  # no anonymous node bound: nothing to drop
        return [{k: v for k, v in r.items() if not k.startswith(_ANON)} for r in rows]

    def _where_without(self, where: Expr | None, held: Expr) -> Expr | None:
        """``where`` without its top-level conjunct ``held``, which is true on every row (so
        ``held AND x`` is ``x``, errors and all: the rest keeps its order); None if nothing
        is left. Made once per query."""
        if where is None:
            return None
        key = (id(where), id(held))
        if key in self._without:
            return self._without[key]
        parts = conjuncts(where)
        rest = [c for c in parts if c is not held]
        out: Expr | None = where
        if len(rest) < len(parts):
            out = rest[0] if rest else None
            for conjunct in rest[1:]:
                out = Binary(where.pos, "AND", out, conjunct)  # pyright: ignore[reportArgumentType]
        self._without[key] = out
        return out

    def _reach(self, clause: Match) -> bool:
        """Whether the clause's one variable-length relationship may be walked for the nodes
        it reaches, each once at its shortest distance (a breadth-first walk), rather than by
        every path: ``MATCH (n {uuid: $u})-[*1..3]-(m) WHERE m.uuid <> n.uuid RETURN DISTINCT
        m.uuid`` (issue 42). Where only distinct rows count (:attr:`distinct_after`), the rows
        are the pairs of the start node and a node a path reaches, and a path's relationships
        are bound to nothing. A node other than the start that a path of 1 to ``max``
        relationships reaches is one a shortest walk reaches within ``max``, and a shortest
        walk repeats no relationship: the same nodes. The start node itself is not (a path
        back to it needs a cycle), so the WHERE must rule it out: ``m <> n``, or ``m.k <>
        n.k`` on a property the shape says is a string column of both (an exact field)."""
        return id(clause) in self.distinct_after and self._reachable(clause)

    def _reachable(self, clause: Match) -> bool:
        """:meth:`_reach` but for whether only distinct rows count."""
        if clause.optional or len(clause.patterns) != 1:
            return False
        part = clause.patterns[0]
        if part.path_var is not None or len(part.rels) != 1:
            return False
        rel = part.rels[0]
        if not rel.variable or rel.var is not None or rel.min_hops != 1:
            return False
        near, far = part.nodes
        return self._rules_out_start(clause.where, near, far)

    def reaches_from_first_node(self, clause: Match) -> bool:
        """Whether a first MATCH whose distinct rows alone count is walked for the nodes it
        reaches (:meth:`_reach`) from its first node, read first (:mod:`.reach_columns`)."""
        if not self._reachable(clause):
            return False
        return self._start(clause.patterns[0], {}, _where_hints(clause.where)) == 0

    def hops_twice_from_first_node(self, clause: Match) -> bool:
        """Whether a first MATCH whose distinct rows alone count is walked two hops out as
        sets of nodes (:meth:`_hop_twice`) from its first node, read first
        (:mod:`.reach_columns`)."""
        if not self._hoppable(clause):
            return False
        part, hints = clause.patterns[0], _where_hints(clause.where)
        if self._start(part, {}, hints) != 0:
            return False
        return self._rel_start(part, {}, hints, self._node_rank(part, 0, {}, hints)) is None

    def _two_hop(self, clause: Match) -> bool:
        """Whether the clause's two relationships may be walked as sets of nodes, not by
        every path: ``MATCH (n {uuid: $u})-[:R]-(:Entity)-[:R]-(m) WHERE m.uuid <> n.uuid
        RETURN DISTINCT m.uuid`` (issue 42's 2-hop). Where only distinct rows count
        (:attr:`distinct_after`) and the relationships and the middle node are bound to no
        variable, the rows are the pairs of the start node and a node two hops out. Walking
        sets lets the second relationship be the first; it then leads back to the start, which
        the WHERE must rule out (as :meth:`_reach`'s): the same pairs as paths repeating no
        relationship."""
        return id(clause) in self.distinct_after and self._hoppable(clause)

    def _hoppable(self, clause: Match) -> bool:
        """:meth:`_two_hop` but for whether only distinct rows count."""
        if clause.optional or len(clause.patterns) != 1:
            return False
        part = clause.patterns[0]
        if part.path_var is not None or len(part.rels) != 2:
            return False
        if any(r.variable or r.var is not None or r.props is not None for r in part.rels):
            return False
        near, middle, far = part.nodes
        if middle.var is not None or middle.props is not None:
            return False
        return self._rules_out_start(clause.where, near, far)

    def _rules_out_start(self, where: Expr | None, near: NodePattern, far: NodePattern) -> bool:
        """Whether a top-level conjunct of ``where`` says the far node is not the near one:
        ``m <> n``, or ``m.k <> n.k`` on a property the shape says is a string column of
        both (an exact field)."""
        if near.var is None or far.var is None or near.var == far.var:
            return False
        ends = {near.var: near, far.var: far}
        for conjunct in conjuncts(where) if where is not None else []:
            if not isinstance(conjunct, Binary) or conjunct.op != "<>":
                continue
            left, right = conjunct.left, conjunct.right
            if isinstance(left, Var) and isinstance(right, Var):
                if {left.name, right.name} == set(ends):
                    return True
            elif isinstance(left, Prop) and isinstance(right, Prop):
                a, b = left.subject, right.subject
                if not (isinstance(a, Var) and isinstance(b, Var) and left.key == right.key):
                    continue
                if {a.name, b.name} != set(ends):
                    continue
                shape, key = self.graph.shape, left.key
                if all(
                    exact_field(shape, "node", key, self._store_labels(node))
                    for node in ends.values()
                ):
                    return True
        return False

    def first_read(self, clause: Match, labels: list[str] | None) -> FirstRead | None:
        """How a first MATCH's one node is read with store ``labels`` (narrowed by its
        property map or WHERE, as the match reads it); None where no node can match (no
        value wanted)."""
        node = clause.patterns[0].nodes[0]
        read = self._node_read(node, labels, [Partial({}, frozenset())], _where_hints(clause.where))
        if read is None:
            return None
        narrowing, conds, exact = read
        if narrowing is None or not exact:
            return FirstRead(conds, clause.where, None)
        if narrowing.source is None:
            return FirstRead(conds, clause.where, narrowing.key)
        return FirstRead(conds, self._where_without(clause.where, narrowing.source), None)

    def store_labels(self, node: NodePattern) -> list[str] | None:
        """The store labels a scan of ``node``'s pattern reads (None: every node)."""
        return self._store_labels(node)

    def label_set_counts(self, clause: Match) -> dict[tuple[str, ...], int] | None:
        """For a first MATCH of one node alone whose WHERE is all held by an exact narrowed
        read (or absent), how many of its nodes carry each stored label set, counted by the
        store without a record (``count_label_sets``); None where the nodes must be bound."""
        part = clause.patterns[0]
        if clause.optional or len(clause.patterns) != 1 or part.rels or part.path_var:
            return None
        node = part.nodes[0]
        if node.props is not None:
            return None
        labels = self._store_labels(node)
        read = self.first_read(clause, labels)
        if read is None:
            return {}
        if read.where is not None:  # a WHERE the read does not hold whole
            return None
        try:
            counts = self.graph.label_set_counts(labels, read.conds)
        except InvalidInput:
            return None  # a value the store refuses: the nodes are bound and compared here
        if not node.labels:
            return counts
        groups = self._label_groups(node)
        fits = self.graph.labels_of_stored
        return {
            stored: n
            for stored, n in counts.items()
            if all(not group.isdisjoint(fits(stored)) for group in groups)
        }

    def exists(self, pattern: PatternPart, row: Row) -> bool:
        for batch in self._part(pattern, [Partial(row, frozenset())], {}):
            if batch:
                return True
        return False

    def matches(self, pattern: PatternPart, row: Row) -> list[Row]:
        """``row`` extended by each match of ``pattern`` (a pattern comprehension's)."""
        out: list[Row] = []
        for batch in self._part(pattern, [Partial(row, frozenset())], {}):
            out.extend(p.row for p in batch)
            check_size(len(out))
        return out

    # ------------------------------------------------------------------------------- part

    def _part(
        self,
        part: PatternPart,
        partials: list[Partial],
        hints: dict[str, list[Expr]],
        early: tuple[Early, ...] = (),
        final_part: bool = True,
    ) -> Iterator[list[Partial]]:
        """The matches of ``part`` for ``partials``; ``early`` conjuncts are checked on the
        way, where a step follows (``final_part``: no pattern part of the MATCH follows; after
        its last step the WHERE itself is checked: once is enough)."""
        if not partials:
            return
        row = partials[0].row
        start = self._start(part, row, hints)
        rel = self._rel_start(part, row, hints, self._node_rank(part, start, row, hints))
        if rel is not None and len(partials) == 1:
            # the relationship binds the whole part: its conjuncts checked while it binds
            # (the relationship's, then its near node's), the WHERE next
            staged = final_part and len(part.rels) == 1
            for batch in self._start_rels(part, rel, partials[0], hints, early if staged else ()):
                batch, pending = self._filtered(batch, () if staged else early)
                yield from self._grow(part, rel, rel + 1, batch, pending, final_part)
            return
        if final_part and not part.rels:
            early = ()  # a lone node: the WHERE comes next
        hopping = start == 0 and id(part) in self._hopping
        for batch in self._start_nodes(part.nodes[start], partials, hints):
            batch, pending = self._filtered(batch, early)
            if hopping and batch and part.nodes[2].var not in batch[0].row:
                yield self._hop_twice(part, batch)  # (the WHERE is checked next, whole)
                continue
            yield from self._grow(part, start, start, batch, pending, final_part)

    def _start(self, part: PatternPart, row: Row, hints: dict[str, list[Expr]]) -> int:
        """The index of the node the part is matched from."""
        return min(range(len(part.nodes)), key=lambda i: (self._node_rank(part, i, row, hints), i))

    def _node_rank(self, part: PatternPart, i: int, row: Row, hints: dict[str, list[Expr]]) -> int:
        """How few nodes a scan from node ``i`` reads (lower: fewer): bound, then narrowed by
        a field (id first), then by a label, then every node."""
        node = part.nodes[i]
        if node.var is not None and node.var in row:
            return 0
        best = self._field_rank("node", node, hints, row)
        if best is not None:
            return 1 + best
        return _LABEL_RANK if node.labels else _LABEL_RANK + 1

    def _field_rank(
        self, kind: Kind, pattern: NodePattern | RelPattern, hints: dict[str, list[Expr]], row: Row
    ) -> int | None:
        fields = [
            prop_field(self.graph.shape, kind, k) for k in _equality_keys(pattern, hints, row)
        ]
        return min((_FIELD_RANK.get(f or "", 2) for f in fields if f), default=None)

    def _rel_start(
        self, part: PatternPart, row: Row, hints: dict[str, list[Expr]], node_rank: int
    ) -> int | None:
        """The index of a relationship that narrows the first read more than the best node
        does (``(:A)-[r]->(:B) WHERE r.group_id = $g`` reads the group's relationships, not
        every A and all their relationships; issue 42), if there is one."""
        best: tuple[int, int] | None = None
        for i, rel in enumerate(part.rels):
            if rel.variable or (rel.var is not None and rel.var in row):
                continue
            rank = self._field_rank("edge", rel, hints, row)
            if rank is not None and 1 + rank < node_rank and (best is None or rank < best[0]):
                best = (rank, i)
        return None if best is None else best[1]

    def _grow(
        self,
        part: PatternPart,
        first: int,
        last: int,
        batch: list[Partial],
        early: tuple[Early, ...] = (),
        final_part: bool = True,
    ) -> Iterator[list[Partial]]:
        """Every partial match, nodes ``first`` to ``last`` of the part bound, grown to the
        whole part (forwards from ``last``, then backwards from ``first``), in batches: a
        variable-length step gives its paths a length at a time, so a LIMIT met by the short
        paths stops the walk before the long ones (issue 42's ``*1..3`` ... LIMIT)."""
        steps = [(i, False) for i in range(last, len(part.rels))]
        steps += [(i, True) for i in range(first - 1, -1, -1)]
        yield from self._steps(part, steps, batch, early, final_part)

    def _steps(
        self,
        part: PatternPart,
        steps: list[tuple[int, bool]],
        batch: list[Partial],
        early: tuple[Early, ...],
        final_part: bool,
    ) -> Iterator[list[Partial]]:
        if not batch:
            return
        if not steps:
            yield batch
            return
        (i, backwards), rest = steps[0], steps[1:]
        here, there = part.nodes[i + 1 if backwards else i], part.nodes[i if backwards else i + 1]
        if final_part and not rest:
            early = ()  # the WHERE comes next
        for grown in self._step(part.rels[i], here, there, batch, backwards):
            grown, pending = self._filtered(grown, early)
            yield from self._steps(part, rest, grown, pending, final_part)

    # ------------------------------------------------------------------------ start nodes

    def _start_nodes(
        self, node: NodePattern, partials: list[Partial], hints: dict[str, list[Expr]]
    ) -> Iterator[list[Partial]]:
        if node.var is not None and node.var in partials[0].row:
            out = []
            for p in partials:
                value = p.row[node.var]
                if value is None:
                    continue
                if not isinstance(value, NodeRef):
                    raise CypherError(f"`{node.var}` is a {type_name(value)}, not a node")
                out.append(p)
            self.graph.load()
            fitting = [p for p in out if self.node_fits(node, p.row[node.var], p.row)]
            self._held = None
            yield fitting
            return
        labels = self._store_labels(node)
        read = self._node_read(node, labels, partials, hints)
        if read is None:
            return
        narrowing, conds, exact = read
        # what an exact read holds on every node: its WHERE equality, or its pattern map's key
        held = narrowing.source if narrowing is not None and exact else None
        known = narrowing.key if narrowing is not None and exact and held is None else None
        if narrowing is None or len(partials) == 1:
            # a page at a time, so that a LIMIT stops the reads early (a query's first MATCH
            # has one input row; issue 35's filtered LIMIT 10 read every match first)
            for page, narrowed in self._scan(labels, conds):
                batch = self._bind_each(node, partials, page, known if narrowed else None)
                self._held = held if narrowed else None
                yield batch
            return
        field, values_per_row = narrowing.field, narrowing.values_per_row
        found = [ref for page, _ in self._scan(labels, conds) for ref in page]
        by_value: dict[Any, list[NodeRef]] = {}
        for ref in found:
            assert ref.record is not None
            for value in _field_values(ref.record, field):
                by_value.setdefault(value, []).append(ref)
        out: list[Partial] = []
        for p, values in zip(partials, values_per_row, strict=True):
            seen: set[str] = set()
            for value in values:
                for ref in by_value.get(value, ()):
                    if ref.id not in seen:
                        seen.add(ref.id)
                        out.extend(self._bind_each(node, [p], [ref], known))
        self._held = held  # each node joined to the rows wanting its value: narrowed here
        yield out

    def _node_read(
        self,
        node: NodePattern,
        labels: list[str] | None,
        partials: list[Partial],
        hints: dict[str, list[Expr]],
    ) -> tuple[_Narrowing | None, list[Cond], bool] | None:
        """How the nodes of ``node`` are read for ``partials``: the narrowing, the store's
        conditions for it, and whether it is exact (its equality holds on every node read);
        None when no node can match (no value wanted)."""
        narrowing = self._narrowing("node", node, partials, hints)
        if narrowing is None:
            return None, [], False
        wanted = sorted({v for values in narrowing.values_per_row for v in values})
        if not wanted:
            return None
        return narrowing, [Cond(narrowing.field, "in", wanted)], self._exactly(narrowing, labels)

    def _exactly(self, narrowing: _Narrowing, labels: list[str] | None) -> bool:
        """Whether a node read narrowed this way gives only nodes its equality holds on: the
        shape says so (a props field is compared as JSON by the store: never)."""
        if narrowing.field.startswith("props."):
            return False
        return exact_field(self.graph.shape, "node", narrowing.key, labels)

    def _scan(
        self, labels: list[str] | None, conds: list[Cond]
    ) -> Iterator[tuple[list[NodeRef], bool]]:
        """Pages of the nodes, each with whether ``conds`` narrowed it."""
        try:
            for page in self.graph.scan_nodes(labels, conds):
                yield page, bool(conds)
        except InvalidInput:
            if not conds:
                raise
            # a value the store's checks refuse (a control character in an id, say) matches
            # nothing there; Cypher compares it here instead
            for page in self.graph.scan_nodes(labels, []):
                yield page, False

    def _start_rels(
        self,
        part: PatternPart,
        i: int,
        partial: Partial,
        hints: dict[str, list[Expr]],
        early: tuple[Early, ...] = (),
    ) -> Iterator[list[Partial]]:
        """Pages of partial matches binding relationship ``i`` of the part and its two nodes,
        read by the store field its equalities narrow to (a page at a time: a LIMIT stops it).
        ``early`` conjuncts are checked as the relationship and its near node bind, but the
        equality the read was narrowed by (each relationship read would pass it, and the WHERE
        checks it once more)."""
        rel = part.rels[i]
        read = self._rel_read(rel, partial, hints)
        if read is None:
            return
        conds, narrowing = read
        if narrowing is not None:
            early = tuple(e for e in early if e[2] is not narrowing.source)
        stages = self._stages(early, partial.row.keys(), rel.var, part.nodes[i].var)
        for page in self._scan_rels(self._rels(rel), conds):
            # a page in chunks: a LIMIT met by the first relationships of a page of 400 stops
            # there, their nodes read and their rows built only (issue 42's filtered LIMIT 10)
            for start in range(0, len(page), REL_CHUNK):
                chunk = page[start : start + REL_CHUNK]
                out = self._bind_rel_ends(part, i, partial, chunk, stages)
                if out:
                    yield out

    def _rel_read(
        self, rel: RelPattern, partial: Partial, hints: dict[str, list[Expr]]
    ) -> tuple[list[Cond], _Narrowing | None] | None:
        """The store conditions a scan of ``rel`` for ``partial`` is narrowed by and the
        narrowing; None where no relationship can match (no value wanted)."""
        narrowing = self._narrowing("edge", rel, [partial], hints)
        if narrowing is None:
            return [], None
        wanted = narrowing.values_per_row[0]
        if not wanted:
            return None
        return [Cond(narrowing.field, "in", sorted(set(wanted)))], narrowing

    def first_rel_read(self, clause: Match) -> tuple[list[Cond], Expr | None] | None:
        """The store conditions a first MATCH's first relationship is read by, as the match
        reads it (``[]``: every one of its types), and the WHERE conjunct they come from (each
        relationship read passes it; None: none, or the pattern's map); None where none can
        match."""
        rel = clause.patterns[0].rels[0]
        read = self._rel_read(rel, Partial({}, frozenset()), _where_hints(clause.where))
        if read is None:
            return None
        conds, narrowing = read
        return conds, None if narrowing is None else narrowing.source

    def starts_at_rel(self, clause: Match) -> bool:
        """Whether a first MATCH's first pattern part is read from a relationship (narrowed
        more than any node: :meth:`_rel_start`), not from a node."""
        part, hints = clause.patterns[0], _where_hints(clause.where)
        rank = self._node_rank(part, self._start(part, {}, hints), {}, hints)
        return self._rel_start(part, {}, hints, rank) == 0

    @staticmethod
    def _stages(
        early: tuple[Early, ...], bound: Iterable[str], rel: str | None, near: str | None
    ) -> _Stages:
        """The tests of ``early`` that a row binding the relationship decides, and those that
        need its near node too."""
        with_rel = set(bound) | ({rel} if rel is not None else set())
        with_near = with_rel | ({near} if near is not None else set())
        at_rel = [test for names, test, _ in early if names <= with_rel]
        at_near = [test for names, test, _ in early if names <= with_near and not names <= with_rel]
        return _Stages(at_rel, at_near)

    def _bind_rel_ends(
        self,
        part: PatternPart,
        i: int,
        partial: Partial,
        refs: list[RelRef],
        stages: _Stages,
    ) -> list[Partial]:
        """``partial`` grown by each of ``refs`` as relationship ``i`` and its two nodes; a
        partial match that a test of ``stages`` rules out once the relationship (then its near
        node) is bound goes no further (:meth:`_filtered` says why a failing test keeps it).
        The relationship's tests come first, or after the near node's where those pass fewer
        (:class:`_Stages`)."""
        rel, near, far = part.rels[i], part.nodes[i], part.nodes[i + 1]
        ends = {"out": (("src", "dst"),), "in": (("dst", "src"),)}.get(
            rel.direction, (("src", "dst"), ("dst", "src"))
        )
        at_near = stages.at_near
        late = stages.at_rel if stages.near_first() else []
        at_rel = [] if late else stages.at_rel
        grown: list[tuple[Partial, RelRef]] = []
        check = self.ev.deadline.check
        for n, ref in enumerate(refs):
            if not n & CHECK_EVERY:
                check()
            if ref.id in partial.used or not self._rel_fits(rel, ref, partial.row):
                continue
            row = partial.row if rel.var is None else {**partial.row, rel.var: ref}
            grown.append((Partial(row, self._with_used(rel, partial.used, ref)), ref))
        if at_rel and grown:
            self.graph.rows_at_hand = [p.row for p, _ in grown]
            stages.rel_seen += len(grown)
            grown = [g for g in grown if all(may_hold(test, g[0].row) for test in at_rel)]
            stages.rel_passed += len(grown)
        # the near ends first, each checked before any far end is read: a conjunct on the
        # near node (``n.name STARTS WITH $p``) rules out most relationships of a filtered
        # scan, and their far nodes are then never read (issue 42's filtered LIMIT 10)
        node = self.graph.node
        nears: list[tuple[Partial, NodeRef, str]] = []
        for p, ref in grown:
            record = ref.record
            for a, b in ends[: 1 if record.src == record.dst else 2]:
                nears.append((p, node(getattr(record, a)), getattr(record, b)))
            check_size(len(nears))
        self.graph.load()
        near_name = _name(near)
        kept: list[tuple[Row, Partial, NodeRef]] = []
        for p, here, there in nears:
            if not self.node_fits(near, here, p.row):
                continue
            row = p.row if near.var in p.row else {**p.row, near_name: here}
            if at_near:
                stages.near_seen += 1
                if not all(may_hold(test, row) for test in at_near):
                    continue
                stages.near_passed += 1
            if late:
                stages.rel_seen += 1
                if not all(may_hold(test, row) for test in late):
                    continue
                stages.rel_passed += 1
            kept.append((row, p, node(there)))
        self.graph.load()
        far_name = _name(far)
        out = []
        for row, p, there in kept:
            if self.node_fits(far, there, row):
                if far.var not in row:
                    row = {**row, far_name: there}
                out.append(Partial(row, p.used))
        return out

    def _scan_rels(self, rels: list[str] | None, conds: list[Cond]) -> Iterator[list[RelRef]]:
        try:
            yield from self.graph.scan_rels(rels, conds)
        except InvalidInput:
            if not conds:
                raise
            yield from self.graph.scan_rels(rels, [])  # as in _scan

    def _bind_each(
        self,
        node: NodePattern,
        partials: list[Partial],
        refs: list[NodeRef],
        known: str | None = None,
    ) -> list[Partial]:
        """The partial matches binding ``node`` to each of ``refs``; ``known``: a key of its
        property map every ref holds already (an exact read narrowed by it)."""
        out = []
        name, props = _name(node), self._map_without(node.props, known)
        groups = self._label_groups(node) if node.labels else None
        record, labels_of_stored = self.graph.record, self.graph.labels_of_stored
        # whether the pattern's labels fit, by the stored label set (a few per query): a set
        # of the node's labels per node was a tenth of a group's 3,000 entities (issue 42)
        fits: dict[tuple[str, ...], bool] = {}
        for p in partials:
            self.ev.deadline.check()
            row, used = p.row, p.used
            if node.var in row:  # bound already: node_fits compares
                found = (ref for ref in refs if self.node_fits(node, ref, row))
                out.extend(Partial({**row, name: ref}, used) for ref in found)
                continue
            # node_fits, unrolled: this loop runs once per scanned node (issue 42)
            for ref in refs:
                stored = record(ref)
                if stored is None:
                    continue
                if groups is not None:
                    key = stored.labels
                    if key.__class__ is not tuple:  # a record made by hand may hold a list
                        key = tuple(key)
                    fit = fits.get(key)
                    if fit is None:
                        labels = labels_of_stored(key)
                        fit = fits[key] = all(not g.isdisjoint(labels) for g in groups)
                    if not fit:
                        continue
                if props is None or self._props_fit(props, ref, row):
                    out.append(Partial({**row, name: ref}, used))
            check_size(len(out))
        return out

    def _store_labels(self, node: NodePattern) -> list[str] | None:
        for group in node.labels:
            labels = self.graph.shape.store_labels(group)
            if labels is not None:
                return labels
        return None

    def _narrowing(
        self,
        kind: Kind,
        pattern: NodePattern | RelPattern,
        partials: list[Partial],
        hints: dict[str, list[Expr]],
    ) -> _Narrowing | None:
        """The store field to narrow the scan by, each row's wanted values of it, and where
        they come from."""
        candidates: list[tuple[int, str, str, Expr, bool, Expr | None]] = []
        for key, expr, many, source in _equalities(pattern, hints, partials[0].row):
            field = prop_field(self.graph.shape, kind, key)
            if field is not None:
                candidates.append((_FIELD_RANK.get(field, 2), field, key, expr, many, source))
        for _, field, key, expr, many, source in sorted(candidates, key=lambda c: c[0]):
            values_per_row = []
            for p in partials:
                value = self.ev.eval(expr, p.row)
                values = value if many else [value]
                if many and not isinstance(value, list):
                    values_per_row = None
                    break
                values_per_row.append([v for v in values if isinstance(v, str)])
                if len(values_per_row[-1]) != len([v for v in values if v is not None]):
                    values_per_row = None  # a non-string value: compare here, not in the store
                    break
            if values_per_row is not None:
                return _Narrowing(field, values_per_row, key, source)
        return None

    # ----------------------------------------------------------------------------- checks

    def node_fits(self, node: NodePattern, ref: NodeRef, row: Row) -> bool:
        if self.graph.record(ref) is None:
            return False
        if node.var is not None and node.var in row:
            bound = row[node.var]
            if bound is None or bound != ref:
                return False
        if node.labels:
            labels = self.graph.label_set(ref)
            for group in self._label_groups(node):
                if group.isdisjoint(labels):
                    return False
        return self._props_fit(node.props, ref, row)

    def _label_groups(self, node: NodePattern) -> list[frozenset[str]]:
        """The node pattern's labels (an AND of ORs) as sets, made once per pattern."""
        groups = self._labels.get(id(node))
        if groups is None:
            groups = self._labels[id(node)] = [frozenset(g) for g in node.labels]
        return groups

    def _with_used(self, rel: RelPattern, used: frozenset[str], ref: RelRef) -> frozenset[str]:
        """``used`` with ``ref``, unless ``rel`` is its MATCH's only relationship (a set per
        partial match cost ~0.5 us a row, and nothing could be repeated)."""
        return used if id(rel) in self._lone else used | {ref.id}

    def _map_without(self, props: Expr | None, key: str | None) -> Expr | None:
        """A pattern's property map without ``key`` (None if nothing is left), made once."""
        if (
            key is None
            or not isinstance(props, MapOf)
            or [k for k, _ in props.items].count(key) != 1
        ):
            return props  # (a key given twice: the map's value is its last, compared here)
        found = self._maps_without.get((id(props), key))
        if found is None:
            items = [(k, v) for k, v in props.items if k != key]
            found = self._maps_without[(id(props), key)] = (
                MapOf(props.pos, items) if items else _NO_MAP
            )
        return None if found is _NO_MAP else found

    def _props_fit(self, props: Expr | None, ref: NodeRef | RelRef, row: Row) -> bool:
        if props is None:
            return True
        wanted = self._constant_maps.get(id(props), _VARIES)
        if wanted is _VARIES:
            wanted = self.ev.eval(props, row)
            if _row_only(props, {}):  # literals and parameters: the same for every row
                self._constant_maps[id(props)] = wanted
        if wanted is None:
            return False
        if not isinstance(wanted, dict):
            raise CypherError(f"a pattern's properties must be a map, got {type_name(wanted)}")
        return all(equals(self.graph.property(ref, k), v) is True for k, v in wanted.items())

    def _rel_fits(self, rel: RelPattern, ref: RelRef, row: Row) -> bool:
        if rel.types and self.graph.shape.rel_type(ref.record) not in rel.types:
            return False
        return self._props_fit(rel.props, ref, row)

    # ------------------------------------------------------------------------------ steps

    def _step(
        self,
        rel: RelPattern,
        here: NodePattern,
        there: NodePattern,
        batch: list[Partial],
        backwards: bool,
    ) -> Iterator[list[Partial]]:
        direction = _reverse(rel.direction) if backwards else rel.direction
        if rel.variable:
            found = self._variable_step(rel, here, direction, batch)
        else:
            found = iter([self._single_step(rel, here, direction, batch)])
        for grown in found:
            check_size(len(grown))
            self.graph.load()
            out = []
            for p, far in grown:
                if self.node_fits(there, far, p.row):
                    bound = there.var is not None and there.var in p.row
                    row = p.row if bound else {**p.row, _name(there): far}
                    out.append(Partial(row, p.used))
            if out:
                yield out

    def _rels(self, rel: RelPattern) -> list[str] | None:
        return self.graph.shape.store_rels(rel.types) if rel.types else None

    def _single_step(
        self, rel: RelPattern, here: NodePattern, direction: str, batch: list[Partial]
    ) -> list[tuple[Partial, NodeRef]]:
        ids = [_node_of(p, here).id for p in batch]
        adjacency = self.graph.expand(ids, direction, self._rels(rel), [])
        bound = rel.var is not None and rel.var in batch[0].row
        out = []
        for p, id in zip(batch, ids, strict=True):
            self.ev.deadline.check()
            check_size(len(out))
            for ref, other in adjacency[id]:
                if ref.id in p.used or not self._rel_fits(rel, ref, p.row):
                    continue
                if bound and p.row[rel.var] != ref:  # type: ignore[index]
                    continue
                row = p.row if rel.var is None or bound else {**p.row, rel.var: ref}
                out.append(
                    (Partial(row, self._with_used(rel, p.used, ref)), self.graph.node(other))
                )
        return out

    def _variable_step(
        self, rel: RelPattern, here: NodePattern, direction: str, batch: list[Partial]
    ) -> Iterator[list[tuple[Partial, NodeRef]]]:
        """The paths of ``rel`` from each partial match, a length at a time (shortest first).
        Each length's paths are grown from the shorter ones a few at a time, and handed on as
        they grow: a LIMIT met by the first of them stops the walk there, before the
        relationships of the other ends are read (issue 42's ``*1..3`` ... LIMIT 20 read every
        end of the second length to use a few of their paths)."""
        if rel.var is not None and rel.var in batch[0].row:
            raise unsupported(
                self.ev.source, rel.pos, "a variable-length relationship bound before"
            )
        types = self._rels(rel)
        # each path: (partial, current node id, rels so far)
        paths: list[_Path] = [(p, _node_of(p, here).id, ()) for p in batch]
        # walking for the nodes reached (:meth:`_reach`): per partial match, the nodes met so
        # far, the start among them; a path is kept only to a node met first (no rels kept)
        met = {id(p): {at} for p, at, _ in paths} if id(rel) in self._reaching else None
        if met is not None and rel.props is None:
            yield from self._reached(rel, direction, types, paths, met)
            return
        if rel.min_hops == 0:
            yield from self._path_ends(rel, paths)
        # what the paths found so far hold, checked as they grow (issue 42: a ring of 800
        # nodes under -[*]-> filled 3 GB before the check after each step ran)
        steps = 0
        depth = 0
        while paths and (rel.max_hops is None or depth < rel.max_hops):
            depth += 1
            grown: list[_Path] = []
            for parents in growing_chunks(paths):
                self.ev.deadline.check()
                ends = [at for _, at, _ in parents]
                adjacency = self.graph.expand(ends, direction, types, [])
                longer: list[_Path] = []
                for p, at, rels in parents:
                    self.ev.deadline.check()
                    taken = {r.id for r in rels}
                    reached = None if met is None else met[id(p)]
                    for ref, other in adjacency[at]:
                        if ref.id in taken or ref.id in p.used:
                            continue
                        if reached is not None and other in reached:
                            continue
                        if not self._rel_fits(rel, ref, p.row):
                            continue
                        if reached is not None:
                            reached.add(other)
                            longer.append((p, other, ()))
                            steps += 1  # (a path kept without its relationships)
                        else:
                            longer.append((p, other, (*rels, ref)))
                            steps += depth
                    check_size(len(grown) + len(longer))
                    check_size(steps, "steps")
                grown += longer
                if depth >= rel.min_hops and longer:
                    if met is None:  # the rows hold the paths' relationships too
                        steps += depth * len(longer)
                        check_size(steps, "steps")
                    yield from self._path_ends(rel, longer)
            paths = grown

    def _reached(
        self,
        rel: RelPattern,
        direction: str,
        types: list[str] | None,
        paths: list[_Path],
        met: dict[int, set[str]],
    ) -> Iterator[list[tuple[Partial, NodeRef]]]:
        """:meth:`_variable_step` walking for the nodes reached (:meth:`_reach`) by a
        relationship with no property map: by the relationships' ends alone (no record read
        but the nodes reached), a length at a time, each node once per partial match; a node
        that is not there (no record) is not walked on from, as no relationship leads from it."""
        graph, wanted = self.graph, set(rel.types)
        steps, depth = 0, 0
        while paths and (rel.max_hops is None or depth < rel.max_hops):
            depth += 1
            grown: list[_Path] = []
            for parents in growing_chunks(paths):
                self.ev.deadline.check()
                ends = graph.ends(list(dict.fromkeys(at for _, at, _ in parents)), direction, types)
                longer: list[_Path] = []
                for p, at, _ in parents:
                    self.ev.deadline.check()
                    reached = met[id(p)]
                    for edge, store_rel, other in ends[at]:
                        if other in reached or edge in p.used:
                            continue
                        if wanted and graph.rel_type_of(store_rel) not in wanted:
                            continue
                        reached.add(other)
                        longer.append((p, other, ()))
                        steps += 1  # (a node reached is held once, with no relationship)
                    check_size(len(grown) + len(longer))
                    check_size(steps, "steps")
                grown += longer
                if longer:
                    yield from self._path_ends(rel, longer)
            graph.load()  # the nodes reached are there, or not walked on from
            paths = [path for path in grown if graph.record(graph.node(path[1])) is not None]

    def _hop_twice(self, part: PatternPart, batch: list[Partial]) -> list[Partial]:
        """``batch`` (its first node bound) grown by each node two hops out, once per partial
        match (:meth:`_two_hop`): the middle nodes its first relationship reaches that fit
        the middle pattern, then the nodes their second reaches, by the relationships' ends
        alone (no relationship record read)."""
        near, middle, far = part.nodes
        graph = self.graph
        starts = [_node_of(p, near).id for p in batch]
        firsts = self.neighbours(part.rels[0], list(dict.fromkeys(starts)))
        middles = list(dict.fromkeys(m for s in starts for m in firsts[s]))
        refs = [graph.node(m) for m in middles]
        graph.load()
        fitting = {ref.id for ref in refs if self.node_fits(middle, ref, {})}
        seconds = self.neighbours(part.rels[1], [m for m in middles if m in fitting])
        far_name, grown = _name(far), []
        check = self.ev.deadline.check
        for p, start in zip(batch, starts, strict=True):
            reached: dict[str, None] = {}
            for m in firsts[start]:
                if m in fitting:  # (a dense graph: a middle node's ends may be many)
                    check()
                    reached.update(dict.fromkeys(seconds[m]))
            grown.extend(Partial({**p.row, far_name: graph.node(o)}, p.used) for o in reached)
            check_size(len(grown))
        graph.load()
        return [p for p in grown if self.node_fits(far, p.row[far_name], p.row)]

    def neighbours(self, rel: RelPattern, ids: list[str]) -> dict[str, list[str]]:
        """For each node id, the other end of each of its relationships that ``rel`` admits
        (its types, in its direction), by their ends alone. The ends are read PATH_CHUNK
        nodes at a time, a deadline check between (over a complete graph of 500 nodes, one
        read of 2,000 nodes' ends ran 0.2 s past a deadline); a node's ends come in the same
        order from any read (by relationship id)."""
        wanted, type_of, out = set(rel.types), self.graph.rel_type_of, {}
        for start in range(0, len(ids), PATH_CHUNK):
            self.ev.deadline.check()
            ends = self.graph.ends(ids[start : start + PATH_CHUNK], rel.direction, self._rels(rel))
            for i, found in ends.items():
                out[i] = [o for _, r, o in found if not wanted or type_of(r) in wanted]
        return out

    def _path_ends(
        self, rel: RelPattern, paths: list[_Path]
    ) -> Iterator[list[tuple[Partial, NodeRef]]]:
        """Each path as the partial match it makes and the node it ends at, ``PATH_CHUNK`` at
        a time: a LIMIT met by the first ones stops the rest (their far nodes, rows, WHERE)."""
        for start in range(0, len(paths), PATH_CHUNK):
            out: list[tuple[Partial, NodeRef]] = []
            for p, at, rels in paths[start : start + PATH_CHUNK]:
                row = p.row if rel.var is None else {**p.row, rel.var: list(rels)}
                used = p.used | {r.id for r in rels}
                out.append((Partial(row, used), self.graph.node(at)))
            yield out


#: Row keys the matcher uses for itself: the input row of an OPTIONAL MATCH, and anonymous
#: nodes (bound while a pattern grows, dropped from the rows the clause gives).
_ROW = "\x00row"
_ANON = "\x00n"
#: Relationships of a scanned page bound (their nodes read, their rows built) at a time.
REL_CHUNK = 32
#: Rows each stage of a relationship scan is asked of before their order is chosen by how
#: many each passes (:class:`_Stages`).
_SEEN_FIRST = 16
#: Paths of one length a variable-length step hands on at a time.
PATH_CHUNK = 64
#: Paths a variable-length step grows first (then 4 times as many each time).
_PARENTS_FIRST = 4
#: A path of a variable-length step: the partial match, the node it is at, its relationships.
_Path = tuple[Partial, str, tuple[RelRef, ...]]
#: A pattern property map that depends on the row (not kept in ``_constant_maps``).
_VARIES: Any = object()
#: A pattern's property map left empty (:meth:`Matcher._map_without`).
_NO_MAP: Any = object()


def growing_chunks(paths: Sequence[_T], first: int = _PARENTS_FIRST) -> Iterator[Sequence[_T]]:
    """``paths`` in pieces of ``first``, then 4 times as many each time, up to the ids one
    read takes."""
    size, start = first, 0
    while start < len(paths):
        yield paths[start : start + size]
        start += size
        size = min(size * 4, BATCH)


def _name(node: NodePattern) -> str:
    return node.var if node.var is not None else f"{_ANON}{id(node)}"


def _node_of(p: Partial, node: NodePattern) -> NodeRef:
    """The node a step starts from, bound on this side."""
    value = p.row.get(_name(node))
    assert isinstance(value, NodeRef)
    return value


def _reverse(direction: str) -> str:
    return {"out": "in", "in": "out"}.get(direction, direction)


def _new_variables(clause: Match, row: Row) -> list[str]:
    names: list[str] = []
    for part in clause.patterns:
        for node in part.nodes:
            if node.var is not None and node.var not in row:
                names.append(node.var)
        for rel in part.rels:
            if rel.var is not None and rel.var not in row:
                names.append(rel.var)
    return list(dict.fromkeys(names))


def conjuncts(where: Expr) -> list[Expr]:
    """The top-level conjuncts of a WHERE (``a AND (b AND c)``: a, b, c), in order."""
    return operands(where, "AND")


def may_hold(test: Callable[[Row], Any], row: Row) -> bool:
    """Whether a conjunct leaves ``row`` a chance: true, or an error (the whole WHERE decides)."""
    try:
        return test(row) is True
    except (CypherTimeout, CypherLimitExceeded):
        raise
    except (CypherError, UnsupportedOperation):
        return True


def _merged(first: Hints, second: Hints) -> Hints:
    out = {var: list(exprs) for var, exprs in first.items()}
    for var, exprs in second.items():
        out.setdefault(var, []).extend(exprs)
    return out


def _first_true(tests: list[Callable[[Row], Any]], row: Row) -> int:
    """The index of the first of ``tests`` true on ``row`` (``len(tests)``: none)."""
    for i, test in enumerate(tests):
        if test(row) is True:
            return i
    return len(tests)


def _where_hints(where: Expr | None) -> dict[str, list[Expr]]:
    """WHERE's top-level conjuncts, by the variable they compare a property of."""
    hints: dict[str, list[Expr]] = {}
    stack = [where] if where is not None else []
    while stack:
        expr = stack.pop()
        if isinstance(expr, Binary) and expr.op == "AND":
            stack.extend((expr.left, expr.right))
        elif isinstance(expr, Binary) and expr.op in ("=", "IN"):
            for side in (expr.left, expr.right) if expr.op == "=" else (expr.left,):
                if isinstance(side, Prop) and isinstance(side.subject, Var):
                    hints.setdefault(side.subject.name, []).append(expr)
    return hints


def _equalities(
    node: NodePattern | RelPattern, hints: dict[str, list[Expr]], row: Row
) -> list[tuple[str, Expr, bool, Expr | None]]:
    """(property key, the expression its value must equal, whether it is a list of them, the
    WHERE equality it comes from or None for the pattern's map), for the equalities that can be
    evaluated on ``row`` before the node is bound."""
    out: list[tuple[str, Expr, bool, Expr | None]] = []
    if isinstance(node.props, MapOf):
        given = dict(node.props.items)  # a key given twice: its last value, as the map has it
        out.extend((key, expr, False, None) for key, expr in given.items() if _row_only(expr, row))
    if node.var is None:
        return out
    for expr in hints.get(node.var, []):
        assert isinstance(expr, Binary)
        sides = (
            [(expr.left, expr.right), (expr.right, expr.left)]
            if expr.op == "="
            else [(expr.left, expr.right)]
        )
        for prop, other in sides:
            if (
                isinstance(prop, Prop)
                and isinstance(prop.subject, Var)
                and prop.subject.name == node.var
                and _row_only(other, row)
            ):
                out.append((prop.key, other, expr.op == "IN", expr))
                break
    return out


def _equality_keys(
    node: NodePattern | RelPattern, hints: dict[str, list[Expr]], row: Row
) -> list[str]:
    return [equality[0] for equality in _equalities(node, hints, row)]


def _row_only(expr: Expr, row: Row) -> bool:
    """Whether ``expr`` can be evaluated on ``row`` alone: literals, parameters, and the
    variables the row already binds, with their properties and lists of them."""
    if isinstance(expr, (Literal, Param)):
        return True
    if isinstance(expr, ListOf):
        return all(_row_only(i, row) for i in expr.items)
    if isinstance(expr, MapOf):
        return all(_row_only(v, row) for _, v in expr.items)
    if isinstance(expr, Prop):
        return _row_only(expr.subject, row)
    if isinstance(expr, Index):
        return _row_only(expr.subject, row) and _row_only(expr.index, row)
    if isinstance(expr, Var):
        return expr.name in row
    return False


def _field_values(record: Any, field: str) -> Sequence[Any]:
    if field.startswith("props."):
        value = record.props.get(field[6:])
        return [value] if isinstance(value, str) else []
    return [getattr(record, field)]
