"""Where a command may write: never over a store, its side files, or the file it is reading.

One mistyped ``--out`` used to replace a whole memory with an export of it (issue 32). Every
command that writes a file (``anatid export``/``view``, anatid-migrate's targets and outputs,
anatid-mcp's journal) asks :func:`check_output` first, before it writes anything. An ordinary
existing file may be replaced (as the commands document); a store may not, by any of its names.
"""

from __future__ import annotations

import os
from collections.abc import Iterable

from ..base.errors import InvalidInput
from .index_files import owner_of_folder

#: The bytes at offset 8 of every DuckDB database file (after the header's checksum).
DUCKDB_MAGIC = b"DUCK"
_MAGIC_OFFSET = 8

#: Files that sit beside a store and belong to it: DuckDB's WAL, the lease's lock files, an
#: interrupted compaction's copy (and its WAL). Writing over any of them damages the store.
SIDE_SUFFIXES = (
    ".wal",
    ".anatid-lease",
    ".anatid-wait",
    ".anatid-wait-background",
    ".anatid-compact",
    ".anatid-compact.wal",
)


def is_duckdb_file(path: str | os.PathLike[str]) -> bool:
    """Whether ``path`` is a DuckDB database file (by its header, not its name)."""
    try:
        with open(path, "rb") as f:
            head = f.read(_MAGIC_OFFSET + len(DUCKDB_MAGIC))
    except OSError:
        return False
    return head[_MAGIC_OFFSET:] == DUCKDB_MAGIC


def store_of_side_file(path: str | os.PathLike[str]) -> str | None:
    """The store that ``path`` belongs to when it is one of a store's side files or inside its
    index folder (``FILE.anatid-index/``, by that name or, reached through a symlink, by the
    marker the folder holds), else None."""
    text = os.fspath(path)
    owner = owner_of_folder(os.path.dirname(text))
    if owner is not None:
        return owner
    for suffix in sorted(SIDE_SUFFIXES, key=len, reverse=True):
        if text.endswith(suffix):
            owner = text[: -len(suffix)]
            if owner and is_duckdb_file(owner):
                return owner
    return None


def _same_file(a: str, b: str) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return os.path.realpath(a) == os.path.realpath(b)


def check_output(
    path: str | os.PathLike[str],
    *,
    reading: Iterable[str | os.PathLike[str]] = (),
    what: str = "the output",
) -> str:
    """Refuse (:class:`InvalidInput`, nothing written) to write ``path`` when it is a file being
    read (by any of its names: symlinks and hard links count), a DuckDB/anatid store, or one of a
    store's side files. Returns the path resolved (symlinks followed), which is where to write."""
    given = os.fspath(path)
    real = os.path.realpath(given)
    for source in reading:
        src = os.fspath(source)
        if src != ":memory:" and _same_file(real, src):
            raise InvalidInput(
                f"{what} {given} is the file being read ({src}); writing it would destroy it: "
                "choose another output path"
            )
    if os.path.isdir(real):
        raise InvalidInput(f"{what} {given} is a directory; give a file path")
    if is_duckdb_file(real):
        raise InvalidInput(
            f"{what} {given} is a DuckDB/anatid store; writing over it would destroy that "
            "memory: choose another output path (or remove the store with anatid_core."
            "remove_store first if that is really meant)"
        )
    owner = store_of_side_file(real) or store_of_side_file(os.path.abspath(given))
    if owner is not None:
        raise InvalidInput(
            f"{what} {given} belongs to the store {owner} (its WAL, lock or index file); "
            "writing over it would damage that store: choose another output path"
        )
    return real


__all__ = ["DUCKDB_MAGIC", "check_output", "is_duckdb_file", "store_of_side_file"]
