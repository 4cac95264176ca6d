"""Running a query: the entry point of the Cypher engine (see the package docstring)."""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from ..base.codec import gc_paused
from ..base.deadlines import running_until
from ..base.errors import CypherLimitExceeded, InvalidInput
from .engine import CypherResult, Engine, Pause
from .limits import LIMITS, Deadline, timeout_seconds
from .parser import parse
from .rewrite import rewrite
from .scope import Analysis, analyse
from .shape import Procedure, RecordShape, Shape
from .syntax import Query
from .target import ReadTarget
from .values import fits_int64

_RECORDS = RecordShape()


#: Syntax trees, kept for the next call of the same text (the last ``PARSED`` texts): parsing
#: costs ~0.2 ms, as much as a 2-hop read from memory (issue 35's bench). The engine never
#: changes a tree and keeps its per-run state (bindings, aggregate values) outside it, so a
#: tree is shared.
_PARSED: dict[str, tuple[Query, Analysis]] = {}
PARSED = 512
#: Held while the cache changes: queries run on several threads (Graphiti's workers beside its
#: event loop), and a dict iterated while another thread resizes it raises RuntimeError. The
#: parse itself runs outside it.
_PARSED_LOCK = threading.Lock()


def _parse(query: str, check: Callable[[], None]) -> tuple[Query, Analysis]:
    """The syntax tree and what the text alone says of it (:mod:`.scope`): an unknown
    variable is refused here, before any read, whatever the data. ``check`` is the query's
    deadline: a text of megabytes takes seconds to read (a million ORs, 45 s)."""
    with _PARSED_LOCK:
        found = _PARSED.pop(query, None)
    if found is None:
        tree = parse(query, check)
        rewrite(tree)  # (before the analysis: it plans the tree that runs)
        found = (tree, analyse(tree, query, check))
    with _PARSED_LOCK:
        while len(_PARSED) >= PARSED:
            del _PARSED[next(iter(_PARSED))]  # the oldest
        _PARSED[query] = found  # the newest
    return found


def forget_parsed() -> None:
    """Drop the kept syntax trees, and with them what each run chose once (the engine's
    plans, kept in their :class:`Analysis`): the next call of a text parses and plans again."""
    with _PARSED_LOCK:
        _PARSED.clear()


@dataclass(frozen=True)
class Prepared:
    """A query read and checked, its parameters converted, its deadline running: all that
    needs no file (:meth:`anatid_core.reads.Reader.cypher` prepares before it takes the
    file, so a long text keeps no other process waiting)."""

    text: str
    tree: Query
    analysis: Analysis
    values: dict[str, Any]
    deadline: Deadline


def prepare_cypher(
    query: str, params: Mapping[str, Any] | None = None, *, timeout: float | None = None
) -> Prepared:
    """``query`` parsed and checked and ``params`` converted, within ``timeout`` seconds (else
    ``ANATID_CYPHER_TIMEOUT``, else 30 s: :mod:`.limits`), which go on running for
    :func:`run_prepared`."""
    deadline = Deadline(timeout_seconds(timeout))
    if not isinstance(query, str):
        raise InvalidInput(f"a Cypher query is a str, got {type(query).__name__}")
    if params is not None and not isinstance(params, Mapping):
        raise InvalidInput(f"Cypher parameters are a mapping, got {type(params).__name__}")
    try:
        tree, analysis = _parse(query, deadline.check)
    except RecursionError:
        raise _too_deep() from None
    values = {str(k): parameter_value(v) for k, v in (params or {}).items()}
    return Prepared(query, tree, analysis, values, deadline)


def run_prepared(
    target: ReadTarget,
    prepared: Prepared,
    *,
    shape: Shape | None = None,
    pause: Pause | None = None,
) -> CypherResult:
    """Run a prepared read-only query on a store or view, records shown by ``shape`` (the
    core's own record shape by default), until its deadline; past it, CypherTimeout.
    ``pause`` (the store's) lets other processes have the file while the query runs."""
    text, values, deadline = prepared.text, prepared.values, prepared.deadline
    engine = Engine(text, values, target, shape or _RECORDS, deadline, pause, prepared.analysis)
    try:
        # The rows, partial matches and records a query builds form no cycles (the engine's
        # own parts do, and release() breaks them); beside the in-memory current records
        # (millions of objects at 100k facts) each pass of the cycle collector they trigger
        # cost more than the query (issue 42: a third of a filtered LIMIT 10 at 100k facts).
        # The collector runs as before afterwards.
        # Under its deadline too is what the reads set off (the first read of a kind builds
        # its in-memory records: base.deadlines).
        with gc_paused(), running_until(deadline):
            try:
                return engine.run(prepared.tree)
            finally:
                engine.release()  # before the collector is back: it finds nothing young
    except RecursionError:
        raise _too_deep() from None


def run_cypher(
    target: ReadTarget,
    query: str,
    params: Mapping[str, Any] | None = None,
    *,
    shape: Shape | None = None,
    timeout: float | None = None,
    pause: Pause | None = None,
) -> CypherResult:
    """:func:`prepare_cypher` then :func:`run_prepared`."""
    prepared = prepare_cypher(query, params, timeout=timeout)
    return run_prepared(target, prepared, shape=shape, pause=pause)


def _too_deep() -> CypherLimitExceeded:
    # LIMITS["depth"] keeps a query within Python's stack from a shallow caller; one that
    # calls from deep in its own stack can still run out first
    return CypherLimitExceeded(
        "the Cypher query nests too deeply for the Python stack it was called from "
        f"(anatid's bound is {int(LIMITS['depth'])} levels); flatten it",
        limit="depth",
    )


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


__all__ = [
    "CypherResult",
    "Prepared",
    "Procedure",
    "RecordShape",
    "Shape",
    "prepare_cypher",
    "run_cypher",
    "run_prepared",
]
