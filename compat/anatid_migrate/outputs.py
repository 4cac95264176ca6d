"""Where anatid-migrate may write: never over what it reads, nor a store or a store's side file it
was not asked to replace (issue 32).

Every path a command writes is checked here before anything is written: an import's TARGET, its
temporary file, an export's history files and journal, and a LadybugDB export's graph file.
:func:`anatid_core.check_output` decides (by what a file is, not by its name; symlinks and hard
links count), and this module is the one place where its ``InvalidInput`` becomes this package's
:class:`~anatid_migrate.errors.UnsafeOutput`, which the CLI reports with exit status 1.

An import's TARGET is the one output that may be an existing store: ``--force`` replaces it, as
documented (a new file renamed over it, only once verified). Even then it must not be a file the
command reads, by any of its names, nor belong to another store as one of its side files.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path

from anatid_core import InvalidInput, check_output, is_duckdb_file, store_of_side_file

from .errors import UnsafeOutput

PathLike = str | os.PathLike[str]


@contextmanager
def _mapped() -> Iterator[None]:
    try:
        yield
    except InvalidInput as exc:
        raise UnsafeOutput(f"{exc}. Nothing was written.") from exc


def check_file(path: PathLike, *, reading: Iterable[PathLike] = (), what: str) -> Path:
    """Refuse (``UnsafeOutput``) to write ``path`` when it is a file being read, a store, a
    store's side file or a directory; the path to write (symlinks followed)."""
    with _mapped():
        return Path(check_output(path, reading=list(reading), what=what))


def refuse_reading(path: PathLike, reading: Iterable[PathLike], *, what: str) -> None:
    """Refuse ``path`` when it is one of the files being read, by any of their names."""
    for source in reading:
        if _same_file(path, source):
            raise UnsafeOutput(
                f"{what} {path} is the file being read ({source}); writing it would destroy it: "
                "choose another output path. Nothing was written."
            )


def check_target(path: PathLike, *, reading: Iterable[PathLike] = (), what: str) -> Path:
    """An import's TARGET: anything :func:`check_file` allows, or an existing store that is not
    being read (replaced only with ``--force``, the caller's check) and is no other store's side
    file (an interrupted compaction's copy is both). The path to write (symlinks followed)."""
    reading = list(reading)
    real = os.path.realpath(path)
    if not is_duckdb_file(real):
        return check_file(path, reading=reading, what=what)
    refuse_reading(path, reading, what=what)
    owner = store_of_side_file(real)
    if owner is not None:
        raise UnsafeOutput(
            f"{what} {path} belongs to the store {owner} (an interrupted compaction's copy); "
            "replacing it would damage that store: choose another path. Nothing was written."
        )
    return Path(real)


def check_directory(
    path: PathLike, names: Iterable[str], *, reading: Iterable[PathLike], what: str
) -> Path:
    """A directory the command writes the files ``names`` into (an export's history): it may
    exist, but must be a directory, and none of those files may be a file being read, a store
    or a store's side file. The directory (symlinks followed)."""
    reading = list(reading)
    real = Path(os.path.realpath(path))
    if real.exists() and not real.is_dir():
        check_file(path, reading=reading, what=what)  # names a store or the source first
        raise UnsafeOutput(
            f"{what} {path} is a file, not a directory: give a directory path (by default "
            "FILE.history beside FILE). Nothing was written."
        )
    for name in names:
        check_file(real / name, reading=reading, what=f"{what}'s {name}")
    return real


def _same_file(a: PathLike, b: PathLike) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return os.path.realpath(a) == os.path.realpath(b)


__all__ = ["check_directory", "check_file", "check_target", "refuse_reading"]
