"""Conversions between Python values and what the tables hold.

* Times are stored as BIGINT microseconds since the Unix epoch, UTC. Every time the caller gives
  (valid time, ``as_of`` instants) must be timezone-aware: a naive datetime is ambiguous and is
  rejected rather than guessed.
* ``props`` are stored as JSON text. Values JSON cannot hold exactly are wrapped in one-key tagged
  objects (``{"$dt": ...}``, ``{"$uuid": ...}``) so that they come back as the same Python type.
"""

from __future__ import annotations

import base64
import gc
import json
import math
import re
import uuid
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from datetime import date, datetime, timedelta, timezone
from typing import Any

import orjson

from .errors import InvalidInput

_EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)

# Tags used inside props JSON; a user dict that happens to be shaped like a tag is escaped.
_TAGS = ("$dt", "$date", "$uuid", "$bytes", "$tuple", "$float", "$esc")
_TAG_SET = frozenset(_TAGS)

MAX_ID_LENGTH = 1024


# ---------------------------------------------------------------------------------------- time


def to_micros(value: datetime, *, what: str) -> int:
    """Aware datetime -> microseconds since the epoch (UTC)."""
    if not isinstance(value, datetime):
        raise InvalidInput(f"{what} must be a datetime, got {type(value).__name__}")
    if value.tzinfo is None or value.tzinfo.utcoffset(value) is None:
        raise InvalidInput(
            f"{what} is a naive datetime ({value.isoformat()}); anatid stores UTC and cannot guess "
            "the zone: pass an aware datetime, e.g. value.replace(tzinfo=timezone.utc)"
        )
    delta = value - _EPOCH
    return (delta.days * 86_400 + delta.seconds) * 1_000_000 + delta.microseconds


def opt_micros(value: datetime | None, *, what: str) -> int | None:
    return None if value is None else to_micros(value, what=what)


def from_micros(value: int | None) -> datetime | None:
    if value is None:
        return None
    # Interned (datetimes are immutable): a read builds four per record, and most records of
    # a store share their instants (one per transaction); the lookup is a tenth of the build.
    known = _INSTANTS.get(value)
    if known is None:
        known = _EPOCH + timedelta(microseconds=int(value))
        if len(_INSTANTS) >= _INTERN_LIMIT:
            _INSTANTS.clear()
        _INSTANTS[value] = known
    return known


def naive_as_utc_micros(value: datetime) -> int:
    """Microseconds of a datetime found inside props, a naive one read as UTC (comparison only)."""
    if value.tzinfo is None or value.tzinfo.utcoffset(value) is None:
        value = value.replace(tzinfo=timezone.utc)
    return to_micros(value, what="datetime")


# ----------------------------------------------------------------------------------------- ids


def check_id(value: object, *, what: str = "id") -> str:
    if not isinstance(value, str):
        raise InvalidInput(f"{what} must be a str, got {type(value).__name__}: {value!r:.80}")
    if not value:
        raise InvalidInput(f"{what} must not be empty")
    if len(value) > MAX_ID_LENGTH:
        raise InvalidInput(f"{what} is {len(value)} characters long; the limit is {MAX_ID_LENGTH}")
    check_text(value, what=what)
    return value


def check_text(value: object, *, what: str) -> str:
    """Text must be valid Unicode without NUL: DuckDB stores UTF-8 and cuts at NUL in places."""
    if not isinstance(value, str):
        raise InvalidInput(f"{what} must be a str, got {type(value).__name__}")
    if "\x00" in value:
        raise InvalidInput(f"{what} contains a NUL character (\\x00); remove it before storing")
    if value.isascii():  # the common case: no surrogate possible, no need to encode
        return value
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise InvalidInput(
            f"{what} is not valid Unicode (a lone surrogate at position {exc.start}); "
            "decode your input with errors='replace' or remove the surrogate"
        ) from None
    return value


def all_fine(texts: tuple[object, ...], ids: tuple[object, ...]) -> bool:
    """Whether :func:`check_text` passes every one of ``texts`` and :func:`check_id` every one of
    ``ids``, decided in one pass over them joined (a record's dozen checks, each building its
    message, cost more than its encoding; Cognee's add_nodes). False says only that one may
    fail: the checks themselves then say which, and why."""
    for value in ids:
        if type(value) is not str or not value or len(value) > MAX_ID_LENGTH:
            return False
    for value in texts:
        if type(value) is not str:
            return False
    joined = "".join(texts + ids)  # type: ignore[arg-type]  (all str, checked above)
    return "\x00" not in joined and (joined.isascii() or _encodes(joined))


