"""How much a query may hold at once, how deep it may nest, and how long it may run (issue 42).

A cartesian product of two large scans, or an unbounded variable-length relationship over a
dense graph or a long ring, grows without end; a ``range(0, 1000000000)`` builds a list as
long. Each is checked while it grows, not after: past a bound of ``LIMITS`` the query stops
with :class:`~anatid_core.CypherLimitExceeded` instead of filling the memory of the process
that holds the store. Nesting deeper than ``LIMITS["depth"]`` (brackets, lists, a list
parameter) is :class:`~anatid_core.CypherUnsupported` (or CypherLimitExceeded for a
parameter), never a RecursionError.

Every query has a deadline: ``timeout=`` of ``cypher()``, else a driver's ``cypher_timeout``,
else the environment's ``ANATID_CYPHER_TIMEOUT`` (seconds), else ``LIMITS["timeout"]``. The
matcher, projections, UNWIND, list building and regular expressions check it as they go;
past it, :class:`~anatid_core.CypherTimeout`. A check cannot cut one regular-expression match
short, so patterns whose backtracking can explode are refused before they run
(:mod:`.regex_guard`).
"""

from __future__ import annotations

import math
import os
import time
from collections.abc import Callable
from typing import NoReturn

from ..base.errors import CypherLimitExceeded, CypherTimeout, InvalidInput

#: rows: partial matches in one batch, or rows gathered by one aggregating, DISTINCT or
#: ORDER BY projection. steps: relationships held by the paths of one variable-length
#: expansion (a path of 800 steps holds 800). list: items of one list a query builds.
#: string: characters of one string a query builds (``+``, ``||``, ``replace()``: a string
#: doubled 40 times in a ``reduce`` took the machine's memory). depth: nesting of
#: expressions and parameters. timeout: seconds, when nothing else says.
LIMITS: dict[str, float] = {
    "rows": 2_000_000,
    "steps": 10_000_000,
    "list": 10_000_000,
    "string": 64_000_000,
    "depth": 100,
    "timeout": 30.0,
}

TIMEOUT_ENV = "ANATID_CYPHER_TIMEOUT"

_ADVICE = {
    "rows": (
        "two unconnected patterns multiply, and an unbounded variable-length relationship "
        "grows with the graph): connect or narrow the patterns, bound the length (*1..3), or "
        "let a LIMIT stop the reads (a RETURN without ORDER BY or aggregates streams)"
    ),
    "steps": (
        "an unbounded variable-length relationship over a long chain or ring holds every "
        "path it has walked): bound the length (*1..3) or start from fewer nodes"
    ),
    "list": "a range() or a list built by the query): build a shorter list",
    "string": "a string built by the query, as by + or reduce()): build a shorter one",
}


def check_size(rows: int, limit_name: str = "rows") -> None:
    """Raise CypherLimitExceeded if ``rows`` is over the bound ``LIMITS[limit_name]``."""
    limit = int(LIMITS[limit_name])
    if rows > limit:
        what = {"rows": "rows", "steps": "path steps", "list": "list items"}.get(
            limit_name, "characters in one string"
        )
        raise CypherLimitExceeded(
            f"the query holds more than {limit:,} {what} at once ({_ADVICE[limit_name]}; "
            f"anatid_core.cypher.limits.LIMITS[{limit_name!r}] sets the bound",
            limit=limit_name,
        )


def check_list(length: int) -> None:
    check_size(length, "list")


def check_string(length: int) -> None:
    check_size(length, "string")


def timeout_seconds(timeout: float | None) -> float:
    """The deadline of one query: ``timeout`` if given, else ``ANATID_CYPHER_TIMEOUT``, else
    ``LIMITS["timeout"]``. Read at each call: importing anatid reads no environment."""
    if timeout is None:
        text = os.environ.get(TIMEOUT_ENV, "").strip()
        if not text:
            return float(LIMITS["timeout"])
        try:
            timeout = float(text)
        except ValueError:
            raise InvalidInput(
                f"{TIMEOUT_ENV}={text!r} is not a number of seconds; set it to e.g. 30"
            ) from None
    if isinstance(timeout, bool) or not isinstance(timeout, (int, float)):
        raise InvalidInput(f"a Cypher timeout is a number of seconds, got {timeout!r}")
    if math.isnan(timeout) or timeout <= 0:
        raise InvalidInput(f"a Cypher timeout is a positive number of seconds, got {timeout!r}")
    return float(timeout)


#: A loop over rows that cost microseconds each checks the deadline once per this many + 1
#: (a mask: ``if not i & CHECK_EVERY``), not per row (a clock read each: 5% of a grouping).
CHECK_EVERY = 255

#: How often (seconds) a running query offers the file to a process that waits for it.
PAUSE_EVERY = 0.01


class Deadline:
    """The instant a query must be answered by; ``check()`` raises CypherTimeout past it.

    ``check()`` is also where a long query lets other processes have the file: every
    ``PAUSE_EVERY`` seconds it calls ``pause`` (set by the engine), which hands the file over
    if another process waits and reads on from a snapshot afterwards."""

    __slots__ = ("at", "next_pause", "pause", "seconds")

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.at = time.monotonic() + seconds
        self.pause: Callable[[], None] | None = None
        self.next_pause = 0.0

    def check(self) -> None:
        now = time.monotonic()
        if self.pause is not None and now >= self.next_pause:
            self.next_pause = now + PAUSE_EVERY
            self.pause()
        if now > self.at:
            self.expire()

    def remaining(self) -> float:
        """Seconds left before the deadline (0 once past)."""
        return max(0.0, self.at - time.monotonic())

    def expire(self) -> NoReturn:
        raise CypherTimeout(
            f"the Cypher query ran past its deadline of {self.seconds:g} s and was stopped "
            f"(nothing was written): narrow it, or give it more time with timeout= "
            f"(Store.cypher), the driver's cypher_timeout or {TIMEOUT_ENV}",
            seconds=self.seconds,
        )


def unbounded() -> Deadline:
    """A deadline that never passes, for engines built outside ``run_cypher``."""
    return Deadline(math.inf)
