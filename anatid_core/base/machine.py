"""What the machine gives this process: its memory, for the bounds sized by it.

The in-memory current records (:mod:`anatid_core.indexes.current_records`) were bounded at a fixed
500,000 records a kind, so a memory of 1M facts read every record by SQL on a machine of 24 GiB
(a point read 1-1.5 ms, 92x the in-memory read; issue 43). A database sizes its caches by the
machine (DuckDB's ``memory_limit`` defaults to 80% of it); the records take a quarter at most.
"""

from __future__ import annotations

import os
from pathlib import Path

#: The cgroup files that bound a container's memory (v2, then v1); "max" or a huge number
#: where nothing bounds it. A container sees the host's memory in ``sysconf``.
_CGROUP_LIMITS = (
    Path("/sys/fs/cgroup/memory.max"),
    Path("/sys/fs/cgroup/memory/memory.limit_in_bytes"),
)


def memory_bytes() -> int | None:
    """The memory this process may use: the machine's, or its container's bound where that is
    lower; None where the system does not say (then the callers keep their fixed bounds)."""
    try:
        total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (AttributeError, ValueError, OSError):  # (Windows has no SC_PHYS_PAGES)
        return None
    if total <= 0:
        return None
    for path in _CGROUP_LIMITS:
        try:
            text = path.read_text().strip()
        except OSError:
            continue
        if text.isdigit() and 0 < int(text) < total:
            total = int(text)
    return total


__all__ = ["memory_bytes"]
