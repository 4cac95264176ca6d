"""A process that erases victims one by one, to be SIGKILLed (tests/reliability/test_erasure_crash.py).

    python -m tests.reliability.erasure_child PATH VICTIMS [POINT N]

prints ``erased V`` after each erasure returns. With POINT and N it kills itself at the N-th
time the erasure reaches POINT (one of :data:`POINTS`), so that every step of purge and
compaction is hit exactly, besides the random kills of the parent.
"""

from __future__ import annotations

import os
import signal
import sys
from collections.abc import Callable
from typing import Any

from anatid_core import Store
from anatid_core import eraser as erasing
from anatid_core.storage import compaction, receipts
from tests.core.erasure_data import uncompressed, victim_ids

#: Where a run may die: (module, function name, before or after the call).
POINTS: dict[str, tuple[Any, str, str]] = {
    "purge-recorded": (erasing.receipts, "record", "after"),  # inside the purge transaction
    "copy-start": (compaction, "write_copy", "before"),
    "copy-tables": (compaction, "copy_tables", "after"),  # rows and indexes in the copy
    "copy-marked": (receipts, "mark_gone", "after"),  # the copy is full, not yet detached
    "copy-written": (compaction, "write_copy", "after"),
    "store-detached": (compaction, "detach", "after"),
    "before-rename": (compaction.os, "replace", "before"),
    "after-rename": (compaction.os, "replace", "after"),
    "after-dir-fsync": (compaction, "swap_in", "after"),
    "reattached": (compaction, "_attach_again", "after"),
}


def _die() -> None:
    os.kill(os.getpid(), signal.SIGKILL)


def _arm(point: str, nth: int) -> None:
    owner, name, when = POINTS[point]
    real: Callable[..., Any] = getattr(owner, name)
    calls = [0]

    def wrapped(*args: Any, **kwargs: Any) -> Any:
        calls[0] += 1
        if calls[0] == nth and when == "before":
            _die()
        result = real(*args, **kwargs)
        if calls[0] == nth and when == "after":
            _die()
        return result

    setattr(owner, name, wrapped)


def main(argv: list[str]) -> None:
    path, victims = argv[0], int(argv[1])
    if len(argv) > 2:
        _arm(argv[2], int(argv[3]))
    with Store.open(path) as store:
        uncompressed(store)
        for v in range(victims):
            store.erase_nodes(victim_ids(v))
            print(f"erased {v}", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
