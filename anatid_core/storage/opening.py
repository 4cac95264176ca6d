"""Opening a store file: the path it is known by, one writer per process, DuckDB's settings,
ATTACH and DETACH, and the lease that makes other processes take turns with this one.

:meth:`anatid_core.storage.connection.Connection.open` runs these in order; compaction re-attaches
its copy with :func:`attach`, and ``remove_store`` claims a file as a writer would.
"""

from __future__ import annotations

import errno
import gc
import os
import threading
import weakref
from collections.abc import Callable
from typing import Any, Protocol

import duckdb

from ..base.errors import (
    AnatidError,
    InvalidInput,
    ReadOnlyError,
    StorageError,
    StoreCorrupt,
    StoreLocked,
)
from . import schema
from .dberrors import open_error
from .filemode import creation_mask, no_wider
from .lease import Lease
from .sql import run
from .turns import first_turn

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

#: Run on every DuckDB connection and cursor (each is a session of its own): no Python variable
#: is ever resolved by name in a query, and no progress bar is drawn (DuckDB draws one on the
#: process's standard output for any statement past 2 s, terminal or not: into an MCP server's
#: JSON-RPC stream, a CLI's --json output; found when a long-lived writer's write printed one).
SESSION_SETTINGS = "SET python_enable_replacements = false; SET enable_progress_bar = false"

# ------------------------------------------------------------------ one writer per process

#: Files open for writing in this process (real path -> the Connection). DuckDB shares one
#: database per file within a process, so a second store on the same file would write beside the
#: first with its own write lock, version-id counter and indexes: conflicting transactions,
#: duplicate version ids and stale searches. So: one writing connection per file per process.
_WRITERS: dict[str, Callable[[], _Holder | None]] = {}
_WRITERS_LOCK = threading.Lock()


class _Holder(Protocol):
    """A writing connection, as the registry of writers sees it."""

    @property
    def closed(self) -> bool: ...


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


def refuse_beside_writer(path: str) -> None:
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


def register(key: str | None, holder: _Holder) -> None:
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


def config_for(memory_limit: str | None, *, bulk_load: bool, read_only: bool) -> dict[str, Any]:
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


def refuse_hard_links(path: str) -> None:
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


def check_path(path: str, read_only: bool) -> None:
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
        run(con, SESSION_SETTINGS)
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


def take_lease(path: str, read_only: bool) -> Lease | None:
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
