"""Per-record costs against the size of the memory (issue 43, point 1): a single-record write, a
get by id, a re-save and a neighbourhood read, at 1k / 10k / 100k (/ 1M) nodes with two edges
each, in a fresh process once its in-memory current records are loaded (the seconds that took
and the resident memory after are printed), ``--runs`` processes a size (3). Prints p50/p95 per
size, medians over the runs, and the growth against the smallest size; the mark is growth <= 1.5x
from 1k to 1M.

    python tests/benchmarks/bench_record_costs.py                       # 1k, 10k, 100k
    python tests/benchmarks/bench_record_costs.py --sizes 1000 1000000  # by hand: 1M

Each store is built once per size under ~/.cache/anatid-bench (bulk upserts of 50k), then every
size's costs are measured in a new process reading a copy of it.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(__file__))
from _measure import provenance, timed, wait_for_index_builder  # noqa: E402

from anatid_core import Edge, Node, Store, remove_store  # noqa: E402

CACHE = os.path.expanduser("~/.cache/anatid-bench")
BATCH = 50_000
OPS = ("write new node", "get_node", "get_edges(1)", "re-save edge", "edges_of(1)", "neighbours(1)")


def cached(n: int) -> str:
    """A store of ``n`` nodes and ``2n`` edges (a ring and random chords), built once."""
    os.makedirs(CACHE, exist_ok=True)
    path = os.path.join(CACHE, f"records-{n}.duckdb")
    if os.path.exists(path + ".done"):
        return path
    remove_store(path)
    rng = random.Random(n)
    started = time.perf_counter()
    with Store.open(path) as store:
        for low in range(0, n, BATCH):
            high = min(n, low + BATCH)
            store.upsert_nodes(
                Node(f"n{i}", name=f"entity {i}", text=f"entity {i} summary", labels=("Entity",))
                for i in range(low, high)
            )
        for low in range(0, n, BATCH):
            high = min(n, low + BATCH)
            edges = [Edge(f"r{i}", f"n{i}", f"n{(i + 1) % n}", "NEXT") for i in range(low, high)]
            edges += [
                Edge(f"c{i}", f"n{i}", f"n{rng.randrange(n)}", "KNOWS", text=f"fact {i}")
                for i in range(low, high)
            ]
            store.upsert_edges(edges)
    open(path + ".done", "w").close()
    print(f"# built {n:,} nodes / {2 * n:,} edges in {time.perf_counter() - started:.0f} s")
    return path


def measure(path: str, n: int, repeat: int) -> dict[str, dict[str, float]]:
    """The costs on one store, in this (fresh) process."""
    rng = random.Random(1)
    ids = [rng.randrange(n) for _ in range(repeat + 10)]
    picks = itertools.cycle(ids)
    fresh = iter(range(10**9))
    out: dict[str, dict[str, float]] = {}
    with Store.open(path) as store:
        out["load"] = loaded(store)
        out["write new node"] = timed(
            lambda: store.upsert_node(Node(f"new{next(fresh)}", name="new", labels=("Entity",))),
            repeat=repeat,
        )
        out["get_node"] = timed(lambda: store.get_node(f"n{next(picks)}"), repeat=repeat)
        out["get_edges(1)"] = timed(lambda: store.get_edges([f"c{next(picks)}"]), repeat=repeat)

        def resave() -> None:
            i = next(picks)
            store.upsert_edge(Edge(f"c{i}", f"n{i}", f"n{(i + 7) % n}", "KNOWS", text="moved"))

        out["re-save edge"] = timed(resave, repeat=repeat)
        out["edges_of(1)"] = timed(lambda: store.edges_of([f"n{next(picks)}"]), repeat=repeat)
        out["neighbours(1)"] = timed(lambda: store.neighbours([f"n{next(picks)}"]), repeat=repeat)
    return out


def loaded(store: Store) -> dict[str, float]:
    """Read by id until both kinds' current records are in memory (past the reads SQL answers
    first; past 500,000 records a kind they load beside the reads): the seconds it took, the
    resident memory after, and whether they did (not: past ``current_records_limit``)."""
    started = time.perf_counter()
    current = store.indexes.current
    both = False
    for i in itertools.count():
        store.get_node(f"n{i % 1000}")
        store.get_edges([f"c{i % 1000}"])
        both = current.loaded("node") is not None and current.loaded("edge") is not None
        if both or time.perf_counter() - started > 300:
            break
        if i > 100:
            time.sleep(0.05)
    with open("/proc/self/status") as status:
        rss = int(status.read().split("VmRSS:")[1].split()[0]) / 1024
    return {"seconds": time.perf_counter() - started, "rss_mb": rss, "in_memory": float(both)}


def child(path: str, n: int, repeat: int) -> None:
    print(json.dumps(measure(path, n, repeat)))


def measured_in_a_process(n: int, repeat: int) -> dict[str, dict[str, float]]:
    """The costs on a copy of the store of ``n`` nodes, in a fresh process."""
    source = cached(n)
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "m.duckdb")
        shutil.copyfile(source, path)
        proc = subprocess.run(
            [sys.executable, __file__, "--child", path, str(n), "--repeat", str(repeat)],
            capture_output=True,
            text=True,
            check=True,
        )
        wait_for_index_builder(path)  # the child wrote: a builder runs at its exit
    return json.loads(proc.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1_000, 10_000, 100_000])
    parser.add_argument("--repeat", type=int, default=200)
    parser.add_argument(
        "--runs",
        type=int,
        default=3,
        help="fresh processes per size; each cell is the median of their p50s (p95s): the "
        "same calls differ ~1.7x from one process to the next on a shared machine",
    )
    parser.add_argument("--child", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.child[0], int(args.child[1]), args.repeat)
        return
    print(f"# {provenance()}")
    results: dict[int, dict[str, dict[str, float]]] = {}
    for n in args.sizes:
        runs = [measured_in_a_process(n, args.repeat) for _ in range(args.runs)]
        results[n] = {
            op: {k: statistics.median(run[op][k] for run in runs) for k in runs[0][op]}
            for op in runs[0]
        }
        load = results[n]["load"]
        where = "in memory" if load["in_memory"] else "NOT in memory (past the records limit)"
        p50s = {op: " ".join(f"{run[op]['p50']:.3f}" for run in runs) for op in OPS}
        print(f"# {n:,}: records {where} after {load['seconds']:.1f} s, {load['rss_mb']:.0f} MB")
        print(f"#   each run's p50 (ms): {p50s}")
    base = results[args.sizes[0]]
    head = "| op | " + " | ".join(f"{n:,} p50 / p95 ms" for n in args.sizes) + " | growth |"
    print(head)
    print("|" + "---|" * (len(args.sizes) + 2))
    for op in OPS:
        cells = [f"{results[n][op]['p50']:.3f} / {results[n][op]['p95']:.3f}" for n in args.sizes]
        growth = results[args.sizes[-1]][op]["p50"] / base[op]["p50"]
        print(f"| {op} | " + " | ".join(cells) + f" | {growth:.2f}x |")


if __name__ == "__main__":
    main()
