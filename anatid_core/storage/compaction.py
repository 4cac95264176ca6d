"""Compaction: copy the live data into a fresh file and swap it in, so purged bytes are gone.

DuckDB's DELETE only marks rows; a checkpoint rewrites the row groups it touched but leaves the
old blocks in the file as free space, bytes intact, until something happens to overwrite them
(docs/erasure.md shows the measurement). Only a file that never held the erased rows is free of
them. So, while this process holds the file alone (no other process has it attached, no other
operation of this process runs):

1. ``FILE.anatid-compact.d/FILE.anatid-compact`` (in a folder only this user can enter) is
   created with the store's schema (``COPY FROM DATABASE ...
   (SCHEMA)``), filled table by table in row order, its indexes built after the rows
   (:func:`copy_tables`, under a bounded DuckDB memory limit); its pending receipts are marked
   complete, in the copy only;
2. it is detached (DuckDB checkpoints it and removes its WAL) and fsynced;
3. the store file is detached (its WAL is checkpointed and removed);
4. the copy takes the store file's mode, owner and group, is renamed over it (atomic, in the
   real file's directory) and the directory fsynced;
5. the new file is attached again.

A SIGKILL before step 4 leaves the old file, whole, with its erasures pending (a leftover copy is
removed by the next writer to open the file, or the next compaction); after it, the new file.
Other processes attach the file by path at their next turn, so they get the new one; its rows and
version ids are the old file's, so their in-memory indexes stay valid (the purge that preceded the
compaction already made them reload).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import stat
from collections.abc import Iterator
from typing import Any

import duckdb

from ..base.errors import StorageError
from . import receipts
from .connection import Connection
from .dberrors import first_line, read_error, storage_failure
from .opening import CATALOG, attach, detach
from .sql import run

#: Tunables, readable at a glance.
COMPACT: dict[str, Any] = {
    # Free space demanded beyond the size of the file and its WAL, and a quarter more with
    # "plain_vectors" (the copy holds no free blocks, but its floats are not compressed), for
    # DuckDB's WAL of the copy and metadata blocks.
    "headroom_bytes": 16 * 1024 * 1024,
    # DuckDB's memory limit while copying, at least this and an eighth of the file (the id
    # indexes are built in memory), never above the store's own limit. Without it DuckDB keeps
    # every block it read and wrote cached, and a 1 GB store peaked near 2 GB of RSS.
    "copy_memory_bytes": 512 * 1024 * 1024,
    # Copy the vector tables uncompressed: DuckDB's ALP-RD spends a third of the copy's CPU on
    # them and saves about 14 % of their bytes (random float32; measured, docs/benchmarks.md).
    "plain_vectors": True,
}

COPY_SUFFIX = ".anatid-compact"
COPY_CATALOG = "anatid_compact"
WAL_SUFFIX = ".wal"
#: The private folder (mode 0700) beside the store that holds the copy while it is written.
#: DuckDB creates the copy and its WAL with the process's default mode (0644 under the usual
#: umask): inside this folder nobody else can reach them, so a private memory is never
#: readable by other users, not even for an instant (issue 32). The copy gets the store's mode,
#: owner and group before it is renamed over the store (same file system: the folder is beside
#: the store, in the real file's directory).
COPY_DIR_SUFFIX = ".anatid-compact.d"


def copy_dir(path: str) -> str:
    return path + COPY_DIR_SUFFIX


def copy_path(path: str) -> str:
    return os.path.join(copy_dir(path), os.path.basename(path) + COPY_SUFFIX)


def leftovers(path: str) -> list[str]:
    """The files an interrupted compaction of ``path`` may have left: the copy and its WAL, in
    their folder, and the folder itself (and a copy beside the file, where earlier versions
    wrote it)."""
    copy = copy_path(path)
    beside = path + COPY_SUFFIX
    files = [f for f in (copy, copy + WAL_SUFFIX, beside, beside + WAL_SUFFIX) if os.path.exists(f)]
    return files + ([copy_dir(path)] if os.path.isdir(copy_dir(path)) else [])


def remove_leftovers(path: str) -> None:
    """Remove what an interrupted compaction left; call only while holding the file exclusively.

    The copy never holds erased rows (it is made after the purge committed), so removing it
    loses nothing; an old copy must not be mistaken for the store."""
    folder = copy_dir(path)
    for f in leftovers(path):
        with contextlib.suppress(FileNotFoundError):
            if f != folder:
                os.remove(f)
    if os.path.isdir(folder):
        shutil.rmtree(folder, ignore_errors=True)


def _make_copy_dir(path: str) -> None:
    folder = copy_dir(path)
    os.mkdir(folder, 0o700)
    os.chmod(folder, 0o700)  # whatever the umask left


def keep_identity(source: str, target: str) -> None:
    """Give ``target`` the mode, owner and group of ``source`` (owner and group where this
    process may set them: root may; others may set a group they belong to)."""
    st = os.stat(source)
    try:
        os.chown(target, st.st_uid, st.st_gid)
    except PermissionError:
        with contextlib.suppress(PermissionError):
            os.chown(target, -1, st.st_gid)
    os.chmod(target, stat.S_IMODE(st.st_mode))


def needed_bytes(path: str) -> int:
    """Free space a compaction of ``path`` asks for before it writes anything."""
    size = os.path.getsize(path) if os.path.exists(path) else 0
    wal = path + WAL_SUFFIX
    size += os.path.getsize(wal) if os.path.exists(wal) else 0
    # Uncompressed vectors can make the copy bigger than a file that has no free blocks.
    growth = size // 4 if COMPACT["plain_vectors"] else 0
    return size + growth + int(COMPACT["headroom_bytes"])


def check_space(path: str) -> None:
    """Refuse (``StorageError``, nothing written) when the copy might not fit on the disk."""
    folder = os.path.dirname(os.path.abspath(path))
    need = needed_bytes(path)
    free = shutil.disk_usage(folder).free
    if free < need:
        raise StorageError(
            f"compacting {path} writes a copy of it first and needs about {need:,} bytes free "
            f"in {folder}, but only {free:,} are free; nothing was written (erasures stay "
            "pending): free some space and run compact() (or `anatid compact FILE`) again"
        )


def _fsync_path(path: str, *, directory: bool = False) -> None:
    flags = os.O_RDONLY | (getattr(os, "O_DIRECTORY", 0) if directory else 0)
    fd = os.open(path, flags)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _literal(path: str) -> str:
    return "'" + path.replace("'", "''") + "'"


def write_copy(
    con: duckdb.DuckDBPyConnection,
    catalog: str,
    path: str,
    now_us: int,
    *,
    memory_configured: bool = False,
) -> None:
    """Steps 1-2: the compacted copy, complete and durable beside the store file."""
    copy = copy_path(path)
    _detach_copy(con)  # a failed earlier attempt whose DETACH failed too
    _make_copy_dir(path)
    run(con, f"ATTACH {_literal(copy)} AS {COPY_CATALOG}")
    try:
        with _memory_limit(con, _copy_memory(path), memory_configured):
            copy_tables(con, catalog, COPY_CATALOG)
        receipts.mark_gone(con, now_us, catalog=COPY_CATALOG)
    except BaseException:
        _detach_copy(con)
        raise
    run(con, f"DETACH {COPY_CATALOG}")  # checkpoints the copy; a failure here is the caller's
    if os.path.exists(copy + WAL_SUFFIX):
        raise StorageError(f"{copy}: DuckDB left a WAL after checkpointing the copy; not swapped")
    _fsync_path(copy)


def copy_tables(con: duckdb.DuckDBPyConnection, source: str, target: str) -> None:
    """Every table of ``source`` into the empty ``target``: rows in their order, then indexes.

    Unlike one ``COPY FROM DATABASE``, this copies the float arrays of the vector tables (most
    of a store's bytes) uncompressed (``COMPACT["plain_vectors"]``): DuckDB's ALP-RD cost a
    third of the copy's CPU to save about 14 % of their bytes (docs/benchmarks.md#erasure).
    The id indexes are built once over the copied rows rather than grown row by row."""
    run(con, f"COPY FROM DATABASE {source} TO {target} (SCHEMA)")
    indexes = _index_sql(con, source)
    for (name,) in con.execute(
        "SELECT index_name FROM duckdb_indexes() WHERE database_name = ?", [target]
    ).fetchall():
        run(con, f"DROP INDEX {target}.{name}")
    plain = _array_tables(con, source) if COMPACT["plain_vectors"] else set[str]()
    for table in _tables(con, source):
        with _compression("uncompressed" if table in plain else None, con):
            run(con, f"INSERT INTO {target}.{table} SELECT * FROM {source}.{table}")
    run(con, f"USE {target}")
    try:
        for sql in indexes:
            run(con, sql)
    finally:
        run(con, f"USE {source}")


def _tables(con: duckdb.DuckDBPyConnection, catalog: str) -> list[str]:
    return [
        str(r[0])
        for r in con.execute(
            "SELECT table_name FROM duckdb_tables() WHERE database_name = ? AND NOT temporary "
            "ORDER BY table_name",
            [catalog],
        ).fetchall()
    ]


def _array_tables(con: duckdb.DuckDBPyConnection, catalog: str) -> set[str]:
    rows = con.execute(
        "SELECT DISTINCT table_name FROM duckdb_columns() WHERE database_name = ? "
        "AND data_type LIKE '%[%]'",
        [catalog],
    ).fetchall()
    return {str(r[0]) for r in rows}


def _index_sql(con: duckdb.DuckDBPyConnection, catalog: str) -> list[str]:
    rows = con.execute(
        "SELECT sql FROM duckdb_indexes() WHERE database_name = ? AND sql IS NOT NULL "
        "ORDER BY index_name",
        [catalog],
    ).fetchall()
    return [str(r[0]) for r in rows]


def _copy_memory(path: str) -> int:
    size = os.path.getsize(path) if os.path.exists(path) else 0
    return max(int(COMPACT["copy_memory_bytes"]), size // 8)


@contextlib.contextmanager
def _memory_limit(con: duckdb.DuckDBPyConnection, limit: int, configured: bool) -> Iterator[None]:
    """DuckDB's memory limit lowered to ``limit`` bytes for a block (a global setting), then
    back to DuckDB's default; a limit the store was opened with is the user's and is kept."""
    if configured:
        yield
        return
    run(con, f"SET memory_limit = '{int(limit)}B'")
    try:
        yield
    finally:
        run(con, "RESET memory_limit")


@contextlib.contextmanager
def _compression(method: str | None, con: duckdb.DuckDBPyConnection) -> Iterator[None]:
    """``force_compression`` for one statement (a global setting: the previous value returns)."""
    if method is None:
        yield
        return
    row = con.execute("SELECT current_setting('force_compression')").fetchall()
    before = str(row[0][0]) if row and row[0][0] else "auto"
    if before.lower() not in ("auto", ""):
        yield  # somebody forced a method on purpose (the byte-scan tests do): keep it
        return
    run(con, f"SET force_compression = '{method}'")
    try:
        yield
    finally:
        run(con, "SET force_compression = 'auto'")


def _detach_copy(con: duckdb.DuckDBPyConnection) -> None:
    with contextlib.suppress(duckdb.Error):
        if _attached(con, COPY_CATALOG):
            run(con, f"DETACH {COPY_CATALOG}")


def _attached(con: duckdb.DuckDBPyConnection, name: str) -> bool:
    rows = con.execute(
        "SELECT count(*) FROM duckdb_databases() WHERE database_name = ?", [name]
    ).fetchall()
    return bool(rows[0][0])


def swap_in(path: str) -> None:
    """Step 4: the copy replaces the (detached) store file; durable once the directory is."""
    if os.path.exists(path + WAL_SUFFIX):
        # Renaming now would let DuckDB replay the old file's WAL onto the new one.
        raise StorageError(f"{path}: its WAL survived the checkpoint at detach; not swapped")
    copy = copy_path(path)
    keep_identity(path, copy)
    os.replace(copy, path)
    _fsync_path(os.path.dirname(os.path.abspath(path)), directory=True)
    shutil.rmtree(copy_dir(path), ignore_errors=True)


def storage_error(exc: BaseException, path: str) -> BaseException:
    """What a failure during compaction means for the caller (the old file is intact)."""
    if isinstance(exc, StorageError):
        return exc
    if isinstance(exc, OSError) or (isinstance(exc, duckdb.Error) and storage_failure(exc)):
        return StorageError(
            f"compacting {path} failed ({first_line(exc)}); the file is unchanged and its "
            "erasures stay pending: fix the storage and run compact() again"
        )
    mapped = read_error(exc, path) if isinstance(exc, duckdb.Error) else None
    return exc if mapped is None else mapped  # a damaged file: left as it was (issue 32)


def compact_file(db: Connection, now_us: int) -> tuple[int, int]:
    """Compact the store file of ``db`` (steps 1-5); returns its size before and after.

    On any failure before the swap the old file is attached again, unchanged, and the copy
    removed; the error says so."""
    path = db.path
    with db.exclusive() as con:
        remove_leftovers(path)
        check_space(path)
        before = os.path.getsize(path)
        swapped = False
        try:
            write_copy(con, CATALOG, path, now_us, memory_configured=db.memory_limit is not None)
            detach(con)
            swap_in(path)
            swapped = True
        except BaseException as exc:
            raise storage_error(exc, path) from exc
        finally:
            if not swapped:
                _detach_copy(con)
                remove_leftovers(path)
            _attach_again(con, path)
        return before, os.path.getsize(path)


def _attach_again(con: duckdb.DuckDBPyConnection, path: str) -> None:
    """Attach the store file (new or old) unless a failure left it attached."""
    if not _attached(con, CATALOG):
        attach(con, path, read_only=False)


__all__ = [
    "COMPACT",
    "check_space",
    "compact_file",
    "leftovers",
    "needed_bytes",
    "remove_leftovers",
]
