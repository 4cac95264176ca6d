"""Issue 16's small operations through Graphiti, with anatid's in-memory current records on and
off, call by call in one process (so both sides see the same machine load at the same moment).

    python tests/benchmarks/bench_current_records.py 1000     # entities (facts = 2x, episodes /10)

Both stores are built from the same seeds as bench_graphiti.py. The "off" store has its view
disabled on its own connection (reads and writes take the SQL paths, as before issue 16).
Prints p50 over 40 paired calls per operation, after one warm-up each.
"""

import asyncio
import os
import statistics
import sys
import tempfile
import time
from datetime import timedelta
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parents[1]), str(HERE)]
os.environ["GRAPHITI_TELEMETRY_ENABLED"] = "false"
import bench_graphiti as bg  # noqa: E402

N = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
SIZE = {"entities": N, "facts": 2 * N, "episodes": N // 10}


async def build(name: str, embedder: Any) -> tuple[Any, Any, dict[str, Any]]:
    from graphiti_core import Graphiti
    from graphiti_core.utils.bulk_utils import add_nodes_and_edges_bulk

    from tests.graphiti.fakes import FakeCrossEncoder, FakeLLMClient

    data = bg.make_data(SIZE)
    driver = await bg.open_driver("anatid", os.path.join(tempfile.mkdtemp(), "g.db"))
    if name == "off":  # this connection's view only: every read and write takes SQL
        current = driver.store.indexes.current
        current.view = lambda kind: None
        current.loaded = lambda kind: None
        current.enabled = lambda: False
    parts = [bg.batches(data[k], bg.BATCHES) for k in ("episodes", "mentions", "entities", "facts")]
    for i in range(bg.BATCHES):
        await add_nodes_and_edges_bulk(
            driver, parts[0][i], parts[1][i], parts[2][i], parts[3][i], embedder
        )
    g = Graphiti(
        graph_driver=driver,
        llm_client=FakeLLMClient(),
        embedder=embedder,
        cross_encoder=FakeCrossEncoder(),
    )
    return driver, g, data


def operations(driver: Any, g: Any, data: dict[str, Any]) -> dict[str, Any]:
    from graphiti_core.nodes import EntityNode
    from graphiti_core.search.search_config import NodeSearchConfig, NodeSearchMethod, SearchConfig
    from graphiti_core.search.search_config_recipes import NODE_HYBRID_SEARCH_RRF
    from graphiti_core.utils.maintenance.graph_data_operations import retrieve_episodes

    rng, ents, edge = data["rng"], data["entities"], data["facts"][0]
    queries = iter(data["queries"] * 1000)
    counter = iter(range(10**9))
    bfs = SearchConfig(
        node_config=NodeSearchConfig(search_methods=[NodeSearchMethod.bfs], bfs_max_depth=2)
    )

    async def node_search() -> None:
        q, v = next(queries)
        await g.search_(q, config=NODE_HYBRID_SEARCH_RRF, group_ids=[bg.GROUP], query_vector=v)

    async def node_bfs() -> None:
        origin = ents[rng.randrange(len(ents))].uuid
        await g.search_(
            "entity",
            config=bfs,
            group_ids=[bg.GROUP],
            bfs_origin_node_uuids=[origin],
            query_vector=[0.0] * bg.DIM,
        )

    async def episodes() -> None:
        got = await retrieve_episodes(driver, bg.T0 + timedelta(days=1), 3, [bg.GROUP])
        assert len(got) == 3

    async def get_100() -> None:
        got = await EntityNode.get_by_uuids(driver, [e.uuid for e in rng.sample(ents, 100)])
        assert len(got) == 100

    async def resave() -> None:
        edge.attributes = {"n": next(counter)}
        await edge.save(driver)

    return {
        "node hybrid search": node_search,
        "node BFS depth 2": node_bfs,
        "retrieve_episodes": episodes,
        "get 100 by uuid": get_100,
        "edge re-save": resave,
    }


async def main() -> None:
    from tests.graphiti.fakes import FakeEmbedder

    embedder = FakeEmbedder(bg.DIM)
    sides = {name: await build(name, embedder) for name in ("on", "off")}
    on, off = operations(*sides["on"]), operations(*sides["off"])
    print(f"| operation ({N:,} entities) | view on p50 | view off p50 | ratio |")
    print("|---|---|---|---|")
    for op in on:
        samples: dict[str, list[float]] = {"on": [], "off": []}
        await on[op]()  # warm-up
        await off[op]()
        for _ in range(40):
            for name, fn in (("on", on[op]), ("off", off[op])):
                t = time.perf_counter()
                await fn()
                samples[name].append((time.perf_counter() - t) * 1000)
        a, b = statistics.median(samples["on"]), statistics.median(samples["off"])
        print(f"| {op} | {a:.2f} ms | {b:.2f} ms | {b / a:.1f}x |", flush=True)
    for driver, _, _ in sides.values():
        await driver.close()


if __name__ == "__main__":
    asyncio.run(main())
