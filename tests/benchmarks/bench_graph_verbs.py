"""The graph verbs of issue 17 against networkx on the same graph, in one run.

anatid answers from the store file (SQL over the indexed edge table, or the in-memory current
records when they fit); networkx answers from a graph it holds in memory, built from the same
edges beforehand (its build time is printed, not counted). Endpoints are drawn 4 hops apart
(undirected) from a fixed seed.

    python tests/benchmarks/bench_graph_verbs.py               # 1M nodes / 2.3M edges
    python tests/benchmarks/bench_graph_verbs.py --scale 0.1   # 100k / 230k (a few minutes)

Fixed seeds, one warm-up per operation, p50/p95 over the pairs.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import tempfile
import time

import networkx as nx

sys.path.insert(0, os.path.dirname(__file__))
from _measure import peak_rss_mb, provenance, row, timed  # noqa: E402

from anatid_core import SETTINGS, Edge, Node, Scope, Store  # noqa: E402

GROUPS = ("g0", "g1", "g2", "g3")


def build(path: str, n: int, m: int) -> tuple[Store, list[tuple[str, str]], float]:
    """The store, the edges as (src, dst), and the load time (s)."""
    store = Store.open(path)
    chunk = 100_000
    t = time.perf_counter()
    for i in range(0, n, chunk):
        store.upsert_nodes(
            [Node(f"n{j}", group=GROUPS[j % 4]) for j in range(i, min(n, i + chunk))]
        )
    pairs: list[tuple[str, str]] = []
    for i in range(0, m, chunk):
        batch = [
            Edge(f"e{j}", f"n{(j * 2654435761) % n}", f"n{(j * 40503 + 17) % n}", "R")
            for j in range(i, min(m, i + chunk))
        ]
        store.upsert_edges(batch)
        pairs += [(e.src, e.dst) for e in batch]
    return store, pairs, time.perf_counter() - t


def four_apart(g: nx.Graph, count: int, rng: random.Random) -> list[tuple[str, str]]:
    nodes = list(g.nodes)
    out: list[tuple[str, str]] = []
    while len(out) < count:
        a = rng.choice(nodes)
        at = nx.single_source_shortest_path_length(g, a, cutoff=4)
        far = sorted(i for i, d in at.items() if d == 4)
        if far:
            out.append((a, rng.choice(far)))
    return out


def _compare(name: str, ours_fn, theirs_fn, pairs: list[tuple[str, str]]) -> None:
    it, it2 = iter(pairs * 20), iter(pairs * 20)
    ours = timed(lambda: ours_fn(*next(it)), repeat=len(pairs))
    theirs = timed(lambda: theirs_fn(*next(it2)), repeat=len(pairs))
    print(row(f"{name} p50", ours["p50"], theirs["p50"], "ms", False))
    print(f"|   p95 | {ours['p95']:.2f} ms | {theirs['p95']:.2f} ms | |", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--scale", type=float, default=1.0, help="fraction of 1M nodes / 2.3M edges")
    ap.add_argument("--pairs", type=int, default=50)
    ap.add_argument(
        "--memory",
        action="store_true",
        help="keep every current record in memory (SETTINGS['current_records_limit'] raised "
        "above the graph's size): walks answer from the in-memory adjacency, not SQL",
    )
    args = ap.parse_args()
    if args.memory:
        SETTINGS["current_records_limit"] = 10 * (1_000_000 + 2_300_000)
    n, m = int(1_000_000 * args.scale), int(2_300_000 * args.scale)
    print("provenance:", provenance(), "in-memory records:", args.memory)
    with tempfile.TemporaryDirectory() as tmp:
        store, edges, load = build(os.path.join(tmp, "graph.duckdb"), n, m)
        t = time.perf_counter()
        g = nx.Graph()
        g.add_nodes_from(f"n{i}" for i in range(n))
        g.add_edges_from(edges)
        nx_build = time.perf_counter() - t
        ends = four_apart(g, args.pairs, random.Random(5))
        print(
            f"load {n:,} nodes + {m:,} edges: {(n + m) / load:,.0f} rows/s; "
            f"networkx graph built in {nx_build:.1f} s"
        )
        print("| operation | anatid | networkx (in memory) | anatid vs networkx |")
        print("|---|---|---|---|")
        scoped = store.scoped(Scope.of(exclude_groups=["g3"]))
        g_scoped = g.subgraph([f"n{i}" for i in range(n) if i % 4 != 3])
        inside = [(a, b) for a, b in ends if a in g_scoped and b in g_scoped]
        _compare(
            f"shortest_path, 4 hops ({n:,} / {m:,})",
            lambda a, b: store.shortest_path(a, b, max_depth=6),
            lambda a, b: nx.shortest_path(g, a, b),
            ends,
        )
        _compare(
            f"shortest_path, 4 hops, scope wall: 3 of 4 groups ({n:,} / {m:,})",
            lambda a, b: scoped.shortest_path(a, b, max_depth=6),
            lambda a, b: nx.has_path(g_scoped, a, b) and nx.shortest_path(g_scoped, a, b),
            inside,
        )
        ours = timed(lambda: store.hubs(10), repeat=5, warmup=1)
        theirs = timed(
            lambda: sorted(g.degree, key=lambda d: (-d[1], d[0]))[:10], repeat=5, warmup=1
        )
        print(row(f"hubs(10) p50 ({n:,} / {m:,})", ours["p50"], theirs["p50"], "ms", False))
        store.close()
    print(f"peak RSS: {peak_rss_mb():,.0f} MB (anatid and networkx in one process)")


if __name__ == "__main__":
    main()
