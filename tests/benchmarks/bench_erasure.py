"""Erasure (issue 15): erase one record, and 1,000 records in one call, from a large store.

    python tests/benchmarks/bench_erasure.py --mb 1024 --repeat 3
    python tests/benchmarks/bench_erasure.py --mb 1024 --keep /data/big.duckdb   # build once
    python tests/benchmarks/bench_erasure.py --store /data/big.duckdb --compare  # reuse it

Builds a store of about ``--mb`` MB (nodes with 30-word texts and ``--dim``-dimensional float32
embeddings; fixed seed), or takes the one ``--store`` names (never modified: every run erases
from a fresh copy of it). Then ``--repeat`` rounds, each in a fresh process (so that its peak RSS
is the erasure's own) on a fresh copy: erase one record, then 1,000 records in one call. Each
erasure is a purge and a compaction (a full copy of the live data and an atomic swap). Prints
wall time and CPU time (p50/p95 over the rounds), the extra disk space at peak (the store's
files, sampled every 10 ms, minus their size before) and the peak RSS of the erasing processes.

No other embedded graph store offers erasure with physical removal to compare with, so the peer
is the previous compaction (one ``COPY FROM DATABASE``, DuckDB's memory unbounded), with
``--compare``: its rounds alternate with the current one's, on the same machine, same load.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from anatid_core import Node, Store  # noqa: E402
from anatid_core.storage import compaction  # noqa: E402
from tests.benchmarks._measure import Sampler, peak_rss_mb, provenance  # noqa: E402

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


class DiskPeak(Sampler):
    """Samples the store's files every 10 ms while a block runs."""

    def __init__(self, path: Path) -> None:
        super().__init__(0.01)
        self.path = path
        self.base = _files_bytes(path)
        self.peak = self.base

    def sample(self) -> None:
        self.peak = max(self.peak, _files_bytes(self.path))


def _pct(samples: list[float], q: float) -> float:
    """Nearest-rank percentile (with 2 samples, p50 is the lower one and p95 the higher)."""
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, max(0, -(-int(len(ordered) * q * 100) // 100) - 1))]


def _before() -> None:
    """Turn this process's compaction back into the previous one (the peer of --compare)."""

    def copy_database(con: Any, source: str, target: str) -> None:
        con.execute(f"COPY FROM DATABASE {source} TO {target}").fetchall()

    compaction.copy_tables = copy_database  # type: ignore[assignment]
    compaction.COMPACT["copy_memory_bytes"] = 1 << 50  # above any machine's: never lowered


def measure(path: Path, nodes: int, seed: int) -> dict[str, Any]:
    """Run in the child process: one erasure of 1 record and one of BULK records, timed."""
    rng = random.Random(seed)
    ids = [f"n{i}" for i in rng.sample(range(nodes), 1 + BULK)]
    results: dict[str, Any] = {"extra_disk_mb": [], "file_mb": [], "load": os.getloadavg()[0]}
    with Store.open(path) as s:
        s.get_node("n0")
        for kind, size in (("one", 1), ("bulk", BULK)):
            batch, ids = ids[:size], ids[size:]
            results["file_mb"].append(os.path.getsize(path) / 2**20)
            with DiskPeak(path) as disk:
                t, cpu = time.perf_counter(), time.process_time()
                receipt = s.erase_nodes(batch)
                results[kind] = time.perf_counter() - t
                results[kind + "_cpu"] = time.process_time() - cpu
            assert receipt.physically_gone and len(receipt.node_ids) == size
            results["extra_disk_mb"].append((disk.peak - disk.base) / 2**20)
    results["peak_rss_mb"] = peak_rss_mb()
    return results


def _count_nodes(path: Path) -> int:
    with Store.open(path, read_only=True) as s:
        row = s.connection.query("SELECT count(*) FROM nodes")
    return int(row[0][0])


def _round(store: Path, nodes: int, seed: int, method: str, tmp: str) -> dict[str, Any]:
    """One child process erasing from a fresh copy of ``store``."""
    path = Path(tmp) / f"round-{method}-{seed}.duckdb"
    shutil.copyfile(store, path)
    try:
        out = subprocess.run(
            [sys.executable, __file__, "--measure", str(path), str(nodes), str(seed), method],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
    finally:
        for leftover in path.parent.glob(path.name + "*"):
            leftover.unlink()
    return json.loads(out.strip().splitlines()[-1])


def _report(method: str, rounds: list[dict[str, Any]]) -> None:
    print(
        f"-- {method} (load average at start of the rounds: "
        + ", ".join(f"{r['load']:.1f}" for r in rounds)
        + ")"
    )
    for kind, label in (("one", "erase 1 record"), ("bulk", f"erase {BULK} records in one call")):
        wall = [r[kind] for r in rounds]
        cpu = [r[kind + "_cpu"] for r in rounds]
        runs = ", ".join(f"{x:.1f}" for x in wall)
        print(
            f"{label:32s} p50 {_pct(wall, 0.5):6.2f} s  p95 {_pct(wall, 0.95):6.2f} s  "
            f"(runs: {runs}; CPU p50 {_pct(cpu, 0.5):.2f} s)"
        )
    extra = max(max(r["extra_disk_mb"]) for r in rounds)
    file_mb = max(max(r["file_mb"]) for r in rounds)
    print(f"extra disk at peak: max {extra:.0f} MB (file {file_mb:.0f} MB)")
    print(f"peak RSS of the erasing process: max {max(r['peak_rss_mb'] for r in rounds):.0f} MB")


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--mb", type=int, default=256, help="store size to build (default 256)")
    ap.add_argument("--dim", type=int, default=256, help="embedding dimension (default 256)")
    ap.add_argument("--repeat", type=int, default=3, help="rounds per method (default 3)")
    ap.add_argument("--keep", type=Path, help="build the store at this path and keep it")
    ap.add_argument("--store", type=Path, help="a store built with --keep: no build")
    ap.add_argument("--compare", action="store_true", help="also the previous compaction")
    ap.add_argument("--measure", nargs=4, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.measure:
        path, nodes, seed, method = args.measure
        if method == "before":
            _before()
        print(json.dumps(measure(Path(path), int(nodes), int(seed))))
        return
    with tempfile.TemporaryDirectory(prefix="anatid-bench-erasure-") as tmp:
        store = args.store
        if store is None:
            store = args.keep or Path(tmp) / "big.duckdb"
            t = time.perf_counter()
            build(store, args.mb, args.dim)
            print(f"built in {time.perf_counter() - t:.0f} s")
        nodes = _count_nodes(store)
        size_mb = os.path.getsize(store) / 2**20
        methods = ["current", "before"] if args.compare else ["current"]
        rounds: dict[str, list[dict[str, Any]]] = {m: [] for m in methods}
        for seed in range(args.repeat):
            for method in methods:
                rounds[method].append(_round(store, nodes, seed, method, tmp))
    print(json.dumps(provenance()))
    print(f"store: {nodes} nodes, dim {args.dim}, {size_mb:.0f} MB")
    for method in methods:
        _report(method, rounds[method])


if __name__ == "__main__":
    main()
