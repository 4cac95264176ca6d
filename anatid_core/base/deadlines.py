"""The deadline of the operation a thread runs, for work that a read of it sets off.

A Cypher query checks its deadline in its own loops (:mod:`anatid_core.cypher.limits`), but
one of its reads may set off work of the store's own that no loop of the query sees: the first
read of a kind of record builds the in-memory current records of that kind (half a second at
125,000 relationships, a few at 500,000; past those, no read waits for it). Such
work asks :func:`current_deadline`; under one, it runs beside the operation, which waits for
it only until its deadline (issue 42: "none longer than its deadline"), and the work goes on
to serve the operations after it.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import NoReturn, Protocol


class Deadline(Protocol):
    """What work set off by an operation needs of its deadline."""

    def remaining(self) -> float:
        """Seconds left (0 once past; ``inf`` for none)."""
        ...

    def expire(self) -> NoReturn:
        """Raise the operation's own error for a deadline passed."""
        ...


_CURRENT: ContextVar[Deadline | None] = ContextVar("anatid_deadline", default=None)


@contextmanager
def running_until(deadline: Deadline) -> Iterator[None]:
    """Within the block, :func:`current_deadline` on this thread (context) is ``deadline``."""
    token = _CURRENT.set(deadline)
    try:
        yield
    finally:
        _CURRENT.reset(token)


def current_deadline() -> Deadline | None:
    """The deadline of the operation this thread (context) runs, if it has one."""
    return _CURRENT.get()


__all__ = ["Deadline", "current_deadline", "running_until"]
