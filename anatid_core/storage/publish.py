"""Whole transactions or nothing, for readers of the in-memory indexes.

Rows become visible to SQL readers at COMMIT, atomically (DuckDB's MVCC). The in-memory indexes
(:mod:`anatid_core.indexes`) are updated by the committing thread right after, one index after
another, with the whole transaction's changes. A search scores in memory, then fetches the winning
rows: without coordination it could score half of a transaction's updates, or score the old versions
of records whose rows the commit has just closed. So a commit and its index updates hold this lock
for writing, and an index search (scoring and fetching) holds it for reading: a search sees the
store before a transaction or after it, never in between.
"""

from __future__ import annotations

import threading
from contextlib import AbstractContextManager

from .holds import Hold


class PublishLock:
    """Many readers or one writer; waiting writers go first. Reentrant for readers."""

    def __init__(self) -> None:
        self._cond = threading.Condition(threading.Lock())
        self._readers = 0
        self._writing = False
        self._writers_waiting = 0
        self._local = threading.local()
        self._read_hold = Hold(self._enter_read, self._leave_read)

    def reading(self) -> AbstractContextManager[None]:
        """Hold the lock for reading: ``with lock.reading(): ...``. A plain object, not a
        generator: every read of the in-memory records takes it, several per Cypher query,
        and a generator's context manager cost more than the lock (issue 42)."""
        return self._read_hold

    def _enter_read(self) -> None:
        local = self._local
        depth = getattr(local, "depth", 0)
        if depth:  # this thread already reads: a nested read must not queue behind a writer
            local.depth = depth + 1
            return
        with self._cond:
            while self._writing or self._writers_waiting:
                self._cond.wait()
            self._readers += 1
        local.depth = 1

    def _leave_read(self) -> None:
        local = self._local
        if local.depth > 1:
            local.depth -= 1
            return
        local.depth = 0
        with self._cond:
            self._readers -= 1
            if self._readers == 0:
                self._cond.notify_all()

    def acquire_write(self) -> None:
        with self._cond:
            self._writers_waiting += 1
            while self._writing or self._readers:
                self._cond.wait()
            self._writers_waiting -= 1
            self._writing = True

    def release_write(self) -> None:
        with self._cond:
            self._writing = False
            self._cond.notify_all()
