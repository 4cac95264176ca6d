"""One open Store per file per process, shared by reference count.

Cognee builds the graph adapter and the vector adapter separately (two factories, two engine
caches). When both point at the same file they must share one DuckDB database: a second
``duckdb.connect`` to a file this process already holds would work, but two ``Store`` objects
would each keep their own caches and write locks. So adapters ``acquire`` the store for a path
and ``release`` it when Cognee evicts them; the last release closes the file (the NeuG
community adapter's connection manager, same idea).

Deleting a dataset removes its file (:func:`remove_when_released`): at once when no adapter of
this process holds it, else when the last one lets go (issue 14).

Files still open when the process ends are closed by :func:`close_all`, at exit and on SIGTERM
(:mod:`anatid_cognee.shutdown`), so their WAL is checkpointed. Only the process that opened a
file closes it: a forked child inherits the registry (and the exit and signal handlers) but
must not checkpoint its parent's DuckDB database.
"""

from __future__ import annotations

import logging
import os
import threading
from dataclasses import dataclass, field

from cognee.exceptions import CogneeSystemError

from anatid_core import Store, StoreCorrupt, StoreLocked, remove_store

from . import shutdown
from .errors import cognee_errors, unusable_location

MEMORY = ":memory:"


@dataclass
class _Entry:
    store: Store
    refs: int = 0
    #: The process that opened the file (a forked child sees the entry too).
    pid: int = field(default_factory=os.getpid)
    #: Remove the file when the last reference goes (its dataset was deleted).
    doomed: bool = False


_log = logging.getLogger(__name__)
_lock = threading.Lock()
_entries: dict[str, _Entry] = {}


def store_key(path: str) -> str:
    """The registry key of a path: ``:memory:`` as is, a file by its resolved absolute path."""
    if path == MEMORY:
        return MEMORY
    return os.path.realpath(os.path.abspath(os.path.expanduser(path)))


def acquire(path: str) -> Store:
    """The shared open Store for ``path``, opening (and creating) the file on first use."""
    key = store_key(path)
    shutdown.arm(close_all)
    with _lock:
        entry = _entries.get(key)
        if entry is None or entry.store.closed or entry.pid != os.getpid():
            entry = _Entry(_open(key))
            _entries[key] = entry
        # A dataset created again under the id of a deleted one: its (erased) file is kept.
        entry.doomed = False
        entry.refs += 1
        return entry.store


def _open(key: str) -> Store:
    """Open (creating) the file; a location that cannot hold a file is a configuration error."""
    is_new = key != MEMORY and not os.path.exists(key)
    try:
        if key != MEMORY:
            os.makedirs(os.path.dirname(key) or ".", exist_ok=True)
        with cognee_errors():
            return Store.open(key)
    except OSError as exc:  # the folder cannot be created: a file is in the way, no permission
        raise unusable_location(key, exc) from exc
    except CogneeSystemError as exc:
        # The core calls a path it cannot open "corrupt"; for a file that does not exist yet
        # the cause is its location, which the user fixes in the configuration.
        if is_new and isinstance(exc.__cause__, StoreCorrupt):
            raise unusable_location(key, exc.__cause__) from exc.__cause__
        raise


def release(store: Store) -> None:
    """Drop one reference to ``store``; the last one closes it. Unknown stores are ignored."""
    with _lock:
        for key, entry in list(_entries.items()):
            if entry.store is store:
                entry.refs -= 1
                if entry.refs > 0:
                    return
                del _entries[key]
                entry.store.close()
                break
        else:
            return
    if entry.doomed:
        _remove(key)


def remove_when_released(path: str) -> None:
    """Remove ``path`` and the files beside it once no adapter of this process holds it: now,
    or when the last holder releases it (a dataset deleted while an engine of it is still in
    use elsewhere). Acquiring the path again before that keeps the file."""
    key = store_key(path)
    with _lock:
        entry = _entries.get(key)
        if entry is not None and not entry.store.closed and entry.pid == os.getpid():
            entry.doomed = True
            return
    _remove(key)


def _remove(key: str) -> None:
    with cognee_errors():
        try:
            remove_store(key)
        except StoreLocked as exc:
            # Another process has the file open (issue 11): its records are erased already;
            # the empty file stays for that process, and is reused if the dataset comes back.
            _log.warning("anatid: %s not removed: %s", key, exc)


def is_open(path: str) -> bool:
    """Whether some adapter in this process still holds ``path`` open."""
    with _lock:
        entry = _entries.get(store_key(path))
        return entry is not None and not entry.store.closed


def borrow(path: str) -> Store | None:
    """The store for ``path`` if it is open in this process (no reference is taken)."""
    with _lock:
        entry = _entries.get(store_key(path))
        return entry.store if entry is not None and not entry.store.closed else None


def close_all() -> None:
    """Close every file this process opened, whatever its reference count (at exit, on
    SIGTERM). Entries inherited through ``fork`` are dropped, not closed."""
    with _lock:
        entries = list(_entries.values())
        _entries.clear()
    for entry in entries:
        if entry.pid == os.getpid():
            entry.store.close()
