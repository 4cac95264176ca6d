"""Compiling the read filters (groups, labels, ids, ``where``, ``order_by``) to SQL.

Values, names and the JSON paths of property keys (:func:`json_path`) always travel as
parameters; only column names and operators we chose ourselves are spliced into the SQL text.
Every name is checked by the rules of :mod:`anatid_core.base.identifiers` first.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterable, Sequence
from datetime import datetime
from typing import Any

from ..base.codec import check_id, check_text, naive_as_utc_micros, to_micros
from ..base.errors import InvalidInput
from ..base.identifiers import check_group, name_list, prop_keys
from ..base.model import Cond, Kind, Where

_COMMON = {"id": "id", "group": "grp", "name": "name", "text": "text"}
_TIME = {"valid_from", "valid_to", "tx_from", "tx_to"}
_EDGE_ONLY = {"rel": "rel", "src": "src", "dst": "dst"}
#: How each list filter's names are checked, and what the argument is called in messages.
_LIST_CHECKS = {
    "id": ("ids", check_id),
    "grp": ("groups", check_group),
    "name": ("names", check_text),
    "rel": ("rels", check_id),
    "src": ("src", check_id),
    "dst": ("dst", check_id),
}
#: How a value compared with a text column is checked: as that column's names are.
_VALUE_CHECKS = {
    "id": check_id,
    "grp": check_group,
    "name": check_text,
    "text": check_text,
    "rel": check_id,
    "src": check_id,
    "dst": check_id,
}
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
        what, check = _LIST_CHECKS[column]
        wanted = name_list(values, what, check)
        if wanted is None:
            return
        if len(wanted) == 1:
            self.add(f"r.{column} = ?", wanted[0])
        else:
            self.add(f"r.{column} IN (SELECT unnest(?::VARCHAR[]))", wanted)

    def labels_any(self, labels: Iterable[str] | None) -> None:
        wanted = name_list(labels, "labels")
        if wanted is None:
            return
        self.add("list_has_any(r.labels, ?::VARCHAR[])", wanted)

    def where(self, where: Where | None) -> None:
        if where is None:
            return
        if isinstance(where, Cond):
            where = [[where]]
        groups: list[str] = []
        for conjunction in _iterable(where):
            if isinstance(conjunction, Cond):
                raise InvalidInput("where must be a list of lists of Cond (OR of ANDs)")
            parts = [self._cond(c) for c in _iterable(conjunction)]
            groups.append(" AND ".join(parts) if parts else "TRUE")
        if groups:
            self.clauses.append(" OR ".join(f"({g})" for g in groups))

    # ----------------------------------------------------------------------- one condition

    def _cond(self, cond: Cond) -> str:
        if not isinstance(cond, Cond):
            raise InvalidInput(f"where holds {cond!r:.80}, expected Cond(field, op, value)")
        op = cond.op.lower() if isinstance(cond.op, str) else cond.op
        if op not in _OPS:
            raise InvalidInput(f"unknown operator {cond.op!r:.80}; use one of {sorted(_OPS)}")
        if not isinstance(cond.field, str):
            raise InvalidInput(f"a where field must be a str, got {type(cond.field).__name__}")
        if cond.field.startswith("props."):
            return self._props_cond(cond.field, op, cond.value)
        column = self._column(cond.field)
        if op == "contains":
            raise InvalidInput("operator 'contains' applies to list properties (props.<key>)")
        if op in ("is null", "is not null"):
            return f"r.{column} {op.upper()}"
        what = f"where field {cond.field!r}"
        if cond.field in _TIME:
            convert = lambda v: to_micros(v, what=f"where {cond.field}")  # noqa: E731
        else:  # a text column: a str, checked as that column's names are
            convert = _text(what, _VALUE_CHECKS[column])
        return self._compare(f"r.{column}", op, cond.value, convert, what)

    def _column(self, name: str) -> str:
        if name in _COMMON:
            return _COMMON[name]
        if name in _TIME:
            return name
        if name in _EDGE_ONLY:
            if self.kind != "edge":
                raise InvalidInput(f"field {name!r:.80} exists on edges only")
            return _EDGE_ONLY[name]
        raise InvalidInput(
            f"unknown field {name!r:.80}; use id, group, name, text, rel, src, dst, valid_from, "
            "valid_to, tx_from, tx_to or props.<key>"
        )

    def _props_cond(self, field: str, op: str, value: Any) -> str:
        what = f"where field {field!r:.80}"
        dotted = field[len("props.") :]
        path = json_path(dotted, what=what)
        # Each ``?`` of the expression is bound to a path, in the order they appear; the
        # comparison adds its value before or after them (see _compare).
        if op == "contains":
            # A list property holding this string (e.g. tags, source refs); scalars never match.
            if not isinstance(value, str):
                raise InvalidInput(f"operator 'contains' needs a string value, got {value!r:.80}")
            self.params.extend([path, path + "[*]", _param(value)])
            return (
                "json_type(r.props, ?) = 'ARRAY' AND "
                "list_contains(json_extract_string(r.props, ?), ?)"
            )
        if op in ("is null", "is not null"):
            self.params.append(path)
            base = "json_extract_string(r.props, ?) IS NULL"
            return base if op == "is null" else f"NOT ({base})"
        if op in ("in", "not in"):
            sample = next(iter(_listed_values(op, value)), None)
        else:
            sample = value
        if isinstance(sample, bool):
            expr = "TRY_CAST(json_extract_string(r.props, ?) AS BOOLEAN)"
            convert = bool
        elif isinstance(sample, (int, float)):
            expr = "TRY_CAST(json_extract_string(r.props, ?) AS DOUBLE)"
            convert = float
        elif isinstance(sample, datetime):
            expr = "epoch_us(TRY_CAST(json_extract_string(r.props, ?) AS TIMESTAMP))"
            path = json_path(dotted, "$dt", what=what)
            convert = naive_as_utc_micros
        elif isinstance(sample, uuid.UUID):
            # A UUID property is stored tagged (see codec): compare the tagged text.
            expr = "json_extract_string(r.props, ?)"
            path = json_path(dotted, "$uuid", what=what)
            convert = str
        else:
            expr = "json_extract_string(r.props, ?)"
            convert = _text(what, check_text, numbers=True)
        return self._compare(expr, op, value, convert, what, path)

    def _compare(
        self, expr: str, op: str, value: Any, convert: Any, what: str, *expr_params: Any
    ) -> str:
        """``expr op ?``; ``expr_params`` are the parameters of ``expr``'s own ``?``."""
        if op in ("in", "not in"):
            values = [_param(_converted(convert, v, what)) for v in _listed_values(op, value)]
            self.params.extend([values, *expr_params])
            negate = "NOT " if op == "not in" else ""
            return f"{negate}list_contains(?, {expr})"
        if value is None:
            raise InvalidInput(f"operator {op!r} needs a value; use 'is null' to test for null")
        self.params.extend([*expr_params, _param(_converted(convert, value, what))])
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


