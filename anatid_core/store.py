"""Opening a store file, cursors per thread, and the one transaction entry point."""

from __future__ import annotations

import gc
import os
import threading
import time
import weakref
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime
from types import TracebackType
from typing import Any

import duckdb

from . import schema
from .errors import (
    AnatidError,
    InvalidInput,
    ReadOnlyError,
    StorageError,
    StoreCorrupt,
    StoreLocked,
    WriteConflict,
)
from .publish import PublishLock
from .reads import Reader, Visibility
from .sql import one, run
from .textindex import TextCache
from .vectors import VectorCache
from .view import View
from .writes import WriterMixin

#: Tunables, readable at a glance.
SETTINGS: dict[str, Any] = {
    # How long a writer waits for another thread's transaction before giving up (seconds).
    "write_lock_timeout": 60.0,
}


#: DuckDB settings for every connection. anatid uses no extension, and DuckDB would otherwise
#: download one from the network when a path holds another format (a SQLite file pulls in
#: sqlite_scanner, which then attaches that file read-write).
CONNECT_CONFIG: dict[str, Any] = {
    "autoinstall_known_extensions": False,
    "autoload_known_extensions": False,
}


#: Files open for writing in this process (real path -> the Store's id). DuckDB shares one
#: database per file within a process, so a second Store on the same file would write beside the
#: first with its own write lock, version-id counter and indexes: conflicting transactions,
#: duplicate version ids and stale searches. So: one writing Store per file per process.
_WRITERS: dict[str, Callable[[], Any]] = {}
_WRITERS_LOCK = threading.Lock()


def _holder_alive(key: str) -> bool:
    held = _WRITERS.get(key)
    store = held() if held is not None else None
    return store is not None and not getattr(store, "_closed", False)


def _claim(path: str) -> str | None:
    """Reserve ``path`` for one writing Store in this process; returns the key to release."""
    if path == ":memory:":
        return None
    key = os.path.realpath(path)
    with _WRITERS_LOCK:
        if _holder_alive(key):
            gc.collect()  # a Store dropped without close() may only await the cycle collector
        if _holder_alive(key):
            raise StoreLocked(
                f"{path} is already open for writing in this process, by another Store; share "
                "that Store (e.g. GraphitiDriver(store=...)) or close it before opening the file "
                "again",
                path=path,
            )
        _WRITERS[key] = lambda: _OPENING  # reserved while this opener connects
    return key


def _registered(key: str | None, store: Store) -> None:
    if key is not None:
        with _WRITERS_LOCK:
            _WRITERS[key] = weakref.ref(store)


class _Opening:
    """Stands for a Store being opened (alive, not closed)."""

    _closed = False


_OPENING = _Opening()


def _release(key: str | None) -> None:
    if key is not None:
        with _WRITERS_LOCK:
            _WRITERS.pop(key, None)


@dataclass
class _Tx:
    """State of the open transaction: its pinned cursor, its time and work to do after COMMIT."""

    cursor: duckdb.DuckDBPyConnection
    time_us: int
    after_commit: list[Callable[[], None]] = field(default_factory=list)
    depth: int = 1


#: Words in DuckDB error messages that mean the storage failed, not the data or a conflict.
_STORAGE_FAILURES = (
    "no space left",
    "file too large",
    "disk quota",
    "input/output error",
    "could not write",
    "could not truncate",
    "could not fsync",
)


def _storage_failure(exc: BaseException) -> bool:
    lowered = str(exc).lower()
    return isinstance(exc, duckdb.Error) and any(word in lowered for word in _STORAGE_FAILURES)


def _first_line(exc: BaseException) -> str:
    text = str(exc)
    return text.splitlines()[0] if text else repr(exc)


