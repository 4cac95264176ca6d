"""Running the synchronous store from Graphiti's event loop.

Every store call runs on a worker thread, never on the event loop, except reads of a few
records by id (:meth:`StoreRunner.small_read`), which first try the loop itself: from the
in-memory current records they take microseconds, where the thread hop alone costs a few
hundred. Graphiti fires many coroutines
at once (``semaphore_gather``); the store is thread-safe and serialises writers itself, so each
call simply takes a pool thread.

A store transaction belongs to one thread (DuckDB transactions belong to a cursor). To keep
``session.execute_write(...)`` atomic while the function it runs awaits many driver calls, the
transaction is pinned to a dedicated single-thread executor, and a context variable routes every
store call made inside it (in that task and the tasks it spawns) to that thread.

A retryable ``WriteConflict`` (another writer held the store past the core's lock timeout) is
retried under the core's one policy (``anatid_core.RETRY``, ``anatid_core.retry_delay``), with the
waits on the event loop (``asyncio.sleep``) rather than on a worker thread.
"""

from __future__ import annotations

import asyncio
import contextvars
import functools
import threading
import time
from collections.abc import AsyncIterator, Callable
from concurrent.futures import ThreadPoolExecutor
from contextlib import AbstractContextManager, asynccontextmanager
from typing import Any, NoReturn, TypeVar

from anatid_core import (
    AnatidError,
    CypherTimeout,
    Store,
    View,
    WouldWait,
    cypher_timeout_seconds,
    retry_delay,
)

from . import erasure
from .errors import ReadOnlyDriverError, translate

T = TypeVar("T")

#: The most ids a read answers on the event loop (each record costs microseconds to build:
#: a hundred stays well under a millisecond of the loop's time).
SMALL_READ = 100

#: What reads go through: the live store, or a read-only view of its past.
ReadTarget = Store | View

#: How long (seconds) a query may hold the event loop. A query whose text answered within it
#: last time runs on the loop first (the thread hop costs ~0.1-0.2 ms, as much as a query of
#: a few rows from memory); one that runs over is stopped there and run again on a thread.
QUICK_QUERY = 0.002

#: How many query texts :class:`QueryCosts` remembers (as many as the engine's parse cache).
QUICK_QUERY_TEXTS = 512


def raise_translated(exc: AnatidError) -> NoReturn:
    """Raise ``exc`` as the Graphiti error :func:`~.errors.translate` maps it to (chained), or
    as itself where it maps to none."""
    mapped = translate(exc)
    if mapped is exc:
        raise exc
    raise mapped from exc


class QueryCosts:
    """The last running time of each query text, to choose where its next run goes."""

    def __init__(self) -> None:
        self._seconds: dict[str, float] = {}
        self._lock = threading.Lock()

    def quick(self, text: str) -> bool:
        """Whether ``text`` is worth trying on the loop: unknown, or quick last time."""
        return self._seconds.get(text, 0.0) < QUICK_QUERY

    def note(self, text: str, seconds: float) -> None:
        with self._lock:
            if text not in self._seconds and len(self._seconds) >= QUICK_QUERY_TEXTS:
                self._seconds.pop(next(iter(self._seconds)))  # the oldest text first
            self._seconds[text] = seconds


class TransactionThreads:
    """Single-thread executors for transactions, reused so that each keeps its store cursor.

    (The store keeps one cursor per thread for the life of the store; a fresh thread per
    transaction would leave one cursor behind for every transaction.)
    """

    def __init__(self) -> None:
        self._idle: list[ThreadPoolExecutor] = []
        self._all: list[ThreadPoolExecutor] = []
        self._lock = threading.Lock()  # one driver may serve several event loops' threads

    def acquire(self) -> ThreadPoolExecutor:
        with self._lock:
            if self._idle:
                return self._idle.pop()
            executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="anatid-graphiti-tx")
            self._all.append(executor)
            return executor

    def release(self, executor: ThreadPoolExecutor) -> None:
        with self._lock:
            self._idle.append(executor)

    def shutdown(self) -> None:
        with self._lock:
            executors, self._all, self._idle = self._all, [], []
        for executor in executors:
            executor.shutdown(wait=True)


