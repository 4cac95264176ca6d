"""The graph verbs of issue 17 against networkx on the same graph, in one run.

anatid answers from the store file: the first calls after a write walk by SQL and then load the
visible graph into arrays (cached until the next write; those cold calls are printed apart),
warm calls walk the arrays; networkx answers from a graph it holds in memory, built from the
same edges beforehand (its build time is printed, not counted). Endpoints are drawn 4 hops
apart (undirected) from a fixed seed. Personalized PageRank from 3 seeds: anatid's rule (stop
when the scores move by < 1e-6, L1) and networkx's (< N x 1e-6), against ``nx.pagerank`` at its
default, with the L1 distance of each result to networkx converged to 1e-12.

    python tests/benchmarks/bench_graph_verbs.py               # 1M nodes / 2.3M edges
    python tests/benchmarks/bench_graph_verbs.py --scale 0.1   # 100k / 230k (a few minutes)
    ... --store /tmp/g1m.duckdb   # keep the built store and reuse it on the next run

Fixed seeds, one warm-up per operation, p50/p95 over the pairs.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import tempfile
import time
from collections.abc import Iterator

import networkx as nx
import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
from _measure import peak_rss_mb, provenance, row, timed  # noqa: E402

from anatid_core import SETTINGS, Edge, Node, Scope, Store  # noqa: E402
from anatid_core.graph.pagerank import personalized_pagerank, seed_vector  # noqa: E402
from anatid_core.indexes.graph_arrays import visible_graph  # noqa: E402

GROUPS = ("g0", "g1", "g2", "g3")


def edge_list(n: int, m: int) -> list[tuple[str, str, str]]:
    """The benchmark's edges (id, src, dst), from a fixed seed so a kept store can be reused:
    random pairs, no self-loop and no pair twice (either way round), so that networkx's simple
    graph is the same graph as the store's. (An earlier formula, ``j * c mod n``, repeated
    every pair every n edges: 2.3 copies of 1M distinct edges.)"""
    rng = random.Random(11)
    seen: set[int] = set()
    out: list[tuple[str, str, str]] = []
    while len(out) < m:
        s, d = rng.randrange(n), rng.randrange(n)
        key = min(s, d) * n + max(s, d)
        if s != d and key not in seen:
            seen.add(key)
            out.append((f"e{len(out)}", f"n{s}", f"n{d}"))
    return out


def build(path: str, n: int, m: int) -> tuple[Store, list[tuple[str, str]], float | None]:
    """The store, the edges as (src, dst), and the load time (s; None: an existing store kept
    by ``--store`` was reopened)."""
    edges = edge_list(n, m)
    pairs = [(s, d) for _, s, d in edges]
    if os.path.exists(path):
        store = Store.open(path)
        if store.count_nodes() in (n, n + 1) and store.count_edges() == m:  # + "bench-write"
            return store, pairs, None
        raise SystemExit(f"{path} holds another graph: remove it or pick another --store")
    store = Store.open(path)
    chunk = 100_000
    t = time.perf_counter()
    for i in range(0, n, chunk):
        store.upsert_nodes(
            [Node(f"n{j}", group=GROUPS[j % 4]) for j in range(i, min(n, i + chunk))]
        )
    for i in range(0, m, chunk):
        store.upsert_edges([Edge(e, s, d, "R") for e, s, d in edges[i : i + chunk]])
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


def _after_a_write(store: Store, i: int) -> None:
    """A write the graph does not see (a node with no edges): what invalidates the cache."""
    store.upsert_nodes([Node("bench-write", group=GROUPS[0], props={"i": i})])


def cold_rows(store: Store, a: str, b: str, seeds: list[str]) -> list[str]:
    """The first calls after a write: the load of the visible graph is paid there."""
    out = []
    _after_a_write(store, 0)
    t = time.perf_counter()
    visible_graph(store.indexes.graphs, store.visibility)
    out.append(f"| visible graph load after a write (ids, edges, rows) | {_ms(t)} | | |")
    _after_a_write(store, 1)
    t = time.perf_counter()
    store.shortest_path(a, b, max_depth=6)
    first = _ms(t)
    t = time.perf_counter()
    store.shortest_path(a, b, max_depth=6)
    out.append(
        f"| shortest_path after a write: 1st call (SQL walk) / 2nd (loads graph + index) "
        f"| {first} / {_ms(t)} | | |"
    )
    _after_a_write(store, 2)
    t = time.perf_counter()
    store.pagerank(seeds, k=20)
    out.append(f"| pagerank after a write (loads the graph) | {_ms(t)} | | |")
    return out


def _ms(since: float) -> str:
    return f"{(time.perf_counter() - since) * 1000:,.0f} ms"


def pagerank_rows(store: Store, g: nx.Graph, n: int, repeat: int) -> list[str]:
    """PPR from 3 seeds, warm (graph cached), at anatid's rule (L1 move < 1e-6) and at
    networkx's (L1 move < N x 1e-6), against nx.pagerank (scipy) at its default; and the L1
    distance between the score vectors."""
    rng = random.Random(3)
    seeds = [[f"n{rng.randrange(n)}" for _ in range(3)] for _ in range(repeat + 2)]
    out = []
    ours, loose = (_ppr_timed(store, iter(seeds), tol, repeat) for tol in (1e-6, n * 1e-6))
    it = iter(seeds)
    theirs = timed(
        lambda: nx.pagerank(g, personalization=dict.fromkeys(next(it), 1)), repeat=2, warmup=0
    )
    out.append(
        row(f"PPR 3 seeds p50, L1 tol 1e-6 ({n:,})", ours["p50"], theirs["p50"], "ms", False)
    )
    out.append(f"|   p95 | {ours['p95']:,.0f} ms | {theirs['p95']:,.0f} ms | |")
    out.append(
        row("PPR 3 seeds p50, networkx's rule (N x 1e-6)", loose["p50"], theirs["p50"], "ms", False)
    )
    pushed = _ppr_timed(store, iter(seeds * 20), PUSH_TOLERANCE, 10 * repeat, "push")
    out.append(
        row(
            f"PPR 3 seeds p50, method='push', tolerance {PUSH_TOLERANCE:g} x degree",
            pushed["p50"],
            theirs["p50"],
            "ms",
            False,
        )
    )
    out.append(f"|   p95 | {pushed['p95']:,.1f} ms | | |")
    out += _l1_rows(store, g, seeds[0], n)
    return out


#: The push's tolerance in the benchmark: each score within 1e-5 x its node's degree.
PUSH_TOLERANCE = 1e-5


def _ppr_timed(
    store: Store, seeds: Iterator[list[str]], tol: float, repeat: int, method: str = "iterate"
) -> dict:
    return timed(
        lambda: store.pagerank(next(seeds), k=20, tolerance=tol, method=method),  # type: ignore[arg-type]
        repeat=repeat,
        warmup=1,
    )


def _l1_rows(store: Store, g: nx.Graph, seeds: list[str], n: int) -> list[str]:
    graph = visible_graph(store.indexes.graphs, store.visibility)
    p = seed_vector(graph, seeds)

    def ours(tol: float, method: str = "iterate") -> np.ndarray:
        return personalized_pagerank(
            graph,
            p,
            damping=0.85,
            iterations=100,
            tolerance=tol,
            direction="both",
            method=method,  # type: ignore[arg-type]
        )

    def theirs(tol: float) -> np.ndarray:
        got = nx.pagerank(g, personalization=dict.fromkeys(seeds, 1), tol=tol, max_iter=1000)
        return np.array([got.get(i, 0.0) for i in graph.ids])

    exact = theirs(1e-12 / n)
    nx_default = theirs(1e-6)
    strict, loose, pushed = ours(1e-6), ours(n * 1e-6), ours(PUSH_TOLERANCE, "push")
    l1 = lambda a, b: float(np.abs(a - b).sum())  # noqa: E731
    best = lambda a: set(np.argsort(-a, kind="stable")[:20].tolist())  # noqa: E731
    return [
        f"| L1 to networkx converged (tol 1e-12/N): anatid tol 1e-6 / anatid N x 1e-6 / "
        f"anatid push {PUSH_TOLERANCE:g} / networkx default | {l1(strict, exact):.2e} / "
        f"{l1(loose, exact):.2e} / {l1(pushed, exact):.2e} | {l1(nx_default, exact):.2e} | |",
        f"| top 20 shared with networkx converged: anatid push / networkx default | "
        f"{len(best(pushed) & best(exact))} | {len(best(nx_default) & best(exact))} | |",
    ]


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--scale", type=float, default=1.0, help="fraction of 1M nodes / 2.3M edges")
    ap.add_argument("--pairs", type=int, default=50)
    ap.add_argument("--repeat", type=int, default=5, help="PageRank calls timed")
    ap.add_argument(
        "--store",
        help="keep the store in this file (built there if missing, reopened if present)",
    )
    ap.add_argument(
        "--memory",
        action="store_true",
        help="keep every current record in memory (SETTINGS['current_records_limit'] raised "
        "above the graph's size)",
    )
    args = ap.parse_args()
    if args.memory:
        SETTINGS["current_records_limit"] = 10 * (1_000_000 + 2_300_000)
    n, m = int(1_000_000 * args.scale), int(2_300_000 * args.scale)
    print("provenance:", provenance(), "in-memory records:", args.memory)
    print("load average at start:", open("/proc/loadavg").read().strip())
    with tempfile.TemporaryDirectory() as tmp:
        store, edges, load = build(args.store or os.path.join(tmp, "graph.duckdb"), n, m)
        t = time.perf_counter()
        g = nx.Graph()
        g.add_nodes_from(f"n{i}" for i in range(n))
        g.add_edges_from(edges)
        nx_build = time.perf_counter() - t
        ends = four_apart(g, args.pairs, random.Random(5))
        loaded = "reused" if load is None else f"{(n + m) / load:,.0f} rows/s"
        print(f"load {n:,} nodes + {m:,} edges: {loaded}; networkx graph built in {nx_build:.1f} s")
        print("| operation | anatid | networkx (in memory) | anatid vs networkx |")
        print("|---|---|---|---|")
        for line in cold_rows(store, *ends[0], ["n1", "n2", "n3"]):
            print(line, flush=True)
        scoped = store.scoped(Scope.of(exclude_groups=["g3"]))
        g_scoped = g.subgraph([f"n{i}" for i in range(n) if i % 4 != 3])
        inside = [(a, b) for a, b in ends if a in g_scoped and b in g_scoped]
        _compare(
            f"shortest_path, 4 hops, warm, limit=10 (default) ({n:,} / {m:,})",
            lambda a, b: store.shortest_path(a, b, max_depth=6),
            lambda a, b: nx.shortest_path(g, a, b),
            ends,
        )
        _compare(
            f"shortest_path, 4 hops, warm, limit=1 (one path, as networkx) ({n:,} / {m:,})",
            lambda a, b: store.shortest_path(a, b, max_depth=6, limit=1),
            lambda a, b: nx.shortest_path(g, a, b),
            ends,
        )
        _compare(
            f"shortest_path, 4 hops, warm, scope wall: 3 of 4 groups ({n:,} / {m:,})",
            lambda a, b: scoped.shortest_path(a, b, max_depth=6),
            lambda a, b: nx.has_path(g_scoped, a, b) and nx.shortest_path(g_scoped, a, b),
            inside,
        )
        for line in pagerank_rows(store, g, n, args.repeat):
            print(line, flush=True)
        ours = timed(lambda: store.hubs(10), repeat=5, warmup=1)
        theirs = timed(
            lambda: sorted(g.degree, key=lambda d: (-d[1], d[0]))[:10], repeat=5, warmup=1
        )
        print(row(f"hubs(10) p50 ({n:,} / {m:,})", ours["p50"], theirs["p50"], "ms", False))
        store.close()
    print(f"peak RSS: {peak_rss_mb():,.0f} MB (anatid and networkx in one process)")
    print("load average at end:", open("/proc/loadavg").read().strip())


if __name__ == "__main__":
    main()
