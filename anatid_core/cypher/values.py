"""Cypher's values over the store's records: equality, ordering, grouping keys.

Nodes and relationships are :class:`NodeRef` and :class:`RelRef`, compared by record id; their
records and properties are filled in by :class:`~anatid_core.cypher.graph.Graph` in batches.
Equality is ternary (``None`` when a null is involved), as openCypher's is; ordering follows
openCypher's global sort order (maps, nodes, relationships, lists, strings, booleans, numbers,
then null, ascending).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from datetime import date, datetime, time, timedelta
from typing import Any

from ..base.model import Edge, Node


class NodeRef:
    __slots__ = ("id", "record", "props", "labels", "noted")

    def __init__(self, id: str, record: Node | None = None) -> None:
        self.id = id
        self.record = record
        self.props: dict[str, Any] | None = None
        self.labels: frozenset[str] | None = None  # the shape's labels, once asked
        self.noted = False  # a property read (``Graph._read_one``)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, NodeRef) and other.id == self.id

    def __hash__(self) -> int:
        return hash(("node", self.id))

    def __repr__(self) -> str:
        return f"NodeRef({self.id!r})"


class RelRef:
    __slots__ = ("id", "record", "props", "noted")

    def __init__(self, record: Edge) -> None:
        self.id = record.id
        self.record = record
        self.props: dict[str, Any] | None = None
        self.noted = False  # as NodeRef's

    @property
    def src(self) -> str:
        return self.record.src

    @property
    def dst(self) -> str:
        return self.record.dst

    def __eq__(self, other: object) -> bool:
        return isinstance(other, RelRef) and other.id == self.id

    def __hash__(self) -> int:
        return hash(("rel", self.id))

    def __repr__(self) -> str:
        return f"RelRef({self.id!r})"


#: Cypher's integers are signed 64-bit (Neo4j's and FalkorDB's): an arithmetic result past
#: them is an error, as there, not a Python integer that grows (a squaring in a ``reduce``
#: grew one to megabytes, and ``toString`` of it raised an untyped ValueError).
INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1


#: What an integer result past 64 bits says (Neo4j's integers are 64-bit; it fails there too).
OVERFLOW = "integer overflow: the result is past 64-bit integers (as in Neo4j); use floats"


def fits_int64(value: int) -> bool:
    return INT64_MIN <= value <= INT64_MAX


def is_number(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def equals(a: Any, b: Any) -> bool | None:
    """Cypher's ``=``: None if either side is null (or a list/map compare meets one)."""
    if a.__class__ is str and b.__class__ is str:
        return a == b  # the common case, before the checks by kind
    if a is None or b is None:
        return None
    if is_number(a) and is_number(b):
        if isinstance(a, float) and math.isnan(a) or isinstance(b, float) and math.isnan(b):
            return False
        return a == b
    if isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            return False
        unknown = False
        for x, y in zip(a, b, strict=True):
            same = equals(x, y)
            if same is False:
                return False
            if same is None:
                unknown = True
        return None if unknown else True
    if isinstance(a, dict) and isinstance(b, dict):
        if set(a) != set(b):
            return False
        unknown = False
        for key in a:
            same = equals(a[key], b[key])
            if same is False:
                return False
            if same is None:
                unknown = True
        return None if unknown else True
    if type(a) is bool or type(b) is bool:
        return type(a) is type(b) and a == b
    if _kind(a) != _kind(b):
        return False
    return bool(a == b)


def compare(a: Any, b: Any) -> int | None:
    """Cypher's ``<``-family order of two values: -1, 0, 1, or None if they do not compare
    (null, or values of different types)."""
    if a is None or b is None:
        return None
    if is_number(a) and is_number(b):
        if isinstance(a, float) and math.isnan(a) or isinstance(b, float) and math.isnan(b):
            return None
        return (a > b) - (a < b)
    ka, kb = _kind(a), _kind(b)
    if ka != kb:
        return None
    if ka == "list":
        for x, y in zip(a, b, strict=False):
            c = compare(x, y)
            if c is None:
                return None
            if c:
                return c
        return (len(a) > len(b)) - (len(a) < len(b))
    if ka in ("string", "boolean", "datetime", "date", "time", "duration"):
        try:
            return (a > b) - (a < b)
        except TypeError:  # naive against aware datetimes
            return None
    return None


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if is_number(value):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "list"
    if isinstance(value, dict):
        return "map"
    if isinstance(value, NodeRef):
        return "node"
    if isinstance(value, RelRef):
        return "relationship"
    if isinstance(value, datetime):
        return "datetime"
    if isinstance(value, date):
        return "date"
    if isinstance(value, time):
        return "time"
    if isinstance(value, timedelta):
        return "duration"
    return type(value).__name__