class _PinnedTransaction:
    """One open store transaction and the one thread allowed to use it."""

    def __init__(self, store: Store, threads: TransactionThreads) -> None:
        self.store = store
        self._threads = threads
        self._thread = threads.acquire()
        self._cm: AbstractContextManager[Any] | None = None
        #: Set by a delete purged inside the transaction: compaction waits for the commit.
        self.compact_after = False

    async def call(self, fn: Callable[..., T], *args: Any) -> T:
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._thread, functools.partial(fn, *args))

    def _begin(self) -> None:
        self._cm = self.store.transaction()
        self._cm.__enter__()

    def _end(self, exc: BaseException | None) -> None:
        assert self._cm is not None
        if exc is None:
            self._cm.__exit__(None, None, None)
        else:
            self._cm.__exit__(type(exc), exc, exc.__traceback__)

    async def begin(self) -> None:
        await self.call(self._begin)

    async def end(self, exc: BaseException | None) -> None:
        try:
            await self.call(self._end, exc)
        finally:
            self.shutdown()

    def shutdown(self) -> None:
        self._threads.release(self._thread)


_PINNED: contextvars.ContextVar[_PinnedTransaction | None] = contextvars.ContextVar(
    "anatid_graphiti_transaction", default=None
)


class StoreRunner:
    """Async access to a store (or to a read-only view of it) on worker threads."""

    def __init__(
        self,
        store: Store,
        pool: ThreadPoolExecutor,
        *,
        reader: ReadTarget | None = None,
        read_only_reason: str | None = None,
        threads: TransactionThreads | None = None,
        audit_deletes: bool = False,
    ) -> None:
        self.store = store
        self.audit_deletes = audit_deletes
        #: Receipts purged by a ``remove_episode`` whose compaction has not run yet (it failed
        #: half-way): ``finish_erasures`` (called by the driver's close) completes them.
        self.deferred: set[int] = set()
        self.threads = threads if threads is not None else TransactionThreads()
        self.reader: ReadTarget = reader if reader is not None else store
        self.pool = pool
        self.read_only_reason = read_only_reason
        self.query_costs = QueryCosts()

    def view(self, reader: ReadTarget, reason: str) -> StoreRunner:
        """A runner over a read-only view of the same store, sharing the thread pool."""
        return StoreRunner(
            self.store,
            self.pool,
            reader=reader,
            read_only_reason=reason,
            threads=self.threads,
            audit_deletes=self.audit_deletes,
        )

    def in_transaction(self) -> bool:
        """Whether the calling task runs inside ``transaction()``."""
        return self._pinned() is not None

    def _pinned(self) -> _PinnedTransaction | None:
        pinned = _PINNED.get()
        return pinned if pinned is not None and pinned.store is self.store else None

    async def _call(self, fn: Callable[..., T], *args: Any) -> T:
        pinned = self._pinned()
        attempt = 0
        while True:
            try:
                if pinned is not None:
                    return await pinned.call(fn, *args)
                loop = asyncio.get_running_loop()
                return await loop.run_in_executor(self.pool, functools.partial(fn, *args))
            except AnatidError as exc:
                # Inside a transaction the whole transaction would have to be retried.
                delay = None if pinned is not None else retry_delay(exc, attempt)
                if delay is not None:
                    await asyncio.sleep(delay)
                    attempt += 1
                    continue
                raise_translated(exc)

    async def read(self, fn: Callable[[ReadTarget], T]) -> T:
        """Run ``fn(reader)`` on a worker thread (inside the open transaction, if any)."""
        if self.reader is not self.store:
            return await self._call(fn, self.reader)  # a view never sees uncommitted writes
        return await self._call(fn, self.store)

    async def small_read(self, fn: Callable[[ReadTarget], T], ids: int) -> T:
        """:meth:`read` of ``ids`` records by id: on the loop when there are at most
        ``SMALL_READ`` and the in-memory current records answer at once (outside a
        transaction), else (``WouldWait``) on a worker thread."""
        if ids <= SMALL_READ and self._pinned() is None:
            try:
                with self.store.without_waiting():
                    return fn(self.reader)
            except WouldWait:
                pass
            except AnatidError as exc:
                raise_translated(exc)
        return await self.read(fn)

    async def query(
        self, text: str, fn: Callable[[ReadTarget, float | None], T], timeout: float | None
    ) -> T:
        """:meth:`read` of a query, ``fn(reader, timeout)``: on the loop first when ``text``
        answered within ``QUICK_QUERY`` last time and the in-memory current records answer
        it, stopped at ``QUICK_QUERY`` (the query is read-only: nothing to undo); else, or
        when it runs over or would wait (``WouldWait``), on a worker thread within
        ``timeout``."""
        if not isinstance(text, str):  # the engine's own InvalidInput, from a thread
            return await self.read(lambda reader: fn(reader, timeout))
        try:  # the deadline the query would have: its own, else ANATID_CYPHER_TIMEOUT's
            limit = cypher_timeout_seconds(timeout)
        except AnatidError as exc:
            raise_translated(exc)
        # a deadline under the loop's budget is kept on a thread (the try would stop at the
        # budget, later than the deadline)
        quick = limit > QUICK_QUERY
        if quick and self._pinned() is None and self.query_costs.quick(text):
            start = time.perf_counter()
            try:
                with self.store.without_waiting():
                    result = fn(self.reader, QUICK_QUERY)
                self.query_costs.note(text, time.perf_counter() - start)
                return result
            except WouldWait:
                pass
            except CypherTimeout:
                self.query_costs.note(text, time.perf_counter() - start)
            except AnatidError as exc:
                raise_translated(exc)

        def timed(reader: ReadTarget) -> T:
            start = time.perf_counter()
            result = fn(reader, timeout)
            self.query_costs.note(text, time.perf_counter() - start)
            return result

        return await self.read(timed)

    async def write(self, fn: Callable[[Store], T]) -> T:
        """Run ``fn(store)`` on a worker thread; refused on a read-only runner."""
        self._check_writable()
        return await self._call(fn, self.store)

    async def remove(self, removal: erasure.Removal | erasure.Select, *, step: str = "") -> None:
        """A host-level delete (a :class:`~anatid_graphiti.erasure.Removal`, or a function
        choosing node and edge ids on the worker thread).

        By default an erasure: every version purged and, before this returns, the file compacted
        (:mod:`anatid_graphiti.erasure`). Inside ``transaction()`` the purge joins it and the
        compaction runs after the commit. During Graphiti's ``remove_episode``, its deletes of
        facts and orphans (``step="part"``) purge and the episode's own delete (``step="last"``)
        compacts once for all. With ``audit_deletes`` the current versions end and history keeps
        them."""
        self._check_writable()
        if not isinstance(removal, erasure.Removal):
            removal = erasure.Removal.of(removal)
        if self.audit_deletes:
            await self._call(erasure.end_versions, self.store, removal)
            return
        pinned = self._pinned()
        if pinned is not None:
            recorded = await self._call(erasure.purge_removal, self.store, removal)
            pinned.compact_after = pinned.compact_after or bool(recorded)
            return
        deferral = erasure.current_deferral()
        if deferral is not None and step == "part":
            recorded = await self._call(erasure.purge_removal, self.store, removal)
            deferral.pending.extend(recorded)
            self.deferred.update(recorded)
            return
        deferral = erasure.end_episode_removal()
        recorded = await self._call(erasure.erase_removal, self.store, removal)
        if deferral is not None and deferral.pending and not recorded:
            await self._call(Store.compact, self.store)  # the sequence's purges still wait
        self.deferred.clear()  # any compaction completes every pending erasure

    async def finish_erasures(self) -> None:
        """Compact if a ``remove_episode`` that failed half-way left its purges pending."""
        if not self.deferred or self.read_only_reason is not None:
            return
        found = await self._call(lambda s: s.erasures(pending_only=True), self.store)
        pending = {e.id for e in found}
        if pending & self.deferred:
            await self._call(Store.compact, self.store)
        self.deferred.clear()

    def _check_writable(self) -> None:
        if self.read_only_reason is not None:
            raise ReadOnlyDriverError(
                f"cannot write: {self.read_only_reason}; write through the live GraphitiDriver"
            )

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[None]:
        """One store transaction around the block; nested blocks join the outer one."""
        self._check_writable()
        if self._pinned() is not None:
            yield
            return
        attempt = 0
        while True:
            pinned = _PinnedTransaction(self.store, self.threads)
            try:
                await pinned.begin()
                break
            except BaseException as exc:
                pinned.shutdown()
                delay = retry_delay(exc, attempt)
                if delay is not None:  # nothing ran yet: beginning again is safe
                    await asyncio.sleep(delay)
                    attempt += 1
                    continue
                if isinstance(exc, AnatidError):
                    raise translate(exc) from exc
                raise
        token = _PINNED.set(pinned)
        try:
            yield
        except BaseException as exc:
            _PINNED.reset(token)
            await pinned.end(exc)  # rolls back, then re-raises (a failed commit included)
            raise
        _PINNED.reset(token)
        await pinned.end(None)
        if pinned.compact_after:  # a delete inside the block purged: now its bytes go
            await self._call(Store.compact, self.store)

    def shutdown(self) -> None:
        """Stop the worker threads (after the last call)."""
        self.pool.shutdown(wait=True)
        self.threads.shutdown()


__all__ = ["ReadTarget", "StoreRunner", "TransactionThreads"]
