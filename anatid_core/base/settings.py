"""The store's tunables that more than one layer reads (``anatid_core.SETTINGS``), at a glance.

Each layer keeps its own tunables beside its code (``LEASE``, ``WALKS``, ``COMPACT``, ...);
these two are read where the store is opened and where its in-memory records are built.
"""

from __future__ import annotations

from typing import Any

SETTINGS: dict[str, Any] = {
    # How long a writer waits for another thread's transaction before giving up (seconds).
    "write_lock_timeout": 60.0,
    # Most current records of one kind kept in memory for reads by id and single-record saves
    # (anatid_core.indexes.current_records); above it those go to SQL. 0 turns them off.
    "current_records_limit": 100_000,
}

__all__ = ["SETTINGS"]
