"""Small measuring helpers shared by the benchmark scripts (not a test module)."""

from __future__ import annotations

import os
import platform
import resource
import subprocess
import threading
import time
from collections.abc import Callable
from typing import Any, TypeVar


def timed(fn: Callable[[], Any], *, repeat: int = 50, warmup: int = 3) -> dict[str, float]:
    """p50/p95 in milliseconds of ``fn`` over ``repeat`` calls, after ``warmup`` calls."""
    for _ in range(warmup):
        fn()
    samples = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        samples.append((time.perf_counter() - t) * 1000)
    samples.sort()
    return {
        "p50": samples[len(samples) // 2],
        "p95": samples[min(len(samples) - 1, int(len(samples) * 0.95))],
    }


def rate(rows: int, fn: Callable[[], Any]) -> float:
    """Rows per second of one call of ``fn``."""
    t = time.perf_counter()
    fn()
    return rows / (time.perf_counter() - t)


def wait_for_index_builder(store_path: str) -> None:
    """Wait until no index builder process works on ``store_path``: a writer that exits starts
    one (it holds the builder lock while it lives), and it must not share the machine with the
    next measurement."""
    import fcntl

    lock = os.path.join(store_path + ".anatid-index", ".builder.lock")
    if os.path.exists(lock):
        with open(lock, "rb") as f:
            fcntl.flock(f, fcntl.LOCK_EX)


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


_S = TypeVar("_S", bound="Sampler")


class Sampler:
    """Calls ``sample()`` every ``interval`` seconds on a thread while a ``with`` block runs,
    and once more as it ends."""

    def __init__(self, interval: float) -> None:
        self.interval = interval
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def sample(self) -> None:
        raise NotImplementedError

    def __enter__(self: _S) -> _S:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()
        self.sample()

    def _run(self) -> None:
        while not self._stop.is_set():
            self.sample()
            self._stop.wait(self.interval)


class TreeMemory(Sampler):
    """Samples the resident memory of a process and all its descendants (Linux ``/proc``)
    every ``interval`` seconds while it runs: the peak of their sum at one instant, and each
    process's own peak (``VmHWM``, read while it lives).

    Why not ``getrusage(RUSAGE_CHILDREN)``: it gives the largest child's peak, and Linux charges
    a child started with vfork (as ``subprocess`` does) its parent's peak so far when it starts
    its program, so a child started late reads as large as its parent (seen in 3 of 14 runs of
    a migration measuring script, the reader "peaking" at the migrating process's 0.95-1.07 GB).
    """

    def __init__(self, pid: int, interval: float = 0.1) -> None:
        super().__init__(interval)
        self.pid = pid
        self.peak_sum_mb = 0.0
        self.peaks_mb: dict[int, tuple[str, float]] = {}

    def sample(self) -> None:
        total = 0.0
        for pid in self._tree():
            status = _status(pid)
            if not status:
                continue
            total += int(status.get("VmRSS", 0)) / 1024
            name = status.get("Name", "?")
            hwm = int(status.get("VmHWM", 0)) / 1024
            self.peaks_mb[pid] = (str(name), max(hwm, self.peaks_mb.get(pid, ("", 0.0))[1]))
        self.peak_sum_mb = max(self.peak_sum_mb, total)

    def _tree(self) -> list[int]:
        parents: dict[int, int] = {}
        for entry in os.listdir("/proc"):
            if entry.isdigit():
                try:
                    with open(f"/proc/{entry}/stat") as fh:
                        # the name (field 2) may hold spaces: the parent pid follows its ")"
                        parents[int(entry)] = int(fh.read().rsplit(")", 1)[1].split()[1])
                except (OSError, ValueError, IndexError):
                    continue
        tree, frontier = [self.pid], [self.pid]
        while frontier:
            frontier = [p for p, parent in parents.items() if parent in frontier]
            tree.extend(frontier)
        return tree


def _status(pid: int) -> dict[str, int | str]:
    out: dict[str, int | str] = {}
    try:
        with open(f"/proc/{pid}/status") as fh:
            for line in fh:
                key, _, value = line.partition(":")
                if key == "Name":
                    out[key] = value.strip()
                elif key in ("VmRSS", "VmHWM"):
                    out[key] = int(value.split()[0])
    except OSError:
        return {}
    return out


def provenance() -> dict[str, str]:
    import duckdb
    import numpy

    try:
        commit = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, check=False
        ).stdout.strip()
    except OSError:
        commit = "?"
    return {
        "commit": commit,
        "python": platform.python_version(),
        "duckdb": duckdb.__version__,
        "numpy": numpy.__version__,
        "machine": f"{platform.machine()}, {__import__('os').cpu_count()} cores",
    }


def row(name: str, ours: float, peer: float, unit: str, higher_is_better: bool) -> str:
    ratio = (ours / peer) if higher_is_better else (peer / ours)
    return f"| {name} | {ours:,.2f} {unit} | {peer:,.2f} {unit} | {ratio:.2f}x |"
