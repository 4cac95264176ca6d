"""Taking turns on a store file with other processes (issue 11).

A process that is alone keeps its DuckDB connection open and pays for sharing only a counter per
operation and a watcher thread that looks, every few milliseconds, whether another process waits for
the :class:`~anatid_core.storage.lease.Lease`. When one does, the file is handed over as soon as no
operation of this process is running (operations in flight finish first; new ones wait): the
connection is closed (DuckDB commits nothing here: every transaction is already committed or rolled
back by then), the lease released. The next operation takes the lease back, reopens the file and
brings the in-memory indexes up to date from the versions written meanwhile.

Operations run inside :meth:`FileTurns.turn`; nested turns on one thread (a read inside a
transaction) join the outer one, so a transaction is never split by a handover.
"""

from __future__ import annotations

import functools
import inspect
import threading
import time
import weakref
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from typing import Any, Protocol, TypeVar

import duckdb

from ..base.errors import StoreLocked, UnsupportedOperation, WriteConflict
from .dberrors import read_error
from .holds import Hold
from .lease import LEASE, Lease

T = TypeVar("T")
F = TypeVar("F", bound=Callable[..., Any])

#: How often an idle or busy holder looks for waiting processes (seconds).
WATCH: dict[str, float] = {
    "interval": 0.005,
    # The least time a process keeps the file once it has it, however soon another asks:
    # a handover costs a checkpoint and a re-attach (milliseconds), so a busy process does a
    # few operations per turn rather than one.
    "min_hold": 0.02,
    # A background waiter (the index builder: ``FILE.anatid-wait-background``) gets the file
    # when this process's operations have paused this long, or at the latest once it has waited
    # ``background_every``: a busy writer pays one handover a second at most, and the build
    # still moves on.
    "background_idle": 0.1,
    "background_every": 1.0,
}


class WouldWait(Exception):
    """Raised by a read run under :meth:`~anatid_core.storage.connection.Connection.without_waiting`
    that cannot be answered from memory at once: it would query the file, wait for it (another
    process has it, a handover or a compaction is under way) or wait for a writer. Not an
    :class:`~anatid_core.base.errors.AnatidError`: nothing failed, the caller runs the read again
    the usual way (on a worker thread)."""


