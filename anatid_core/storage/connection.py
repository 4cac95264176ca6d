"""The bottom of storage: the one DuckDB connection of a store, its cursors and transactions.

Every access to DuckDB goes through a :class:`Connection`: a cursor for one operation
(:meth:`Connection.cursor`, :meth:`Connection.query`), or a transaction
(:meth:`Connection.transaction`). Nothing above this module keeps a DuckDB connection or cursor
beyond one operation, so the connection can later be closed and reopened (to hand the file to
another process, issue 11) while the store and its in-memory indexes live on.

The connection knows no index. It tells its :class:`Listener` objects what happened to the file:
each commit of this process (with the transaction's :class:`~anatid_core.storage.changes.Changes`),
the file taken back after other processes wrote to it, and the file replaced by compaction.
"""

from __future__ import annotations

import errno
import gc
import os
import threading
import time
import weakref
from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager, nullcontext
from dataclasses import dataclass, field
from typing import Any, Protocol

import duckdb

from ..base.errors import (
    AnatidError,
    InvalidInput,
    ReadOnlyError,
    StorageError,
    StoreCorrupt,
    StoreLocked,
    UnsupportedOperation,
    WriteConflict,
)
from ..base.settings import SETTINGS
from . import schema
from .changes import Changes
from .dberrors import open_error, write_error
from .filemode import creation_mask, no_wider
from .lease import Lease
from .publish import PublishLock
from .sql import one, run
from .turns import FileTurns, WouldWait, first_turn

#: DuckDB settings for every connection. anatid uses no extension, and DuckDB would otherwise
#: download one from the network when a path holds another format (a SQLite file pulls in
#: sqlite_scanner, which then attaches that file read-write). The WAL is checkpointed at 64 MB,
#: not DuckDB's 16: a checkpoint rewrites a table's unfilled row group whole (122,880 rows,
#: 500 MB of 1024-dim vectors), leaving its previous blocks free in the file, and with writes
#: of a few MB each the 16 MB default left 30-43% of the file free (issue 16: Graphiti at 10k
#: entities, 113 -> 77 MB, under FalkorDB Lite's 81). The cost: up to 64 MB more WAL to replay
#: after a crash, and to hold in memory until the checkpoint.
CONNECT_CONFIG: dict[str, Any] = {
    "autoinstall_known_extensions": False,
    "autoload_known_extensions": False,
    "checkpoint_threshold": "64MB",
}

# ------------------------------------------------------------------ one writer per process

#: Files open for writing in this process (real path -> the Connection). DuckDB shares one
#: database per file within a process, so a second store on the same file would write beside the
#: first with its own write lock, version-id counter and indexes: conflicting transactions,
#: duplicate version ids and stale searches. So: one writing connection per file per process.
_WRITERS: dict[str, Callable[[], Any]] = {}
_WRITERS_LOCK = threading.Lock()


class _Opening:
    """Stands for a connection being opened (alive, not closed)."""

    closed = False


_OPENING = _Opening()


def _holder_alive(key: str) -> bool:
    held = _WRITERS.get(key)
    holder = held() if held is not None else None
    return holder is not None and not holder.closed


def _writer_in_process(key: str) -> bool:
    """Whether a live writing connection of this process holds ``key`` (hold _WRITERS_LOCK)."""
    if _holder_alive(key):
        gc.collect()  # a store dropped without close() may only await the cycle collector
    return _holder_alive(key)


def claim(path: str) -> str | None:
    """Reserve ``path`` for one writing connection in this process; returns the key to release."""
    if path == ":memory:":
        return None
    key = resolve(path)
    with _WRITERS_LOCK:
        if _writer_in_process(key):
            raise StoreLocked(
                f"{path} is already open for writing in this process, by another Store; share "
                "that Store (e.g. GraphitiDriver(store=...)) or close it before opening the file "
                "again",
                path=path,
            )
        _WRITERS[key] = lambda: _OPENING  # reserved while this opener connects
    return key


def _refuse_beside_writer(path: str) -> None:
    """A read-only store beside this process's own writer of the file would take turns with it:
    read through that store (or its ``as_of`` views) instead."""
    if path == ":memory:":
        return None
    with _WRITERS_LOCK:
        if _writer_in_process(resolve(path)):
            raise StoreLocked(
                f"{path} is already open for writing in this process, by another Store; read "
                "through that Store (as_of() gives read-only views) or close it first",
                path=path,
            )
    return None


