"""Running a query: the entry point of the Cypher engine (see the package docstring)."""

from __future__ import annotations

from collections.abc import Mapping
from functools import lru_cache
from typing import Any

from ..base.codec import gc_paused
from ..base.errors import CypherLimitExceeded, InvalidInput
from .engine import CypherResult, Engine, Pause
from .limits import LIMITS, Deadline, timeout_seconds
from .parser import parse
from .scope import Analysis, analyse
from .shape import Procedure, RecordShape, Shape
from .syntax import Query
from .target import ReadTarget
from .values import fits_int64

_RECORDS = RecordShape()


#: A query's syntax tree, kept for the next call of the same text: parsing costs ~0.2 ms, as
#: much as a 2-hop read from memory (issue 35's bench). The engine never changes a tree and
#: keeps its per-run state (bindings, aggregate values) outside it, so a tree is shared.
@lru_cache(maxsize=512)
def _parse(query: str) -> tuple[Query, Analysis]:
    """The syntax tree and what the text alone says of it (:mod:`.scope`): an unknown
    variable is refused here, before any read, whatever the data."""
    tree = parse(query)
    return tree, analyse(tree, query)


def run_cypher(
    target: ReadTarget,
    query: str,
    params: Mapping[str, Any] | None = None,
    *,
    shape: Shape | None = None,
    timeout: float | None = None,
    pause: Pause | None = None,
) -> CypherResult:
    """Run read-only ``query`` with ``params`` on a store or view, records shown by ``shape``
    (the core's own record shape by default), within ``timeout`` seconds (else
    ``ANATID_CYPHER_TIMEOUT``, else 30 s: :mod:`.limits`); past it, CypherTimeout. ``pause``
    (the store's) lets other processes have the file while the query runs."""
    deadline = Deadline(timeout_seconds(timeout))
    if not isinstance(query, str):
        raise InvalidInput(f"a Cypher query is a str, got {type(query).__name__}")
    if params is not None and not isinstance(params, Mapping):
        raise InvalidInput(f"Cypher parameters are a mapping, got {type(params).__name__}")
    try:
        tree, analysis = _parse(query)
        values = {str(k): parameter_value(v) for k, v in (params or {}).items()}
        # The rows, partial matches and records a query builds form no cycles (the engine's
        # own parts do, and release() breaks them); beside the in-memory current records
        # (millions of objects at 100k facts) each pass of the cycle collector they trigger
        # cost more than the query (issue 42: a third of a filtered LIMIT 10 at 100k facts).
        # The collector runs as before afterwards.
        engine = Engine(query, values, target, shape or _RECORDS, deadline, pause, analysis)
        with gc_paused():
            try:
                return engine.run(tree)
            finally:
                engine.release()  # before the collector is back: it finds nothing young
    except RecursionError:
        # LIMITS["depth"] keeps a query within Python's stack from a shallow caller; one that
        # calls from deep in its own stack can still run out first
        raise CypherLimitExceeded(
            "the Cypher query nests too deeply for the Python stack it was called from "
            f"(anatid's bound is {int(LIMITS['depth'])} levels); flatten it",
            limit="depth",
        ) from None


def parameter_value(value: Any, depth: int = 0) -> Any:
    """A parameter as a Cypher value: tuples (and arrays) are lists, mappings dicts, as the
    Neo4j driver sends them. Nested deeper than ``LIMITS["depth"]``: CypherLimitExceeded."""
    if depth > LIMITS["depth"]:
        raise CypherLimitExceeded(
            f"a Cypher parameter nests lists or maps more than {int(LIMITS['depth'])} levels "
            "deep; flatten it (anatid_core.cypher.limits.LIMITS['depth'] sets the bound)",
            limit="depth",
        )
    if isinstance(value, (list, tuple)):
        return [parameter_value(v, depth + 1) for v in value]
    if isinstance(value, Mapping):
        return {str(k): parameter_value(v, depth + 1) for k, v in value.items()}
    if value.__class__ is int and not fits_int64(value):
        raise InvalidInput(
            f"a Cypher integer parameter is a 64-bit integer, got one of {value.bit_length()} "
            "bits (as the Neo4j driver refuses it); send a float or a string"
        )
    tolist = getattr(value, "tolist", None)
    if callable(tolist) and not isinstance(value, (str, bytes)):
        return parameter_value(tolist(), depth)
    return value


__all__ = ["CypherResult", "Procedure", "RecordShape", "Shape", "run_cypher"]