class FileTurns:
    """Runs operations while this process holds the file; hands it over between them."""

    def __init__(
        self,
        lease: Lease,
        *,
        open_file: Callable[[], None],
        close_file: Callable[[], None],
        catch_up: Callable[[], None],
    ) -> None:
        self.lease = lease
        self._open_file = open_file
        self._close_file = close_file
        self._catch_up = catch_up
        self._cond = threading.Condition(threading.Lock())
        self._local = threading.local()
        self._holds = {  # waiting for the file, or not (WouldWait)
            wait: Hold(functools.partial(self._begin_turn, wait), self._end_turn)
            for wait in (True, False)
        }
        self._active = 0  # operations in flight (outermost turns)
        self._busy = False  # a thread is handing the file over or taking it back
        self._wanted = False  # another process waits: drain, then hand over
        self._exclusive_waiting = 0  # threads waiting in exclusive(): new operations wait
        self._closed = False
        self.handovers = 0  # times this process gave the file up (for tests and stats)
        self._taken_at = time.monotonic()
        self._idle_since = self._taken_at  # when the last operation in flight ended
        self._background_since: float | None = None  # since when a background process waits
        _WATCHER.add(self)

    @property
    def held(self) -> bool:
        return self.lease.held

    # ------------------------------------------------------------------ operations

    def turn(self, wait: bool = True) -> AbstractContextManager[None]:
        """Hold the file for one operation (taking it back first if it was handed over).
        ``wait=False``: only if this process holds it and nothing is to wait for, else
        :class:`WouldWait`. A plain object, not a generator: every verb takes a turn, and a
        generator's context manager cost as much as the turn (issue 42)."""
        return self._holds[wait]

    def _begin_turn(self, wait: bool) -> None:
        local = self._local
        depth = getattr(local, "depth", 0)
        if depth:
            local.depth = depth + 1
            return
        self._enter(wait)
        local.depth = 1
        local.holding = True

    def _end_turn(self) -> None:
        local = self._local
        if local.depth > 1:
            local.depth -= 1
            return
        local.depth = 0
        if local.holding:  # False: a pause() left and could not take the file back
            self._leave()

    def _enter(self, wait: bool = True) -> None:
        with self._cond:
            if not wait and (
                self._busy or self._exclusive_waiting or self._wanted or not self.lease.held
            ):
                raise WouldWait("the file is not this process's to read at once")
            while self._busy or self._exclusive_waiting or (self._wanted and self._active):
                self._cond.wait()
            if self.lease.held:
                self._active += 1
                return
            self._busy = True
        try:
            self._take_back()
        except BaseException:
            with self._cond:
                self._busy = False
                self._cond.notify_all()
            raise
        with self._cond:
            self._busy = False
            self._active += 1
            self._taken_at = time.monotonic()
            self._cond.notify_all()

    def _take_back(self) -> None:
        if not self.lease.acquire(LEASE["timeout"]):
            raise WriteConflict(_held_too_long(self.lease), retryable=True)
        try:
            self._open_file()
            self._catch_up()
        except BaseException:
            self._safe_close()
            self.lease.release()
            raise

    def _leave(self) -> None:
        with self._cond:
            self._active -= 1
            if not self._active:
                self._idle_since = time.monotonic()
            if not self._active and self._exclusive_waiting:
                self._cond.notify_all()  # exclusive() waits for the last operation to end
            if self._active or not self._wanted or self._busy:
                return
            self._busy = True
        self._hand_over()

    def others_wait(self) -> bool:
        """Whether another process waits for the file (the watcher saw it ask)."""
        return self._wanted

    def pause(self) -> bool:
        """Hand the file over in the middle of a long operation, and wait to take it back.

        Only from this thread's outermost turn (a verb inside a transaction or inside another
        verb keeps its turn whole), only when another process waits, and only after holding
        the file ``WATCH["min_hold"]``. Operations of other threads in flight finish first, as
        between two operations. True if the file was handed over (and is held again now): the
        caller must not assume that nothing was written meanwhile."""
        if getattr(self._local, "depth", 0) != 1:
            return False
        with self._cond:
            if not self._wanted or self._busy or not self.lease.held:
                return False
            if time.monotonic() - self._taken_at < WATCH["min_hold"]:
                return False
        handovers = self.handovers
        self._local.depth = 0
        self._local.holding = False  # until taken back: the turn must not be left twice
        self._leave()
        self._enter()  # waits for the file; raises (typed) if it cannot have it back
        self._local.holding = True
        self._local.depth = 1
        return self.handovers != handovers

    @contextmanager
    def exclusive(self) -> Iterator[None]:
        """Hold the file with no other operation of this process in flight (compaction swaps
        the file under every cursor): waits for the running ones, keeps new ones out."""
        if getattr(self._local, "depth", 0):
            raise UnsupportedOperation(
                f"{self.lease.store_path}: compaction cannot run inside another operation of "
                "the store (a transaction, or a read in progress); call it on its own"
            )
        with self._cond:
            self._exclusive_waiting += 1  # new operations wait, so the running ones drain
            try:
                while self._busy or self._active:
                    self._cond.wait()
            finally:
                self._exclusive_waiting -= 1
            self._busy = True
        try:
            if not self.lease.held:
                self._take_back()
                self._taken_at = time.monotonic()
            self._local.depth = 1  # reads made meanwhile on this thread join this turn
            yield
        finally:
            self._local.depth = 0
            self._after_exclusive()

    def _after_exclusive(self) -> None:
        with self._cond:
            hand_over = self._wanted and not self._active and self.lease.held
            self._busy = hand_over  # still busy while handing over, if somebody waited
            self._cond.notify_all()
        if hand_over:
            self._hand_over()

    # ------------------------------------------------------------------ handing over

    def _hand_over(self) -> None:
        """Close and release (the caller set ``_busy``); no operation is in flight."""
        try:
            if self.lease.held:
                self._safe_close()
                self.lease.release()
                self.handovers += 1
        finally:
            with self._cond:
                self._background_since = None
                self._wanted = False
                self._busy = False
                self._cond.notify_all()

    def _safe_close(self) -> None:
        try:
            self._close_file()
        except Exception:  # noqa: BLE001 - the connection is dropped either way
            pass

    def _look(self) -> None:
        """One look of the watcher: hand over if somebody waits and nothing runs."""
        if self._closed or not self.lease.held or self._wanted:
            return
        now = time.monotonic()
        if now - self._taken_at < WATCH["min_hold"]:
            return
        if not self.lease.others_waiting() and not self._background_due(now):
            return
        with self._cond:
            if self._closed or not self.lease.held:
                return
            self._wanted = True
            if self._active or self._busy:
                return  # the last operation to finish hands over
            self._busy = True
        self._hand_over()

    def _background_due(self, now: float) -> bool:
        """Whether a background process waits and its turn has come: this process's operations
        have paused ``WATCH["background_idle"]``, or it has waited ``WATCH["background_every"]``."""
        if not self.lease.background_waiting():
            self._background_since = None
            return False
        if self._background_since is None:
            self._background_since = now
        if now - self._background_since >= WATCH["background_every"]:
            return True
        with self._cond:
            paused = not self._active and not self._busy
            return paused and now - self._idle_since >= WATCH["background_idle"]

    def stop(self) -> None:
        """Stop watching, and wait for a handover the watcher thread has under way (the caller
        is about to close the connection). The watcher must not be inside DuckDB when the
        caller closes the file or the process exits: at interpreter exit a daemon thread that
        comes back from DuckDB is unwound by force, and DuckDB aborts the process ("terminate
        called after throwing an instance of ''", "FATAL: exception not rethrown")."""
        with self._cond:
            self._closed = True
            self._cond.notify_all()
            if getattr(self._local, "depth", 0):
                return  # closed from inside an operation of this thread: nothing to wait for
            deadline = time.monotonic() + LEASE["timeout"]
            while self._busy and time.monotonic() < deadline:
                self._cond.wait(0.05)

    def close(self) -> None:
        """Stop watching and give up the lease (the caller has closed the connection)."""
        self.stop()
        self.lease.close()


