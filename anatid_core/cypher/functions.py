"""Cypher's scalar functions (the aggregates are in :mod:`.aggregates`).

Each takes the graph and the evaluated arguments; null in gives null out
unless openCypher says otherwise (``coalesce``, ``size(null)`` is null). ``id()`` and
``elementId()`` give a record's id (a string: the store has no internal integer ids).
"""

from __future__ import annotations

import math
import random
import re
import time as _time
from collections.abc import Callable
from datetime import date, datetime, timezone
from typing import Any

from .errors import unsupported
from .graph import Graph
from .limits import check_list, check_string
from .syntax import Call
from .values import OVERFLOW, NodeRef, RelRef, fits_int64, is_number, type_name

Fn = Callable[[Graph, list[Any]], Any]
FUNCTIONS: dict[str, Fn] = {}


class ArgumentError(Exception):
    """A function got arguments it cannot take; the evaluator adds the place."""


def function(*names: str, arity: tuple[int, int] | int | None = None) -> Callable[[Fn], Fn]:
    low, high = (arity, arity) if isinstance(arity, int) else (arity or (0, 1_000))

    def register(fn: Fn) -> Fn:
        def checked(ev: Graph, args: list[Any]) -> Any:
            if not low <= len(args) <= high:
                wanted = str(low) if low == high else f"{low} to {high}"
                raise ArgumentError(f"takes {wanted} arguments, got {len(args)}")
            return fn(ev, args)

        for name in names:
            FUNCTIONS[name.lower()] = checked
        return fn

    return register


def unknown_function(source: str, call: Call) -> Exception:
    return unsupported(source, call.pos, f"the function {call.name}()")


def _null_in(args: list[Any]) -> bool:
    return any(a is None for a in args)


def _need(value: Any, kind: type | tuple[type, ...], what: str) -> Any:
    if not isinstance(value, kind) or (isinstance(value, bool) and bool not in _tuple(kind)):
        raise ArgumentError(f"expected {what}, got {type_name(value)}")
    return value


def _tuple(kind: type | tuple[type, ...]) -> tuple[type, ...]:
    return kind if isinstance(kind, tuple) else (kind,)


# ------------------------------------------------------------------------------------ graph


@function("id", "elementId", arity=1)
def _id(ev: Graph, args: list[Any]) -> Any:
    (x,) = args
    return None if x is None else _need(x, (NodeRef, RelRef), "a node or relationship").id


@function("labels", arity=1)
def _labels(ev: Graph, args: list[Any]) -> Any:
    (x,) = args
    return None if x is None else ev.labels(_need(x, NodeRef, "a node"))


@function("type", arity=1)
def _type(ev: Graph, args: list[Any]) -> Any:
    (x,) = args
    return None if x is None else ev.shape.rel_type(_need(x, RelRef, "a relationship").record)


@function("keys", arity=1)
def _keys(ev: Graph, args: list[Any]) -> Any:
    (x,) = args
    if x is None:
        return None
    if isinstance(x, dict):
        return list(x)
    props = ev.properties(_need(x, (NodeRef, RelRef), "a node, relationship or map"))
    return [k for k, v in props.items() if v is not None]


@function("properties", arity=1)
def _properties(ev: Graph, args: list[Any]) -> Any:
    (x,) = args
    if x is None:
        return None
    if isinstance(x, dict):
        return dict(x)
    props = ev.properties(_need(x, (NodeRef, RelRef), "a node, relationship or map"))
    return {k: v for k, v in props.items() if v is not None}


@function("startNode", arity=1)
def _start(ev: Graph, args: list[Any]) -> Any:
    (x,) = args
    return None if x is None else ev.node(_need(x, RelRef, "a relationship").src)


@function("endNode", arity=1)
def _end(ev: Graph, args: list[Any]) -> Any:
    (x,) = args
    return None if x is None else ev.node(_need(x, RelRef, "a relationship").dst)


@function("exists", arity=1)
def _exists(ev: Graph, args: list[Any]) -> Any:
    return args[0] is not None


