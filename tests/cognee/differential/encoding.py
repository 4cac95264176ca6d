"""Typed JSON for the differential harness: every value written with its Python type.

A backend's output is dumped so that ``"2024-01-01T00:00:00"`` (a str) and
``datetime(2024, 1, 1)`` stay different, and so do a tuple and a list: the harness compares
values *and* types. Non-JSON values become one-key tagged objects (``{"$datetime": ...}``).
A list the host API returns in no promised order is wrapped with :func:`unordered` by the
scenario; the comparison sorts it.
"""

from __future__ import annotations

import dataclasses
import json
import math
from datetime import date, datetime, time
from decimal import Decimal
from enum import Enum
from typing import Any
from uuid import UUID


class Unordered(list):
    """A list whose order the host API does not promise (compared as a multiset)."""


def unordered(items: Any) -> Unordered:
    return Unordered(items)


def deep_unordered(value: Any) -> Any:
    """``value`` with every list in it unordered (for derived views built in storage order)."""
    if isinstance(value, dict):
        return {k: deep_unordered(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return Unordered(deep_unordered(v) for v in value)
    return value


def encode(value: Any) -> Any:
    """``value`` as JSON-able data that keeps its Python type."""
    if value is None or isinstance(value, (bool, str)) or type(value) is int:
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else {"$float": repr(value)}
    if isinstance(value, Enum):
        return {"$enum": f"{type(value).__name__}.{value.name}"}
    if isinstance(value, int):
        return {"$int": type(value).__name__, "value": int(value)}
    if isinstance(value, datetime):
        return {"$datetime": value.isoformat()}
    if isinstance(value, date):
        return {"$date": value.isoformat()}
    if isinstance(value, time):
        return {"$time": value.isoformat()}
    if isinstance(value, UUID):
        return {"$uuid": str(value)}
    if isinstance(value, Decimal):
        return {"$decimal": str(value)}
    if isinstance(value, Unordered):
        return {"$unordered": [encode(v) for v in value]}
    if isinstance(value, tuple):
        return {"$tuple": [encode(v) for v in value]}
    if isinstance(value, list):
        return [encode(v) for v in value]
    if isinstance(value, (set, frozenset)):
        return {"$set": sorted((encode(v) for v in value), key=canonical)}
    if isinstance(value, dict):
        if all(isinstance(k, str) for k in value):
            return {k: encode(v) for k, v in value.items()}
        return {"$dict": [[encode(k), encode(v)] for k, v in value.items()]}
    if hasattr(value, "__table__"):  # a SQLAlchemy row of Cognee's relational store
        columns = [c.key for c in value.__table__.columns]
        return {
            "$row": type(value).__name__,
            "fields": encode({k: getattr(value, k) for k in columns}),
        }
    if hasattr(value, "model_dump"):
        return {"$model": type(value).__name__, "fields": encode(value.model_dump())}
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {"$dataclass": type(value).__name__, "fields": encode(vars(value))}
    if isinstance(value, bytes):
        return {"$bytes": value.hex()}
    return {"$object": type(value).__name__, "repr": repr(value)}


def canonical(value: Any) -> str:
    """A stable text form of encoded data (for sorting and equality)."""
    return json.dumps(value, sort_keys=True, ensure_ascii=False)