def json_path(dotted: str, *extra: str, what: str = "a property path") -> str:
    """``a.b`` -> ``$."a"."b"``, a JSON path to bind as a parameter (``what`` names the
    argument in messages). The keys are checked (:func:`~anatid_core.base.identifiers.prop_keys`)
    and each is quoted, backslash and double quote escaped, so a key may hold any character
    but the dot that separates keys."""
    quoted = []
    for key in [*prop_keys(dotted, what=what), *extra]:
        escaped = key.replace("\\", "\\\\").replace('"', '\\"')
        quoted.append(f'"{escaped}"')
    return "$." + ".".join(quoted)


def order_sql(order_by: str | Sequence[str] | None, kind: Kind) -> tuple[str, list[str]]:
    """``"-valid_from"`` -> ``r.valid_from DESC NULLS LAST``; ties always broken by id. Returns
    the clause and the parameters of its ``?`` (the JSON paths of ``props.`` keys)."""
    if order_by is None:
        return "r.id", []
    if not isinstance(order_by, (str, list, tuple)):
        raise InvalidInput(
            f"order_by must be a str or a list of str, got {type(order_by).__name__}"
        )
    keys = [order_by] if isinstance(order_by, str) else list(order_by)
    parts: list[str] = []
    params: list[str] = []
    probe = SqlFilter(kind)
    for key in keys:
        if not isinstance(key, str):
            raise InvalidInput(f"order_by keys must be str, got {type(key).__name__}")
        desc = key.startswith("-")
        name = key[1:] if desc else key
        direction = "DESC" if desc else "ASC"
        if name.startswith("props."):
            dotted = name[len("props.") :]
            what = f"order_by key {key!r:.80}"
            path = json_path(dotted, what=what)
            exprs = [
                "epoch_us(TRY_CAST(json_extract_string(r.props, ?) AS TIMESTAMP))",
                "TRY_CAST(json_extract_string(r.props, ?) AS DOUBLE)",
                "json_extract_string(r.props, ?)",
            ]
            params.extend([json_path(dotted, "$dt", what=what), path, path])
            parts.extend(f"{e} {direction} NULLS LAST" for e in exprs)
        else:
            parts.append(f"r.{probe._column(name)} {direction} NULLS LAST")
    if not any(k.lstrip("-") == "id" for k in keys):
        parts.append("r.id")
    return ", ".join(parts), params


def _listed_values(op: str, value: Any) -> list[Any]:
    if not isinstance(value, (list, tuple, set, frozenset)):
        raise InvalidInput(f"operator {op!r} needs a list of values, got {value!r:.80}")
    return list(value)


def _text(what: str, check: Callable[..., str], *, numbers: bool = False) -> Callable[[Any], str]:
    """The conversion of a value compared with text: a str, checked by ``check``. With
    ``numbers``, an int or float is compared as its text (``["a", 1]`` over a property: the
    JSON text of a stored 1 is "1")."""

    def convert(value: Any) -> str:
        if numbers and isinstance(value, (int, float)) and not isinstance(value, bool):
            return str(value)
        if not isinstance(value, str):
            raise InvalidInput(
                f"{what} holds text: compare it with a str, not {type(value).__name__} "
                f"{value!r:.80}"
            )
        return check(value, what=f"the value compared with {what}")

    return convert


def _converted(convert: Callable[[Any], Any], value: Any, what: str) -> Any:
    """``convert(value)``, a value that does not convert being InvalidInput (``float("a")``
    among numbers, say)."""
    try:
        return convert(value)
    except (TypeError, ValueError, OverflowError) as exc:
        if isinstance(exc, InvalidInput):
            raise
        raise InvalidInput(
            f"{what}: {value!r:.80} cannot be compared as the other values are ({exc}); "
            "compare values of one type"
        ) from None


def _iterable(value: Any) -> Iterable[Any]:
    if isinstance(value, (str, bytes)) or not isinstance(value, Iterable):
        raise InvalidInput(
            f"where must be a list of lists of Cond (OR of ANDs); found a {type(value).__name__}"
        )
    return value


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