# ------------------------------------------------------------------------------------- lists


@function("size", arity=1)
def _size(ev: Graph, args: list[Any]) -> Any:
    (x,) = args
    return None if x is None else len(_need(x, (list, str), "a list or string"))


@function("length", arity=1)
def _length(ev: Graph, args: list[Any]) -> Any:
    (x,) = args
    return None if x is None else len(_need(x, (list, str), "a list or string"))


@function("isEmpty", arity=1)
def _is_empty(ev: Graph, args: list[Any]) -> Any:
    (x,) = args
    return None if x is None else len(_need(x, (list, str, dict), "a list, string or map")) == 0


@function("coalesce", arity=(1, 1_000))
def _coalesce(ev: Graph, args: list[Any]) -> Any:
    return next((a for a in args if a is not None), None)


@function("head", arity=1)
def _head(ev: Graph, args: list[Any]) -> Any:
    (x,) = args
    return None if x is None or not _need(x, list, "a list") else x[0]


@function("last", arity=1)
def _last(ev: Graph, args: list[Any]) -> Any:
    (x,) = args
    return None if x is None or not _need(x, list, "a list") else x[-1]


@function("tail", arity=1)
def _tail(ev: Graph, args: list[Any]) -> Any:
    (x,) = args
    return None if x is None else _need(x, list, "a list")[1:]


@function("reverse", arity=1)
def _reverse(ev: Graph, args: list[Any]) -> Any:
    (x,) = args
    return None if x is None else _need(x, (list, str), "a list or string")[::-1]


