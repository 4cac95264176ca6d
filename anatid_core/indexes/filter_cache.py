"""The version ids that pass a filter, kept until the file changes (issue 41, point 4).

A search through a persistent index with a group, a label or an ``as_of`` instant first needs
the set of version ids it may return. SQL finds it in about 20 ms at a million facts: two to
three times the search itself. An agent searches its own group, or one past instant, again and
again, so the sets are kept, as Lucene's query cache keeps a filter's document set: by the
filter's SQL and parameters, dropped at any change to the file (a commit of this process,
another process's, a purge, compaction), at most ``FILTER_CACHE["bytes"]`` in all, the least
recently used dropped first.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable, Sequence
from typing import Any

import duckdb
import numpy as np

from ..base.model import Kind
from ..storage.changes import Changes
from ..storage.connection import Connection
from ..storage.sql import sorted_vids
from .base import Index

#: Bytes of version ids kept in all (8 per version: 64 MB holds 8M, a million facts' current
#: set and its group and past sets several times over).
FILTER_CACHE: dict[str, int] = {"bytes": 64 << 20}


class FilterCache(Index):
    """Sorted version ids by filter, valid until the next change to the file."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._sets: OrderedDict[Hashable, np.ndarray] = OrderedDict()
        self._bytes = 0
        self._generation = 0  # a set found across a change is not kept

    def passing(self, key: Hashable, find: Callable[[], np.ndarray]) -> np.ndarray:
        """The set of ``key`` (read-only), found by ``find`` unless it is kept."""
        with self._lock:
            found = self._sets.get(key)
            if found is not None:
                self._sets.move_to_end(key)
                return found
            generation = self._generation
        vids = find()
        vids.flags.writeable = False
        budget = int(FILTER_CACHE["bytes"])
        with self._lock:
            if generation == self._generation and vids.nbytes <= budget and key not in self._sets:
                self._sets[key] = vids
                self._bytes += vids.nbytes
                while self._bytes > budget:
                    _, dropped = self._sets.popitem(last=False)
                    self._bytes -= dropped.nbytes
        return vids

    def vids_where(self, db: Connection, sql: str, params: Sequence[Any] = ()) -> np.ndarray:
        """The sorted version ids ``sql`` selects (read-only), kept by the query and its
        parameters."""
        params = list(params)
        return self.passing((sql, repr(params)), lambda: sorted_vids(db.cursor(), sql, params))

    def __len__(self) -> int:
        with self._lock:
            return len(self._sets)

    # ------------------------------------------------------------------ kept in step (Index)

    def applied(self, changes: Changes) -> None:
        del changes
        self.forget()

    def forget(self) -> None:
        with self._lock:
            self._sets.clear()
            self._bytes = 0
            self._generation += 1

    def purging(self, cur: duckdb.DuckDBPyConnection, kind: Kind, vids: np.ndarray) -> None:
        del cur, kind, vids
        self.forget()

    def purging_all(self) -> None:
        self.forget()

    def replaced(self) -> None:
        self.forget()


__all__ = ["FILTER_CACHE", "FilterCache"]
