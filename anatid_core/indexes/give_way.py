"""A background build that gives way to the machine's other work (issue 41: "while a build runs,
a long-lived writer's searches are at most 1.5x slower").

Lowering the builder's priority is not enough. Measured on this project's 2-core machine: one
usearch thread adding to a 60k x 512 graph in Linux's idle scheduling class, on the other core,
made a writer's hybrid searches 3.5x slower (p50 3.6 -> 12.5 ms), where two idle-class busy loops
slowed them by nothing: the cores share the memory system, and an HNSW insert is random reads
over the whole graph. So the builder, like Lucene's merge scheduler throttling its merges, runs
on a duty cycle while other processes are busy: after each slice of work it looks at the
machine's CPU time other than its own (``/proc/stat`` less ``/proc/self/stat``), and if others
used more than :data:`GIVE_WAY` ``["busy"]`` of a core meanwhile, it sleeps ``["pause"]`` times
the slice. A build alone on the machine (a writer that exited, ``cognee-cli`` between commands)
runs at full speed; beside a busy writer it takes longer. Where ``/proc`` is missing (not Linux)
the build never sleeps.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable

#: ``busy``: the share of a core other processes must have used during a slice for the builder
#: to sleep after it; ``pause``: the sleep, as a multiple of the slice (2: a third of the time
#: at work while others are busy); ``slice_rows``: vectors added per slice while giving way.
GIVE_WAY: dict[str, float] = {"busy": 0.2, "pause": 2.0, "slice_rows": 256}


def _ticks_per_second() -> int:
    try:
        return int(os.sysconf("SC_CLK_TCK"))
    except (ValueError, OSError, AttributeError):
        return 100


_HZ = _ticks_per_second()


def _machine_busy_ticks() -> int | None:
    """Every CPU's busy time since boot (user, nice, system, irq, softirq, steal), in ticks."""
    try:
        with open("/proc/stat", "rb") as fh:
            first = fh.readline().split()
    except OSError:
        return None
    if len(first) < 9 or first[0] != b"cpu":
        return None
    user, nice, system, _idle, _iowait, irq, softirq, steal = (int(x) for x in first[1:9])
    return user + nice + system + irq + softirq + steal


def _own_ticks() -> int | None:
    """This process's CPU time (user + system, every thread), in ticks."""
    try:
        with open("/proc/self/stat", "rb") as fh:
            text = fh.read()
    except OSError:
        return None
    fields = text[text.rfind(b")") + 2 :].split()  # after the command name, which may hold spaces
    try:
        return int(fields[11]) + int(fields[12])  # utime, stime (fields 14 and 15)
    except (IndexError, ValueError):
        return None


class GiveWay:
    """Call :meth:`after_slice` after each slice of build work: it sleeps when other processes
    were busy during the slice. ``enabled`` False: it never sleeps (a build someone waits for,
    ``anatid index`` or ``Store.build_indexes``, runs at full speed)."""

    def __init__(self, enabled: bool, sleep: Callable[[float], None] = time.sleep) -> None:
        self.enabled = enabled and _machine_busy_ticks() is not None
        self._sleep = sleep
        self.slept = 0.0  # seconds given way, for the build's log
        self._mark()

    def slice_rows(self, default: int) -> int:
        """Rows of one slice of adding: smaller while giving way, so that a pause follows soon."""
        return min(default, int(GIVE_WAY["slice_rows"])) if self.enabled else default

    def after_slice(self) -> None:
        if not self.enabled:
            return
        now, machine, own = time.monotonic(), _machine_busy_ticks(), _own_ticks()
        spent = now - self._at
        if machine is not None and own is not None and spent > 0:
            others = (machine - self._machine) - (own - self._own)
            if others / _HZ >= GIVE_WAY["busy"] * spent:
                pause = GIVE_WAY["pause"] * spent
                self._sleep(pause)
                self.slept += pause
        self._mark()

    def _mark(self) -> None:
        self._at = time.monotonic()
        self._machine = _machine_busy_ticks() or 0
        self._own = _own_ticks() or 0


__all__ = ["GIVE_WAY", "GiveWay"]
