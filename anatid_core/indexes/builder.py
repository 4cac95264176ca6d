"""The index builder (issue 41): a process of its own that builds or merges every persistent index a
store needs, started by the store's writers, so that nobody has to run ``anatid index``.

Why a process, not a thread of the writer:

* a script that writes and exits, ``cognee-cli add``, an MCP server that restarts: a thread dies
  with its process, and the next process paid seconds to load the store into memory (issue 41:
  4.6 s and 10.8 s for the first searches at 100k facts);
* a build competes with the writer's own searches for the cores and, in one process, for the
  GIL: a process of its own at a lower priority (``nice`` 10) gives way to them;
* one builder per store, across every process that writes it (the lock file
  ``FILE.anatid-index/.builder.lock``); each build still takes the per-index build lock and reads
  the file in short turns, so writers go on meanwhile.

When: a writing :class:`~anatid_core.Store` closes (or its process exits with it open) while an
index is :func:`needed`; or a long-lived writer's policy asks (:mod:`~.ann_merger`: a search had
to load a large space whole, or the rows written since a build passed ``ANN["merge_rows"]``).
The builder builds what is needed, looks again (writers may have written more meanwhile), at most
``ANN["builder_rounds"]`` times, and exits; each build's report is one JSON line on its standard
output, and its log is ``FILE.anatid-index/.builder.log`` (its last run). Where no Python
interpreter can be started (a frozen application), the writer builds in a thread as before.

    python -m anatid_core.index_builder FILE       (the process: :mod:`anatid_core.index_builder`)
"""

from __future__ import annotations

import atexit
import contextlib
import fcntl
import json
import logging
import os
import subprocess
import sys
import threading
import weakref
from collections.abc import Iterator

from ..base.errors import AnatidError
from ..base.model import IndexBuild, IndexState, Kind
from ..base.settings import SETTINGS
from ..storage import index_files
from .ann import ANN

LOG = logging.getLogger("anatid_core.ann")

#: Set in the builder's environment (to the writer's index settings): a store the builder itself
#: opens starts no builder.
IN_BUILDER = "ANATID_INDEX_BUILDER"
LOCK_NAME = ".builder.lock"
LOG_NAME = ".builder.log"


def needed(states: list[IndexState], min_rows: int | None = None) -> list[tuple[Kind, str | None]]:
    """The indexes a builder should build or merge now: one not usable (or not built) over at
    least ``min_rows`` rows (default ``SETTINGS["ann_min_rows"]``), a flat one (its graph is
    not built yet), or one whose rows written since reach ``ANN["merge_rows"]`` or
    ``ANN["merge_fraction"]`` of it."""
    least = SETTINGS["ann_min_rows"] if min_rows is None else min_rows
    out: list[tuple[Kind, str | None]] = []
    for s in states:
        if s.state == "ok" and s.format == "flat":  # its graph is still to be built
            out.append((s.kind, s.space))
        elif s.state == "ok":
            wanted = max(int(ANN["merge_rows"]), int(ANN["merge_fraction"] * s.rows))
            if s.pending >= max(wanted, 1):
                out.append((s.kind, s.space))
        elif s.pending >= least:
            out.append((s.kind, s.space))
    return out


#: In the builder's environment: the descriptor of the builder lock its starter took for it.
LOCK_FD = "ANATID_INDEX_BUILDER_LOCK_FD"


def _lock_fd(store_path: str) -> int | None:
    """A descriptor holding the store's builder lock, or None if another builder holds it."""
    path = os.path.join(index_files.folder_of(store_path), LOCK_NAME)
    with index_files.writing(store_path):
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        return None
    return fd


@contextlib.contextmanager
def builder_lock(store_path: str) -> Iterator[bool]:
    """Hold the store's builder lock (yields whether this process holds it): the one its
    starter took and handed down, else taken now if no other builder holds it."""
    inherited = os.environ.pop(LOCK_FD, None)
    fd = int(inherited) if inherited and inherited.isdigit() else _lock_fd(store_path)
    try:
        yield fd is not None
    finally:
        if fd is not None:
            os.close(fd)


def running(store_path: str) -> bool:
    """Whether a builder of the store runs now (in any process)."""
    path = os.path.join(index_files.folder_of(store_path), LOCK_NAME)
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    finally:
        os.close(fd)
    return False