#: openCypher's ascending order of types (ORDER BY across types).
_TYPE_ORDER = {
    "map": 0,
    "node": 1,
    "relationship": 2,
    "list": 3,
    "datetime": 5,
    "date": 6,
    "time": 7,
    "duration": 8,
    "string": 9,
    "boolean": 10,
    "number": 11,
    "null": 12,
}


def order(a: Any, b: Any) -> int:
    """The total order ORDER BY uses: -1, 0 or 1 for any two values."""
    ra, rb = _TYPE_ORDER.get(_kind(a), 4), _TYPE_ORDER.get(_kind(b), 4)
    if ra != rb:
        return -1 if ra < rb else 1
    if a is None:
        return 0
    if is_number(a):
        na, nb = isinstance(a, float) and math.isnan(a), isinstance(b, float) and math.isnan(b)
        if na or nb:
            return (na > nb) - (na < nb)
        return (a > b) - (a < b)
    if isinstance(a, list):
        for x, y in zip(a, b, strict=False):
            c = order(x, y)
            if c:
                return c
        return (len(a) > len(b)) - (len(a) < len(b))
    if isinstance(a, dict):
        ka, kb = sorted(a), sorted(b)
        if ka != kb:
            return -1 if ka < kb else 1
        for key in ka:
            c = order(a[key], b[key])
            if c:
                return c
        return 0
    if isinstance(a, (NodeRef, RelRef)):
        return (a.id > b.id) - (a.id < b.id)
    try:
        return (a > b) - (a < b)
    except TypeError:
        return 0


#: Kinds whose values of one kind Python orders as ``order`` does (datetimes: checked apart).
_NATIVE = frozenset({"number", "string", "boolean", "date", "duration"})


def native_order(values: list[Any]) -> Callable[[Any], Any] | None:
    """A sort key giving ``values`` the order :func:`order` gives them, computed by Python's
    own comparisons (a sort by ``cmp_to_key(order)`` cost ~3 us a comparison, most of an ORDER
    BY over a thousand rows; issue 42), if there is one: all of one kind Python compares
    alike (numbers without NaN, strings, booleans, dates, datetimes all aware or all naive),
    and nulls, which sort last. None otherwise: :func:`order` sorts them."""
    # a value's kind is its class's: one value of each class is asked (a call per value was
    # most of an ORDER BY's time over 3,000 rows; issue 42)
    samples = {v.__class__: v for v in values if v is not None}
    kinds = {_kind(v) for v in samples.values()}
    if len(kinds) > 1:
        return None
    kind = next(iter(kinds), "null")
    floats = any(issubclass(c, float) for c in samples)
    if floats and any(isinstance(v, float) and math.isnan(v) for v in values):
        return None
    if kind == "datetime":
        if len({v.utcoffset() is None for v in values if v is not None}) > 1:
            return None
    elif kind not in _NATIVE and kind != "null":
        return None
    return _null_last


def _null_last(value: Any) -> tuple[bool, Any]:
    return (True, 0) if value is None else (False, value)


def group_key(value: Any) -> Any:
    """A hashable stand-in for a value, equal for values DISTINCT and grouping treat as equal
    (1 and 1.0 are one group; null is its own)."""
    if value.__class__ is str:
        return ("str", value)  # the common case, as the last line gives it
    if isinstance(value, list):
        return ("list", tuple(group_key(v) for v in value))
    if isinstance(value, dict):
        return ("map", tuple(sorted((k, group_key(v)) for k, v in value.items())))
    if isinstance(value, bool):
        return ("bool", value)
    if is_number(value):
        if isinstance(value, float) and math.isnan(value):
            return ("nan",)
        return ("number", value)
    if isinstance(value, (NodeRef, RelRef)):
        return value
    try:
        hash(value)
    except TypeError:
        return ("unhashable", repr(value))
    return (type(value).__name__, value)


def type_name(value: Any) -> str:
    """The Cypher name of a value's type, for messages."""
    return {
        "null": "NULL",
        "boolean": "BOOLEAN",
        "number": "INTEGER" if isinstance(value, int) else "FLOAT",
        "string": "STRING",
        "list": "LIST",
        "map": "MAP",
        "node": "NODE",
        "relationship": "RELATIONSHIP",
    }.get(_kind(value), _kind(value).upper())
