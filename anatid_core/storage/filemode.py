"""New files of a store no wider than the store: DuckDB creates its WAL with the process's
default mode (0644 under the usual umask), so a private (0600) memory's latest writes would be
readable by every user of the machine until the next checkpoint removes the WAL (issue 32).

DuckDB creates the WAL inside COMMIT and gives no hook for its mode, so the process's umask is
narrowed around the statements that may create it. The umask is process-wide: a file another
thread creates in that instant gets a narrower mode, never a wider one.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from contextlib import contextmanager


def creation_mask(path: str) -> int:
    """The umask bits that keep a new file no wider than ``path`` for group and others."""
    try:
        mode = stat.S_IMODE(os.stat(path).st_mode)
    except OSError:
        return 0
    return 0o077 & ~mode


@contextmanager
def no_wider(mask: int) -> Iterator[None]:
    """Files created inside the block lack the ``mask`` permission bits (besides the umask's)."""
    if not mask:
        yield
        return
    old = os.umask(0o077)  # reading the umask means setting it: strictest meanwhile
    os.umask(old | mask)
    try:
        yield
    finally:
        os.umask(old)


__all__ = ["creation_mask", "no_wider"]
