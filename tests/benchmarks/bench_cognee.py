"""anatid_cognee against Cognee's own embedded stores, side by side on identical data.

Graph: AnatidGraphAdapter vs LadybugAdapter (Cognee's default graph store). Vectors:
AnatidVectorAdapter vs LanceDBAdapter (Cognee's default vector store), both fed through
Cognee's own indexing task (``index_data_points``) with the same precomputed 1024-dimension
embeddings, so the embedding cost is identical and excluded. The peers run the way Cognee 1.6
runs them by default, in a worker subprocess (``--peer-mode subprocess``); ``--peer-mode
direct`` measures them in-process, which is faster for them.

    python tests/benchmarks/bench_cognee.py          # reduced sizes (~2 minutes)
    python tests/benchmarks/bench_cognee.py --full   # the issue's sizes: 10,000 nodes,
                                                     # 30,000 edges, 10,000 vectors (~5 min)
    python tests/benchmarks/bench_cognee.py --sizes 10000 100000   # issue 43: size by size

Writes go in batches of 2,000 (Ladybug's own write chunk). Reads: one warm-up, then p50/p95
over repeated calls with a fixed seed. Prints a markdown table with ratios (>1 = anatid better).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import sys
import tempfile
import time
from datetime import datetime, timezone
from typing import Any
from uuid import uuid4

import numpy as np

os.environ.setdefault("TELEMETRY_DISABLED", "1")
os.environ.setdefault("ENABLE_BACKEND_ACCESS_CONTROL", "false")
os.environ.setdefault("LOG_LEVEL", "ERROR")
sys.path.insert(0, os.path.dirname(__file__))
from _measure import provenance  # noqa: E402

BATCH = 2000
RELS = [f"rel_{i}" for i in range(10)]


async def atimed(fn: Any, *, repeat: int, warmup: int = 1) -> dict[str, float]:
    for _ in range(warmup):
        await fn()
    samples = []
    for _ in range(repeat):
        t = time.perf_counter()
        await fn()
        samples.append((time.perf_counter() - t) * 1000)
    samples.sort()
    return {
        "p50": samples[len(samples) // 2],
        "p95": samples[min(len(samples) - 1, int(len(samples) * 0.95))],
    }


def graph_data(n_nodes: int, n_edges: int, seed: int = 42) -> dict[str, Any]:
    from cognee.modules.engine.models import Entity, EntityType

    rng = random.Random(seed)
    n_types = max(10, n_nodes // 100)
    types = [
        EntityType(name=f"type {i}", description=f"entity type number {i}") for i in range(n_types)
    ]
    entities = [
        Entity(name=f"entity {i}", description=f"entity number {i} of the benchmark")
        for i in range(n_nodes - n_types)
    ]
    nodes = [*types, *entities]
    now = datetime(2026, 1, 1, tzinfo=timezone.utc)
    seen: set[tuple[Any, Any, str]] = set()
    edges = []
    while len(edges) < n_edges:
        a, b = rng.choice(nodes), rng.choice(nodes)
        rel = rng.choice(RELS)
        if a is b or (a.id, b.id, rel) in seen:
            continue
        seen.add((a.id, b.id, rel))
        edges.append(
            (
                a.id,
                b.id,
                rel,
                {
                    "source_node_id": a.id,
                    "target_node_id": b.id,
                    "relationship_name": rel,
                    "relationship_type": rel,
                    "edge_object_id": uuid4(),
                    "feedback_weight": 0.5,
                    "updated_at": now,
                    "edge_text": f"{a.name} {rel} {b.name}",
                },
            )
        )
    ids = [str(n.id) for n in nodes]
    return {
        "nodes": nodes,
        "edges": edges,
        "ids": ids,
        "rng": random.Random(seed + 1),
        "entity_names": [e.name for e in entities],
        "edge_keys": [(str(e[0]), str(e[1]), e[2]) for e in edges],
    }


async def bench_graph(
    adapter: Any, data: dict[str, Any], full_reads: int, out: dict[str, Any] | None = None
) -> dict[str, Any]:
    """The graph operations' figures, into ``out`` as they are measured (a peer that fails
    part way leaves what it measured)."""
    from cognee.modules.engine.models import Entity

    out = {} if out is None else out
    nodes, edges = data["nodes"], data["edges"]
    # The first batch apart: it pays the process's first-call costs (anatid: creating the file
    # and the first statements; LadybugDB: its worker's first calls); the rate is over the
    # batches after it. (Until 01f5aa4 anatid's also imported pandas, through pyarrow.)
    t = time.perf_counter()
    await adapter.add_nodes(nodes[:BATCH])
    out["add_nodes first batch"] = (time.perf_counter() - t) * 1000
    t = time.perf_counter()
    for i in range(BATCH, len(nodes), BATCH):
        await adapter.add_nodes(nodes[i : i + BATCH])
    out["add_nodes"] = (len(nodes) - BATCH) / (time.perf_counter() - t)
    t = time.perf_counter()
    for i in range(0, len(edges), BATCH):
        out["add_edges so far"] = (i, t)  # edges added, since
        await adapter.add_edges(edges[i : i + BATCH])
    out["add_edges"] = len(edges) / (time.perf_counter() - t)
    del out["add_edges so far"]

    rng = random.Random(7)
    ids, keys, names = data["ids"], data["edge_keys"], data["entity_names"]
    out["get_node"] = await atimed(lambda: adapter.get_node(rng.choice(ids)), repeat=200)
    out["get_nodes(100)"] = await atimed(lambda: adapter.get_nodes(rng.sample(ids, 100)), repeat=50)
    out["neighborhood d1"] = await atimed(
        lambda: adapter.get_neighborhood([rng.choice(ids)], depth=1), repeat=50
    )
    out["neighborhood d2"] = await atimed(
        lambda: adapter.get_neighborhood([rng.choice(ids)], depth=2), repeat=50
    )
    out["nodeset subgraph"] = await atimed(
        lambda: adapter.get_nodeset_subgraph(Entity, rng.sample(names, 5)), repeat=30
    )
    out["filtered graph data"] = await atimed(
        lambda: adapter.get_filtered_graph_data([{"type": ["EntityType"]}]), repeat=30
    )
    out["has_edges(100)"] = await atimed(
        lambda: adapter.has_edges(rng.sample(keys, 100)), repeat=50
    )
    out["get_graph_data"] = await atimed(adapter.get_graph_data, repeat=full_reads)
    return out


class FixedEmbeddings:
    """Precomputed 1024-d vectors by text: the same cost (a dict lookup) for both stores."""

    def __init__(self, texts: list[str], dim: int = 1024, seed: int = 3) -> None:
        rng = np.random.default_rng(seed)
        matrix = rng.standard_normal((len(texts), dim)).astype(np.float32)
        matrix /= np.linalg.norm(matrix, axis=1, keepdims=True)
        self.vectors = {t: matrix[i].tolist() for i, t in enumerate(texts)}
        self.dim = dim

    async def embed_text(self, text: list[str]) -> list[list[float]]:
        return [self.vectors[t] for t in text]

    def get_vector_size(self) -> int:
        return self.dim

    def get_batch_size(self) -> int:
        return 100


async def bench_vectors(adapter: Any, points: list[Any], queries: list[list[float]]) -> dict:
    from cognee.tasks.storage.index_data_points import index_data_points

    out: dict[str, Any] = {}
    t = time.perf_counter()
    await index_data_points(points, vector_engine=adapter)
    out["index_data_points"] = len(points) / (time.perf_counter() - t)
    qs = iter(queries * 10)
    out["search top-10"] = await atimed(
        lambda: adapter.search("BenchChunk_text", query_vector=next(qs), limit=10), repeat=50
    )
    return out


def size_mb(path: str) -> float:
    if os.path.isfile(path):
        return os.path.getsize(path) / 1e6
    total = 0
    for root, _dirs, files in os.walk(path):
        total += sum(os.path.getsize(os.path.join(root, f)) for f in files)
    return total / 1e6


async def main(args: argparse.Namespace) -> None:
    import anatid_cognee
    from cognee.infrastructure.databases.graph.ladybug.adapter import LadybugAdapter
    from cognee.infrastructure.databases.vector.lancedb.LanceDBAdapter import LanceDBAdapter
    from cognee.infrastructure.engine import DataPoint

    class BenchChunk(DataPoint):
        text: str
        metadata: dict = {"index_fields": ["text"]}  # pyright: ignore[reportIncompatibleVariableOverride]

    tmp = tempfile.mkdtemp(prefix="bench-cognee-")
    data = graph_data(args.nodes, args.edges)
    results: dict[str, dict[str, Any]] = {}
    sizes: dict[str, float] = {}

    subprocess_mode = args.peer_mode == "subprocess"
    lady_path = os.path.join(tmp, "ladybug_graph")
    lady = (
        LadybugAdapter.create_subprocess(lady_path)
        if subprocess_mode
        else LadybugAdapter(lady_path)
    )
    print(
        f"LadybugDB ({args.peer_mode}): {args.nodes} nodes, {args.edges} edges ...", file=sys.stderr
    )
    results["ladybug"] = {}
    try:
        if args.skip_ladybug:
            raise RuntimeError("not run (--skip-ladybug)")
        await bench_graph(lady, data, args.full_reads, results["ladybug"])
    except Exception as exc:  # Cognee's 300 s subprocess deadline, at 100k nodes (issue 43)
        results["ladybug"]["failed"] = f"{type(exc).__name__}: {exc}"
        results["ladybug"]["failed at"] = time.perf_counter()
        print(f"LadybugDB failed: {results['ladybug']['failed']}", file=sys.stderr)
    await lady.close()
    sizes["ladybug"] = size_mb(lady_path)

    anatid_path = os.path.join(tmp, "anatid.duckdb")
    graph = anatid_cognee.AnatidGraphAdapter(graph_database_url=anatid_path)
    print("anatid graph ...", file=sys.stderr)
    results["anatid"] = await bench_graph(graph, data, args.full_reads)
    if args.baseline:  # the same adapter with the in-memory current records off (issue 16)
        from anatid_core import SETTINGS

        limit = SETTINGS["current_records_limit"]
        SETTINGS["current_records_limit"] = 0
        base = anatid_cognee.AnatidGraphAdapter(
            graph_database_url=os.path.join(tmp, "anatid-sql.duckdb")
        )
        print("anatid graph, in-memory current records off ...", file=sys.stderr)
        results["anatid-sql"] = await bench_graph(base, data, args.full_reads)
        await base.close()
        SETTINGS["current_records_limit"] = limit

    texts = [
        f"chunk {i} about topic {i % 97} and entity {i * 7 % 1009}" for i in range(args.vectors)
    ]
    engine = FixedEmbeddings(texts + [f"query {i}" for i in range(20)])
    points = [BenchChunk(text=t) for t in texts]
    queries = [engine.vectors[f"query {i}"] for i in range(20)]
    lance_path = os.path.join(tmp, "cognee.lancedb")
    lance = (
        LanceDBAdapter.create_subprocess(url=lance_path, api_key=None, embedding_engine=engine)
        if subprocess_mode
        else LanceDBAdapter(url=lance_path, api_key=None, embedding_engine=engine)
    )
    print(f"LanceDB: {args.vectors} x 1024 vectors ...", file=sys.stderr)
    results["lancedb"] = await bench_vectors(lance, points, queries)
    await lance.close()
    sizes["lancedb"] = size_mb(lance_path)

    vector = anatid_cognee.AnatidVectorAdapter(url=anatid_path, embedding_engine=engine)
    print("anatid vectors ...", file=sys.stderr)
    results["anatid_vectors"] = await bench_vectors(vector, points, queries)
    await graph.close()
    await vector.close()
    sizes["anatid"] = size_mb(anatid_path)

    report(args, results, sizes)


def _failed(peer: dict[str, Any], key: str) -> str:
    """What a peer that failed shows for ``key``: how far its edges got, or that it failed."""
    if key == "add_edges" and "add_edges so far" in peer:
        done, since = peer["add_edges so far"]
        seconds = peer.get("failed at", since) - since
        return f"{done:,} edges, then {peer.get('failed', 'failed')} after {seconds:,.0f} s"
    return "not measured"


def report(args: argparse.Namespace, results: dict, sizes: dict) -> None:
    ours, peer = results["anatid"], results["ladybug"]
    vec, lance = results["anatid_vectors"], results["lancedb"]
    print(
        f"\nbench_cognee: {args.nodes:,} nodes, {args.edges:,} edges, {args.vectors:,} x 1024 "
        f"vectors; peers in {args.peer_mode} mode; {provenance()}"
    )
    if "failed" in peer:
        print(f"\nLadybugDB failed: {peer['failed']}")
    print("\n| operation | anatid | LadybugDB / LanceDB | ratio |")
    print("|---|---|---|---|")
    first = "add_nodes first batch"
    if first in peer:
        print(
            f"| {first} ({BATCH:,} nodes) | {ours[first]:,.0f} ms | {peer[first]:,.0f} ms | "
            f"{peer[first] / ours[first]:.1f}x |"
        )
    else:
        print(f"| {first} ({BATCH:,} nodes) | {ours[first]:,.0f} ms | {_failed(peer, first)} | |")
    for key in ("add_nodes", "add_edges"):
        after = " (after the first batch)" if key == "add_nodes" else ""
        if key not in peer:
            print(f"| {key}{after} | {ours[key]:,.0f} rows/s | {_failed(peer, key)} | |")
            continue
        print(
            f"| {key}{after} | {ours[key]:,.0f} rows/s | {peer[key]:,.0f} rows/s | "
            f"{ours[key] / peer[key]:.1f}x |"
        )
    for key, value in ours.items():
        if isinstance(value, dict):
            p = peer.get(key)
            if p is None:
                print(f"| {key} p50 (p95) | {value['p50']:.2f} ({value['p95']:.2f}) ms | "
                      f"not measured | |")  # fmt: skip
                continue
            print(
                f"| {key} p50 (p95) | {value['p50']:.2f} ({value['p95']:.2f}) ms | "
                f"{p['p50']:.2f} ({p['p95']:.2f}) ms | {p['p50'] / value['p50']:.1f}x |"
            )
    print(
        f"| vector indexing (index_data_points) | {vec['index_data_points']:,.0f} points/s | "
        f"{lance['index_data_points']:,.0f} points/s | "
        f"{vec['index_data_points'] / lance['index_data_points']:.1f}x |"
    )
    v, lq = vec["search top-10"], lance["search top-10"]
    print(
        f"| vector search top-10 p50 (p95) | {v['p50']:.2f} ({v['p95']:.2f}) ms | "
        f"{lq['p50']:.2f} ({lq['p95']:.2f}) ms | {lq['p50'] / v['p50']:.1f}x |"
    )
    if "anatid-sql" in results:
        base = results["anatid-sql"]
        print("\n| operation | anatid | anatid, in-memory current records off | ratio |")
        print("|---|---|---|---|")
        for key, value in ours.items():
            b = base[key]
            if isinstance(value, dict):
                print(
                    f"| {key} p50 (p95) | {value['p50']:.2f} ({value['p95']:.2f}) ms | "
                    f"{b['p50']:.2f} ({b['p95']:.2f}) ms | {b['p50'] / value['p50']:.1f}x |"
                )
            elif key == first:
                print(f"| {key} | {value:,.0f} ms | {b:,.0f} ms | {b / value:.1f}x |")
            else:
                print(f"| {key} | {value:,.0f} rows/s | {b:,.0f} rows/s | {value / b:.1f}x |")
    print(
        f"\nfiles: anatid (graph + vectors, one file) {sizes['anatid']:.1f} MB; "
        f"LadybugDB {sizes['ladybug']:.1f} MB + LanceDB {sizes['lancedb']:.1f} MB"
    )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--full", action="store_true", help="the issue's sizes")
    parser.add_argument("--nodes", type=int)
    parser.add_argument("--edges", type=int)
    parser.add_argument("--vectors", type=int)
    parser.add_argument(
        "--sizes",
        type=int,
        nargs="+",
        help="node counts run in turn, each with 3x edges and as many vectors "
        "(issue 43: --sizes 10000 100000)",
    )
    parser.add_argument(
        "--peer-mode",
        choices=["subprocess", "direct"],
        default="subprocess",
        help="how LadybugDB and LanceDB run (Cognee's default: subprocess)",
    )
    parser.add_argument(
        "--skip-ladybug",
        action="store_true",
        help="do not run LadybugDB's graph (at 100k nodes its first add_edges batch runs past "
        "Cognee's 300 s subprocess deadline; anatid's first batch then also pays the imports "
        "LadybugDB's run would have paid)",
    )
    parser.add_argument(
        "--baseline",
        action="store_true",
        help="also run the anatid graph with its in-memory current records off (same run)",
    )
    parsed = parser.parse_args()
    scale = 1.0 if parsed.full else 0.2
    parsed.nodes = parsed.nodes or int(10_000 * scale)
    parsed.edges = parsed.edges or int(30_000 * scale)
    parsed.vectors = parsed.vectors or int(10_000 * scale)
    parsed.full_reads = 5
    for nodes in parsed.sizes or [parsed.nodes]:
        if parsed.sizes:
            parsed.nodes, parsed.edges, parsed.vectors = nodes, 3 * nodes, nodes
            print(f"\n## {nodes:,} nodes, {3 * nodes:,} edges, {nodes:,} vectors\n", flush=True)
        asyncio.run(main(parsed))
