"""The store's tunables that more than one layer reads (``anatid_core.SETTINGS``), at a glance.

Each layer keeps its own tunables beside its code (``LEASE``, ``WALKS``, ``COMPACT``, ...);
these two are read where the store is opened and where its in-memory records are built.
"""

from __future__ import annotations

from typing import Any

from .machine import memory_bytes

#: What one current record takes in memory: Graphiti-shaped records, measured with tracemalloc
#: (95 MB per 100k entities, 145 MB per 100k facts: anatid_core.indexes.current_records).
RECORD_BYTES = 1_450
#: The share of the machine's memory the in-memory records of both kinds may take at most.
RECORDS_SHARE = 0.25
#: The bound where the machine's memory is not known, and the least on a small machine.
FEWEST_RECORDS = 500_000


def records_limit(memory: int | None) -> int:
    """The default ``current_records_limit`` for a machine of ``memory`` bytes: the records of
    both kinds in a quarter of it (2.2M a kind on 24 GiB, 1.4M on 16, 700k on 8), in steps of
    100,000, never under 500,000 (the bound before it was sized by the machine)."""
    if memory is None:
        return FEWEST_RECORDS
    fits = int(memory * RECORDS_SHARE / (2 * RECORD_BYTES)) // 100_000 * 100_000
    return max(FEWEST_RECORDS, fits)


SETTINGS: dict[str, Any] = {
    # How long a writer waits for another thread's transaction before giving up (seconds).
    "write_lock_timeout": 60.0,
    # Most current records of one kind kept in memory for reads by id and single-record saves
    # (anatid_core.indexes.current_records); above it those go to SQL. 0 turns them off.
    # Sized by the machine (records_limit: a quarter of its memory at ~1.4 kB a record; at
    # least 500,000, a memory of ~400k Graphiti facts or Cognee's 100k nodes and 300k edges).
    # Issue 42: at 100k facts, a filtered Cypher LIMIT 10 took 29 ms with the edges read by
    # SQL and 4.3 ms in memory, for 186 MB; issue 43: Cognee's get_neighborhood at 100k nodes
    # 24.6 -> 0.8 ms and has_edges(100) 39 -> 2.1 ms, for 410 MB more resident; a get by id
    # at 1M nodes and 2M edges 1.5 ms by SQL, 0.012 ms in memory (2.7 GB resident).
    "current_records_limit": records_limit(memory_bytes()),
    # Reads by id of a kind that SQL answers before that kind's current records are loaded:
    # a process that reads a few records and exits (a CLI command, a restarted server's first
    # search) does not pay the load (1.1 s at 100k facts); a long-lived one loads them after.
    "current_records_after_reads": 16,
    # Fewest vectors in a space for Store.build_indexes to give it a persistent ANN index
    # (anatid_core.indexes.ann); smaller spaces are searched exactly, in memory.
    "ann_min_rows": 20_000,
}

__all__ = ["SETTINGS", "records_limit"]