def _register(key: str | None, holder: Connection) -> None:
    if key is not None:
        with _WRITERS_LOCK:
            _WRITERS[key] = weakref.ref(holder)


def release(key: str | None) -> None:
    if key is not None:
        with _WRITERS_LOCK:
            _WRITERS.pop(key, None)


# ------------------------------------------------------------------------------- opening


#: The WAL size that checkpoints a bulk-loading store: in practice, only closing it does.
BULK_LOAD_CHECKPOINT = "1TB"


def _config(memory_limit: str | None, *, bulk_load: bool, read_only: bool) -> dict[str, Any]:
    config = dict(CONNECT_CONFIG)
    if memory_limit is not None:
        if not isinstance(memory_limit, str) or not memory_limit.strip():
            raise InvalidInput(f"memory_limit must be a size such as '512MB', got {memory_limit!r}")
        config["memory_limit"] = memory_limit
    if bulk_load:
        if read_only:
            raise InvalidInput("bulk_load is for a store opened to be written, not read_only")
        config["checkpoint_threshold"] = BULK_LOAD_CHECKPOINT
    return config


def resolve(path: str) -> str:
    """The file a path names: absolute, every symlink (of the file and its folders) followed.

    A store is known by what it is, not by how it was named (issue 32): the lease, the waiters'
    file, compaction's copy and swap, removal and every message use this one path, so two
    processes that reach one file by different names take turns on one lease, and compaction
    replaces the file itself, never a symlink to it."""
    return path if path == ":memory:" else os.path.realpath(os.path.expanduser(path))


def _refuse_hard_links(path: str) -> None:
    """A store file with a second hard link is refused for writing: the two names would take
    two leases (the lease files are named after the path), and compaction, which replaces the
    file, would leave the erased bytes readable under the other name."""
    try:
        links = os.stat(path).st_nlink
    except OSError:
        return  # no file yet (it is created) or unreadable (DuckDB's error says so)
    if links > 1:
        raise InvalidInput(
            f"{path} has {links} hard links; a store needs exactly one name (erasure could not "
            "remove bytes readable under another name). Make an independent copy (cp FILE "
            "NEW && mv NEW FILE) or open it with read_only=True"
        )


def _check_path(path: str, read_only: bool) -> None:
    if read_only and path == ":memory:":
        raise ReadOnlyError("an in-memory store cannot be opened read-only: it would be empty")
    if path != ":memory:" and os.path.isdir(path):
        raise StoreCorrupt(
            f"{path} is a directory, not a store file (a kuzu 0.10 database is a directory: "
            "migrate it with anatid-migrate); pass a file path"
        )
    if read_only and path != ":memory:" and not os.path.exists(path):
        raise StoreCorrupt(f"{path} does not exist; read-only opening needs an existing store")


#: The name the store file is attached under. A file store is one in-memory DuckDB instance with
#: the file ATTACHed to it: handing the file to another process DETACHes it (which checkpoints
#: and releases DuckDB's file lock) and taking it back ATTACHes it again, a few milliseconds
#: instead of the tens that starting a DuckDB instance costs.
CATALOG = "anatid"


#: Compression methods a bulk load's checkpoints do not try: the floating-point ones (ALP and
#: ALP-RD). Our only floats are embeddings, and trying them on float32 vectors took more than
#: half of each checkpoint that writes them (50k x 1024: 3.1 s against 1.2 s, duckdb 2.0.1),
#: to store them 1.5% larger than uncompressed. Other stores keep DuckDB's choice: its
#: compressed segments share blocks where uncompressed vectors take whole ones, which for many
#: small writes made a file 10% larger (Graphiti at 1k entities: 9.97 against 11.02 MB).
BULK_LOAD_NO_COMPRESSION = "alp,alprd"


def connect(
    path: str, *, read_only: bool, config: dict[str, Any], bulk_load: bool = False
) -> duckdb.DuckDBPyConnection:
    """Open the DuckDB file and bring its schema up to date; DuckDB's errors are mapped."""
    try:
        con = duckdb.connect(":memory:", config=config)
    except duckdb.Error as exc:
        raise open_error(exc, path, read_only=read_only) from exc
    try:
        # Our own tables only: never let a query resolve a Python variable by name.
        run(con, "SET python_enable_replacements = false")
        if bulk_load:
            run(con, f"SET disabled_compression_methods = '{BULK_LOAD_NO_COMPRESSION}'")
        with no_wider(0 if path == ":memory:" else creation_mask(path)):
            if path != ":memory:":
                attach(con, path, read_only=read_only)
            schema.ensure(con, path=path, read_only=read_only)
        return con
    except AnatidError:
        con.close()
        raise
    except duckdb.Error as exc:
        con.close()
        raise open_error(exc, path, read_only=read_only) from exc


