"""Benchmark: ``anatid-migrate export cognee`` against the target's own bulk load (issue 18).

    python tests/benchmarks/bench_export_cognee.py                 # 100k entities/edges, 1024-dim
    python tests/benchmarks/bench_export_cognee.py --scale 0.01    # 1,000 / 1,000, a quick look
    python tests/benchmarks/bench_export_cognee.py --target ladybug

The anatid file is written once through the anatid Cognee adapters: ``n`` Entity nodes (one
source ref, one pipeline run), ``n`` edges (a ring), and the ``Entity_name`` collection with
seeded unit vectors. Each measurement gets a fresh target: a private PostgreSQL 16 + pgvector
server (the ``pgserver`` wheel's binaries, on a free 127.0.0.1 port) or a LadybugDB + LanceDB
directory. Measured, each in a fresh process:
- the floor: the same records, already read into memory, written into the empty target through
  the same Cognee adapters (``add_nodes``, ``add_edges``, the provenance attaches, the vector
  write) - the write alone, what no export can beat;
- the export: read through the anatid adapters + write + read back and verify + Parquet
  history, wall time and peak RSS. ``import cognee`` (20-100 s on a loaded machine) is done
  before the clock starts, as in the floor, and printed apart: it is paid once per process.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(REPO))

from _measure import provenance  # noqa: E402

from tests.migrate.postgres_server import postgres_server  # noqa: E402

_ENV = """
import os, tempfile
root = tempfile.mkdtemp(prefix="bench-cognee-")
for k, v in {"ENABLE_BACKEND_ACCESS_CONTROL": "false", "TELEMETRY_DISABLED": "1",
             "COGNEE_SKIP_CONNECTION_TEST": "true", "CACHING": "false", "LLM_API_KEY": "dummy",
             "SYSTEM_ROOT_DIRECTORY": root + "/s", "DATA_ROOT_DIRECTORY": root + "/d",
             "LOG_LEVEL": "ERROR"}.items():
    os.environ.setdefault(k, v)
"""

_BUILD = (
    _ENV
    + """
import asyncio, sys, uuid
import numpy as np
from anatid_cognee import AnatidGraphAdapter, AnatidVectorAdapter
from cognee.infrastructure.databases.provenance.source_refs import make_source_ref_key

path, n, dim = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
rng = np.random.default_rng(7)
ids = [str(uuid.UUID(int=i + 1)) for i in range(n)]
key = make_source_ref_key(uuid.UUID(int=10**9), uuid.UUID(int=10**9 + 1))
run = str(uuid.UUID(int=10**9 + 2))

async def main():
    g = AnatidGraphAdapter(graph_database_url=path)
    v = AnatidVectorAdapter(url=path)
    step = 5000
    for lo in range(0, n, step):
        hi = min(n, lo + step)
        nodes = [(ids[i], {"name": f"entity {i}", "type": "Entity",
                           "description": f"entity {i} of the benchmark", "rank": i})
                 for i in range(lo, hi)]
        await g.add_nodes(nodes, source_ref_key=key, pipeline_run_id=run)
        edges = [(ids[i], ids[(i + 1) % n], "related_to", {"weight": 0.5})
                 for i in range(lo, hi)]
        await g.add_edges(edges, source_ref_key=key, pipeline_run_id=run)
        vecs = rng.standard_normal((hi - lo, dim)).astype(np.float32)
        vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
        await v.create_collection("Entity_name")
        await v.upsert_raw_vectors("Entity_name", [
            {"id": ids[i], "vector": vecs[i - lo].tolist(),
             "payload": {"id": ids[i], "text": f"entity {i}", "belongs_to_set": []}}
            for i in range(lo, hi)])
    await g.close()
    await v.close()

asyncio.run(main())
print("{}")
"""
)

_FLOOR = (
    _ENV
    + """
import asyncio, json, resource, sys, time
from anatid_cognee import AnatidGraphAdapter, AnatidVectorAdapter
from anatid_migrate.cognee_records import read_memory, write_memory
from anatid_migrate.cognee_targets import check_target, close_engines, open_engines
from anatid_migrate.cognee_targets import parse_cognee_url

async def main():
    g = AnatidGraphAdapter(graph_database_url=sys.argv[1])
    v = AnatidVectorAdapter(url=sys.argv[1])
    memory = await read_memory(g, v)
    await g.close(); await v.close()
    target = parse_cognee_url(sys.argv[2])
    graph, vector = open_engines(target)
    await check_target(graph, vector, target)  # creates the tables and the vector extension
    t = time.perf_counter()
    await write_memory(graph, vector, memory, lambda n: None,
                       node_objects=target.provider == "ladybug")
    took = time.perf_counter() - t
    await close_engines(graph, vector)
    print(json.dumps({"seconds": took,
                      "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))

asyncio.run(main())
"""
)

_EXPORT = (
    _ENV
    + """
import json, resource, sys, time
t = time.perf_counter()
import anatid_cognee  # imports Cognee: once per process, outside the timing, as for the floor
from anatid_migrate.cognee_export import export_cognee
imported = time.perf_counter() - t
t = time.perf_counter()
r = export_cognee(sys.argv[1], sys.argv[2], history_dir=sys.argv[3])
took = time.perf_counter() - t
print(json.dumps({"seconds": took, "verified": r.verified, "import_seconds": imported,
                  "records": sum(r.target_tally.counts.values()),
                  "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""
)


def _run(code: str, *args: str) -> dict[str, float]:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    done = subprocess.run(
        [sys.executable, "-c", code, *args], capture_output=True, text=True, env=env, cwd=REPO
    )
    if done.returncode != 0:
        raise SystemExit(done.stderr[-3000:])
    return json.loads(done.stdout.strip().splitlines()[-1])


def _measure(code: str, target: str, work: Path, name: str, memory: Path) -> dict[str, float]:
    if target == "ladybug":
        return _run(code, str(memory), f"ladybug://{work / name}", str(work / (name + ".h")))
    with postgres_server() as url:
        return _run(code, str(memory), url, str(work / (name + ".h")))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--scale", type=float, default=1.0)
    ap.add_argument("--dim", type=int, default=1024)
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--target", choices=("postgres", "ladybug"), default="postgres")
    args = ap.parse_args()
    n = max(10, int(100_000 * args.scale))
    work = Path(tempfile.mkdtemp(prefix="anatid-bench-export-cognee-"))
    memory = work / "memory.duckdb"
    _run(_BUILD, str(memory), str(n), str(args.dim))
    results: dict[str, list[dict[str, float]]] = {"floor": [], "export": []}
    for i in range(args.repeat):
        results["floor"].append(_measure(_FLOOR, args.target, work, f"floor{i}", memory))
        results["export"].append(_measure(_EXPORT, args.target, work, f"export{i}", memory))
    best = {k: min(v, key=lambda r: r["seconds"]) for k, v in results.items()}
    out = {
        "target": args.target,
        "entities": n,
        "edges": n,
        "dim": args.dim,
        **{f"{k}_{m}": round(v[m], 3) for k, v in best.items() for m in ("seconds", "peak_rss_mb")},
        "export_over_floor": round(best["export"]["seconds"] / best["floor"]["seconds"], 2),
        "verified": best["export"]["verified"],
        "cognee_import_seconds": round(best["export"]["import_seconds"], 3),
        "provenance": provenance(),
    }
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
