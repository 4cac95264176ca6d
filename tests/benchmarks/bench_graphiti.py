"""GraphitiDriver against Graphiti's own FalkorDriver (FalkorDB Lite) and KuzuDriver, on identical data.

All three run through Graphiti's own code paths: ``add_nodes_and_edges_bulk`` for ingest, ``search_``
with the RRF recipes for hybrid search, ``search_`` with node BFS (depth 2), ``retrieve_episodes``,
``EntityNode.get_by_uuids`` (100 uuids) and ``EntityEdge.save`` (one edge re-saved).

    python tests/benchmarks/bench_graphiti.py           # reduced: 2,000 entities, 4,000 facts,
                                                        #          200 episodes (~2 min)
    python tests/benchmarks/bench_graphiti.py --full    # the issue's size: 10,000 entities,
                                                        # 20,000 facts, 1,000 episodes (~10 min)

Each backend runs in its own worker process (so peak RSS is its own): anatid in this interpreter,
Kuzu 0.11.3 in ``--kuzu-python`` (default /work/venvs/kuzu-graphiti/bin/python: Cognee installs a
``kuzu`` shim in the main venv, so real kuzu lives in a venv of its own), FalkorDB Lite 0.11.0 in
``--falkordb-python`` (default: the differential references' Python 3.12+ venv, built if missing,
see ``_falkordb.py``). FalkorDB Lite's embedded redis-server is a process of its own: its peak RSS
is added to its worker's. FalkorDB Lite keeps the graph in memory and writes RDB snapshots by its
save rules, so its writes are not on disk when they return (anatid's are: each commit syncs
DuckDB's WAL); ``--falkordb-fsync`` adds a FalkorDB Lite worker with its append-only file on and
fsynced after every write, anatid's durability. FalkorDB keeps each group in its own graph; the
benchmark has one group, so all of it goes into that group's graph, where Graphiti routes the
group's calls. Data come from fixed seeds, so every worker builds the same objects: 1024-dimension unit embeddings, ten MENTIONS per
episode, facts made of entity names and words from a fixed vocabulary. Ingest goes in ten equal
batches. Kuzu's full-text indexes are built after the ingest (Graphiti's ``graph_ops``), and that
time is counted in its ingest; FalkorDriver builds its indexes when it is made, before the data,
and that time is counted in its ingest too. Reads: one warm-up, then p50/p95 over ``--repeat`` calls.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import random
import resource
import subprocess
import sys
import tempfile
import time
import uuid as uuidlib
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))  # tests.* (the fakes, the FalkorDB Lite helper) in every worker
GROUP = "bench"
#: The embeddings' dimension: 1024, or ``--dim`` (handed to the workers by the environment).
DIM = int(os.environ.get("ANATID_BENCH_DIM", "1024"))
BATCHES = 10
SIZES = {
    "tiny": {"entities": 200, "facts": 400, "episodes": 20},
    "1k": {"entities": 1_000, "facts": 2_000, "episodes": 100},
    "reduced": {"entities": 2_000, "facts": 4_000, "episodes": 200},
    "full": {"entities": 10_000, "facts": 20_000, "episodes": 1_000},
    # issue 43's sizes (by hand: FalkorDB Lite ingests ~700 rows/s, so 200k takes a while)
    "50k": {"entities": 50_000, "facts": 100_000, "episodes": 5_000},
    "200k": {"entities": 200_000, "facts": 400_000, "episodes": 20_000},
}
KUZU_PYTHON = next(
    (
        p
        for p in (
            "/work/venvs/kuzu-graphiti/bin/python",
            os.path.expanduser("~/.cache/anatid-migrate/venvs/graphiti-kuzu/bin/python"),
        )
        if os.path.exists(p)
    ),
    "/work/venvs/kuzu-graphiti/bin/python",
)
T0 = datetime(2024, 1, 1, tzinfo=timezone.utc)


# ------------------------------------------------------------------------------------- data


def make_data(size: dict[str, int], seed: int = 7) -> dict[str, Any]:
    import numpy as np
    from graphiti_core.edges import EntityEdge, EpisodicEdge
    from graphiti_core.nodes import EntityNode, EpisodeType, EpisodicNode

    rng = random.Random(seed)
    vectors = np.random.default_rng(seed)

    def uid() -> str:
        return str(uuidlib.UUID(int=rng.getrandbits(128), version=4))

    def unit(n: int) -> list[list[float]]:
        m = vectors.standard_normal((n, DIM)).astype(np.float32)
        m /= np.linalg.norm(m, axis=1, keepdims=True)
        return m.tolist()

    words = [f"w{i:03d}" for i in range(500)]
    verbs = ["knows", "works with", "manages", "likes", "advises", "funds", "meets"]
    n_ent, n_fact, n_ep = size["entities"], size["facts"], size["episodes"]
    names = [f"Entity{i} {rng.choice(words)}" for i in range(n_ent)]
    name_vecs = unit(n_ent)
    entities = [
        EntityNode(
            uuid=uid(),
            name=names[i],
            group_id=GROUP,
            labels=["Entity", rng.choice(["Person", "Org"])],
            summary=" ".join(rng.choices(words, k=8)),
            created_at=T0,
            name_embedding=name_vecs[i],
            attributes={"rank": i},
        )
        for i in range(n_ent)
    ]
    episodes = [
        EpisodicNode(
            uuid=uid(),
            name=f"episode {i}",
            group_id=GROUP,
            source=EpisodeType.text,
            source_description="bench",
            content=" ".join(rng.choices(words, k=40)),
            valid_at=T0 + timedelta(minutes=i),
            created_at=T0 + timedelta(minutes=i),
        )
        for i in range(n_ep)
    ]
    fact_vecs = unit(n_fact)
    facts = []
    for i in range(n_fact):
        a, b = rng.sample(range(written_by(i, n_fact, n_ent)), 2)
        ep = episodes[rng.randrange(n_ep)]
        text = f"{names[a]} {rng.choice(verbs)} {names[b]} " + " ".join(rng.choices(words, k=6))
        facts.append(
            EntityEdge(
                uuid=uid(),
                source_node_uuid=entities[a].uuid,
                target_node_uuid=entities[b].uuid,
                group_id=GROUP,
                name="RELATES_TO",
                fact=text,
                fact_embedding=fact_vecs[i],
                episodes=[ep.uuid],
                created_at=T0,
                valid_at=T0 + timedelta(days=rng.randrange(365)),
            )
        )
    mentions = [
        EpisodicEdge(
            uuid=uid(),
            source_node_uuid=ep.uuid,
            target_node_uuid=entities[j].uuid,
            group_id=GROUP,
            created_at=ep.created_at,
        )
        for i, ep in enumerate(episodes)
        for j in rng.sample(range(written_by(i, n_ep, n_ent)), 10)
    ]
    queries = [
        (" ".join(rng.choices(words, k=3)), facts[rng.randrange(n_fact)].fact_embedding)
        for _ in range(50)
    ]
    return {
        "entities": entities,
        "episodes": episodes,
        "facts": facts,
        "mentions": mentions,
        "queries": queries,
        "rng": rng,
    }


def written_by(position: int, n_items: int, n_entities: int) -> int:
    """How many entities are stored once the batch holding item ``position`` (of ``n_items``)
    is: a fact or mention may only name those. Graphiti's bulk save, like every backend's
    ``MATCH (source) MATCH (target) MERGE`` edge query, silently skips an edge whose end is
    not stored yet, so edges naming a later batch's entities would never be stored."""
    batch = position // per_batch(n_items, BATCHES)
    return min(n_entities, (batch + 1) * per_batch(n_entities, BATCHES))


