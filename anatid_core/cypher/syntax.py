"""The parsed form of a Cypher query: expressions, patterns and clauses.

Every node keeps ``pos``, its offset in the query, for errors that point at it. Expressions
are frozen dataclasses compared by identity where it matters (an aggregate call is found again
by ``id()`` when a projection fills in its value).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field, fields, replace
from typing import Any


@dataclass(eq=False)
class Expr:
    pos: int


@dataclass(eq=False)
class Literal(Expr):
    value: Any


@dataclass(eq=False)
class Param(Expr):
    name: str


@dataclass(eq=False)
class Var(Expr):
    name: str


@dataclass(eq=False)
class Prop(Expr):
    subject: Expr
    key: str


@dataclass(eq=False)
class Index(Expr):
    subject: Expr
    index: Expr


@dataclass(eq=False)
class Slice(Expr):
    subject: Expr
    start: Expr | None
    end: Expr | None


@dataclass(eq=False)
class ListOf(Expr):
    items: list[Expr]


@dataclass(eq=False)
class MapOf(Expr):
    items: list[tuple[str, Expr]]


@dataclass(eq=False)
class MapProjection(Expr):
    """``n {.a, .*, b: expr, v}``: each item is (kind, key, expr): ``"."`` a property, ``"*"``
    every property, ``":"`` a key given a value, ``"var"`` a variable under its own name."""

    subject: Expr
    items: list[tuple[str, str, Expr | None]]


@dataclass(eq=False)
class Unary(Expr):
    op: str  # "-", "+", "NOT"
    operand: Expr


@dataclass(eq=False)
class Binary(Expr):
    op: str  # OR XOR AND = <> < <= > >= + - * / % ^ IN STARTS ENDS CONTAINS =~
    left: Expr
    right: Expr


@dataclass(eq=False)
class IsNull(Expr):
    operand: Expr
    negated: bool


@dataclass(eq=False)
class HasLabels(Expr):
    subject: Expr
    labels: list[list[str]]  # AND of ORs: n:A:B|C is [[A], [B, C]]


@dataclass(eq=False)
class Call(Expr):
    name: str  # lower case, dotted: "count", "vector.similarity.cosine"
    args: list[Expr]
    distinct: bool = False
    star: bool = False  # count(*)


@dataclass(eq=False)
class Case(Expr):
    subject: Expr | None
    whens: list[tuple[Expr, Expr]]
    default: Expr | None


@dataclass(eq=False)
class ListComprehension(Expr):
    var: str
    source: Expr
    where: Expr | None
    project: Expr | None


@dataclass(eq=False)
class Quantifier(Expr):
    kind: str  # "all", "any", "none", "single"
    var: str
    source: Expr
    where: Expr


@dataclass(eq=False)
class Reduce(Expr):
    """``reduce(acc = init, x IN source | step)``: ``step`` folded over the list."""

    acc: str
    init: Expr
    var: str
    source: Expr
    step: Expr


@dataclass(eq=False)
class PatternComprehension(Expr):
    """``[(n)-[:KNOWS]->(m) WHERE p | e]``: ``e`` for each match of the pattern from the row."""

    pattern: PatternPart
    where: Expr | None
    project: Expr


@dataclass(eq=False)
class PatternPredicate(Expr):
    """``(n)-[:KNOWS]->()`` or ``exists((n)-->())`` in a WHERE: true if the pattern matches."""

    pattern: PatternPart


# ------------------------------------------------------------------------------------ patterns


@dataclass(eq=False)
class NodePattern:
    pos: int
    var: str | None
    labels: list[list[str]]  # AND of ORs, as HasLabels
    props: Expr | None  # a MapOf or a Param


@dataclass(eq=False)
class RelPattern:
    pos: int
    var: str | None
    types: list[str]  # any of
    props: Expr | None
    direction: str  # "out" (-->), "in" (<--), "both" (--)
    min_hops: int = 1
    max_hops: int | None = 1  # None: unbounded
    variable: bool = False  # written with *: binds a list of relationships


@dataclass(eq=False)
class PatternPart:
    pos: int
    nodes: list[NodePattern]
    rels: list[RelPattern]  # rels[i] joins nodes[i] and nodes[i + 1]
    path_var: str | None = None


# ------------------------------------------------------------------------------------- clauses


@dataclass(eq=False)
class ProjectionItem:
    expr: Expr
    alias: str | None  # None: the column is named by ``text``
    text: str


@dataclass(eq=False)
class SortItem:
    expr: Expr
    descending: bool
    text: str


@dataclass(eq=False)
class Projection:
    pos: int
    distinct: bool
    star: bool
    items: list[ProjectionItem]
    order: list[SortItem] = field(default_factory=list)
    skip: Expr | None = None
    limit: Expr | None = None


@dataclass(eq=False)
class Clause:
    pos: int


@dataclass(eq=False)
class Match(Clause):
    optional: bool
    patterns: list[PatternPart]
    where: Expr | None


@dataclass(eq=False)
class Unwind(Clause):
    expr: Expr
    var: str


@dataclass(eq=False)
class With(Clause):
    projection: Projection
    where: Expr | None


@dataclass(eq=False)
class Return(Clause):
    projection: Projection


@dataclass(eq=False)
class ProcedureCall(Clause):
    name: str  # as written, dotted
    args: list[Expr] | None  # None: written without parentheses
    yields: list[tuple[str, str]] | None  # (output, variable); None: no YIELD
    where: Expr | None


@dataclass(eq=False)
class SingleQuery:
    clauses: list[Clause]


@dataclass(eq=False)
class Query:
    parts: list[SingleQuery]
    union_all: list[bool]  # between parts[i] and parts[i + 1]


def operands(expr: Expr, op: str) -> list[Expr]:
    """The operands of a chain of ``op`` (``AND``, ``OR``) at the top of ``expr``, in order
    (``a OR (b OR c)``: a, b, c); ``expr`` alone where it is no such chain. A loop: a chain of
    10,000 ORs is 10,000 deep."""
    out: list[Expr] = []
    stack = [expr]
    while stack:
        e = stack.pop()
        if isinstance(e, Binary) and e.op == op:
            stack.extend((e.right, e.left))
        else:
            out.append(e)
    return out


def names_in(expr: Any) -> set[str]:
    """Every variable name ``expr`` mentions (bound inside it or not: a safe over-count)."""
    names: set[str] = set()
    stack = [expr]
    while stack:
        node = stack.pop()
        if node.__class__ is Var:
            names.add(node.name)
        elif isinstance(node, (Expr, NodePattern, RelPattern, PatternPart)):
            var = getattr(node, "var", None)  # patterns, list comprehensions, quantifiers
            if isinstance(var, str):
                names.add(var)
            stack.extend(vars(node).values())
        elif isinstance(node, (list, tuple)):
            stack.extend(node)
    return names


def own_names(node: Any) -> set[str]:
    """The variable a syntax node names itself (a variable, a pattern's, a comprehension's)."""
    if isinstance(node, Var):
        return {node.name}
    if isinstance(node, (NodePattern, RelPattern)):
        return {node.var} if node.var is not None else set()
    var = getattr(node, "var", None)  # list comprehensions and quantifiers
    return {var} if isinstance(var, str) else set()


def children(node: Any) -> list[Any]:
    """The syntax nodes (and lists of them) directly under ``node``."""
    if isinstance(node, (Expr, NodePattern, RelPattern, PatternPart)):
        return [getattr(node, f.name) for f in fields(node)]
    if isinstance(node, (list, tuple)):
        return list(node)
    return []


def walk(node: Any) -> Iterator[Any]:
    """``node`` and every syntax node (and list of them) under it, with a stack, not
    recursion: a chain of 10,000 ORs nests as deep."""
    stack: list[Any] = [node]
    while stack:
        item = stack.pop()
        yield item
        stack.extend(children(item))


def swapped(expr: Expr, by_id: dict[int, Expr]) -> Expr:
    """``expr`` with the sub-expressions whose ``id`` is in ``by_id`` replaced (a copy where
    anything changed: the tree itself is shared by every run of the query text). Walked with
    a stack, not recursion: a chain of 10,000 ORs nests as deep."""
    done: dict[int, Any] = {}  # id of a node walked -> what it becomes
    stack: list[tuple[Any, bool]] = [(expr, False)]
    while stack:
        node, parts_done = stack.pop()
        key = id(node)
        if key in done:
            continue
        if key in by_id:
            done[key] = by_id[key]
            continue
        if isinstance(node, Expr):
            parts = [(f.name, getattr(node, f.name)) for f in fields(node)]
        elif isinstance(node, (list, tuple)):
            parts = list(enumerate(node))
        else:
            done[key] = node  # a name, a pattern: kept as it is
            continue
        if not parts_done:
            stack.append((node, True))
            stack.extend((value, False) for _, value in parts)
            continue
        if isinstance(node, Expr):
            changes = {str(n): done[id(v)] for n, v in parts if done[id(v)] is not v}
            done[key] = replace(node, **changes) if changes else node
        else:
            items = [done[id(v)] for _, v in parts]
            changed = any(a is not b for a, b in zip(items, node, strict=True))
            done[key] = (items if isinstance(node, list) else tuple(items)) if changed else node
    return done[id(expr)]