@function("range", arity=(2, 3))
def _range(ev: Graph, args: list[Any]) -> Any:
    start, end = (_need(a, int, "an integer") for a in args[:2])
    step = _need(args[2], int, "an integer") if len(args) == 3 else 1
    if step == 0:
        raise ArgumentError("the step must not be 0")
    # counted before Python's range is asked its length: past 2**63 items that raised an
    # untyped OverflowError (range(-9223372036854775807, 9223372036854775807))
    span = end - start if step > 0 else start - end
    check_list(max(0, span // abs(step) + 1))
    return list(range(start, end + (1 if step > 0 else -1), step))


# ----------------------------------------------------------------------------------- strings


def _string_fn(fn: Callable[[str], Any]) -> Fn:
    def apply(ev: Graph, args: list[Any]) -> Any:
        (x,) = args
        return None if x is None else fn(_need(x, str, "a string"))

    return apply


for _names, _fn in (
    (("toLower", "lower"), str.lower),
    (("toUpper", "upper"), str.upper),
    (("trim",), str.strip),
    (("ltrim",), str.lstrip),
    (("rtrim",), str.rstrip),
):
    function(*_names, arity=1)(_string_fn(_fn))


@function("replace", arity=3)
def _replace(ev: Graph, args: list[Any]) -> Any:
    if _null_in(args):
        return None
    s, old, new = (_need(a, str, "a string") for a in args)
    if len(new) > len(old):  # the answer's length before it is built
        check_string(len(s) + s.count(old) * (len(new) - len(old)))
    return s.replace(old, new)


@function("substring", arity=(2, 3))
def _substring(ev: Graph, args: list[Any]) -> Any:
    if args[0] is None:
        return None
    s = _need(args[0], str, "a string")
    start = _need(args[1], int, "an integer")
    if start < 0:
        raise ArgumentError("the start must not be negative")
    if len(args) == 3:
        length = _need(args[2], int, "an integer")
        if length < 0:
            raise ArgumentError("the length must not be negative")
        return s[start : start + length]
    return s[start:]


@function("left", arity=2)
def _left(ev: Graph, args: list[Any]) -> Any:
    if args[0] is None:
        return None
    return _need(args[0], str, "a string")[: _need(args[1], int, "an integer")]


@function("right", arity=2)
def _right(ev: Graph, args: list[Any]) -> Any:
    if args[0] is None:
        return None
    s, n = _need(args[0], str, "a string"), _need(args[1], int, "an integer")
    return s[len(s) - n :] if n else ""


@function("split", arity=2)
def _split(ev: Graph, args: list[Any]) -> Any:
    if _null_in(args):
        return None
    s, sep = _need(args[0], str, "a string"), _need(args[1], str, "a string")
    check_list(len(s) if sep == "" else s.count(sep) + 1)  # before the list is built
    return list(s) if sep == "" else s.split(sep)


def to_string(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        if math.isnan(value):
            return "NaN"
        if math.isinf(value):
            return "Infinity" if value > 0 else "-Infinity"
        return repr(value)
    if isinstance(value, datetime):
        return value.isoformat().replace("+00:00", "Z")
    return str(value)


@function("toString", arity=1)
def _to_string(ev: Graph, args: list[Any]) -> Any:
    (x,) = args
    if x is None:
        return None
    if isinstance(x, (list, dict, NodeRef, RelRef)):
        raise ArgumentError(f"cannot convert {type_name(x)} to a string")
    return to_string(x)


@function("toInteger", "toInt", arity=1)
def _to_integer(ev: Graph, args: list[Any]) -> Any:
    (x,) = args
    if x is None:
        return None
    if isinstance(x, bool):
        return int(x)
    if isinstance(x, int):
        return x
    if isinstance(x, float):
        return None if math.isnan(x) or math.isinf(x) else _int64(int(x))
    if isinstance(x, str):
        text = x.strip()
        if _INTEGER_TEXT.fullmatch(text):
            if len(text.lstrip("+-").lstrip("0")) > 19:  # past 64 bits, however long
                raise ArgumentError(OVERFLOW)
            return _int64(int(text))
        try:
            value = float(text)
        except ValueError:
            return None
        return None if math.isnan(value) or math.isinf(value) else _int64(int(value))
    raise ArgumentError(f"cannot convert {type_name(x)} to an integer")


@function("toFloat", arity=1)
def _to_float(ev: Graph, args: list[Any]) -> Any:
    (x,) = args
    if x is None:
        return None
    if is_number(x):
        return float(x)
    if isinstance(x, str):
        try:
            return float(x.strip())
        except ValueError:
            return None
    raise ArgumentError(f"cannot convert {type_name(x)} to a float")


@function("toBoolean", arity=1)
def _to_boolean(ev: Graph, args: list[Any]) -> Any:
    (x,) = args
    if x is None or isinstance(x, bool):
        return x
    if isinstance(x, str):
        return {"true": True, "false": False}.get(x.strip().lower())
    if isinstance(x, int):
        return x != 0
    raise ArgumentError(f"cannot convert {type_name(x)} to a boolean")


# ------------------------------------------------------------------------------------- maths


def _number_fn(fn: Callable[[Any], Any]) -> Fn:
    def apply(ev: Graph, args: list[Any]) -> Any:
        (x,) = args
        if x is None:
            return None
        if not is_number(x):
            raise ArgumentError(f"expected a number, got {type_name(x)}")
        return _int64(fn(x))

    return apply


#: An integer as text (what toInteger() reads as one, before it tries a float).
_INTEGER_TEXT = re.compile(r"[+-]?[0-9]+")


def _int64(value: Any) -> Any:
    """``value``, unless it is an integer past 64 bits (abs() of the lowest, toInteger() of a
    long text): ArgumentError, as Neo4j's overflow."""
    if isinstance(value, int) and not isinstance(value, bool) and not fits_int64(value):
        raise ArgumentError(OVERFLOW)
    return value


def _whole(fn: Callable[[float], int], x: float) -> float:
    """ceil() or floor() as a float; infinity and NaN as they are (Python's raise)."""
    return x if math.isinf(x) or math.isnan(x) else float(fn(x))


def _exp(x: float) -> float:
    try:
        return math.exp(x)
    except OverflowError:  # exp(1000): Neo4j's Infinity, not an untyped error
        return math.inf


def _round(x: float) -> float:
    # openCypher rounds half up (towards positive infinity), not half to even
    return float(math.floor(x + 0.5)) if not (math.isnan(x) or math.isinf(x)) else x


def _sqrt(x: float) -> float:
    return math.sqrt(x) if x >= 0 else math.nan


def _log(fn: Callable[[float], float]) -> Callable[[float], float]:
    return lambda x: fn(x) if x > 0 else (-math.inf if x == 0 else math.nan)


for _names, _fn in (
    (("abs",), abs),
    (("ceil",), lambda x: _whole(math.ceil, x)),
    (("floor",), lambda x: _whole(math.floor, x)),
    (("round",), _round),
    (("sign",), lambda x: (x > 0) - (x < 0)),
    (("sqrt",), _sqrt),
    (("exp",), _exp),
    (("log",), _log(math.log)),
    (("log10",), _log(math.log10)),
):
    function(*_names, arity=1)(_number_fn(_fn))


@function("pi", arity=0)
def _pi(ev: Graph, args: list[Any]) -> Any:
    return math.pi


@function("e", arity=0)
def _e(ev: Graph, args: list[Any]) -> Any:
    return math.e


@function("rand", arity=0)
def _rand(ev: Graph, args: list[Any]) -> Any:
    return random.random()


def _vectors(args: list[Any]) -> tuple[list[float], list[float]] | None:
    if _null_in(args):
        return None
    a, b = (_need(x, list, "a list of numbers") for x in args)
    if len(a) != len(b):
        raise ArgumentError(f"the vectors have {len(a)} and {len(b)} dimensions")
    for item in (*a, *b):
        if not is_number(item):  # a string in one was an untyped TypeError
            raise ArgumentError(f"expected lists of numbers, one holds {type_name(item)}")
    return a, b


@function("vector.similarity.cosine", arity=2)
def _cosine(ev: Graph, args: list[Any]) -> Any:
    """Neo4j's: the cosine mapped to [0, 1], (1 + cos) / 2."""
    pair = _vectors(args)
    if pair is None:
        return None
    a, b = pair
    dot = math.fsum(x * y for x, y in zip(a, b, strict=True))
    norms = math.sqrt(math.fsum(x * x for x in a)) * math.sqrt(math.fsum(y * y for y in b))
    return None if norms == 0 else (1 + dot / norms) / 2


@function("vector.similarity.euclidean", arity=2)
def _euclidean(ev: Graph, args: list[Any]) -> Any:
    """Neo4j's: 1 / (1 + d^2)."""
    pair = _vectors(args)
    if pair is None:
        return None
    a, b = pair
    return 1 / (1 + math.fsum((x - y) ** 2 for x, y in zip(a, b, strict=True)))


# ---------------------------------------------------------------------------------- temporal

TEMPORAL_FIELDS = frozenset(
    {"year", "month", "day", "hour", "minute", "second", "epochSeconds", "epochMillis"}
)


def temporal_field(value: date, key: str) -> Any:
    if key in ("epochSeconds", "epochMillis"):
        if not isinstance(value, datetime):
            return None
        moment = value if value.tzinfo else value.replace(tzinfo=timezone.utc)
        seconds = moment.timestamp()
        return int(seconds) if key == "epochSeconds" else int(seconds * 1000)
    return getattr(value, key, None)


@function("timestamp", arity=0)
def _timestamp(ev: Graph, args: list[Any]) -> Any:
    return int(_time.time() * 1000)


@function("datetime", arity=(0, 1))
def _datetime(ev: Graph, args: list[Any]) -> Any:
    if not args:
        return datetime.now(timezone.utc)
    (x,) = args
    if x is None:
        return None
    try:
        parsed = datetime.fromisoformat(_need(x, str, "an ISO 8601 string").replace("Z", "+00:00"))
    except ValueError:
        raise ArgumentError(f"{x!r} is not an ISO 8601 date-time") from None
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=timezone.utc)