def attach(con: duckdb.DuckDBPyConnection, path: str, *, read_only: bool) -> None:
    """Attach the store file and make it the default catalog of ``con``."""
    literal = "'" + path.replace("'", "''") + "'"
    options = " (READ_ONLY)" if read_only else ""
    run(con, f"ATTACH {literal} AS {CATALOG}{options}")
    run(con, f"USE {CATALOG}")


def detach(con: duckdb.DuckDBPyConnection) -> None:
    """Detach the store file: DuckDB checkpoints it and releases its lock on it."""
    run(con, "USE memory")
    run(con, f"DETACH {CATALOG}")


def _lease(path: str, read_only: bool) -> Lease | None:
    """Take the file's lease (waiting for other processes); None for an in-memory store."""
    if path == ":memory:":
        return None
    try:
        lease = Lease(path, shared=read_only)
    except PermissionError as exc:
        raise ReadOnlyError(
            f"{path} cannot be opened for writing: its lock file cannot be made beside it "
            f"({exc.strerror}); fix the permissions or open it with read_only=True"
        ) from exc
    except OSError as exc:
        if exc.errno == errno.EROFS:
            raise ReadOnlyError(
                f"{path} cannot be opened for writing (read-only file system); "
                "open it with read_only=True"
            ) from exc
        if exc.errno == errno.ENOENT:
            return None  # no such directory: DuckDB's own error says so
        raise StorageError(
            f"{path}: its lock file cannot be made ({exc}); fix the storage"
        ) from exc
    first_turn(lease, path)
    return lease


def read_purges(cur: duckdb.DuckDBPyConnection) -> int:
    """How many purge transactions the file has seen (other processes' indexes reload then)."""
    row = one(cur, "SELECT value FROM meta WHERE key = 'purges'")
    return int(row[0]) if row else 0


def count_purge(cur: duckdb.DuckDBPyConnection) -> None:
    """Record one more purge, inside the purging transaction."""
    run(
        cur,
        "INSERT OR REPLACE INTO meta VALUES ('purges', CAST(coalesce((SELECT CAST(value AS "
        "BIGINT) FROM meta WHERE key = 'purges'), 0) + 1 AS VARCHAR))",
    )


_NO_TURN: AbstractContextManager[None] = nullcontext()


# -------------------------------------------------------------------------- transactions


@dataclass
class Tx:
    """The open transaction: its pinned cursor, its instant and what it wrote so far."""

    cursor: duckdb.DuckDBPyConnection
    time_us: int
    owner: int  # the thread that opened it
    first_vid: int  # the version-id counter at BEGIN, restored on ROLLBACK
    #: What the write verbs changed, by version: the listeners apply it after COMMIT.
    changes: Changes = field(init=False)
    publishing: bool = False  # holds the publish lock for writing
    #: Nothing has been written through it yet, so its reads see exactly what was committed
    #: (the in-memory current records may answer them): opened by ``Store.transaction()`` and
    #: joined by no write verb since (each joins through ``Connection.transaction()``).
    unwritten: bool = False

    def __post_init__(self) -> None:
        self.changes = Changes(self.time_us)


class Listener(Protocol):
    """What follows the file from outside the connection (the in-memory indexes,
    :class:`anatid_core.indexes.registry.Indexes`): told of every change to the file."""

    def committed(self, changes: Changes) -> None:
        """A transaction of this process committed ``changes``: called once per transaction,
        right after COMMIT, with the publish lock held for writing (no index search runs)."""

    def caught_up(self, since_us: int, purged: bool) -> None:
        """The file was taken back after other processes wrote to it: what they committed
        after ``since_us`` (this process's last known transaction time) is in the tables now;
        ``purged``: some of it was a purge (its versions are gone, not ended)."""

    def replaced(self) -> None:
        """The file is held alone for a whole-file operation (compaction replaces it by a copy
        with the same versions): called before it starts and after it ends."""


