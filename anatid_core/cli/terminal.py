"""Plain-text output for the ``anatid`` command line: aligned tables, times, JSON-ready values.

Standard library only (the core's layering rule), so no rich: columns are padded by hand and
long cells are cut with an ellipsis so one record stays on one line.
"""

from __future__ import annotations

import base64
import json
import math
import re
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import fields, is_dataclass
from datetime import date, datetime, timezone
from typing import Any

_SPACES = re.compile(r"\s+")


def fmt_time(value: datetime | None, *, open_end: str = "-") -> str:
    """ISO 8601 in UTC with a ``Z``; microseconds only when there are any (tx times have them)."""
    if value is None:
        return open_end
    value = value.astimezone(timezone.utc)
    text = value.strftime("%Y-%m-%dT%H:%M:%S")
    if value.microsecond:
        text += f".{value.microsecond:06d}"
    return text + "Z"


def parse_time(text: str, *, option: str) -> datetime:
    """An ISO 8601 date or date-time; one without a zone is read as UTC (and said so in --help)."""
    raw = text.strip()
    if raw.endswith(("Z", "z")):
        raw = raw[:-1] + "+00:00"  # Python 3.10's fromisoformat does not take Z
    try:
        value = datetime.fromisoformat(raw)
    except ValueError:
        raise ValueError(
            f"{option}: cannot read {text!r} as a time; use ISO 8601, "
            "e.g. 2024-05-01 or 2024-05-01T12:30:00Z"
        ) from None
    if value.tzinfo is None:
        value = value.replace(tzinfo=timezone.utc)
    return value


def one_line(value: str, width: int) -> str:
    """Collapse whitespace and cut to ``width`` characters with an ellipsis."""
    flat = _SPACES.sub(" ", value).strip()
    if width > 0 and len(flat) > width:
        return flat[: max(width - 1, 0)] + "…"
    return flat


def table(headers: Sequence[str], rows: Sequence[Sequence[Any]], *, indent: str = "") -> str:
    """Left-aligned columns two spaces apart; numbers right-aligned. The last column is not padded."""
    cells = [[str(h) for h in headers]] + [["" if c is None else str(c) for c in r] for r in rows]
    numeric = [
        all(isinstance(r[i], (int, float)) and not isinstance(r[i], bool) for r in rows)
        for i in range(len(headers))
    ]
    widths = [max(len(row[i]) for row in cells) for i in range(len(headers))]
    lines = []
    for row in cells:
        parts = []
        for i, cell in enumerate(row):
            if i == len(row) - 1 and not numeric[i]:
                parts.append(cell)
            elif numeric[i]:
                parts.append(cell.rjust(widths[i]))
            else:
                parts.append(cell.ljust(widths[i]))
        lines.append(indent + "  ".join(parts).rstrip())
    return "\n".join(lines)


def pairs(items: Sequence[tuple[str, Any]], *, indent: str = "") -> str:
    """``key  value`` lines with the keys padded to one width; a value of several lines (a
    summary with paragraphs) continues under its first line, not at the left margin."""
    if not items:
        return ""
    width = max(len(k) for k, _ in items)
    under = indent + " " * (width + 2)
    lines = []
    for k, v in items:
        first, *rest = str(v).splitlines() or [""]
        lines.append(f"{indent}{k.ljust(width)}  {first}".rstrip())
        lines += [(under + line).rstrip() for line in rest]
    return "\n".join(lines)


def plain(value: Any) -> Any:
    """A JSON-ready copy: datetimes as ISO strings, UUIDs as str, bytes as base64, tuples as lists.

    For people and other tools: exports are meant to be read, not restored bit for bit (the
    store file itself is the exact backup)."""
    if isinstance(value, float) and not math.isfinite(value):
        return repr(value)  # JSON has no inf/nan
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, datetime):
        return value.isoformat()
    if isinstance(value, date):
        return value.isoformat()
    if isinstance(value, uuid.UUID):
        return str(value)
    if isinstance(value, (bytes, bytearray)):
        return base64.b64encode(bytes(value)).decode("ascii")
    if isinstance(value, Mapping):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    if is_dataclass(value) and not isinstance(value, type):
        return {f.name: plain(getattr(value, f.name)) for f in fields(value)}
    return str(value)


def to_json(value: Any, *, indent: int | None = None) -> str:
    return json.dumps(plain(value), ensure_ascii=False, indent=indent, allow_nan=False)


def human_bytes(size: int) -> str:
    value = float(size)
    for unit in ("B", "KiB", "MiB", "GiB"):
        if value < 1024 or unit == "GiB":
            return f"{size} B" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1024
    return f"{size} B"
