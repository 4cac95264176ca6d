"""Running a query: the entry point of the Cypher engine (see the package docstring)."""

from __future__ import annotations

from collections.abc import Mapping
from functools import lru_cache
from typing import Any

from ..base.errors import InvalidInput
from .engine import CypherResult, Engine
from .limits import Deadline, timeout_seconds
from .parser import parse
from .shape import Procedure, RecordShape, Shape
from .target import ReadTarget

_RECORDS = RecordShape()

#: A query's syntax tree, kept for the next call of the same text: parsing costs ~0.2 ms, as
#: much as a 2-hop read from memory (issue 35's bench). The engine never changes a tree and
#: keeps its per-run state (bindings, aggregate values) outside it, so a tree is shared.
_parse = lru_cache(maxsize=512)(parse)


def run_cypher(
    target: ReadTarget,
    query: str,
    params: Mapping[str, Any] | None = None,
    *,
    shape: Shape | None = None,
    timeout: float | None = None,
) -> CypherResult:
    """Run read-only ``query`` with ``params`` on a store or view, records shown by ``shape``
    (the core's own record shape by default), within ``timeout`` seconds (else
    ``ANATID_CYPHER_TIMEOUT``, else 30 s: :mod:`.limits`); past it, CypherTimeout."""
    deadline = Deadline(timeout_seconds(timeout))
    if not isinstance(query, str):
        raise InvalidInput(f"a Cypher query is a str, got {type(query).__name__}")
    if params is not None and not isinstance(params, Mapping):
        raise InvalidInput(f"Cypher parameters are a mapping, got {type(params).__name__}")
    tree = _parse(query)
    values = {str(k): parameter_value(v) for k, v in (params or {}).items()}
    return Engine(query, values, target, shape or _RECORDS, deadline).run(tree)


def parameter_value(value: Any) -> Any:
    """A parameter as a Cypher value: tuples (and arrays) are lists, mappings dicts, as the
    Neo4j driver sends them."""
    if isinstance(value, (list, tuple)):
        return [parameter_value(v) for v in value]
    if isinstance(value, Mapping):
        return {str(k): parameter_value(v) for k, v in value.items()}
    tolist = getattr(value, "tolist", None)
    if callable(tolist) and not isinstance(value, (str, bytes)):
        return parameter_value(tolist())
    return value


__all__ = ["CypherResult", "Procedure", "RecordShape", "Shape", "run_cypher"]
