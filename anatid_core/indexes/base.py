"""What every derived structure is: an :class:`Index`, told of every change to the file.

An index holds something derived from the tables (never the truth: the file is) so that a read
needs no query, or a cheaper one. Each one:

* is **built lazily**, from the tables, when a read first needs it (:class:`BuiltOnce` builds
  one structure per key under the connection's write lock, so no commit lands between reading
  the tables and registering the result, which would then miss that commit for good), and says
  what bounds its memory;
* **follows this process's commits**: :meth:`Index.applied` receives each transaction's
  :class:`~anatid_core.storage.changes.Changes` (the versions added, with their records,
  postings and embeddings, and the versions removed, per kind) once, after COMMIT;
* **catches up after other processes' commits**: :meth:`Index.caught_up` receives the
  transaction time it last knew and the versions ended since; the versions added since are the
  current rows with a later ``tx_from``;
* is **dropped** (:meth:`Index.forget`) when the changes cannot be known: after a purge of
  everything, or any purge by another process (a purged version leaves no row to read), and
  is told when compaction replaces the file (:meth:`Index.replaced`).

The registry (:class:`anatid_core.indexes.registry.Indexes`) holds one of each and is the only
caller of these methods.
"""

from __future__ import annotations

import threading
from abc import ABC, abstractmethod
from collections.abc import Callable, Hashable, Mapping
from typing import Generic, TypeVar

import duckdb
import numpy as np

from ..base.model import Kind
from ..storage.changes import Changes
from ..storage.connection import Connection

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class Index(ABC):
    """One structure derived from the file. Subclass it, and register an instance in
    :class:`~anatid_core.indexes.registry.Indexes`."""

    @abstractmethod
    def applied(self, changes: Changes) -> None:
        """This process committed ``changes``: once per transaction, right after COMMIT, while
        the publish lock is held for writing (no search runs meanwhile). A structure not built
        yet ignores them: it reads the tables, commit included, when it is built."""

    def caught_up(self, since_us: int, removed: Mapping[Kind, np.ndarray]) -> None:
        """Other processes committed after ``since_us`` and purged nothing: ``removed`` holds
        the version ids they ended, per kind (sorted); the versions they added are the current
        rows with ``tx_from > since_us``. By default the structure is dropped (:meth:`forget`)."""
        del since_us, removed
        self.forget()

    @abstractmethod
    def forget(self) -> None:
        """Drop everything; built again from the tables on next use."""

    def purging(self, cur: duckdb.DuckDBPyConnection, kind: Kind, vids: np.ndarray) -> None:
        """The versions ``vids`` of ``kind`` are about to be purged, inside the purging
        transaction (``cur``), before it commits: a structure kept in a file removes what
        holds their bytes now (erasure leaves none in any file of the store). By default
        nothing: the purge reaches memory through :meth:`applied` or :meth:`forget`."""
        del cur, kind, vids

    def purging_all(self) -> None:
        """Everything is about to be purged (see :meth:`purging`)."""
        return None

    def replaced(self) -> None:
        """Compaction is about to replace the file, or has replaced it, by a copy holding the
        same versions under the same ids. By default nothing changes."""
        return None


class BuiltOnce(Generic[K, V]):
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

    def discard(self, key: K) -> None:
        """Forget the structure of ``key`` (built again on next use)."""
        with self.lock:
            self._built.pop(key, None)

    def items(self) -> list[tuple[K, V]]:
        with self.lock:
            return list(self._built.items())

    def clear(self) -> None:
        """Forget every structure (each is built again on next use)."""
        with self.lock:
            self._built.clear()


__all__ = ["BuiltOnce", "Index"]