class _Watcher:
    """One daemon thread per process looks for waiting processes on behalf of every open file.

    It holds the turns only by weak reference: a Store dropped without close() still goes away.
    """

    def __init__(self) -> None:
        self._turns: weakref.WeakSet[FileTurns] = weakref.WeakSet()
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None

    def add(self, turns: FileTurns) -> None:
        with self._lock:
            self._turns.add(turns)
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._run, name="anatid-turns", daemon=True)
                self._thread.start()

    def _run(self) -> None:
        while self._look_once():
            time.sleep(WATCH["interval"])

    def _look_once(self) -> bool:
        """Look at every open file once; False when none is left (the thread then ends). Holds
        them only for the look, so that nothing here keeps a dropped store alive."""
        with self._lock:
            watched = [t for t in self._turns if not t._closed]
            if not watched:
                self._thread = None
                return False
        for turns in watched:
            try:
                turns._look()
            except Exception:  # noqa: BLE001 - a failed look is retried at the next one
                pass
        return True


_WATCHER = _Watcher()


def first_turn(lease: Lease, path: str) -> None:
    """Take the lease at open time, or fail with ``StoreLocked`` naming the holder."""
    if not lease.acquire(LEASE["timeout"]):
        message = _held_too_long(lease)
        lease.close()
        raise StoreLocked(message, path=path)


def _held_too_long(lease: Lease) -> str:
    return (
        f"{lease.store_path} stayed held by {lease.describe_holder()} for more than "
        f"{LEASE['timeout']:g} s (anatid_core.LEASE['timeout']); retry later, or look at what "
        "that process does"
    )


class _HasConnection(Protocol):
    @property
    def connection(self) -> _Turned: ...


class _Turned(Protocol):
    path: str

    def turn(self) -> AbstractContextManager[None]: ...


def verbs_take_turns(cls: type[T]) -> type[T]:
    """Run every public method that ``cls`` defines inside ``self.connection.turn()``.

    A read verb is one operation (it may run several queries and consult the in-memory indexes),
    so it must not be split by a handover; nested verbs join the outer turn.
    """
    for name, fn in list(vars(cls).items()):
        if name.startswith("_") or not inspect.isfunction(fn):
            continue
        if getattr(fn, "_takes_turn_itself", False):
            continue
        setattr(cls, name, in_turn(fn))
    return cls


def takes_turn_itself(fn: F) -> F:
    """Mark a public method that :func:`verbs_take_turns` leaves alone: it does work that
    needs no file first (a Cypher query's parse), then calls a method wrapped by
    :func:`in_turn`, so a process that waits for the file does not wait for that work."""
    fn._takes_turn_itself = True  # type: ignore[attr-defined]
    return fn


def in_turn(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Run the method ``fn`` inside ``self.connection.turn()``.

    Every verb passes here, so this is where a DuckDB error that says the file is damaged or
    the storage failed becomes an anatid error (:func:`~anatid_core.storage.dberrors.read_error`):
    DuckDB reads blocks lazily, and a read meets damage that opening did not (issue 32)."""

    @functools.wraps(fn)
    def verb(self: _HasConnection, *args: Any, **kwargs: Any) -> Any:
        try:
            with self.connection.turn():
                return fn(self, *args, **kwargs)
        except duckdb.Error as exc:
            mapped = read_error(exc, self.connection.path)
            if mapped is None:
                raise
            raise mapped from exc

    return verb


__all__ = [
    "WATCH",
    "FileTurns",
    "WouldWait",
    "first_turn",
    "in_turn",
    "takes_turn_itself",
    "verbs_take_turns",
]