def _encodes(value: str) -> bool:
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


# -------------------------------------------------------------------------------------- props


def _encode_value(value: Any, path: str) -> Any:
    # bool before int: bool is an int subclass.
    if value is None or isinstance(value, (bool, str)):
        if isinstance(value, str):
            check_text(value, what=f"property {path}")
        return value
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        if math.isfinite(value):
            return value
        return {"$float": repr(value)}
    if isinstance(value, datetime):
        return {"$dt": value.isoformat()}
    if isinstance(value, date):
        return {"$date": value.isoformat()}
    if isinstance(value, uuid.UUID):
        return {"$uuid": str(value)}
    if isinstance(value, (bytes, bytearray)):
        return {"$bytes": base64.b64encode(bytes(value)).decode("ascii")}
    if isinstance(value, tuple):
        return {"$tuple": [_encode_value(v, f"{path}[{i}]") for i, v in enumerate(value)]}
    if isinstance(value, list):
        return [_encode_value(v, f"{path}[{i}]") for i, v in enumerate(value)]
    if isinstance(value, Mapping):
        out: dict[str, Any] = {}
        for key, item in value.items():
            if not isinstance(key, str):
                raise InvalidInput(
                    f"property {path} has a non-string key {key!r}; JSON objects need str keys"
                )
            check_text(key, what=f"property key in {path}")
            out[key] = _encode_value(item, f"{path}.{key}")
        if len(out) == 1 and next(iter(out)) in _TAGS:
            return {"$esc": out}
        return out
    raise InvalidInput(
        f"property {path} has a value of type {type(value).__name__} that cannot be stored; "
        "use JSON types, datetime, date, UUID or bytes (or convert it to a string)"
    )


# Decoded UUIDs and datetimes are immutable and repeat a lot (node ids inside edge properties, one
# write time per batch), so each text is parsed once: a dict lookup instead of UUID()/
# fromisoformat() on every read. Bounded: cleared when full.
_INTERN_LIMIT = 200_000
_UUIDS: dict[str, uuid.UUID] = {}
_DATETIMES: dict[str, datetime] = {}
_INSTANTS: dict[int, datetime] = {}


def _interned(cache: dict[str, Any], text: str, parse: Any) -> Any:
    value = cache.get(text)
    if value is None:
        value = parse(text)
        if len(cache) >= _INTERN_LIMIT:
            cache.clear()
        cache[text] = value
    return value


def _decode_value(value: Any) -> Any:
    if isinstance(value, list):
        return [_decode_value(v) for v in value]
    if isinstance(value, dict):
        if len(value) == 1 and next(iter(value)) in _TAG_SET:
            return _decode_tagged(value)
        return {k: _decode_value(v) for k, v in value.items()}
    return value


def _decode_tagged(value: dict[str, Any]) -> Any:
    """The value a one-key tag object (``{"$dt": ...}``) encodes. Times and UUIDs first: they
    are nearly every tag a read meets."""
    ((tag, inner),) = value.items()
    if tag == "$dt":
        found = _DATETIMES.get(inner)
        return found if found is not None else _interned(_DATETIMES, inner, datetime.fromisoformat)
    if tag == "$uuid":
        return _interned(_UUIDS, inner, uuid.UUID)
    if tag == "$date":
        return date.fromisoformat(inner)
    if tag == "$bytes":
        return base64.b64decode(inner)
    if tag == "$tuple":
        return tuple(_decode_value(v) for v in inner)
    if tag == "$float":
        return float(inner)
    return {k: _decode_value(v) for k, v in inner.items()}  # "$esc"


class _NotPlain(Exception):
    """Raised by the fast encoder for anything it leaves to ``_encode_value``."""


#: The exact types JSON writes as they are: a container holding only these is kept as it is.
#: Its strings are checked in the written text, not one by one (see :func:`_dumps`).
_AS_THEMSELVES = frozenset((str, int, bool, type(None)))


