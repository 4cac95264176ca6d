"""Small measuring helpers shared by the benchmark scripts (not a test module)."""

from __future__ import annotations

import platform
import resource
import subprocess
import time
from collections.abc import Callable
from typing import Any


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


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


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
