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
    # 500,000: a memory of up to ~400k Graphiti facts (its facts and mentions are edges), or of
    # Cognee's 100k nodes and 300k edges, keeps its edges in memory too, at ~1.4 kB a record
    # (issue 42: at 100k facts, a filtered Cypher LIMIT 10 took 29 ms with the edges read by
    # SQL and 4.3 ms in memory, for 186 MB; issue 43: Cognee's get_neighborhood at 100k nodes
    # 24.6 -> 0.8 ms and has_edges(100) 39 -> 2.1 ms, for 410 MB more resident).
    "current_records_limit": 500_000,
    # Reads by id of a kind that SQL answers before that kind's current records are loaded:
    # a process that reads a few records and exits (a CLI command, a restarted server's first
    # search) does not pay the load (1.1 s at 100k facts); a long-lived one loads them after.
    "current_records_after_reads": 16,
    # Fewest vectors in a space for Store.build_indexes to give it a persistent ANN index
    # (anatid_core.indexes.ann); smaller spaces are searched exactly, in memory.
    "ann_min_rows": 20_000,
}

__all__ = ["SETTINGS"]