def _encode_fast(value: Any) -> Any:
    """What ``_encode_value`` gives, for values of the exact built-in types (which is what hosts
    write), without building each value's path for an error message that is rarely needed:
    the paths cost more than the encoding (issue 16: Cognee's add_nodes, ~25 values a node).
    A container none of whose values changes is given back as it is, not copied: JSON writes
    it the same. Strings and keys are checked on the written text (:func:`_dumps`). Anything
    else, and any value ``_encode_value`` would refuse, raises ``_NotPlain``."""
    kind = type(value)
    if kind in _AS_THEMSELVES:
        return value
    if kind is dict:
        return _encode_dict(value)
    if kind is list:
        return _encode_items(value)
    if kind is float:
        if not math.isfinite(value):
            return {"$float": repr(value)}
        if value and -_SMALLEST_SAME_FLOAT < value < _SMALLEST_SAME_FLOAT:
            raise _NotPlain  # orjson writes 1e-05 as 0.00001: see _dumps
        return value
    if kind is datetime:
        return {"$dt": value.isoformat()}
    if kind is uuid.UUID:
        return {"$uuid": str(value)}
    if kind is date:
        return {"$date": value.isoformat()}
    if kind is tuple:
        return {"$tuple": _encode_items(list(value))}
    raise _NotPlain


def _encode_dict(value: dict[Any, Any]) -> dict[Any, Any]:
    """A dict's encoding. Its values' types are looked at in one pass in C, and only a dict
    holding something other than strings, ints, booleans and nulls is walked (a call per value
    cost more than the encoding: Cognee's nodes have ~25 keys). A key that is not a str is
    refused by orjson (:func:`_dumps`)."""
    if _AS_THEMSELVES.issuperset(map(type, value.values())):
        result = value
    else:
        changed = _changed_values(value.items())
        result = value if changed is None else {**value, **changed}
    if len(result) == 1 and next(iter(result)) in _TAG_SET:
        return {"$esc": result}
    return result


def _encode_items(value: list[Any]) -> list[Any]:
    """A list's encoding, walked only when it holds something JSON does not write as it is."""
    if _AS_THEMSELVES.issuperset(map(type, value)):
        return value
    changed = _changed_values(enumerate(value))
    if changed is None:
        return value
    out = list(value)
    for at, encoded in changed.items():
        out[at] = encoded
    return out


def _changed_values(entries: Iterable[tuple[Any, Any]]) -> dict[Any, Any] | None:
    """The encodings of the values of ``entries`` (key or position, value) that encoding
    changes, by key (None: none changes)."""
    changed: dict[Any, Any] | None = None
    for at, item in entries:
        if type(item) not in _AS_THEMSELVES:
            encoded = _encode_fast(item)
            if encoded is not item:
                if changed is None:
                    changed = {}
                changed[at] = encoded
    return changed


def encode_props(props: Mapping[str, Any] | None) -> str:
    """``props`` as the store keeps them: JSON text, with the values JSON cannot hold exactly
    as one-key tagged objects (see the module docstring); :func:`decode_props` gives them back
    as the same Python types. ``InvalidInput`` for a value that cannot be stored."""
    if props is None or (isinstance(props, dict) and not props):
        return "{}"
    if not isinstance(props, Mapping):
        raise InvalidInput(f"props must be a mapping, got {type(props).__name__}")
    try:
        try:
            return _dumps(_encode_fast(props))
        except _NotPlain:  # other types, or an error to report with its path
            encoded = _encode_value(props, "props")
    except RecursionError:
        raise InvalidInput(
            "props nest too deeply to store (thousands of levels, or a container that holds "
            "itself); flatten them"
        ) from None
    return _json_dumps(encoded)


#: Floats of smaller magnitude (but 0) are where orjson's text and json's differ (1e-05 against
#: 0.00001); every other float, int up to 64 bits and string gives the same text in both.
_SMALLEST_SAME_FLOAT = 1e-4


def _json_dumps(encoded: Any) -> str:
    return json.dumps(encoded, ensure_ascii=False, separators=(",", ":"), sort_keys=True)


def _dumps(encoded: Any) -> str:
    """The text json writes (``_json_dumps``) for what the fast encoder gives, written by
    orjson, 5-10x faster. The text must not change: it is what the content hash of an
    unchanged re-save is computed from. Raises ``_NotPlain`` for what the checked path must
    decide: orjson refuses a lone surrogate, a key that is not a str, an integer past 64 bits
    and nesting past 255 levels, and writes a NUL as ``\\u0000`` (the text is searched for
    that escape: a string holding it literally takes the checked path too, which stores it)."""
    try:
        text = orjson.dumps(encoded, option=orjson.OPT_SORT_KEYS).decode()
    except TypeError:  # orjson.JSONEncodeError is one
        raise _NotPlain from None
    if "\\u0000" in text:
        raise _NotPlain
    return text


_PLAIN = json.JSONDecoder()


