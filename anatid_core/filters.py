"""Compiling the read filters (groups, labels, ids, ``where``, ``order_by``) to SQL.

Values always travel as parameters; only column names we chose ourselves and JSON paths built
from quoted keys are spliced into the SQL text.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Sequence
from datetime import datetime
from typing import Any

from .codec import check_text, naive_as_utc_micros, to_micros
from .errors import InvalidInput
from .model import Cond, Kind, Where

_COMMON = {"id": "id", "group": "grp", "name": "name", "text": "text"}
_TIME = {"valid_from", "valid_to", "tx_from", "tx_to"}
_EDGE_ONLY = {"rel": "rel", "src": "src", "dst": "dst"}
_OPS = {
    "=",
    "!=",
    "<",
    "<=",
    ">",
    ">=",
    "in",
    "not in",
    "is null",
    "is not null",
    "contains",
}


class SqlFilter:
    """Accumulates ``AND``-ed predicates over the record alias ``r`` and their parameters."""

    def __init__(self, kind: Kind) -> None:
        if kind not in ("node", "edge"):
            raise InvalidInput(f"kind must be 'node' or 'edge', got {kind!r:.40}")
        self.kind = kind
        self.clauses: list[str] = []
        self.params: list[Any] = []

    def add(self, clause: str, *params: Any) -> None:
        self.clauses.append(clause)
        self.params.extend(params)

    def sql(self) -> str:
        return " AND ".join(f"({c})" for c in self.clauses) if self.clauses else "TRUE"

    # ------------------------------------------------------------------- simple list filters

    def any_of(self, column: str, values: Iterable[str] | None) -> None:
        if values is None:
            return
        wanted = _strings(values, column)
        if len(wanted) == 1:
            self.add(f"r.{column} = ?", wanted[0])
        else:
            self.add(f"r.{column} IN (SELECT unnest(?::VARCHAR[]))", wanted)

    def labels_any(self, labels: Iterable[str] | None) -> None:
        if labels is None:
            return
        wanted = _strings(labels, "labels")
        self.add("list_has_any(r.labels, ?::VARCHAR[])", wanted)

    def where(self, where: Where | None) -> None:
        if where is None:
            return
        if isinstance(where, Cond):
            where = [[where]]
        groups: list[str] = []
        for conjunction in where:
            if isinstance(conjunction, Cond):
                raise InvalidInput("where must be a list of lists of Cond (OR of ANDs)")
            parts = [self._cond(c) for c in conjunction]
            groups.append(" AND ".join(parts) if parts else "TRUE")
        if groups:
            self.clauses.append(" OR ".join(f"({g})" for g in groups))

    # ----------------------------------------------------------------------- one condition

    def _cond(self, cond: Cond) -> str:
        if not isinstance(cond, Cond):
            raise InvalidInput(f"where holds {cond!r}, expected Cond(field, op, value)")
        op = cond.op.lower() if isinstance(cond.op, str) else cond.op
        if op not in _OPS:
            raise InvalidInput(f"unknown operator {cond.op!r}; use one of {sorted(_OPS)}")
        if cond.field.startswith("props."):
            return self._props_cond(cond.field[len("props.") :], op, cond.value)
        column = self._column(cond.field)
        if op == "contains":
            raise InvalidInput("operator 'contains' applies to list properties (props.<key>)")
        if op in ("is null", "is not null"):
            return f"r.{column} {op.upper()}"
        if cond.field in _TIME:
            convert = lambda v: to_micros(v, what=f"where {cond.field}")  # noqa: E731
        else:
            convert = lambda v: v  # noqa: E731
        return self._compare(f"r.{column}", op, cond.value, convert)

    def _column(self, name: str) -> str:
        if name in _COMMON:
            return _COMMON[name]
        if name in _TIME:
            return name
        if name in _EDGE_ONLY:
            if self.kind != "edge":
                raise InvalidInput(f"field {name!r} exists on edges only")
            return _EDGE_ONLY[name]
        raise InvalidInput(
            f"unknown field {name!r}; use id, group, name, text, rel, src, dst, valid_from, "
            "valid_to, tx_from, tx_to or props.<key>"
        )

    def _props_cond(self, dotted: str, op: str, value: Any) -> str:
        path = json_path(dotted)
        if op == "contains":
            # A list property holding this string (e.g. tags, source refs); scalars never match.
            if not isinstance(value, str):
                raise InvalidInput(f"operator 'contains' needs a string value, got {value!r:.80}")
            self.params.append(_param(value))
            return (
                f"json_type(r.props, '{path}') = 'ARRAY' AND "
                f"list_contains(json_extract_string(r.props, '{path}[*]'), ?)"
            )
        if op in ("is null", "is not null"):
            base = f"json_extract_string(r.props, '{path}') IS NULL"
            return base if op == "is null" else f"NOT ({base})"
        sample = value[0] if op in ("in", "not in") and value else value
        if isinstance(sample, bool):
            expr = f"TRY_CAST(json_extract_string(r.props, '{path}') AS BOOLEAN)"
            convert = bool
        elif isinstance(sample, (int, float)):
            expr = f"TRY_CAST(json_extract_string(r.props, '{path}') AS DOUBLE)"
            convert = float
        elif isinstance(sample, datetime):
            expr = f"epoch_us(TRY_CAST(json_extract_string(r.props, '{json_path(dotted, '$dt')}') AS TIMESTAMP))"
            convert = naive_as_utc_micros
        elif isinstance(sample, uuid.UUID):
            # A UUID property is stored tagged (see codec): compare the tagged text.
            expr = f"json_extract_string(r.props, '{json_path(dotted, '$uuid')}')"
            convert = str
        else:
            expr = f"json_extract_string(r.props, '{path}')"
            convert = str
        return self._compare(expr, op, value, convert)

    def _compare(self, expr: str, op: str, value: Any, convert: Any) -> str:
        if op in ("in", "not in"):
            if not isinstance(value, (list, tuple, set, frozenset)):
                raise InvalidInput(f"operator {op!r} needs a list of values, got {value!r:.80}")
            values = [_param(convert(v)) for v in value]
            self.params.append(values)
            negate = "NOT " if op == "not in" else ""
            return f"{negate}list_contains(?, {expr})"
        if value is None:
            raise InvalidInput(f"operator {op!r} needs a value; use 'is null' to test for null")
        self.params.append(_param(convert(value)))
        return f"{expr} {'<>' if op == '!=' else op} ?"


def record_filter(
    kind: Kind,
    *,
    visible: str | None = None,
    ids: Iterable[str] | None = None,
    groups: Iterable[str] | None = None,
    labels: Iterable[str] | None = None,
    rels: Iterable[str] | None = None,
    names: Iterable[str] | None = None,
    src: Iterable[str] | None = None,
    dst: Iterable[str] | None = None,
    where: Where | None = None,
) -> SqlFilter:
    """The filter of a read or a bulk write: ``visible`` (a visibility predicate) first, then the
    list filters. Labels filter nodes; rels, src and dst filter edges: the wrong one is refused."""
    f = SqlFilter(kind)
    if visible is not None:
        f.add(visible)
    f.any_of("id", ids)
    f.any_of("grp", groups)
    f.any_of("name", names)
    if kind == "node":
        if rels is not None or src is not None or dst is not None:
            raise InvalidInput("rels, src and dst filter edges, not nodes")
        f.labels_any(labels)
    else:
        if labels is not None:
            raise InvalidInput("labels filter nodes; filter edges with rels")
        f.any_of("rel", rels)
        f.any_of("src", src)
        f.any_of("dst", dst)
    f.where(where)
    return f


def page_sql(limit: int | None, offset: int) -> tuple[str, list[int]]:
    """`` LIMIT ? OFFSET ?`` (either part only when asked for) and its parameters; a limit or
    offset that is not an int >= 0 is refused."""
    sql, params = "", []
    if limit is not None:
        if not isinstance(limit, int) or isinstance(limit, bool) or limit < 0:
            raise InvalidInput(f"limit must be an int >= 0 (or None), got {limit!r:.40}")
        sql += " LIMIT ?"
        params.append(int(limit))
    if not isinstance(offset, int) or isinstance(offset, bool) or offset < 0:
        raise InvalidInput(f"offset must be an int >= 0, got {offset!r:.40}")
    if offset:
        sql += " OFFSET ?"
        params.append(int(offset))
    return sql, params


def json_path(dotted: str, *extra: str) -> str:
    """``a.b`` -> ``$."a"."b"``, each key quoted (so keys may hold dots' neighbours, spaces, quotes)."""
    keys = [k for k in dotted.split(".")] + list(extra)
    if not dotted or any(not k for k in keys):
        raise InvalidInput(f"bad property path {dotted!r}; write props.key or props.key.subkey")
    quoted = []
    for key in keys:
        escaped = key.replace("\\", "\\\\").replace('"', '\\"').replace("'", "''")
        quoted.append(f'"{escaped}"')
    return "$." + ".".join(quoted)


def order_sql(order_by: str | Sequence[str] | None, kind: Kind) -> str:
    """``"-valid_from"`` -> ``r.valid_from DESC NULLS LAST``; ties always broken by id."""
    if order_by is None:
        return "r.id"
    keys = [order_by] if isinstance(order_by, str) else list(order_by)
    parts: list[str] = []
    probe = SqlFilter(kind)
    for key in keys:
        desc = key.startswith("-")
        name = key[1:] if desc else key
        direction = "DESC" if desc else "ASC"
        if name.startswith("props."):
            dotted = name[len("props.") :]
            dt = json_path(dotted, "$dt")
            path = json_path(dotted)
            exprs = [
                f"epoch_us(TRY_CAST(json_extract_string(r.props, '{dt}') AS TIMESTAMP))",
                f"TRY_CAST(json_extract_string(r.props, '{path}') AS DOUBLE)",
                f"json_extract_string(r.props, '{path}')",
            ]
            parts.extend(f"{e} {direction} NULLS LAST" for e in exprs)
        else:
            parts.append(f"r.{probe._column(name)} {direction} NULLS LAST")
    if not any(k.lstrip("-") == "id" for k in keys):
        parts.append("r.id")
    return ", ".join(parts)


def _strings(values: Iterable[str], what: str) -> list[str]:
    if isinstance(values, str):
        raise InvalidInput(f"{what} must be a list of strings, not a single string {values!r:.80}")
    out = list(values)
    for v in out:
        if not isinstance(v, str):
            raise InvalidInput(f"{what} must hold strings, got {type(v).__name__}: {v!r:.80}")
        check_text(v, what=f"a filter value for {what}")
    return out


def _param(value: Any) -> Any:
    """A filter value as a query parameter: a scalar, valid text (else InvalidInput)."""
    if isinstance(value, str):
        return check_text(value, what="a where value")
    if value is None or isinstance(value, (bool, int, float)):
        return value
    raise InvalidInput(
        f"a where value of type {type(value).__name__} cannot be compared; use str, int, "
        "float, bool, an aware datetime or a UUID"
    )
