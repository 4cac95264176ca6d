"""``communities()`` (issue 17) against networkx's Louvain on the same graph, in the same run.

    python tests/benchmarks/bench_communities.py                  # 100k / 300k and 10k / 30k
    python tests/benchmarks/bench_communities.py --sizes 10000    # one size (edges: 3 x nodes)
    python tests/benchmarks/bench_communities.py --skip-plain     # leave out the slow fallback

A random graph (edges between uniform random nodes, fixed seed; parallel edges weigh more) is
written to a store file. anatid is timed on both backends: igraph's Leiden (the ``graph``
extra) and the plain Louvain every install has. "cold" is ``communities()`` right after a write
(the visible graph reloaded from the file, then partitioned), "warm" the cached answer. The peer
is ``networkx.community.louvain_communities(seed=0)`` on the same weighted graph held in memory
(built beforehand, not timed). The modularity of every partition is computed by networkx.
Wall times and this process's CPU time are both printed: on the shared 2-core machine the wall
time moves with the load, the CPU time much less.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import tempfile
import time
from collections.abc import Callable, Iterator

import networkx as nx

sys.path.insert(0, os.path.dirname(__file__))
from _graph_store import graph_store  # noqa: E402
from _measure import peak_rss_mb, provenance, timed  # noqa: E402

from anatid_core import Store  # noqa: E402
from anatid_core.graph.communities import COMMUNITIES  # noqa: E402

Pairs = list[tuple[int, int]]


def _pairs(n: int, m: int, seed: int) -> Pairs:
    rng = random.Random(seed)
    return [(rng.randrange(n), rng.randrange(n)) for _ in range(m)]


def _nx_graph(n: int, pairs: Pairs) -> nx.Graph:
    """The graph communities() partitions: undirected, parallel edges as weight."""
    g = nx.Graph()
    g.add_nodes_from(f"n{i}" for i in range(n))
    for s, d in pairs:
        a, b = f"n{s}", f"n{d}"
        weight = g[a][b]["weight"] + 1 if g.has_edge(a, b) else 1
        g.add_edge(a, b, weight=weight)
    return g


def _timed(fn: Callable[[], object], repeat: int) -> dict[str, float]:
    """Wall p50/p95 and CPU p50 (this process, all its threads) in seconds over ``repeat``
    calls: on a loaded machine the CPU time says what the work costs, the wall what it took."""
    wall, cpu = [], []
    for _ in range(repeat):
        t, c = time.perf_counter(), time.process_time()
        fn()
        wall.append(time.perf_counter() - t)
        cpu.append(time.process_time() - c)
    wall.sort()
    cpu.sort()
    return {
        "p50": wall[len(wall) // 2],
        "p95": wall[-1 if repeat < 20 else int(repeat * 0.95)],
        "cpu": cpu[len(cpu) // 2],
    }


def _anatid(store: Store, backend: str, repeat: int) -> tuple[dict[str, float], float, list]:
    """Cold wall p50/p95 and CPU p50 (after a write), warm p50 in ms (cached), the partition."""
    COMMUNITIES["backend"] = backend
    parts: list = []

    def cold() -> None:
        store.indexes.graphs.forget()  # what a commit does: the loaded graph and result drop
        parts[:] = store.communities()

    times = _timed(cold, repeat)
    warm = timed(store.communities, repeat=20, warmup=1)["p50"]
    return times, warm, parts


def _line(name: str, times: dict[str, float], warm: float | None, q: float, k: int) -> str:
    warm_text = f"{warm:,.3f} ms" if warm is not None else ""
    return (
        f"| {name} | {times['p50']:,.2f} s | {times['p95']:,.2f} s | {times['cpu']:,.2f} s | "
        f"{warm_text} | {q:.4f} | {k:,} |"
    )


def bench(n: int, tmp: str, repeat: int, skip_plain: bool, skip_nx: bool) -> Iterator[str]:
    m = 3 * n
    pairs = _pairs(n, m, 29)
    store = graph_store(os.path.join(tmp, f"comm{n}.duckdb"), n, pairs)
    g = _nx_graph(n, pairs)

    def modularity(parts: list) -> float:
        return nx.community.modularity(g, [set(p) for p in parts])

    yield f"| **{n:,} nodes / {m:,} edges** (load {_load()}) | | | | | | |"
    runs: list[tuple[str, str, int]] = [("anatid, igraph Leiden", "igraph", repeat)]
    if not skip_plain:
        runs.append(("anatid, plain Louvain", "plain", 1 if n > 20_000 else max(1, repeat // 2)))
    for name, backend, times_ in runs:
        times, warm, parts = _anatid(store, backend, times_)
        yield _line(name, times, warm, modularity(parts), len(parts))
    store.close()
    if skip_nx:
        return
    found: list[set[str]] = []
    theirs = _timed(_keep(found, lambda: nx.community.louvain_communities(g, seed=0)), 1)
    yield _line("networkx louvain_communities", theirs, None, modularity(found), len(found))
    yield f"| (load after: {_load()}) | | | | | | |"


def _keep(into: list, fn: Callable[[], list]) -> Callable[[], None]:
    def run() -> None:
        into[:] = fn()

    return run


def _load() -> str:
    with open("/proc/loadavg") as f:
        return " ".join(f.read().split()[:3])


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--sizes", type=int, nargs="+", default=[100_000, 10_000], help="nodes")
    ap.add_argument("--repeat", type=int, default=5, help="cold runs of the igraph backend")
    ap.add_argument("--skip-plain", action="store_true", help="leave out the plain Louvain")
    ap.add_argument("--skip-networkx", action="store_true", help="leave out the peer (a look)")
    args = ap.parse_args()
    import igraph

    print({**provenance(), "igraph": igraph.__version__, "networkx": nx.__version__})
    print("| run | cold p50 | cold p95 | cold CPU p50 | warm p50 | modularity | communities |")
    print("|---|---|---|---|---|---|---|")
    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        for n in args.sizes:
            for line in bench(n, tmp, args.repeat, args.skip_plain, args.skip_networkx):
                print(line, flush=True)
    print(f"peak RSS {peak_rss_mb():,.0f} MB, {time.perf_counter() - started:,.0f} s in all")


if __name__ == "__main__":
    main()