def _tags_in_place(value: Any, decode: Any) -> Any:
    """Freshly parsed JSON with each tagged object replaced by ``decode(tagged)``. The
    containers are new, so they are edited rather than copied (issue 16: every read decodes
    its records' props). Only a one-key object whose key is a tag can be an encoded value: a
    user dict of that shape is stored under "$esc", which ``decode`` unwraps whole."""
    if type(value) is dict:
        if len(value) == 1 and next(iter(value)) in _TAG_SET:
            return decode(value)
        _children_in_place(value, value.items(), decode)
    elif type(value) is list:
        _children_in_place(value, enumerate(value), decode)
    return value


def _children_in_place(container: Any, entries: Any, decode: Any) -> None:
    """The children of a parsed dict or list (``entries``: its key/value pairs) decoded in
    place. A tagged child is decoded here and other non-empty containers walked, not every
    child passed to :func:`_tags_in_place`: a record's props are mostly one level of
    values and tagged datetimes, and the calls cost more than the checks."""
    for at, child in entries:
        kind = type(child)
        if kind is dict:
            if len(child) == 1 and next(iter(child)) in _TAG_SET:
                container[at] = decode(child)
            elif child:
                _children_in_place(child, child.items(), decode)
        elif kind is list and child:
            _children_in_place(child, enumerate(child), decode)


#: Integers past 64 bits come out of orjson as floats of at least this size.
_HUGE = float(2**63)


def _has_huge_float(value: Any) -> bool:
    """Whether parsed JSON holds a float of magnitude 2**63 or more (rare in props)."""
    kind = type(value)
    if kind is float:
        return value >= _HUGE or value <= -_HUGE
    if kind is dict:
        value = value.values()
    elif kind is not list:
        return False
    for v in value:
        k = type(v)
        if (k is float and (v >= _HUGE or v <= -_HUGE)) or (
            (k is dict or k is list) and _has_huge_float(v)
        ):
            return True
    return False


#: Bytes of a text mapped to b"0" (an ASCII digit) or b" " (anything else): a run of 19 zeros
#: in the mapped text is a run of 19 digits in the text, the only place an integer past 64 bits
#: (2**63 has 19 digits), which orjson reads as a float, can be. A C pass over the bytes, where
#: walking every parsed value cost more than the parse itself on bulk reads; a digit run inside
#: a string only sends that text down the exact check.
_DIGIT_MAP = bytes(48 if 48 <= b <= 57 else 32 for b in range(256))
_LONG_RUN = b"0" * 19


def _may_hold_long_integer(text: str) -> bool:
    # find(), not ``in``: CPython 3.11's bytes ``in`` took twice as long here (0.55 against
    # 0.27 us on a 150-byte record), and every decoded record pays it.
    return text.encode("utf-8", "surrogatepass").translate(_DIGIT_MAP).find(_LONG_RUN) >= 0


def _loads(text: str) -> Any:
    """JSON text as Python values. orjson parses 2-3x faster than json (issue 16: the bulk
    reads decode every record's props), but reads integers past 64 bits as floats: a text
    holding a float that large (a big integer, or a big float) is read again by json, exactly."""
    try:
        value = orjson.loads(text)
    except orjson.JSONDecodeError:  # anything else it refuses: json reads it as before
        return _PLAIN.decode(text)
    if _may_hold_long_integer(text) and _has_huge_float(value):
        return _PLAIN.decode(text)
    return value


def decode_props(text: str) -> dict[str, Any]:
    """The props a text of :func:`encode_props` holds, each value of its original type."""
    # Most props hold no tagged values at all: the parse alone gives them.
    if '"$' not in text:
        return _loads(text)
    return _tags_in_place(_loads(text), _decode_tagged)


# ------------------------------------------------------------------------ props as plain JSON
# What ``json.loads(json.dumps(decode_props(text), default=...))`` gives when the default writes
# datetimes/dates as isoformat() and UUIDs as str (how JSON-backed stores such as Cognee's
# LadybugDB return them), read straight from the stored text: the tags already hold those
# strings, so the values are never built only to be written out again (issue 16).


def _plain_tag(tag: str, inner: Any) -> Any:
    if tag in ("$dt", "$date", "$uuid"):
        return inner  # the stored isoformat() / str() text is the plain form
    if tag == "$tuple":
        return list(inner)
    if tag == "$float":
        return float(inner)
    if tag == "$bytes":
        return base64.b64decode(inner)  # no JSON form: kept as bytes
    return None  # "$esc": handled by the caller


def _plain_value(value: Any) -> Any:
    if isinstance(value, list):
        return [_plain_value(v) for v in value]
    if isinstance(value, dict):
        if len(value) == 1:
            ((tag, inner),) = value.items()
            if tag == "$esc":
                return {k: _plain_value(v) for k, v in inner.items()}
            if tag in _TAGS:
                return _plain_tag(tag, _plain_value(inner))
        return {k: _plain_value(v) for k, v in value.items()}
    return value


