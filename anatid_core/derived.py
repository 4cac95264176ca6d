"""In-memory structures derived from the file, each built once, on first use.

The text and vector indexes keep one structure per key (a kind, or a kind and vector space),
built from the tables when a search first needs it and then kept up to date by applying each
commit. Building happens under the connection's write lock, so no commit lands between reading
the tables and registering the result (which would then miss that commit for good).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

from .connection import Connection

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class Derived(Generic[K, V]):
    """Built structures by key. ``lock`` guards them; callers hold it to read or update one."""

    def __init__(self, connection: Connection) -> None:
        self._connection = connection
        self.lock = threading.RLock()
        self._built: dict[K, V] = {}

    def get(self, key: K) -> V | None:
        """The structure of ``key`` if it is built (never builds it)."""
        with self.lock:
            return self._built.get(key)

    def get_or_build(self, key: K, build: Callable[[], V]) -> V:
        found = self.get(key)
        if found is not None:
            return found
        with self._connection.write_lock:
            found = self.get(key)
            if found is not None:
                return found
            built = build()
            with self.lock:
                self._built[key] = built
            return built

    def items(self) -> list[tuple[K, V]]:
        with self.lock:
            return list(self._built.items())

    def clear(self) -> None:
        """Forget every structure (each is built again on next use)."""
        with self.lock:
            self._built.clear()