def can_spawn() -> bool:
    """Whether a builder process can be started: this is a Python interpreter that can run
    ``-m`` (not a frozen application), and this process is no builder itself."""
    if os.environ.get(IN_BUILDER) or getattr(sys, "frozen", False) or not sys.executable:
        return False
    return os.path.basename(sys.executable).lower().startswith(("python", "pypy"))


def command(store_path: str) -> tuple[list[str], dict[str, str]]:
    """The builder's command line and environment (this package importable from it; this
    process's index settings in ``IN_BUILDER``: it builds as this writer would)."""
    package_root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    env = dict(os.environ)
    env[IN_BUILDER] = json.dumps({"ann": ANN, "ann_min_rows": SETTINGS["ann_min_rows"]})
    env["PYTHONPATH"] = os.pathsep.join(p for p in (package_root, env.get("PYTHONPATH")) if p)
    return [sys.executable, "-m", "anatid_core.index_builder", store_path], env


def adopt_settings() -> None:
    """In the builder: take the settings of the writer that started it."""
    try:
        given = json.loads(os.environ.get(IN_BUILDER) or "{}")
    except ValueError:
        return
    if isinstance(given, dict):
        ANN.update({k: v for k, v in dict(given.get("ann") or {}).items() if k in ANN})
        if isinstance(given.get("ann_min_rows"), int):
            SETTINGS["ann_min_rows"] = given["ann_min_rows"]


def start(store_path: str, *, detached: bool) -> subprocess.Popen[bytes] | None:
    """Start a builder of the store, unless one runs (None then, or when it cannot start).
    The builder lock is taken here and handed to it, so that from now on everyone sees a
    builder running. ``detached``: its output discarded, outliving this process; else its
    reports come on its standard output (it outlives this process all the same)."""
    args, env = command(store_path)
    try:
        index_files.make_folder(store_path)
        fd = _lock_fd(store_path)
        if fd is None:
            return None
    except (OSError, AnatidError) as e:
        LOG.warning("%s: no index builder started: %s", store_path, e)
        return None
    env[LOCK_FD] = str(fd)
    try:
        with open(os.path.join(index_files.folder_of(store_path), LOG_NAME), "wb") as log:
            return subprocess.Popen(
                args,
                env=env,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL if detached else subprocess.PIPE,
                stderr=log,
                start_new_session=True,  # a terminal's Ctrl-C or hang-up is the writer's
                pass_fds=(fd,),
            )
    except OSError as e:
        LOG.warning("%s: no index builder started: %s", store_path, e)
        return None
    finally:
        os.close(fd)  # the builder holds the lock through its own copy


def reports_of(out: bytes) -> list[IndexBuild]:
    """The builds a builder reported on its standard output."""
    found = []
    for line in out.decode("utf-8", "replace").splitlines():
        with contextlib.suppress(ValueError, TypeError):
            found.append(IndexBuild(**json.loads(line)))
    return found


# --------------------------------------------------------------------------- writers' exits

_open_writers: weakref.WeakSet[_ExitHook] = weakref.WeakSet()
_hook_lock = threading.Lock()
_hooked = False


class _ExitHook:
    """Asks for a builder when a writing store closes, or its process exits with it open."""

    def __init__(self, want: object) -> None:
        self._want = want  # a callable giving the store path when a builder is needed, or None

    def fire(self) -> None:
        want = self._want
        self._want = None
        if want is None:
            return
        try:
            path = want()  # type: ignore[operator]
        except Exception:  # the store is being torn down: nothing to ask of it now
            LOG.debug("no index check at exit", exc_info=True)
            return
        if path is not None:
            start(path, detached=True)


def on_exit(want: object) -> _ExitHook:
    """Register ``want`` (a callable: the store path when a builder is needed, else None) to
    run when the store closes (call :meth:`_ExitHook.fire`) or the interpreter exits."""
    global _hooked
    hook = _ExitHook(want)
    with _hook_lock:
        _open_writers.add(hook)
        if not _hooked:
            atexit.register(_at_exit)
            _hooked = True
    return hook


def _at_exit() -> None:
    for hook in list(_open_writers):
        hook.fire()


__all__ = [
    "IN_BUILDER",
    "LOCK_FD",
    "adopt_settings",
    "builder_lock",
    "can_spawn",
    "command",
    "needed",
    "on_exit",
    "reports_of",
    "running",
    "start",
]
