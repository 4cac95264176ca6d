"""Records as the tables hold them: the visibility predicate, column lists and row decoding."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..base.codec import MAX_ID_LENGTH, check_id, decode_props, from_micros
from ..base.errors import InvalidInput
from ..base.lazy import LazyEdge, LazyNode, props_are_lazy
from ..base.model import DEFAULT_SPACE, Edge, Item, Kind, Node
from .scope import Scope

NODE_COLS = "r.vid, r.id, r.grp, r.labels, r.name, r.text, r.props, r.space, r.valid_from, r.valid_to, r.tx_from, r.tx_to"
EDGE_COLS = "r.vid, r.id, r.src, r.dst, r.rel, r.grp, r.name, r.text, r.props, r.space, r.valid_from, r.valid_to, r.tx_from, r.tx_to"


def _positions(cols: str) -> dict[str, int]:
    """Where each column of ``cols`` sits in a row it reads, by its name and by the record
    field it holds (``grp``: ``group``)."""
    at = {c.removeprefix("r."): i for i, c in enumerate(cols.split(", "))}
    return at | {"group": at["grp"]}


#: Where each column sits in a row read by NODE_COLS / EDGE_COLS (the in-memory current records
#: keep rows so too).
NODE_AT = _positions(NODE_COLS)
EDGE_AT = _positions(EDGE_COLS)


@dataclass(frozen=True)
class Visibility:
    """Which versions a read sees: current ones, or those of a past instant; and, with a
    ``scope``, only the records inside its wall (:mod:`anatid_core.storage.scope`)."""

    tx_us: int | None = None
    valid_us: int | None = None
    scope: Scope | None = None

    @property
    def is_current(self) -> bool:
        """Whether this is the plain current state, which the in-memory indexes may answer
        (a scoped reader always reads SQL: the indexes know no walls)."""
        return self.tx_us is None and self.valid_us is None and self.scope is None

    def time_sql(self, a: str = "r") -> str:
        """The versions of the instant, whatever the scope."""
        if self.tx_us is None:
            parts = [f"{a}.tx_to IS NULL"]
        else:
            t = int(self.tx_us)
            parts = [f"{a}.tx_from <= {t}", f"({a}.tx_to IS NULL OR {a}.tx_to > {t})"]
        if self.valid_us is not None:
            v = int(self.valid_us)
            parts.append(f"({a}.valid_from IS NULL OR {a}.valid_from <= {v})")
            parts.append(f"({a}.valid_to IS NULL OR {a}.valid_to > {v})")
        return " AND ".join(parts)

    def sql(self, a: str = "r", kind: Kind | None = None) -> str:
        """The predicate over alias ``a`` of a record of ``kind`` (which a scope needs)."""
        time = self.time_sql(a)
        if self.scope is None:
            return time
        if kind is None:
            raise AssertionError("internal: a scoped visibility needs the record kind")
        return " AND ".join([time, *self.scope_sql(a, kind)])

    def edge_sql_unchecked_ends(self, a: str = "r") -> str:
        """An edge's own visibility (instant, group), not whether its endpoints are visible:
        for walks that check the nodes they reach themselves (a scope's endpoint test is a
        join per edge, the slowest part of a scoped walk)."""
        parts = [self.time_sql(a)]
        if self.scope is not None:
            parts += self.scope.group_sql(a)
        return " AND ".join(parts)

    def scope_sql(self, a: str, kind: Kind) -> list[str]:
        """The wall alone, over alias ``a`` (no time predicate on ``a`` itself)."""
        scope = self.scope
        if scope is None:
            return []
        if kind == "node":
            return scope.node_sql(a)
        parts = scope.group_sql(a)
        for end in ("src", "dst"):
            n = f"{a}_{end}"
            node = " AND ".join([self.time_sql(n), *scope.node_sql(n)])
            parts.append(f"EXISTS (SELECT 1 FROM nodes {n} WHERE {n}.id = {a}.{end} AND {node})")
        return parts


def table_of(kind: Kind) -> str:
    if kind == "node":
        return "nodes"
    if kind == "edge":
        return "edges"
    raise InvalidInput(f"kind must be 'node' or 'edge', got {kind!r}")


def cols_of(kind: Kind) -> str:
    return NODE_COLS if kind == "node" else EDGE_COLS


_new = object.__new__


def _column(index: int, convert: Callable[[Any], Any] | None = None) -> Any:
    """A lazy record's field read from its row when asked (``_row``), converted if need be."""
    if convert is None:
        return property(lambda self: self.__dict__["_row"][index])
    return property(lambda self: convert(self.__dict__["_row"][index]))


def _props_at(index: int) -> Any:
    """A lazy record's props, decoded from its row's column ``index`` when first read."""

    def props(self: Any) -> Mapping[str, Any]:
        state = self.__dict__
        decoded = state.get("_props")
        if decoded is None:
            decoded = state["_props"] = decode_props(state["_row"][index])
        return decoded

    return property(props)