class Connection:
    """One DuckDB connection to a store file: a cursor per thread, one writer at a time.

    Thread-safe. Reads on a thread go through that thread's cursor; the thread that holds the
    transaction reads and writes through the transaction's cursor.
    """

    def __init__(
        self,
        con: duckdb.DuckDBPyConnection,
        *,
        path: str,
        read_only: bool,
        bulk_load: bool = False,
    ) -> None:
        self.path = path
        self.read_only = read_only
        #: Permission bits the store file denies to group and others: no file DuckDB creates
        #: beside it (its WAL) may grant them (anatid_core.storage.filemode).
        self.file_mask = 0 if path == ":memory:" else creation_mask(path)
        #: Held by the writing thread for a whole transaction, and while an index loads.
        self.write_lock = threading.RLock()
        #: Held for writing by a commit and its index updates, for reading by index searches.
        self.published = PublishLock()
        self._con = con
        self._local = threading.local()
        self._cursors: list[duckdb.DuckDBPyConnection] = []
        self._cursors_lock = threading.Lock()
        self._tx: Tx | None = None
        self._closed = False
        self._claim: str | None = None
        self._last_tx_us = 0
        self._next_vid = 1
        self._purges = 0
        self._config: dict[str, Any] = {}
        #: Taking turns on the file with other processes (None for an in-memory store).
        self._turns: FileTurns | None = None
        #: Bumped whenever the DuckDB connection is replaced: cursors of older ones are gone.
        self._generation = 0
        #: Opened to be filled in large writes and closed (see :meth:`open`).
        self.bulk_load = bulk_load
        #: Told of every commit, catch-up and replacement of the file (:meth:`listen`).
        self._listeners: list[Listener] = []
        self._load_counters()

    @classmethod
    def open(
        cls,
        path: str,
        *,
        read_only: bool = False,
        memory_limit: str | None = None,
        bulk_load: bool = False,
    ) -> Connection:
        """Open (creating if needed) a store file; ``":memory:"`` is a private in-memory one.

        A file is shared with other processes through a lease (:mod:`anatid_core.storage.lease`): this
        waits until the file is free for us (``LEASE['timeout']``, then ``StoreLocked``).

        ``bulk_load``: for a process that fills a file in large writes and then closes it (e.g.
        anatid-migrate). The WAL is checkpointed when the store closes, not every 64 MB: each
        checkpoint rewrites a table's unfilled row group whole, so a long load checkpointed as
        it goes writes its vectors several times over (and leaves their old blocks free in the
        file). No current records are kept in memory either (reads go to SQL): a load does not
        read them back. The cost: a crash loses nothing committed, but the next open replays
        the whole WAL.
        """
        config = _config(memory_limit, bulk_load=bulk_load, read_only=read_only)
        path = resolve(path)
        _check_path(path, read_only)
        if not read_only:
            _refuse_hard_links(path)
        key = claim(path) if not read_only else _refuse_beside_writer(path)
        lease = None
        try:
            lease = _lease(path, read_only)
            con = connect(path, read_only=read_only, config=config, bulk_load=bulk_load)
        except BaseException:
            if lease is not None:
                lease.close()
            release(key)
            raise
        try:
            db = cls(con, path=path, read_only=read_only, bulk_load=bulk_load)
        except BaseException as exc:
            con.close()
            if lease is not None:
                lease.close()
            release(key)
            if isinstance(exc, duckdb.Error):
                raise open_error(exc, path, read_only=read_only) from exc
            raise
        db._claim = key
        db._config = config
        if lease is not None:
            db._turns = FileTurns(
                lease, open_file=db._reconnect, close_file=db._disconnect, catch_up=db._catch_up
            )
        _register(key, db)
        return db

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
        self._purges = read_purges(self._con)

    @property
    def closed(self) -> bool:
        return self._closed

    def close(self) -> None:
        """Close the file. Idempotent; an open transaction is rolled back by DuckDB."""
        if self._closed:
            return
        self._closed = True
        if self._turns is not None:
            self._turns.stop()  # no handover of the watcher's may run into the disconnect
        self._disconnect()
        if self._turns is not None:
            self._turns.close()
        release(self._claim)

    # ------------------------------------------------------------------ sharing the file

    def turn(self) -> AbstractContextManager[None]:
        """Hold the file for one operation: taken back from another process first if it was
        handed over, handed over after it if another process waits. Nested turns join.
        Under :meth:`without_waiting`, :class:`WouldWait` instead of any wait."""
        turns = self._turns
        return _NO_TURN if turns is None else turns.turn(wait=not self.refuses_waiting())

    @contextmanager
    def without_waiting(self) -> Iterator[None]:
        """Reads on this thread, inside the block, answer from memory at once or raise
        :class:`WouldWait` before they would query the file or wait for it (or for a
        writer): for a caller on an event loop, which then runs the read on a worker thread.
        Nothing is written either way."""
        before = getattr(self._local, "no_wait", False)
        self._local.no_wait = True
        try:
            yield
        finally:
            self._local.no_wait = before

    def refuses_waiting(self) -> bool:
        """Whether this thread is inside :meth:`without_waiting`."""
        return getattr(self._local, "no_wait", False)

    @property
    def handovers(self) -> int:
        """How often this process gave the file to another (0 for an in-memory store)."""
        return 0 if self._turns is None else self._turns.handovers

    def _disconnect(self) -> None:
        self._close_cursors()
        try:
            if self._closed:
                self._con.close()
            else:  # handing the file over: keep the DuckDB instance, let the file go
                detach(self._con)
        except duckdb.Error:
            pass

    def _close_cursors(self) -> None:
        with self._cursors_lock:
            for cur in self._cursors:
                try:
                    cur.close()
                except duckdb.Error:
                    pass
            self._cursors.clear()
            self._generation += 1

    def _reconnect(self) -> None:
        self.file_mask = creation_mask(self.path)
        try:
            with no_wider(self.file_mask):
                attach(self._con, self.path, read_only=self.read_only)
        except duckdb.Error as exc:
            raise open_error(exc, self.path, read_only=self.read_only) from exc

    def _catch_up(self) -> None:
        since, purges = self._last_tx_us, self._purges
        self._load_counters()
        purged = self._purges != purges
        for listener in self._listeners:
            listener.caught_up(since, purged)

    # ---------------------------------------------------------------------------- listeners

    def listen(self, listener: Listener) -> None:
        """Tell ``listener`` of every commit of this process, of the file taken back after
        other processes wrote, and of the file replaced (:class:`Listener`)."""
        self._listeners.append(listener)

    def _replaced(self) -> None:
        for listener in self._listeners:
            listener.replaced()

    # ------------------------------------------------------------------------------ cursors

    def cursor(self) -> duckdb.DuckDBPyConnection:
        """The cursor for one operation of this thread (the transaction's, if this thread holds
        it). Use it at once and do not keep it: the connection may be reopened in between."""
        if self._closed:
            raise AnatidError(f"the store {self.path} is closed; open it again with Store.open")
        if self.refuses_waiting():
            raise WouldWait("the read needs the file")
        tx = self._tx
        if tx is not None and tx.owner == threading.get_ident():
            return tx.cursor
        cur = getattr(self._local, "cursor", None)
        if cur is None or self._local.generation != self._generation:
            if self._turns is not None and not self._turns.held:
                raise AnatidError(
                    f"internal: {self.path} was read outside an operation while another process "
                    "had it; wrap the call in connection.turn()"
                )
            with self._cursors_lock:
                cur = self._con.cursor()
                self._cursors.append(cur)
                self._local.generation = self._generation
            run(cur, "SET python_enable_replacements = false")
            if self.path != ":memory:":
                run(cur, f"USE {CATALOG}")
            self._local.cursor = cur
        return cur

    def query(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        """Every row of one query, through this thread's cursor."""
        return self.cursor().execute(sql, list(params)).fetchall()

    # ------------------------------------------------------------------------- transactions

    @property
    def memory_limit(self) -> str | None:
        """The ``memory_limit`` the store was opened with (None: DuckDB's default)."""
        value = self._config.get("memory_limit")
        return None if value is None else str(value)

    def in_own_transaction(self) -> bool:
        """Whether this thread holds the open transaction (and sees its uncommitted writes)."""
        tx = self._tx
        return tx is not None and tx.owner == threading.get_ident()

    def sees_committed_only(self) -> bool:
        """Whether this thread's reads see exactly what was committed: it holds no transaction,
        or holds one through which nothing has been written yet (a host's ``with
        store.transaction():`` that reads before it writes). No other writer commits while a
        transaction is open: other threads wait for the write lock, other processes for the
        file."""
        tx = self._tx
        return tx is None or tx.owner != threading.get_ident() or tx.unwritten

    def allocate_vids(self, count: int) -> int:
        """Reserve ``count`` version ids; returns the first. Call inside a transaction."""
        first = self._next_vid
        self._next_vid += count
        return first

    @contextmanager
    def transaction(self, *, unwritten: bool = False) -> Iterator[Tx]:
        """One DuckDB transaction: COMMIT on clean exit, ROLLBACK and re-raise on any exception.

        DuckDB has no savepoints, so a nested ``transaction()`` joins the outer one. The write
        lock is held throughout: writers from other threads wait (up to
        ``SETTINGS['write_lock_timeout']`` seconds, then ``WriteConflict``).

        Every write goes through here, so joining marks the transaction written. ``unwritten``
        opens one that nothing has written yet (:meth:`sees_committed_only`): only for a
        caller that writes through the write verbs, never through the cursor itself.
        """
        self._refuse_if_read_only()
        with self.turn():
            self._lock_for_writing()
            try:
                if self._tx is not None:  # this thread's (the lock is held): join it
                    self._tx.unwritten = False
                    yield self._tx
                    return
                with self._own_transaction() as tx:
                    tx.unwritten = unwritten
                    yield tx
            finally:
                self.write_lock.release()

    @contextmanager
    def exclusive(self) -> Iterator[duckdb.DuckDBPyConnection]:
        """Hold the file alone for a whole-file operation (compaction, issue 15): no other
        process has it attached, no other operation of this process runs, no cursor is open.
        Yields the DuckDB connection with the file attached as ``CATALOG``."""
        self._refuse_if_read_only()
        if self._tx is not None and self._tx.owner == threading.get_ident():
            raise UnsupportedOperation(
                f"{self.path}: compaction cannot run inside a transaction (it replaces the "
                "file); commit first, then compact"
            )
        turns = self._turns
        with _NO_TURN if turns is None else turns.exclusive():
            self._lock_for_writing()
            try:
                self._replaced()  # the file is replaced: what was read of it is read again
                if turns is not None:
                    self._close_cursors()
                yield self._con
            finally:
                self._replaced()
                if turns is not None:
                    self._close_cursors()  # opened on the file before the swap
                self.write_lock.release()

    def _refuse_if_read_only(self) -> None:
        if self.read_only:
            raise ReadOnlyError(
                f"the store {self.path} was opened read-only; open it without read_only=True to write"
            )

    def _lock_for_writing(self) -> None:
        timeout = SETTINGS["write_lock_timeout"]
        if not self.write_lock.acquire(timeout=timeout):
            raise WriteConflict(
                f"another thread held the write lock of {self.path} for more than "
                f"{timeout} s; retry later",
                retryable=True,
            )

    @contextmanager
    def _own_transaction(self) -> Iterator[Tx]:
        tx = self._begin()
        try:
            yield tx
            self._commit(tx)
        except BaseException as exc:
            self._roll_back(tx)
            mapped = write_error(exc, self.path)
            if mapped is None:
                raise
            raise mapped from exc
        finally:
            self._tx = None
        self._publish(tx)

    def _begin(self) -> Tx:
        cur = self.cursor()
        run(cur, "BEGIN TRANSACTION")
        tx = Tx(cur, self._next_tx_time(), threading.get_ident(), self._next_vid)
        self._tx = tx
        return tx

    def _next_tx_time(self) -> int:
        # Strictly increasing, so that every transaction has its own instant for as_of reads.
        now = time.time_ns() // 1000
        self._last_tx_us = max(now, self._last_tx_us + 1)
        return self._last_tx_us

    def _commit(self, tx: Tx) -> None:
        # Index searches wait from here until the indexes hold the whole commit.
        self.published.acquire_write()
        tx.publishing = True
        with no_wider(self.file_mask):  # DuckDB may create the WAL here
            run(tx.cursor, "COMMIT")

    def _roll_back(self, tx: Tx) -> None:
        if tx.publishing:
            self.published.release_write()
        self._next_vid = tx.first_vid
        try:
            run(tx.cursor, "ROLLBACK")
        except duckdb.Error:
            pass  # a failed COMMIT has already rolled back

    def _publish(self, tx: Tx) -> None:
        """Bring the listeners (the in-memory indexes) up to the commit, then let index
        searches in again."""
        try:
            for listener in self._listeners:
                listener.committed(tx.changes)
        finally:
            self.published.release_write()
