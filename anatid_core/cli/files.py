"""The files a command touches: the store, opened read-only (or a view of one instant of it), and
the output file, written completely before it replaces an old one.

Every command but ``erase`` and ``compact`` opens the store read-only: it never writes and never
migrates. While another
process writes the file, the command takes its turn on it (the writer hands the file over
between two of its operations, issue 11) and fails with a clear message only when no turn
came within ``anatid_core.LEASE["timeout"]``.
"""

from __future__ import annotations

import argparse
import os
import stat
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime
from typing import TextIO

from anatid_core import Store, View, check_output

from .status import CommandError
from .terminal import parse_time


def open_store(path: str) -> Store:
    if not os.path.exists(path):
        raise CommandError(f"{path}: no such file")
    # A command reads a few records and exits: loading every current record into memory first
    # (what a long-lived process gains from) would cost it more than its reads (issue 44).
    return Store.open(path, read_only=True, records_in_memory=False)


def open_store_for_writing(path: str) -> Store:
    """For ``erase``, ``compact`` and ``index``: an existing store only (never a new, empty file)."""
    if not os.path.exists(path):
        raise CommandError(f"{path}: no such file")
    return Store.open(path)


def reader_for(store: Store, args: argparse.Namespace) -> Store | View:
    """The store, or an ``as_of`` view when --as-of / --valid-at were given."""
    tx = _time(args, "as_of", "--as-of")
    valid = _time(args, "valid_at", "--valid-at")
    if tx is None and valid is None:
        return store
    return store.as_of(tx_time=tx, valid_time=valid)


def _time(args: argparse.Namespace, attr: str, option: str) -> datetime | None:
    raw = getattr(args, attr, None)
    if raw is None:
        return None
    try:
        return parse_time(raw, option=option)
    except ValueError as exc:
        raise CommandError(str(exc)) from None


def output_path(path: str | None, *, source: str) -> str | None:
    """Where to write (symlinks followed), or None for stdout; refused before anything is
    written or even read when it is the store being read, another store, or a store's side
    file (:func:`anatid_core.check_output`, issue 32)."""
    if path is None or path == "-":
        return None
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        raise CommandError(f"{path}: the folder {folder} does not exist")
    return check_output(path, reading=[source])


@contextmanager
def output(path: str | None, *, like: str | None = None) -> Iterator[TextIO]:
    """stdout (for None), or the file ``path`` (checked by :func:`output_path`), written
    completely before it replaces any old one. A file that existed keeps its mode; a new one is
    no more open than ``like`` (an export of a private memory stays private)."""
    if path is None:
        yield sys.stdout
        return
    mode = _mode_of(path) if os.path.exists(path) else _mode_of(like) & 0o666
    tmp = f"{path}.tmp-{os.getpid()}"
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, mode)
        os.fchmod(fd, mode & ~_umask())
        with open(fd, "w", encoding="utf-8", newline="\n") as out:
            yield out
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)


def _mode_of(path: str | None) -> int:
    try:
        return stat.S_IMODE(os.stat(path).st_mode) if path is not None else 0o666
    except OSError:
        return 0o666


def _umask() -> int:
    old = os.umask(0o077)
    os.umask(old)
    return old
