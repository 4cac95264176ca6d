"""Erasure (issue 15): erase one record, and 1,000 records in one call, from a large store.

    python tests/benchmarks/bench_erasure.py --mb 1024 --repeat 3

Builds a store of about ``--mb`` MB (nodes with 30-word texts and ``--dim``-dimensional float32
embeddings; fixed seed), then, in a fresh process (so that its peak RSS is the erasure's own),
erases one record ``--repeat`` times and 1,000 records in one call ``--repeat`` times. Each
erasure is a purge and a compaction (a full copy of the live data and an atomic swap). Prints wall
time (p50/p95 over the repeats), the extra disk space at peak (the store's files, sampled every
10 ms, minus their size before) and the peak RSS of the erasing process. No peer: no other
embedded graph store offers erasure with physical removal to compare with.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from anatid_core import Node, Store  # noqa: E402
from tests.benchmarks._measure import peak_rss_mb, provenance  # noqa: E402

WORDS = [f"w{i}" for i in range(5000)]
BATCH = 5000
BULK = 1000  # records erased in one call


def build(path: Path, mb: int, dim: int) -> int:
    """Fill ``path`` to about ``mb`` MB; returns the number of nodes."""
    rng = random.Random(15)
    nprng = np.random.default_rng(15)
    n = 0
    with Store.open(path) as s:
        while not path.exists() or os.path.getsize(path) < mb * 1024 * 1024:
            vecs = nprng.standard_normal((BATCH, dim), dtype=np.float32)
            s.upsert_nodes(
                Node(
                    f"n{n + i}",
                    group=f"g{(n + i) % 10}",
                    name=f"node {n + i}",
                    text=" ".join(rng.choices(WORDS, k=30)),
                    embedding=vecs[i],
                )
                for i in range(BATCH)
            )
            n += BATCH
            s.connection.query("CHECKPOINT")  # the file size tracks the data
    return n


def _files_bytes(path: Path) -> int:
    total = 0
    for f in path.parent.iterdir():
        if f.name.startswith(path.name):
            try:
                total += f.stat().st_size
            except FileNotFoundError:
                pass
    return total


class DiskPeak:
    """Samples the store's files every 10 ms while a block runs."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.base = _files_bytes(path)
        self.peak = self.base
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while not self._stop.is_set():
            self.peak = max(self.peak, _files_bytes(self.path))
            time.sleep(0.01)

    def __enter__(self) -> DiskPeak:
        self._thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self._stop.set()
        self._thread.join()
        self.peak = max(self.peak, _files_bytes(self.path))


def _pct(samples: list[float], q: float) -> float:
    """Nearest-rank percentile (with 2 samples, p50 is the lower one and p95 the higher)."""
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, max(0, -(-int(len(ordered) * q * 100) // 100) - 1))]


def measure(path: Path, nodes: int, repeat: int) -> dict[str, Any]:
    """Run in the child process: the erasures, timed."""
    rng = random.Random(7)
    ids = [f"n{i}" for i in rng.sample(range(nodes), 1 + repeat * (1 + BULK))]
    results: dict[str, Any] = {"one": [], "bulk": [], "extra_disk_mb": [], "file_mb": []}
    with Store.open(path) as s:
        s.get_node("n0")
        for kind, size in [("one", 1)] * repeat + [("bulk", BULK)] * repeat:
            batch, ids = ids[:size], ids[size:]
            results["file_mb"].append(os.path.getsize(path) / 2**20)
            with DiskPeak(path) as disk:
                t = time.perf_counter()
                receipt = s.erase_nodes(batch)
                results[kind].append(time.perf_counter() - t)
            assert receipt.physically_gone and len(receipt.node_ids) == size
            results["extra_disk_mb"].append((disk.peak - disk.base) / 2**20)
    results["peak_rss_mb"] = peak_rss_mb()
    return results


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--mb", type=int, default=256, help="store size to build (default 256)")
    ap.add_argument("--dim", type=int, default=256, help="embedding dimension (default 256)")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--measure", nargs=2, metavar=("PATH", "NODES"), help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.measure:
        print(json.dumps(measure(Path(args.measure[0]), int(args.measure[1]), args.repeat)))
        return
    with tempfile.TemporaryDirectory(prefix="anatid-bench-erasure-") as tmp:
        path = Path(tmp) / "big.duckdb"
        t = time.perf_counter()
        nodes = build(path, args.mb, args.dim)
        built_s = time.perf_counter() - t
        size_mb = os.path.getsize(path) / 2**20
        out = subprocess.run(
            [
                sys.executable,
                __file__,
                "--repeat",
                str(args.repeat),
                "--measure",
                str(path),
                str(nodes),
            ],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        r = json.loads(out.strip().splitlines()[-1])
    print(json.dumps(provenance()))
    print(f"store: {nodes} nodes, dim {args.dim}, {size_mb:.0f} MB (built in {built_s:.0f} s)")
    for kind, label in (("one", "erase 1 record"), ("bulk", f"erase {BULK} records in one call")):
        s = r[kind]
        runs = ", ".join(f"{x:.2f}" for x in s)
        print(f"{label:32s} p50 {_pct(s, 0.5):6.2f} s  p95 {_pct(s, 0.95):6.2f} s  (runs: {runs})")
    print(
        f"extra disk at peak: max {max(r['extra_disk_mb']):.0f} MB (file {max(r['file_mb']):.0f} MB)"
    )
    print(f"peak RSS of the erasing process: {r['peak_rss_mb']:.0f} MB")


if __name__ == "__main__":
    main()
