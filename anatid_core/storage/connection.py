"""The bottom of storage: the one DuckDB connection of a store, its cursors and transactions.

Every access to DuckDB goes through a :class:`Connection`: a cursor for one operation
(:meth:`Connection.cursor`, :meth:`Connection.query`), or a transaction
(:meth:`Connection.transaction`). Nothing above this module keeps a DuckDB connection or cursor
beyond one operation, so the connection can later be closed and reopened (to hand the file to
another process, issue 11) while the store and its in-memory indexes live on. Opening the file
(its real path, one writer per process, DuckDB's settings, the lease) is
:mod:`anatid_core.storage.opening`.

The connection knows no index. It tells its :class:`Listener` objects what happened to the file:
each commit of this process (with the transaction's :class:`~anatid_core.storage.changes.Changes`),
the file taken back after other processes wrote to it, and the file replaced by compaction.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager, nullcontext
from dataclasses import dataclass, field
from typing import Any, Protocol

import duckdb

from ..base.errors import (
    AnatidError,
    ReadOnlyError,
    UnsupportedOperation,
    WriteConflict,
)
from ..base.settings import SETTINGS
from .changes import Changes
from .dberrors import open_error, write_error
from .filemode import creation_mask, no_wider
from .opening import (
    CATALOG,
    SESSION_SETTINGS,
    attach,
    check_path,
    claim,
    config_for,
    connect,
    detach,
    refuse_beside_writer,
    refuse_hard_links,
    register,
    release,
    resolve,
    take_lease,
)
from .publish import PublishLock
from .sql import one, run
from .turns import FileTurns, WouldWait

# ------------------------------------------------------------------------ the purge counter


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

        A file is shared with other processes through a lease (:mod:`anatid_core.storage.lease`):
        this waits until the file is free for us (``LEASE['timeout']``, then ``StoreLocked``).

        ``bulk_load``: for a process that fills a file in large writes and then closes it (e.g.
        anatid-migrate). The WAL is checkpointed when the store closes, not every 64 MB: each
        checkpoint rewrites a table's unfilled row group whole, so a long load checkpointed as
        it goes writes its vectors several times over (and leaves their old blocks free in the
        file). No current records are kept in memory either (reads go to SQL): a load does not
        read them back. The cost: a crash loses nothing committed, but the next open replays
        the whole WAL.
        """
        config = config_for(memory_limit, bulk_load=bulk_load, read_only=read_only)
        path = resolve(path)
        check_path(path, read_only)
        if not read_only:
            refuse_hard_links(path)
        key = claim(path) if not read_only else refuse_beside_writer(path)
        lease = None
        try:
            lease = take_lease(path, read_only)
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
        register(key, db)
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

    def others_wait(self) -> bool:
        """Whether another process waits for the file now."""
        return self._turns is not None and self._turns.others_wait()

    def pause(self) -> bool:
        """Let a waiting process have the file in the middle of a long read, then take it back
        (:meth:`FileTurns.pause`); True if it was handed over. A no-op in memory, in a
        transaction, or inside another verb."""
        return self._turns is not None and self._turns.pause()

    def committed_until(self) -> int:
        """An instant (microseconds) at or before which every transaction this process knows
        of is committed: an ``as_of`` read at it sees the same versions for as long as no
        version is purged, whatever is written after."""
        tx = self._tx
        last = self._last_tx_us
        return last if tx is None else min(last, tx.time_us - 1)

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
        since, purges, next_vid = self._last_tx_us, self._purges, self._next_vid
        self._load_counters()
        purged = self._purges != purges
        if not purged and self._next_vid == next_vid and self._last_tx_us <= since:
            # No version was added, ended or purged meanwhile (an index builder took the file
            # to read, or wrote only its build token): what this process holds in memory is
            # current. Telling the listeners anyway made them read the tables again (issue 41:
            # a writer's search paid 200-370 ms after each of a builder's turns at 50k facts).
            return
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
            run(cur, SESSION_SETTINGS)
            if self.path != ":memory:":
                run(cur, f"USE {CATALOG}")
            self._local.cursor = cur
        return cur

    def query(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        """Every row of one query, through this thread's cursor."""
        return self.cursor().execute(sql, list(params)).fetchall()

    def query_chunks(
        self, sql: str, params: Sequence[Any] = (), size: int = 4096
    ) -> Iterator[list[tuple[Any, ...]]]:
        """The rows of one query, ``size`` at a time, through this thread's cursor (which must
        run nothing else until they are read). Between two chunks other threads may run: a
        fetch of every row holds the interpreter until its last row is made (125k rows, 0.3 s)."""
        cursor = self.cursor().execute(sql, list(params))
        while rows := cursor.fetchmany(size):
            yield rows

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