def _space(value: str | None) -> str:
    return value or DEFAULT_SPACE


def _rarely_read(props_at: int) -> tuple[Any, ...]:
    """A lazy record's props, text, space, four instants and version, read from its row when
    asked; a node's and an edge's rows hold them in the same order from the text on (at
    ``props_at - 1``), the version first."""
    instants = (_column(props_at + k, from_micros) for k in range(2, 6))
    return (
        _props_at(props_at),
        _column(props_at - 1),
        _column(props_at + 1, _space),
        *instants,
        _column(0),
    )


class _RowNode(LazyNode):
    """A :class:`LazyNode` that keeps its row and reads from it, when first asked, its props
    and the fields a query rarely reads (text, space, the four instants, version). Set at
    once, the thirteen fields cost 1.6 us a record, a third of a group scan's per-row cost at
    100k facts (issue 42); the four the engine reads on every row (id, group, labels, name)
    are set as before."""

    props, text, space, valid_from, valid_to, tx_from, tx_to, version = _rarely_read(6)  # pyright: ignore[reportIncompatibleVariableOverride, reportAssignmentType]


class _RowEdge(LazyEdge):
    """A :class:`LazyEdge` keeping its row, as :class:`_RowNode`."""

    props, text, space, valid_from, valid_to, tx_from, tx_to, version = _rarely_read(8)  # pyright: ignore[reportIncompatibleVariableOverride, reportAssignmentType]


def node_from_row(row: Sequence[Any]) -> Node:
    # Built without the frozen dataclass's __init__ (one object.__setattr__ per field: 2.2 of
    # the 7 us a row took, against 0.55 us this way): the fields are set at once, all of them,
    # as __init__ would set them. tests/core/test_rows.py checks it against Node(...).
    # Inside ``lazy_props`` (the Cypher engine's reads) the props and the rarely read fields
    # wait until first read (tests/core/test_lazy_records.py).
    if props_are_lazy():
        node = _new(_RowNode)
        node.__dict__.update(_row=row, id=row[1], group=row[2], labels=tuple(row[3]), name=row[4])
        return node
    node = _new(Node)
    node.__dict__.update(
        id=row[1],
        group=row[2],
        labels=tuple(row[3]),
        name=row[4],
        text=row[5],
        props=decode_props(row[6]),
        embedding=None,
        space=row[7] or DEFAULT_SPACE,
        valid_from=from_micros(row[8]),
        valid_to=from_micros(row[9]),
        tx_from=from_micros(row[10]),
        tx_to=from_micros(row[11]),
        version=row[0],
    )
    return node


def edge_from_row(row: Sequence[Any]) -> Edge:
    if props_are_lazy():  # as node_from_row
        edge = _new(_RowEdge)
        edge.__dict__.update(
            _row=row, id=row[1], src=row[2], dst=row[3], rel=row[4], group=row[5], name=row[6]
        )
        return edge
    edge = _new(Edge)
    edge.__dict__.update(
        id=row[1],
        src=row[2],
        dst=row[3],
        rel=row[4],
        group=row[5],
        name=row[6],
        text=row[7],
        props=decode_props(row[8]),
        embedding=None,
        space=row[9] or DEFAULT_SPACE,
        valid_from=from_micros(row[10]),
        valid_to=from_micros(row[11]),
        tx_from=from_micros(row[12]),
        tx_to=from_micros(row[13]),
        version=row[0],
    )
    return edge


def item_from_row(kind: Kind, row: Sequence[Any]) -> Item:
    return node_from_row(row) if kind == "node" else edge_from_row(row)


def items_by_vid(
    query: Callable[[str, list[Any]], list[tuple[Any, ...]]], kind: Kind, vids: list[int]
) -> list[Item]:
    """The records of the rows ``vids`` (versions already known visible, e.g. by the graph
    arrays): the row range lets zone maps skip most of the table, where a lookup by id
    scans it whole (duckdb 2.0 plans ``id IN (...)`` as a sequential scan)."""
    if not vids:
        return []
    rows = query(
        f"SELECT {cols_of(kind)} FROM {table_of(kind)} r WHERE r.vid BETWEEN ? AND ? "
        "AND r.vid IN (SELECT unnest(?::BIGINT[]))",
        [min(vids), max(vids), vids],
    )
    return [item_from_row(kind, row) for row in rows]


def id_list(ids: Iterable[str], what: str = "ids") -> list[str]:
    if isinstance(ids, str):
        raise InvalidInput(f"{what} must be a list of ids, not a single string {ids!r:.80}")
    ids = list(ids)
    # most lists are ASCII ids of the store (a Cypher step's 3,000 nodes): checked at once,
    # as check_id would (a str, not empty, not too long, no NUL, ASCII needs no encoding)
    if all(i.__class__ is str and 0 < len(i) <= MAX_ID_LENGTH for i in ids):
        joined = "".join(ids)
        if joined.isascii() and "\x00" not in joined:
            return ids
    return [check_id(i, what=what[:-1] if what.endswith("s") else what) for i in ids]