def _map_open_error(exc: Exception, path: str, *, read_only: bool = False) -> AnatidError:
    text = _first_line(exc)
    lowered = str(exc).lower()
    if "lock" in lowered and ("conflicting" in lowered or "could not set lock" in lowered):
        if read_only:
            advice = (
                "DuckDB lets no other process open a file, not even read-only, while one "
                "process has it open for writing: close the writer first, or read through the writing process"
            )
        elif "read-only mode" in lowered:
            advice = (
                "another process holds it (read-only or for writing), and DuckDB allows one "
                "writing process and no readers beside it: close the other process first, or "
                "open this one with read_only=True"
            )
        else:
            advice = (
                "close that process first, or open the file with read_only=True once it has closed"
            )
        return StoreLocked(f"{path} is open in another process ({text}); {advice}", path=path)
    if "different configuration" in lowered:
        return StoreLocked(
            f"{path} is already open in this process with other settings ({text}); read and "
            "write through that Store (as_of() gives read-only views), or close it first",
            path=path,
        )
    if _storage_failure(exc):
        return StorageError(
            f"{path} could not be opened: the storage failed ({text}); free disk space or fix "
            "the storage, then open it again"
        )
    if "could not read enough bytes" in lowered:
        return StoreCorrupt(
            f"{path} is truncated or damaged ({text}); restore the file from a backup"
        )
    if "extension" in lowered:
        return StoreCorrupt(
            f"{path} is not an anatid/DuckDB store: DuckDB takes it for another format that "
            f"needs an extension ({text}); check the path"
        )
    if "not a valid duckdb" in lowered or "invalid" in lowered or "corrupt" in lowered:
        return StoreCorrupt(
            f"{path} is not a readable anatid/DuckDB file ({text}); "
            "check the path, or restore the file from a backup"
        )
    if "permission denied" in lowered or "read-only file system" in lowered:
        return ReadOnlyError(
            f"{path} cannot be opened for writing ({text}); "
            "fix the permissions or open it with read_only=True"
        )
    return StoreCorrupt(f"{path} could not be opened: {text}")


