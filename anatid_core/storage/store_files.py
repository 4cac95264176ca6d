"""Removing a store file from disk, with the files that sit beside it.

A store is more than its file: DuckDB's WAL (``FILE.wal``, present while the file is open or after
a crash), the lease's two lock files (:func:`anatid_core.storage.lease.lease_files`) and the
folder of its persistent vector indexes (``FILE.anatid-index/``, derived data:
:mod:`anatid_core.storage.index_files`). A host that
deletes a database (a dataset's file, say) wants all of them gone, and never from under a
process that still uses the file: its writes would go to a file nobody can open again, and a
WAL left behind would be replayed into a new file of the same name.
"""

from __future__ import annotations

import os

from ..base.errors import InvalidInput, StoreLocked
from .index_files import folder_of, remove_all
from .lease import Lease, lease_files
from .opening import claim, release, resolve


def store_files(path: str | os.PathLike[str]) -> list[str]:
    """Every file a store at ``path`` may have on disk: the file, its WAL, its lock files and
    its index folder (named after the real file: symlinks in ``path`` are followed)."""
    path = resolve(os.fspath(path))
    return [path, path + ".wal", *lease_files(path), folder_of(path)]


def remove_store(path: str | os.PathLike[str]) -> list[str]:
    """Delete the store at ``path`` and the files beside it; returns the paths removed.

    Nothing is removed, and :class:`StoreLocked` is raised, while the file is open: by a
    ``Store`` of this process, or by another process (which holds the lease, or waits for it).
    A path with nothing on disk removes nothing. ``":memory:"`` is :class:`InvalidInput`.
    A symlink is followed: the real file goes, and the link naming it too.
    """
    given = os.fspath(path)
    if given == ":memory:":
        raise InvalidInput("an in-memory store has no files to remove; close it instead")
    path = resolve(given)
    link = [given] if given != path and os.path.islink(given) else []
    if not any(os.path.lexists(p) for p in store_files(path)):
        return _unlink(link)
    key = claim(path)  # StoreLocked while a Store of this process has the file open
    try:
        lease = Lease(path, shared=False)
        try:
            _refuse_if_in_use(path, lease)
            files = [p for p in store_files(path) if p != folder_of(path)]
            return _unlink(files[:2]) + remove_all(path) + _unlink(files[2:]) + _unlink(link)
        finally:
            lease.close()
    finally:
        release(key)


def _refuse_if_in_use(path: str, lease: Lease) -> None:
    if not lease.enforced:
        return  # no lock files can be made here (read-only folder): removal fails below anyway
    if not lease.acquire(timeout=0) or lease.others_waiting() or lease.background_waiting():
        raise StoreLocked(
            f"{path} is in use by {lease.describe_holder()}; close it there before removing it",
            path=path,
        )


def _unlink(paths: list[str]) -> list[str]:
    # Called for the store and its WAL first, the lock files (which we hold) last.
    removed = []
    for p in paths:
        try:
            os.remove(p)
        except FileNotFoundError:
            continue
        removed.append(p)
    return removed


__all__ = ["remove_store", "store_files"]
