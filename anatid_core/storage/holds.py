"""A context manager made of two calls, for the holds taken on every read.

``@contextmanager`` builds a generator and its wrapper at each ``with``: for the file's turn that
every verb takes and the publish lock's read hold that every in-memory read takes (several per
Cypher query), that cost as much as the hold itself (issue 42). A :class:`Hold` is made once per
lock, and its state is the lock's and the thread's.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager
from types import TracebackType


class Hold(AbstractContextManager[None]):
    """``with hold:`` calls ``enter`` on entry and ``leave`` on exit, however the block ends."""

    __slots__ = ("_enter", "_leave")

    def __init__(self, enter: Callable[[], None], leave: Callable[[], None]) -> None:
        self._enter = enter
        self._leave = leave

    def __enter__(self) -> None:
        self._enter()

    def __exit__(
        self,
        kind: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._leave()


__all__ = ["Hold"]
