"""Benchmark: anatid-migrate on a large Graphiti-on-Kuzu file, end to end.

    python tests/benchmarks/bench_migrate.py                 # 100k entities, 100k facts, 10k episodes, 1024-dim
    python tests/benchmarks/bench_migrate.py --scale 0.1     # a tenth of that, for a quick look

Needs the venvs of tests/migrate/setup_sources.sh (run first; builds them on a cold cache). The
source file is written once with KuzuDriver's own schema (make_graphiti_kuzu_big.py, seeded) and
cached. Measured, each in a fresh process:
- the peer: Kuzu's own ``EXPORT DATABASE`` of the file to Parquet (kuzu 0.11.3);
- the migration: read (reader subprocess) + load + verify + rename, wall time, and memory:
  the peak of the resident sizes of the migrating process and its reader subprocess summed at
  one instant (sampled every 0.1 s from /proc), each one's own peak (VmHWM), and getrusage's
  figures as before (the largest child's, which can read as large as the parent: see
  _measure.TreeMemory);
- the machine's load average before and after (the machine is shared; a loaded machine slows
  both figures).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
sys.path.insert(0, str(HERE))

from _measure import TreeMemory, provenance  # noqa: E402

_MIGRATE = """
import json, resource, sys, time
from anatid_migrate import migrate_graphiti
t = time.perf_counter()
report = migrate_graphiti(sys.argv[1], sys.argv[2])
took = time.perf_counter() - t
print(json.dumps({
    "seconds": took,
    "verified": report.verified,
    "records": sum(report.target_tally.counts.values()),
    "rows_read": sum(report.tables_read.values()),
    "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    "reader_peak_rss_mb": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024,
}))
"""

_EXPORT = """
import kuzu, sys, time
conn = kuzu.Connection(kuzu.Database(sys.argv[1], read_only=True))
t = time.perf_counter()
conn.execute(f"EXPORT DATABASE '{sys.argv[2]}' (format='parquet')")
print(time.perf_counter() - t)
"""


def cache() -> Path:
    return Path(
        os.environ.get("ANATID_MIGRATE_CACHE")
        or os.path.join(
            os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "anatid-migrate"
        )
    )


def source_file(entities: int, facts: int, episodes: int, dim: int) -> Path:
    path = cache() / "bench" / f"graphiti-{entities}-{facts}-{episodes}-{dim}.kz"
    if path.exists():
        return path
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    if tmp.exists():
        tmp.unlink()
    py = cache() / "venvs" / "graphiti-kuzu" / "bin" / "python"
    subprocess.run(
        [str(py), str(HERE / "make_graphiti_kuzu_big.py"), str(tmp), "--entities", str(entities),
         "--facts", str(facts), "--episodes", str(episodes), "--dim", str(dim)],
        check=True,
    )  # fmt: skip
    tmp.rename(path)
    return path


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--scale", type=float, default=1.0)
    ap.add_argument("--dim", type=int, default=1024)
    a = ap.parse_args()
    n_ent, n_fact, n_ep = (int(x * a.scale) for x in (100_000, 100_000, 10_000))
    src = source_file(n_ent, n_fact, n_ep, a.dim)
    reader = cache() / "readers" / "kuzu-0.11.3" / "bin" / "python"
    work = Path(tempfile.mkdtemp(prefix="bench-migrate-"))
    try:
        load_before = os.getloadavg()
        export = float(
            subprocess.run(
                [str(reader), "-c", _EXPORT, str(src), str(work / "export")],
                check=True, capture_output=True, text=True,
            ).stdout.strip()
        )  # fmt: skip
        shutil.rmtree(work / "export")
        wall = time.perf_counter()
        proc = subprocess.Popen(
            [sys.executable, "-c", _MIGRATE, str(src), str(work / "memory.duckdb")],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=REPO,
        )  # fmt: skip
        with TreeMemory(proc.pid) as memory:
            out, err = proc.communicate()
        wall = time.perf_counter() - wall
        if proc.returncode != 0:
            raise SystemExit(f"the migration failed ({proc.returncode}):\n{err[-3000:]}")
        result = json.loads(out.strip().splitlines()[-1])
        load_after = os.getloadavg()
        size_mb = (work / "memory.duckdb").stat().st_size / 1e6
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(json.dumps(provenance()))
    print(f"source: {src.name}, {src.stat().st_size / 1e6:,.0f} MB "
          f"({n_ent:,} entities, {n_fact:,} facts, {n_ep:,} episodes, {a.dim}-dim)")  # fmt: skip
    print(f"kuzu EXPORT DATABASE (parquet), the peer: {export:.1f} s")
    print(f"anatid-migrate end to end: {result['seconds']:.1f} s "
          f"(process wall {wall:.1f} s, verified={result['verified']})")  # fmt: skip
    print(f"rows read: {result['rows_read']:,}  records written and verified: {result['records']:,} "
          f"-> {result['records'] / result['seconds']:,.0f} records/s")  # fmt: skip
    print(
        f"peak RSS (getrusage): migrate {result['peak_rss_mb']:,.0f} MB, "
        f"largest child {result['reader_peak_rss_mb']:,.0f} MB"
    )
    each = ", ".join(f"{name} {mb:,.0f} MB" for name, mb in memory.peaks_mb.values() if mb > 50)
    print(
        f"peak RSS of all processes together (sampled every 0.1 s): {memory.peak_sum_mb:,.0f} MB"
        f"; each process's own peak (VmHWM): {each}"
    )
    print(
        f"target file: {size_mb:,.0f} MB; ratio vs kuzu export: {result['seconds'] / export:.1f}x"
    )
    print(f"load average before {load_before[0]:.1f}, after {load_after[0]:.1f} "
          f"({os.cpu_count()} cores)")  # fmt: skip


if __name__ == "__main__":
    main()