def per_batch(n_items: int, n: int) -> int:
    """The length of each of ``batches``' ``n`` batches of ``n_items`` (the last may be shorter)."""
    return -(-n_items // n)


def batches(items: list[Any], n: int) -> list[list[Any]]:
    k = per_batch(len(items), n)
    return [items[i : i + k] for i in range(0, len(items), k)] + [[]] * n


# ---------------------------------------------------------------------------------- worker


async def atimed(fn: Any, repeat: int) -> dict[str, float]:
    await fn()  # warm-up
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


async def check_stored(driver: Any, data: dict[str, Any]) -> None:
    """Every fact and mention the ingest wrote is there: the timings are over the whole data."""
    from graphiti_core.edges import EntityEdge, EpisodicEdge

    for kind, model in (("facts", EntityEdge), ("mentions", EpisodicEdge)):
        uuids = [e.uuid for e in data[kind]]
        found = 0
        for start in range(0, len(uuids), 200):  # FalkorDB: IN over a list scan
            found += len(await model.get_by_uuids(driver, uuids[start : start + 200]))
        if found != len(uuids):
            raise SystemExit(f"the backend holds {found} of the {len(uuids)} {kind} written")


async def open_driver(backend: str, path: str) -> Any:
    if backend.startswith("anatid"):
        sys.path[:0] = [str(REPO), str(REPO / "drivers")]
        from anatid_graphiti import GraphitiDriver

        from anatid_core import SETTINGS

        if backend == "anatid-sql":  # the baseline: no in-memory current records (issue 16)
            SETTINGS["current_records_limit"] = 0

        return GraphitiDriver(path)
    import warnings

    warnings.simplefilter("ignore", DeprecationWarning)
    if backend.startswith("falkordb"):
        from tests.benchmarks import _falkordb

        return await _falkordb.open_driver(path, GROUP, fsync=backend == "falkordb-fsync")
    from graphiti_core.driver.kuzu_driver import KuzuDriver

    return KuzuDriver(db=path)


def file_size_mb(path: str) -> float:
    """The store's files: ``path`` and what sits beside it under its name, and FalkorDB
    Lite's append-only file (redis writes it into the same directory) when it keeps one."""
    total = 0
    parent = Path(path).parent
    for p in [*parent.glob(Path(path).name + "*"), *parent.glob("appendonly*")]:
        total += (
            sum(f.stat().st_size for f in p.rglob("*") if f.is_file())
            if p.is_dir()
            else p.stat().st_size
        )
    return total / 1e6


async def work(backend: str, size_name: str, repeat: int) -> dict[str, Any]:
    os.environ["GRAPHITI_TELEMETRY_ENABLED"] = "false"
    sys.path.insert(0, str(REPO))
    from graphiti_core import Graphiti
    from graphiti_core.edges import EntityEdge
    from graphiti_core.nodes import EntityNode
    from graphiti_core.search.search_config import NodeSearchConfig, NodeSearchMethod, SearchConfig
    from graphiti_core.search.search_config_recipes import (
        EDGE_HYBRID_SEARCH_RRF,
        NODE_HYBRID_SEARCH_RRF,
    )
    from graphiti_core.utils.bulk_utils import add_nodes_and_edges_bulk
    from graphiti_core.utils.maintenance.graph_data_operations import retrieve_episodes

    from tests.graphiti.fakes import FakeCrossEncoder, FakeEmbedder, FakeLLMClient

    data = make_data(SIZES[size_name])
    rng = data["rng"]
    tmp = tempfile.mkdtemp(prefix=f"bench-graphiti-{backend}-")
    path = os.path.join(tmp, "graph.db")
    t = time.perf_counter()
    driver = await open_driver(backend, path)
    open_s = time.perf_counter() - t if backend.startswith("falkordb") else 0.0  # its indexes
    embedder = FakeEmbedder(DIM)
    out: dict[str, Any] = {"backend": backend}

    rows = sum(len(data[k]) for k in ("entities", "facts", "episodes", "mentions"))
    parts = [batches(data[k], BATCHES) for k in ("episodes", "mentions", "entities", "facts")]
    t = time.perf_counter()
    for i in range(BATCHES):
        await add_nodes_and_edges_bulk(
            driver, parts[0][i], parts[1][i], parts[2][i], parts[3][i], embedder
        )
    insert_s = time.perf_counter() - t
    t = time.perf_counter()
    if not backend.startswith("falkordb"):  # FalkorDB's: built when the driver was made
        await driver.graph_ops.build_indices_and_constraints(driver)  # Kuzu's FTS; anatid: no-op
    index_s = time.perf_counter() - t + open_s
    out["ingest"] = {
        "rows": rows,
        "seconds": insert_s + index_s,
        "index_seconds": index_s,
        "rows_per_s": rows / (insert_s + index_s),
    }

    g = Graphiti(
        graph_driver=driver,
        llm_client=FakeLLMClient(),
        embedder=embedder,
        cross_encoder=FakeCrossEncoder(),
    )
    queries = iter(data["queries"] * (repeat + 2))

    async def edge_search() -> None:
        q, v = next(queries)
        await g.search_(q, config=EDGE_HYBRID_SEARCH_RRF, group_ids=[GROUP], query_vector=v)

    async def node_search() -> None:
        q, v = next(queries)
        await g.search_(q, config=NODE_HYBRID_SEARCH_RRF, group_ids=[GROUP], query_vector=v)

    bfs = SearchConfig(
        node_config=NodeSearchConfig(search_methods=[NodeSearchMethod.bfs], bfs_max_depth=2)
    )
    ents = data["entities"]

    async def node_bfs() -> None:
        origin = ents[rng.randrange(len(ents))].uuid
        await g.search_(
            "entity",
            config=bfs,
            group_ids=[GROUP],
            bfs_origin_node_uuids=[origin],
            query_vector=[0.0] * DIM,
        )

    async def episodes() -> None:
        got = await retrieve_episodes(driver, T0 + timedelta(days=1), last_n=3, group_ids=[GROUP])
        assert len(got) == 3

    async def get_100() -> None:
        got = await EntityNode.get_by_uuids(driver, [e.uuid for e in rng.sample(ents, 100)])
        assert len(got) == 100

    edge = data["facts"][0]
    counter = iter(range(10**9))

    async def resave() -> None:
        edge.attributes = {"n": next(counter)}
        await edge.save(driver)

    for name, fn in [
        ("edge hybrid search", edge_search),
        ("node hybrid search", node_search),
        ("node BFS depth 2", node_bfs),
        ("retrieve_episodes", episodes),
        ("get 100 by uuid", get_100),
        ("edge re-save", resave),
    ]:
        out[name] = await atimed(fn, repeat)
    check = await EntityEdge.get_by_uuid(driver, edge.uuid)
    assert check.fact == edge.fact
    # The timings so far, in case the check below is what fails (FalkorDB Lite at 50k timed
    # out on its socket there, twice, and took its figures with it).
    print("MEASURED " + json.dumps(out), file=sys.stderr, flush=True)
    await check_stored(driver, data)
    server_mb = 0.0
    if backend.startswith("falkordb"):
        from tests.benchmarks import _falkordb

        server_mb = _falkordb.server_peak_rss_mb(driver)
        await _falkordb.save_and_stop(driver)
    else:
        await driver.close()
    out["file_mb"] = file_size_mb(path)
    out["path"] = path
    out["server_rss_mb"] = server_mb
    out["peak_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024 + server_mb
    return out


# ---------------------------------------------------------------------------------- driver


def run_worker(python: str, backend: str, size: str, repeat: int) -> dict[str, Any]:
    cmd = [python, __file__, "--worker", backend, "--size", size, "--repeat", str(repeat)]
    cmd += ["--dim", os.environ.get("ANATID_BENCH_DIM", str(DIM))]
    done = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        measured = [line for line in done.stderr.splitlines() if line.startswith("MEASURED ")]
        if measured:
            print(f"{backend} (measured before it failed): {measured[-1][9:]}", flush=True)
        raise SystemExit(
            f"{backend} worker failed:\n{done.stderr[:3000]}\n...\n{done.stderr[-3000:]}"
        )
    return json.loads(done.stdout.strip().splitlines()[-1])


def baseline_table(ours: dict[str, Any], sql: dict[str, Any]) -> str:
    """anatid against itself with the in-memory current records off, in the same run."""
    lines = ["| operation | anatid | anatid, view off | ratio |", "|---|---|---|---|"]
    for op in OPS:
        lines.append(
            f"| {op} p50 / p95 | {ours[op]['p50']:.2f} / {ours[op]['p95']:.2f} ms "
            f"| {sql[op]['p50']:.2f} / {sql[op]['p95']:.2f} ms | {sql[op]['p50'] / ours[op]['p50']:.1f}x |"
        )
    return "\n".join(lines)


BACKENDS = ["anatid", "anatid-sql", "falkordb", "falkordb-fsync", "kuzu"]
#: Run only when asked (a flag or ``--only``): variants beside the default comparison.
OPT_IN = {"anatid-sql": "baseline", "falkordb-fsync": "falkordb_fsync"}
OPS = (
    "edge hybrid search",
    "node hybrid search",
    "node BFS depth 2",
    "retrieve_episodes",
    "get 100 by uuid",
    "edge re-save",
)


PEERS = {
    "falkordb": "FalkorDB Lite",
    "falkordb-fsync": "FalkorDB Lite, AOF fsync always",
    "kuzu": "Kuzu",
}


def table(ours: dict[str, Any], peers: dict[str, dict[str, Any]]) -> str:
    """anatid against each peer present; each ratio is x faster (or smaller) than that peer."""
    names = [PEERS[p] for p in peers]
    lines = [
        "| operation | anatid | " + " | ".join(names) + " | "
        + " | ".join(f"ratio vs {n}" for n in names) + " |",
        "|---" * (2 + 2 * len(names)) + "|",
    ]  # fmt: skip

    def line(label: str, cells: list[str], ratios: list[float]) -> str:
        return f"| {label} | " + " | ".join(cells + [f"{r:.1f}x" for r in ratios]) + " |"

    a = ours["ingest"]
    cells = [f"{a['rows_per_s']:,.0f} rows/s ({a['seconds']:.1f} s)"]
    for p in peers.values():
        k = p["ingest"]
        cells.append(
            f"{k['rows_per_s']:,.0f} rows/s ({k['seconds']:.1f} s, indexes {k['index_seconds']:.1f} s)"
        )
    ratios = [a["rows_per_s"] / p["ingest"]["rows_per_s"] for p in peers.values()]
    lines.append(line(f"ingest ({a['rows']:,} rows)", cells, ratios))
    for op in OPS:
        cells = [f"{d[op]['p50']:.2f} / {d[op]['p95']:.2f} ms" for d in (ours, *peers.values())]
        ratios = [p[op]["p50"] / ours[op]["p50"] for p in peers.values()]
        lines.append(line(f"{op} p50 / p95", cells, ratios))
    for key, label in (("file_mb", "file size"), ("peak_rss_mb", "peak RSS")):
        cells = [f"{d[key]:,.0f} MB" for d in (ours, *peers.values())]
        if key == "peak_rss_mb":
            for i, (name, peer) in enumerate(peers.items(), start=1):
                if name.startswith("falkordb"):
                    cells[i] += f" (server {peer['server_rss_mb']:,.0f})"
        lines.append(line(label, cells, [p[key] / ours[key] for p in peers.values()]))
    return "\n".join(lines)


def load_average() -> str:
    try:
        return " ".join(Path("/proc/loadavg").read_text().split()[:3])
    except OSError:
        return "?"


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--full", action="store_true", help="the issue's size (10k/20k/1k)")
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--kuzu-python", default=KUZU_PYTHON)
    parser.add_argument(
        "--falkordb-python",
        help="FalkorDB Lite's interpreter (default: the references' venv, built if missing)",
    )
    parser.add_argument("--only", choices=BACKENDS)
    parser.add_argument("--skip", choices=BACKENDS, action="append", default=[])
    parser.add_argument(
        "--size",
        choices=sorted(SIZES),
        nargs="+",
        help="named sizes instead of --full / reduced, each run in turn (e.g. --size 1k 50k)",
    )
    parser.add_argument(
        "--dim", type=int, default=DIM, help="embedding dimension (default 1024; 512 at 200k)"
    )
    parser.add_argument(
        "--baseline",
        action="store_true",
        help="also run anatid with its in-memory current records off (the pre-issue-16 paths)",
    )
    parser.add_argument(
        "--falkordb-fsync",
        action="store_true",
        help="also run FalkorDB Lite with its append-only file fsynced after every write "
        "(anatid's durability; by default FalkorDB Lite writes RDB snapshots only)",
    )
    parser.add_argument("--worker", choices=BACKENDS, help=argparse.SUPPRESS)
    args = parser.parse_args()
    sizes = args.size or ["full" if args.full else "reduced"]
    os.environ["ANATID_BENCH_DIM"] = str(args.dim)
    if args.worker:
        print(json.dumps(asyncio.run(work(args.worker, sizes[0], args.repeat))))
        return
    for size in sizes:
        run_size(args, size)


def run_size(args: argparse.Namespace, size: str) -> None:
    """Every backend asked for at one size, then the tables."""
    results = {}
    loads = [load_average()]
    for backend in BACKENDS:
        flag = OPT_IN.get(backend)
        if flag is not None and not getattr(args, flag) and args.only != backend:
            continue
        if args.only not in (None, backend) or backend in args.skip:
            continue
        python = args.kuzu_python if backend == "kuzu" else None
        if backend.startswith("falkordb"):
            from tests.benchmarks import _falkordb

            python = args.falkordb_python or _falkordb.venv_python()
        results[backend] = run_worker(python or sys.executable, backend, size, args.repeat)
        if backend.startswith("anatid"):  # its writer started an index builder as it exited
            from tests.benchmarks._measure import wait_for_index_builder

            wait_for_index_builder(results[backend]["path"])
        loads.append(load_average())
        print(f"{backend}: {json.dumps(results[backend])}  (load {loads[-1]})", flush=True)
    commit = subprocess.run(
        ["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"],
        capture_output=True,
        text=True,
        check=False,
    ).stdout.strip()
    print(
        f"\nsize {size} {SIZES[size]}, dim {args.dim}, repeat {args.repeat}; commit {commit}, "
        f"python {platform.python_version()}, {platform.machine()} {os.cpu_count()} cores; "
        f"load average (1/5/15 min) at start and after each worker: {' -> '.join(loads)}\n"
    )
    if any(backend.startswith("falkordb") for backend in results):
        print(
            f"FalkorDB Lite: every group in its own graph; this run has one group ({GROUP!r}), "
            "loaded into that group's graph, where Graphiti routes the group's calls\n"
        )
    peers = {p: results[p] for p in PEERS if p in results}
    if "anatid" in results and peers:
        print(table(results["anatid"], peers))
    if "anatid" in results and "anatid-sql" in results:
        print()
        print(baseline_table(results["anatid"], results["anatid-sql"]))


if __name__ == "__main__":
    main()
