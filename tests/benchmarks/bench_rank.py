"""Personalized PageRank and communities (issue 17) against networkx on the same graph, one run.

    python tests/benchmarks/bench_rank.py               # the issue's sizes (many minutes)
    python tests/benchmarks/bench_rank.py --scale 0.1   # a quick look

PageRank: 1,000,000 nodes / 2,300,000 edges, 3 random seeds per call, edges walked both ways;
the first call loads the visible graph (cached until the next write), so it is reported apart.
anatid stops when the scores move by < 1e-6 in total (L1); networkx's default stops when they
move by < N x 1e-6, a far looser rule at a million nodes, so anatid is also timed with that rule.
Communities: 100,000 nodes / 300,000 edges, anatid's Louvain against
``networkx.community.louvain_communities`` (modularity of both printed). Fixed seeds.
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
from _graph_store import graph_store  # noqa: E402
from _measure import peak_rss_mb, provenance, row, timed  # noqa: E402

from anatid_core import Store  # noqa: E402


def _pairs(n: int, m: int, seed: int) -> list[tuple[int, int]]:
    rng = random.Random(seed)
    return [(rng.randrange(n), rng.randrange(n)) for _ in range(m)]


def _load(path: str, n: int, pairs: list[tuple[int, int]]) -> tuple[Store, float]:
    t = time.perf_counter()
    store = graph_store(path, n, pairs)
    return store, time.perf_counter() - t


def _nx_graph(n: int, pairs: list[tuple[int, int]]) -> nx.Graph:
    g = nx.Graph()
    g.add_nodes_from(f"n{i}" for i in range(n))
    g.add_edges_from((f"n{s}", f"n{d}") for s, d in pairs)
    return g


def bench_pagerank(n: int, m: int, tmp: str, repeat: int) -> list[str]:
    pairs = _pairs(n, m, 17)
    store, load = _load(os.path.join(tmp, "rank.duckdb"), n, pairs)
    rng = random.Random(3)
    seeds = [[f"n{rng.randrange(n)}" for _ in range(3)] for _ in range(repeat + 3)]
    t = time.perf_counter()
    store.pagerank(seeds[0], k=20)
    cold = (time.perf_counter() - t) * 1000
    it = iter(seeds * 2)
    ours = timed(lambda: store.pagerank(next(it), k=20), repeat=repeat, warmup=1)
    loose = n * 1e-6
    it = iter(seeds * 2)
    ours_loose = timed(
        lambda: store.pagerank(next(it), k=20, tolerance=loose), repeat=repeat, warmup=1
    )
    store.close()
    g = _nx_graph(n, pairs)
    it = iter(seeds * 2)
    theirs = timed(
        lambda: nx.pagerank(g, personalization=dict.fromkeys(next(it), 1.0)),
        repeat=repeat,
        warmup=1,
    )
    size = f"{n:,} nodes / {m:,} edges"
    return [
        f"| load {size} | {(n + m) / load:,.0f} rows/s | | |",
        f"| PageRank, first call (loads the graph) | {cold:,.0f} ms | | |",
        row(f"PPR 3 seeds p50, tol 1e-6 L1 ({size})", ours["p50"], theirs["p50"], "ms", False),
        row("PPR 3 seeds p95, tol 1e-6 L1", ours["p95"], theirs["p95"], "ms", False),
        row("PPR 3 seeds p50, networkx's rule", ours_loose["p50"], theirs["p50"], "ms", False),
        row("PPR 3 seeds p95, networkx's rule", ours_loose["p95"], theirs["p95"], "ms", False),
    ]


def bench_communities(n: int, m: int, tmp: str, repeat: int) -> list[str]:
    pairs = _pairs(n, m, 29)
    store, _ = _load(os.path.join(tmp, "comm.duckdb"), n, pairs)
    parts: list[list[str]] = []

    def ours_once() -> None:
        store.indexes.graphs.forget()  # what a write does: the cached result is dropped
        parts[:] = store.communities()

    ours = timed(ours_once, repeat=repeat, warmup=1)
    store.close()
    g = _nx_graph(n, pairs)
    theirs_parts: list[set[str]] = []

    def theirs_once() -> None:
        theirs_parts[:] = nx.community.louvain_communities(g, seed=0)

    theirs = timed(theirs_once, repeat=repeat, warmup=0)
    q_ours = nx.community.modularity(g, [set(p) for p in parts])
    q_theirs = nx.community.modularity(g, theirs_parts)
    size = f"{n:,} nodes / {m:,} edges"
    return [
        row(f"communities p50 ({size})", ours["p50"] / 1000, theirs["p50"] / 1000, "s", False),
        row("communities p95", ours["p95"] / 1000, theirs["p95"] / 1000, "s", False),
        f"| modularity | {q_ours:.4f} ({len(parts):,} communities) | {q_theirs:.4f} "
        f"({len(theirs_parts):,}) | {q_ours / q_theirs:.3f} |",
    ]


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--scale", type=float, default=1.0, help="fraction of the issue's sizes")
    ap.add_argument("--repeat", type=int, default=10)
    ap.add_argument("--skip-pagerank", action="store_true")
    ap.add_argument("--skip-communities", action="store_true")
    args = ap.parse_args()
    print(provenance())
    print("| measure | anatid | networkx | ratio (>1: anatid faster) |\n|---|---|---|---|")
    with tempfile.TemporaryDirectory() as tmp:
        if not args.skip_pagerank:
            n, m = int(1_000_000 * args.scale), int(2_300_000 * args.scale)
            for line in bench_pagerank(n, m, tmp, args.repeat):
                print(line, flush=True)
        if not args.skip_communities:
            n, m = int(100_000 * args.scale), int(300_000 * args.scale)
            for line in bench_communities(n, m, tmp, max(3, args.repeat // 3)):
                print(line, flush=True)
    print(f"peak RSS {peak_rss_mb():,.0f} MB")


if __name__ == "__main__":
    main()
