"""State kept beside each connection by modules that derive results from it (caches, counters),
dropped with the connection."""

from __future__ import annotations

import threading
import weakref
from collections.abc import Callable
from typing import Generic, TypeVar

T = TypeVar("T")


class PerConnection(Generic[T]):
    """One ``T`` per connection, made by ``factory`` on first use; held weakly by the
    connection, so a closed and dropped store takes its state with it."""

    def __init__(self, factory: Callable[[], T]) -> None:
        self._factory = factory
        self._states: weakref.WeakKeyDictionary[object, T] = weakref.WeakKeyDictionary()
        self._lock = threading.Lock()

    def of(self, connection: object) -> T:
        with self._lock:
            state = self._states.get(connection)
            if state is None:
                state = self._states[connection] = self._factory()
            return state


__all__ = ["PerConnection"]
