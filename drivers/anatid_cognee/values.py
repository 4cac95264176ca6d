"""Property values as Cognee's reference backend hands them back, and what the store can take.

LadybugDB (Cognee's default graph) keeps a record's properties as one JSON text written with
``cognee.modules.storage.utils.JSONEncoder`` and returns ``json.loads`` of it, and Cognee's own
code is written against that (``visualize_graph`` dumps graph data with the plain ``json``
module, issue 14). So reads give :func:`as_json` of what the core returns: ``datetime`` and
``date`` as ``isoformat()`` strings, ``UUID`` as ``str``, ``Decimal`` as ``float``, tuples as
lists, ``str``/``int``/``float`` subclasses (enums) as the plain type. The core keeps the exact
types; an adapter built with ``exact_values=True`` returns them.

On the way in, :func:`storable` turns the few values JSONEncoder accepts and the core does not
(``Decimal``, non-``str`` dict keys) into what LadybugDB would have stored for them.
"""

from __future__ import annotations

import json
import math
from collections.abc import Container, Mapping
from datetime import date, datetime
from decimal import Decimal
from typing import Any
from uuid import UUID


class _NotJson(TypeError):
    """A value JSON cannot write (``bytes``): the walk in :func:`_walk` handles it."""


def _encode_default(value: Any) -> Any:
    # What cognee.modules.storage.utils.JSONEncoder.default does.
    if isinstance(value, (datetime, date)):
        return value.isoformat()
    if isinstance(value, UUID):
        return str(value)
    if isinstance(value, Decimal):
        return float(value)
    raise _NotJson(type(value).__name__)


def as_json(value: Any) -> Any:
    """``json.loads(json.dumps(value, cls=cognee's JSONEncoder))``: LadybugDB's read of it.

    The round trip runs in the C encoder and decoder (twice as fast as walking the value in
    Python); ``bytes`` (which the core stores and LadybugDB cannot) come back as they are.
    """
    try:
        return json.loads(json.dumps(value, default=_encode_default, ensure_ascii=False))
    except _NotJson:
        return _walk(value)


def _walk(value: Any) -> Any:
    """:func:`as_json` in Python, for values holding ``bytes``."""
    kind = type(value)
    if value is None or kind in (str, int, float, bool):
        return value
    if isinstance(value, Mapping):
        return {_json_key(k): _walk(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_walk(v) for v in value]
    if isinstance(value, (datetime, date, UUID, Decimal)):
        return _encode_default(value)
    if isinstance(value, str):
        return str.__str__(value)
    if isinstance(value, bool):
        return bool(value)
    if isinstance(value, int):
        return int.__int__(value)
    if isinstance(value, float):
        return float.__float__(value)
    return value


def _json_key(key: Any) -> str:
    """A dict key as ``json.dumps`` writes it."""
    if isinstance(key, str):
        return str.__str__(key)
    if key is None or isinstance(key, bool):
        return {None: "null", True: "true", False: "false"}[key]
    if isinstance(key, float) and not math.isfinite(key):
        return "NaN" if math.isnan(key) else ("Infinity" if key > 0 else "-Infinity")
    return repr(float(key)) if isinstance(key, float) else str(int(key))


#: Types ``storable`` passes through as they are (exact types: a subclass takes the checks).
#: Times and UUIDs too: nearly every Cognee node has them, and each would otherwise pay the
#: ``Mapping`` ABC check before reaching the pass-through at the end.
_AS_IS = frozenset((str, int, float, bool, type(None), datetime, date, UUID))


def storable_fields(fields: Mapping[str, Any], skipped: Container[str]) -> dict[str, Any]:
    """``fields`` but ``skipped``, each value :func:`storable`: most are kept as they are, with
    no call per value (Cognee's add_nodes, ~25 fields a node)."""
    as_is = _AS_IS
    return {
        k: v if type(v) in as_is else storable(v) for k, v in fields.items() if k not in skipped
    }


def storable(value: Any) -> Any:
    """``value`` with ``Decimal`` as ``float`` and dict keys as JSON writes them, everything
    else (datetime, UUID, tuple, ...) untouched for the core to keep exactly."""
    kind = type(value)
    if kind in _AS_IS:  # most values: one set lookup instead of several isinstance
        return value
    if kind is list:  # before the Mapping ABC check, which costs more than a short list
        return [v if type(v) in _AS_IS else storable(v) for v in value]
    if kind is dict or isinstance(value, Mapping):  # a plain dict skips the ABC check
        return {(k if isinstance(k, str) else _json_key(k)): storable(v) for k, v in value.items()}
    if isinstance(value, Decimal):
        return float(value)
    if isinstance(value, list):
        return [storable(v) for v in value]
    if isinstance(value, tuple):
        return tuple(storable(v) for v in value)
    return value
