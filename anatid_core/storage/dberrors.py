"""DuckDB's errors, mapped onto the error tree in one place: when opening a file, on a read of an
open one, and at COMMIT."""

from __future__ import annotations

import duckdb

from ..base.errors import (
    AnatidError,
    ReadOnlyError,
    StorageError,
    StoreCorrupt,
    StoreLocked,
    WriteConflict,
)

#: Words in DuckDB error messages that mean the storage failed, not the data or a conflict.
STORAGE_FAILURES = (
    "no space left",
    "file too large",
    "disk quota",
    "input/output error",
    "could not write",
    "could not truncate",
    "could not fsync",
)


def storage_failure(exc: BaseException) -> bool:
    lowered = str(exc).lower()
    return isinstance(exc, duckdb.Error) and any(word in lowered for word in STORAGE_FAILURES)


def first_line(exc: BaseException) -> str:
    text = str(exc)
    return text.splitlines()[0] if text else repr(exc)


def _locked(path: str, text: str, lowered: str, read_only: bool) -> StoreLocked:
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
        advice = "close that process first, or open the file with read_only=True once it has closed"
    return StoreLocked(f"{path} is open in another process ({text}); {advice}", path=path)


#: Words in DuckDB error messages that mean the file's own bytes are damaged: cut short
#: (truncated), overwritten (a block's checksum no longer matches), or a WAL that cannot be
#: replayed. Not a storage failure: reading again gives the same answer.
DAMAGE = (
    "could not read enough bytes",
    "corrupt database file",
    "corrupt wal file",
    "failure while replaying wal",
    "does not match stored checksum",
)


def damaged(exc: BaseException) -> bool:
    """Whether a DuckDB error says the file (or its WAL) is damaged."""
    lowered = str(exc).lower()
    return isinstance(exc, duckdb.Error) and any(word in lowered for word in DAMAGE)


def _damage(exc: BaseException, path: str) -> StoreCorrupt:
    text, lowered, wal = first_line(exc), str(exc).lower(), f"{path}.wal"
    if "wal does not match" in lowered:
        # DuckDB stamps each WAL with its database's identity: this one was written by another
        # file (copied beside this one, or this one copied without its own WAL).
        return StoreCorrupt(
            f"{wal} is not the write-ahead log of {path} ({text}): another database file "
            f"wrote it; move {wal} aside to read the file as of its last checkpoint, or restore "
            "both files from a backup",
            damaged=True,
        )
    if "replaying wal" in lowered or "corrupt wal" in lowered:
        return StoreCorrupt(
            f"{path}: its write-ahead log {wal} is damaged ({text}); restore the file and its "
            "WAL from a backup",
            damaged=True,
        )
    return StoreCorrupt(
        f"{path} is truncated or damaged ({text}); restore the file from a backup", damaged=True
    )


def open_error(exc: Exception, path: str, *, read_only: bool = False) -> AnatidError:
    """What a DuckDB error raised while opening ``path`` means, most specific match first."""
    text = first_line(exc)
    lowered = str(exc).lower()
    if "lock" in lowered and ("conflicting" in lowered or "could not set lock" in lowered):
        return _locked(path, text, lowered, read_only)
    if "different configuration" in lowered:
        return StoreLocked(
            f"{path} is already open in this process with other settings ({text}); read and "
            "write through that Store (as_of() gives read-only views), or close it first",
            path=path,
        )
    if storage_failure(exc):
        return StorageError(
            f"{path} could not be opened: the storage failed ({text}); free disk space or fix "
            "the storage, then open it again"
        )
    if damaged(exc):
        return _damage(exc, path)
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


def read_error(exc: BaseException, path: str) -> AnatidError | None:
    """What a DuckDB error raised by a verb on the open store ``path`` means; None: re-raise
    it as it is.

    DuckDB reads blocks lazily, so damage that opening did not reach surfaces on the first
    query that reads it."""
    if storage_failure(exc):
        return StorageError(
            f"{path}: the storage failed ({first_line(exc)}); free disk space or fix the "
            "storage, then retry"
        )
    if damaged(exc):
        return _damage(exc, path)
    return None


def write_error(exc: BaseException, path: str) -> AnatidError | None:
    """What an error that rolled a transaction back means; None: re-raise it as it is."""
    if damaged(exc) and not storage_failure(exc):  # a read inside it met damage
        return _damage(exc, path)
    if storage_failure(exc) or isinstance(exc, duckdb.IOException):
        return StorageError(
            f"writing {path} failed: {first_line(exc)}; the transaction was "
            "rolled back and every earlier commit is intact: free disk space (or fix "
            "the storage), then retry"
        )
    if isinstance(exc, duckdb.TransactionException):
        return WriteConflict(
            f"the transaction on {path} conflicted with another: {exc}; retry it",
            retryable=True,
        )
    return None
