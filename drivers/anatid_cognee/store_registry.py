"""One open Store per file per process, shared by reference count.

Cognee builds the graph adapter and the vector adapter separately (two factories, two engine
caches). When both point at the same file they must share one DuckDB database: a second
``duckdb.connect`` to a file this process already holds would work, but two ``Store`` objects
would each keep their own caches and write locks. So adapters ``acquire`` the store for a path
and ``release`` it when Cognee evicts them; the last release closes the file (the NeuG
community adapter's connection manager, same idea).

Files still open when the interpreter exits normally (a script, ``cognee-cli``) are closed by
an ``atexit`` handler (:func:`close_all`), so their WAL is checkpointed. The API server's
shutdown does not reach ``atexit`` (uvicorn re-raises SIGTERM): there the adapters' ``close()``
releases the file when Cognee evicts them (issue 12).
"""

from __future__ import annotations

import atexit
import os
import threading
from dataclasses import dataclass

from cognee.exceptions import CogneeSystemError

from anatid_core import Store, StoreCorrupt

from .errors import cognee_errors, unusable_location

MEMORY = ":memory:"


@dataclass
class _Entry:
    store: Store
    refs: int = 0


_lock = threading.Lock()
_entries: dict[str, _Entry] = {}
_atexit_registered = False


def store_key(path: str) -> str:
    """The registry key of a path: ``:memory:`` as is, a file by its resolved absolute path."""
    if path == MEMORY:
        return MEMORY
    return os.path.realpath(os.path.abspath(os.path.expanduser(path)))


def acquire(path: str) -> Store:
    """The shared open Store for ``path``, opening (and creating) the file on first use."""
    key = store_key(path)
    with _lock:
        _close_at_exit()
        entry = _entries.get(key)
        if entry is None or entry.store.closed:
            entry = _Entry(_open(key))
            _entries[key] = entry
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
                if entry.refs <= 0:
                    del _entries[key]
                    entry.store.close()
                return


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
    """Close every file this process holds, whatever its reference count (at exit)."""
    with _lock:
        entries = list(_entries.values())
        _entries.clear()
    for entry in entries:
        entry.store.close()


def _close_at_exit() -> None:
    # Registered on first use, not at import: importing the driver has no side effects.
    global _atexit_registered
    if not _atexit_registered:
        atexit.register(close_all)
        _atexit_registered = True
