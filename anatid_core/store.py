"""The store: the composition root that opens a connection and hands it to everything else.

A :class:`Store` owns one :class:`~anatid_core.storage.connection.Connection` (the file, its
cursors and transactions), the :class:`~anatid_core.indexes.registry.Indexes` derived from it
(which follow the connection on their own), and the read, write and erasure verbs
(:class:`~anatid_core.reads.Reader`, :class:`~anatid_core.writes.Writer`,
:class:`~anatid_core.eraser.Eraser`). ``as_of`` gives a :class:`~anatid_core.view.View` over the
same connection and indexes.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from contextlib import AbstractContextManager
from datetime import datetime
from types import TracebackType
from typing import Any

from .base.errors import InvalidInput
from .base.model import BuildProgress, IndexBuild, IndexState, Kind
from .base.settings import SETTINGS
from .eraser import Eraser
from .indexes.registry import Indexes
from .reads import Reader
from .storage import audit
from .storage.compaction import remove_leftovers
from .storage.connection import Connection, Tx
from .storage.embeddings import all_spaces
from .storage.rows import Visibility
from .storage.scope import Scope
from .storage.turns import in_turn
from .view import View

__all__ = ["SETTINGS", "Store"]


class Store(Eraser, Reader):
    """A bitemporal property graph in one DuckDB file. Thread-safe; writes are serialised."""

    def __init__(self, connection: Connection, *, records_in_memory: bool = True) -> None:
        self.path = connection.path
        self.read_only = connection.read_only
        indexes = Indexes(connection, records_in_memory=records_in_memory)
        super().__init__(connection, indexes, Visibility())
        if not self.read_only and self.path != ":memory:":
            with connection.turn():  # the writer's lease is exclusive: nobody compacts now
                remove_leftovers(self.path)

    @classmethod
    def open(
        cls,
        path: str | os.PathLike[str] = ":memory:",
        *,
        read_only: bool = False,
        memory_limit: str | None = None,
        bulk_load: bool = False,
        records_in_memory: bool = True,
    ) -> Store:
        """Open (creating if needed) a store file; ``":memory:"`` gives a private in-memory store.

        ``memory_limit`` caps DuckDB's buffer memory for this store (e.g. ``"512MB"``; DuckDB's
        default is 80% of RAM). ``bulk_load`` suits a process that fills the file in large
        writes and then closes it: the file is checkpointed at close only, and no current
        records are kept in memory (:meth:`anatid_core.storage.connection.Connection.open`).
        ``records_in_memory=False`` suits a process that reads a few records and exits (the
        ``anatid`` command): reads by id go to SQL instead of first loading every current record
        of the kind into memory (1.5 s at 150k records, to show one; issue 44).
        """
        return cls(
            Connection.open(
                os.fspath(path),
                read_only=read_only,
                memory_limit=memory_limit,
                bulk_load=bulk_load,
            ),
            records_in_memory=records_in_memory,
        )

    def close(self) -> None:
        """Close the file. Idempotent; any open transaction is rolled back, a background index
        build stops at its next batch."""
        self.indexes.close()
        self.connection.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    @property
    def handovers(self) -> int:
        """How often this process handed the file to another process that asked for it."""
        return self.connection.handovers

    @property
    def closed(self) -> bool:
        return self.connection.closed

    def without_waiting(self) -> AbstractContextManager[None]:
        """Reads on this thread inside the block (of this store and of its ``as_of`` views)
        answer from the in-memory current records at once, or raise :class:`WouldWait` before
        they would query the file or wait for it or for a writer; nothing is written either
        way. For a caller on an event loop: try a small read (records by id) on the loop, and
        run it on a worker thread when it raises WouldWait (a thread hop costs more than the
        read itself)."""
        return self.connection.without_waiting()

    def transaction(self) -> AbstractContextManager[Tx]:
        """One DuckDB transaction: COMMIT on clean exit, ROLLBACK and re-raise on any exception.

        DuckDB has no savepoints, so a nested ``transaction()`` joins the outer one. The store's
        write lock is held throughout: writers from other threads wait (up to
        ``SETTINGS['write_lock_timeout']`` seconds, then ``WriteConflict``).

        Until the first write verb inside it, its reads see what was committed, and the
        in-memory current records answer them; write through the store's verbs, not through
        the yielded cursor.
        """
        return self.connection.transaction(unwritten=True)

    def as_of(
        self,
        tx_time: datetime | None = None,
        valid_time: datetime | None = None,
        *,
        scope: Scope | None = None,
    ) -> View:
        """A read-only view: what the store knew at ``tx_time``, restricted to what was valid at
        ``valid_time`` (either may be None) and, with ``scope``, to what its wall lets through.
        Every read and search works the same way on it."""
        return View.over(self, tx_time, valid_time, scope)

    def scoped(self, scope: Scope) -> View:
        """A read-only view of the current state inside ``scope``
        (:mod:`anatid_core.storage.scope`)."""
        if not isinstance(scope, Scope):
            raise InvalidInput(f"scope must be a Scope, got {type(scope).__name__}")
        return self.as_of(scope=scope)

    @in_turn
    def stats(self) -> dict[str, Any]:
        return audit.stats(self.connection)

    @in_turn
    def check(self, *, index_bytes: bool = True) -> list[str]:
        """Verify indexes against rows and version intervals, and the persistent indexes
        against the file, every byte of their files read (``index_bytes`` False: files whose
        stamps are the ones they were sealed at are trusted, as searches trust them); returns
        problems (empty = healthy)."""
        return audit.check(self.connection) + self.indexes.file_problems(every_byte=index_bytes)

    def index_states(self) -> list[IndexState]:
        """How each persistent index stands: used or not (and why), the rows it holds and those
        written since it was built, its files, their size and when it was built; one per vector
        space, then one per kind's text index (``space`` None)."""
        if self.path == ":memory:":
            return []
        return self.indexes.states()

    def build_indexes(
        self,
        *,
        min_rows: int | None = None,
        progress: Callable[[BuildProgress], None] | None = None,
    ) -> list[IndexBuild]:
        """Build the persistent index of every vector space with at least ``min_rows``
        embeddings and the text index of each kind with at least ``min_rows`` versions
        (default ``SETTINGS["ann_min_rows"]``), or bring an existing one up to date with what
        was written since; returns what was done per index (``space`` None: text).

        Searches use the indexes from then on, in every process (:mod:`anatid_core.indexes.ann`,
        :mod:`anatid_core.indexes.text_file`), without loading the store into memory. Writes go
        on meanwhile, in this process and others: they are searched from memory until the next
        build. A build under way in another process is waited for.
        """
        if self.path == ":memory:":
            raise InvalidInput("an in-memory store has no files to keep an index in")
        with self.connection.turn():
            spaces = all_spaces(self.connection.cursor())
        wanted: list[tuple[Kind, str | None]] = [(s[0], s[1]) for s in spaces]
        texts: list[tuple[Kind, str | None]] = [("node", None), ("edge", None)]
        wanted += texts
        built = [
            self.indexes.build(kind, space, min_rows=min_rows, progress=progress)
            for kind, space in wanted
        ]
        return [b for b in built if b is not None]