#: A tagged time, date or UUID, whose plain form is the string it holds: ``{"$dt":"..."}``.
#: Outside a JSON string, since a quote inside one is escaped (``{\"$dt\"``): the match is
#: always a tag object, and one-key user dicts of that shape are under "$esc" (not taken here).
_STRING_TAG = re.compile(r'\{"\$(?:dt|date|uuid)":("[^"\\]*")\}')


def decode_props_plain(text: str) -> dict[str, Any]:
    """Stored props as plain JSON values: datetime/date as ``isoformat()``, UUID as ``str``,
    tuples as lists, non-finite floats as floats, bytes as bytes."""
    if '"$' not in text:
        return _loads(text)
    if _has_other_tags(text):
        return _tags_in_place(
            _loads(text), _plain_value
        )  # tags whose plain form is not their string
    return _loads(_strip_string_tags(text))


def _has_other_tags(text: str) -> bool:
    """Whether the text holds a tag whose plain form is not the string it holds."""
    return '"$esc"' in text or '"$tuple"' in text or '"$float"' in text or '"$bytes"' in text


def _strip_string_tags(text: str) -> str:
    """Times and UUIDs only (the common case: Cognee's updated_at and ids): each tag object is
    replaced by the string it holds, in the text (split on the tag, captured strings kept), so
    that one parse gives the plain values."""
    return "".join(_STRING_TAG.split(text))


def plain_json(text: str) -> str | None:
    """A JSON text whose parse by :func:`loads_plain_json` is ``decode_props_plain(text)``,
    where one is had without parsing: the stored text itself when it holds no tags (the same
    object: no copy), or with its time and UUID tags replaced by their strings; None where
    only :func:`decode_props_plain` decodes it (other tags, or a run of digits that may be an
    integer past 64 bits). Bulk readers keep it per current record, so that a repeated read
    of the whole graph parses each record once and does nothing else (issue 16)."""
    if '"$' in text:
        if _has_other_tags(text):
            return None
        text = _strip_string_tags(text)
    return None if _may_hold_long_integer(text) else text


def loads_plain_json(text: str) -> dict[str, Any]:
    """The props of a :func:`plain_json` text (it holds no integer past 64 bits, so orjson
    reads it exactly; what orjson refuses, json reads, as :func:`_loads` does)."""
    try:
        return orjson.loads(text)
    except orjson.JSONDecodeError:
        return _PLAIN.decode(text)


@contextmanager
def gc_paused() -> Iterator[None]:
    """Hold off Python's cycle collector while a bulk read builds its rows.

    Decoding every record's props allocates hundreds of thousands of containers, each a reason
    for the collector to run; in a process holding a large heap (Cognee's, Graphiti's) its full
    passes over that heap cost more than the decoding (measured: about 2x on ``get_graph_data``
    at 10k nodes / 30k edges). None of these containers forms a cycle, and the collector runs
    as usual afterwards. If it was already off (by the application, or by an outer bulk
    read), it is left off."""
    was_on = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_on:
            _age_young_objects()
            gc.enable()


def _age_young_objects() -> None:
    """After a pause that allocated many containers, move every object the collector tracks
    into its oldest generation, without a pass.

    Re-enabled as is, the collector's next young pass walks everything the bulk operation
    allocated (measured: 77 ms after ``get_graph_data`` at 10k nodes / 30k edges, a fifth of
    the call). Those containers are results, not garbage, and the next full collection still
    sees them like any long-lived data. ``freeze`` + ``unfreeze`` is that move. It also ages
    the application's young objects, whose cycles then wait for a full collection, so a small
    pause (a single-record save) leaves the generations as they are; and it is skipped when
    the application froze objects itself (``gc.freeze`` before forking workers), whose frozen
    set must stay frozen."""
    young = gc.get_count()[0]
    if young > _AGE_AFTER * gc.get_threshold()[0] and gc.get_freeze_count() == 0:
        gc.freeze()
        gc.unfreeze()


#: How many young passes' worth of allocations (``gc.get_threshold()[0]`` each) a pause must
#: leave behind before they are aged at once instead.
_AGE_AFTER = 10


def props_param(value: Any) -> Any:
    """A filter value, converted to what the JSON-extracted side is compared with."""
    if isinstance(value, datetime):
        return naive_as_utc_micros(value)
    if isinstance(value, uuid.UUID):
        return str(value)
    return value