class Store(WriterMixin, Reader):
    """A bitemporal property graph in one DuckDB file. Thread-safe; writes are serialised."""

    def __init__(self, con: duckdb.DuckDBPyConnection, *, path: str, read_only: bool) -> None:
        self.path = path
        self.read_only = read_only
        self._con = con
        self._local = threading.local()
        self._cursors: list[duckdb.DuckDBPyConnection] = []
        self._cursors_lock = threading.Lock()
        self._write_lock = threading.RLock()
        self._tx: _Tx | None = None
        self._tx_owner: int | None = None
        self._closed = False
        self._last_tx_us = 0
        self._next_vid = 1
        self._claim: str | None = None
        self.published = PublishLock()
        self.vectors = VectorCache(self)
        self.text_cache = TextCache(self)
        self._load_counters()

    # ------------------------------------------------------------------------------ opening

    @classmethod
    def open(
        cls,
        path: str | os.PathLike[str] = ":memory:",
        *,
        read_only: bool = False,
        memory_limit: str | None = None,
    ) -> Store:
        """Open (creating if needed) a store file; ``":memory:"`` gives a private in-memory store.

        ``memory_limit`` caps DuckDB's buffer memory for this store (e.g. ``"512MB"``; DuckDB's
        default is 80% of RAM).
        """
        path = os.fspath(path)
        config = dict(CONNECT_CONFIG)
        if memory_limit is not None:
            if not isinstance(memory_limit, str) or not memory_limit.strip():
                raise InvalidInput(
                    f"memory_limit must be a size such as '512MB', got {memory_limit!r}"
                )
            config["memory_limit"] = memory_limit
        if read_only and path == ":memory:":
            raise ReadOnlyError("an in-memory store cannot be opened read-only: it would be empty")
        if path != ":memory:" and os.path.isdir(path):
            raise StoreCorrupt(
                f"{path} is a directory, not a store file (a kuzu 0.10 database is a directory: "
                "migrate it with anatid-migrate); pass a file path"
            )
        if read_only and path != ":memory:" and not os.path.exists(path):
            raise StoreCorrupt(f"{path} does not exist; read-only opening needs an existing store")
        claim = None if read_only else _claim(path)
        try:
            con = duckdb.connect(path, read_only=read_only, config=config)
        except duckdb.Error as exc:
            _release(claim)
            raise _map_open_error(exc, path, read_only=read_only) from exc
        try:
            # Our own tables only: never let a query resolve a Python variable by name.
            run(con, "SET python_enable_replacements = false")
            schema.ensure(con, path=path, read_only=read_only)
            store = cls(con, path=path, read_only=read_only)
            store._claim = claim
            _registered(claim, store)
            return store
        except AnatidError:
            _release(claim)
            con.close()
            raise
        except duckdb.Error as exc:
            _release(claim)
            con.close()
            raise _map_open_error(exc, path, read_only=read_only) from exc

    def _load_counters(self) -> None:
        row = one(
            self._con,
            "SELECT max(v), max(t) FROM ("
            " SELECT max(vid) AS v, greatest(max(tx_from), coalesce(max(tx_to), 0)) AS t FROM nodes"
            " UNION ALL"
            " SELECT max(vid), greatest(max(tx_from), coalesce(max(tx_to), 0)) FROM edges)",
        )
        self._next_vid = int(row[0] or 0) + 1 if row else 1
        self._last_tx_us = int(row[1] or 0) if row else 0

    def close(self) -> None:
        """Close the file. Idempotent; any open transaction is rolled back."""
        if self._closed:
            return
        self._closed = True
        with self._cursors_lock:
            for cur in self._cursors:
                try:
                    cur.close()
                except duckdb.Error:
                    pass
            self._cursors.clear()
        self._con.close()
        _release(self._claim)

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
    def closed(self) -> bool:
        return self._closed

    # ------------------------------------------------------------------------------ cursors

    def _cursor(self) -> duckdb.DuckDBPyConnection:
        if self._closed:
            raise AnatidError(f"the store {self.path} is closed; open it again with Store.open")
        tx = self._tx
        if tx is not None and self._tx_owner == threading.get_ident():
            return tx.cursor
        cur = getattr(self._local, "cursor", None)
        if cur is None:
            cur = self._con.cursor()
            run(cur, "SET python_enable_replacements = false")
            self._local.cursor = cur
            with self._cursors_lock:
                self._cursors.append(cur)
        return cur

    def _visibility(self) -> Visibility:
        return Visibility()

    # --------------------------------------------------------------------------- transactions

    def _next_tx_time(self) -> int:
        # Strictly increasing, so that every transaction has its own instant for as_of reads.
        now = time.time_ns() // 1000
        self._last_tx_us = max(now, self._last_tx_us + 1)
        return self._last_tx_us

    def allocate_vids(self, count: int) -> int:
        """Reserve ``count`` version ids; returns the first. Call inside a transaction."""
        first = self._next_vid
        self._next_vid += count
        return first

    @contextmanager
    def transaction(self) -> Iterator[_Tx]:
        """One DuckDB transaction: COMMIT on clean exit, ROLLBACK and re-raise on any exception.

        DuckDB has no savepoints, so a nested ``transaction()`` joins the outer one. The store's
        write lock is held throughout: writers from other threads wait (up to
        ``SETTINGS['write_lock_timeout']`` seconds, then ``WriteConflict``).
        """
        if self.read_only:
            raise ReadOnlyError(
                f"the store {self.path} was opened read-only; open it without read_only=True to write"
            )
        if not self._write_lock.acquire(timeout=SETTINGS["write_lock_timeout"]):
            raise WriteConflict(
                f"another thread held the write lock of {self.path} for more than "
                f"{SETTINGS['write_lock_timeout']} s; retry later",
                retryable=True,
            )
        try:
            if self._tx is not None:
                self._tx.depth += 1
                try:
                    yield self._tx
                finally:
                    self._tx.depth -= 1
                return
            cur = self._cursor()
            run(cur, "BEGIN TRANSACTION")
            tx = _Tx(cursor=cur, time_us=self._next_tx_time())
            self._tx, self._tx_owner = tx, threading.get_ident()
            saved_vid = self._next_vid
            publishing = False
            try:
                yield tx
                # Index searches wait from here until the indexes hold the whole commit.
                self.published.acquire_write()
                publishing = True
                run(cur, "COMMIT")
            except BaseException as exc:
                if publishing:
                    self.published.release_write()
                self._next_vid = saved_vid
                try:
                    run(cur, "ROLLBACK")
                except duckdb.Error:
                    pass  # a failed COMMIT has already rolled back
                if _storage_failure(exc) or isinstance(exc, duckdb.IOException):
                    raise StorageError(
                        f"writing {self.path} failed: {_first_line(exc)}; the transaction was "
                        "rolled back and every earlier commit is intact: free disk space (or fix "
                        "the storage), then retry"
                    ) from exc
                if isinstance(exc, duckdb.TransactionException):
                    raise WriteConflict(
                        f"the transaction on {self.path} conflicted with another: {exc}; retry it",
                        retryable=True,
                    ) from exc
                raise
            finally:
                self._tx, self._tx_owner = None, None
            try:
                for action in tx.after_commit:
                    action()
            finally:
                self.published.release_write()
        finally:
            self._write_lock.release()

    def _in_own_transaction(self) -> bool:
        return self._tx is not None and self._tx_owner == threading.get_ident()

    def _require_tx(self) -> _Tx:
        tx = self._tx
        assert tx is not None and self._tx_owner == threading.get_ident(), "not in a transaction"
        return tx

    # ------------------------------------------------------------------------------- views

    def as_of(self, tx_time: datetime | None = None, valid_time: datetime | None = None) -> View:
        """A read-only view: what the store knew at ``tx_time``, restricted to what was valid at
        ``valid_time`` (either may be None). Every read and search works the same way on it."""
        return View(self, tx_time=tx_time, valid_time=valid_time)

    def stats(self) -> dict[str, Any]:
        from .admin import stats

        return stats(self)

    def check(self) -> list[str]:
        """Verify indexes against rows and version intervals; returns problems (empty = healthy)."""
        from .admin import check

        return check(self)
