"""What both adapters share: the store they hold, the read view, and the sync-to-async seam.

The store is synchronous and thread-safe; every adapter method runs its store work in a worker
thread (``asyncio.to_thread``) so the event loop never blocks on DuckDB. Reads of a few records
by id first try the loop itself (:meth:`StoreBacked._small_read`): from the in-memory current
records they take microseconds, where the thread hop alone costs a few hundred. Store errors
are mapped to Cognee's in :mod:`anatid_cognee.errors` on the way out.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from datetime import datetime
from typing import Any, TypeVar

from anatid_core import Store, WouldWait, with_retries

from . import erasures, store_registry
from .errors import cognee_errors, read_only

T = TypeVar("T")

#: The most ids a read answers on the event loop (decoding each record's props costs a few
#: microseconds: a hundred stays well under a millisecond of the loop's time).
SMALL_READ = 100


async def _closed() -> None:
    """What ``close()`` hands back to be awaited: the work is already done."""


class StoreBacked:
    """Holds one reference to a shared Store; ``as_of`` copies read through a historical view."""

    def __init__(self, path: str, exact_values: bool = False) -> None:
        self.path = path
        #: Reads return the core's exact Python types instead of LadybugDB's JSON values.
        self.exact_values = exact_values
        self._store: Store = store_registry.acquire(path)
        self._reads: Any = self._store
        self._read_only = False
        self._owns_store = True
        self._closed = False
        self.as_of_time: datetime | None = None

    @property
    def store(self) -> Store:
        """The anatid store behind this adapter (shared by every adapter on the file), for tools
        that work on the whole memory, such as ``anatid-migrate``."""
        return self._store

    # ------------------------------------------------------------------ lifecycle

    def close(self) -> Coroutine[Any, Any, None]:
        """Release the store (the last adapter on a file closes it). Idempotent; await it.

        The release happens in the call itself, not when the result is awaited: Cognee's
        engine caches call ``close()`` and schedule the coroutine on a loop that may stop
        before running it (the API server's shutdown, after which uvicorn re-raises SIGTERM
        and the process dies without ``atexit``), which left the file open with its WAL
        (issue 12). Closing checkpoints the WAL, a short wait, paid once per file.
        """
        if not self._closed:
            self._closed = True
            if self._owns_store:
                store_registry.release(self._store)
        return _closed()

    def _historical_copy(self, tx_time: datetime | None, valid_time: datetime | None) -> Any:
        """A shallow copy of this adapter reading through ``store.as_of``; it owns nothing."""
        copy = object.__new__(type(self))
        copy.__dict__.update(self.__dict__)
        with cognee_errors():
            copy._reads = self._store.as_of(tx_time=tx_time, valid_time=valid_time)
        copy._read_only = True
        copy._owns_store = False
        copy.as_of_time = tx_time
        return copy

    # ------------------------------------------------------------------ the seam

    def _check_open(self) -> None:
        # An as_of copy shares its parent's store: it is closed once that store is.
        if self._closed or self._store.closed:
            raise RuntimeError(f"{type(self).__name__} is closed; get a new engine from cognee")

    def _call(self, work: Callable[..., T], *args: Any) -> T:
        self._check_open()
        with cognee_errors():
            # Another writer held the store too long: retried a bounded number of times.
            return with_retries(work, *args)

    async def _read(self, work: Callable[..., T], *args: Any) -> T:
        """Run ``work(reads, *args)`` off the loop; ``reads`` is the store or the as_of view."""
        self._check_open()
        return await asyncio.to_thread(self._call, work, self._reads, *args)

    async def _small_read(self, work: Callable[..., T], *args: Any) -> T:
        """:meth:`_read` of a few records (at most ``SMALL_READ``): on the loop when the
        in-memory current records answer at once, else (``WouldWait``) on a worker thread."""
        self._check_open()
        try:
            with self._store.without_waiting(), cognee_errors():
                return work(self._reads, *args)
        except WouldWait:
            return await self._read(work, *args)

    async def _write(self, what: str, work: Callable[..., T], *args: Any) -> T:
        """Run ``work(store, *args)`` off the loop; refused on a read-only (as_of) adapter."""
        self._check_open()
        if self._read_only:
            raise read_only(what)
        return await asyncio.to_thread(self._call, work, self._store, *args)

    async def _delete(self, what: str, soft: Callable[..., Any], hard: Callable[..., Any]) -> None:
        """A deletion: ``hard`` (a purge of every version) inside an erasure scope, i.e. during
        one of Cognee's deletion calls (:mod:`anatid_cognee.erasures`); ``soft`` (history
        kept) otherwise, as for the updates Cognee's pipelines make."""
        if erasures.erasing():
            await self._write(what, hard)
            erasures.note_purged(self.path)
        else:
            await self._write(what, soft)

    async def _erase(
        self, what: str, hard: Callable[..., Any], soft: Callable[..., Any] | None = None
    ) -> None:
        """An erasure whatever the context (``prune``, ``delete_graph``, the explicit purges):
        done and compacted by the time the outermost erasure scope ends (this call, when
        none is open). ``soft`` runs instead under the audit setting, when given."""
        async with erasures.erasure():
            if soft is not None and erasures.keep_deleted():
                await self._write(what, soft)
                return
            await self._write(what, hard)
            erasures.note_purged(self.path)
