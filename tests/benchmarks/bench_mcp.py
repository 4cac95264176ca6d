"""What ``anatid-mcp`` adds: search latency through an MCP client over stdio vs Graphiti directly.

    python tests/benchmarks/bench_mcp.py           # reduced: 2,000 entities, 4,000 facts
    python tests/benchmarks/bench_mcp.py --full    # the issue's size: 10,000 entities, 20,000 facts

The data are ``bench_graphiti.py``'s (fixed seeds, 1024-dimension embeddings), bulk-loaded into
one anatid file. Then, on that file, with the same deterministic embedder:

* direct: ``Graphiti.search_`` with the recipes the tools use (edge and node hybrid RRF, limit 10);
* MCP: ``search_memory_facts`` / ``search_nodes`` called by the SDK's client on ``anatid-mcp``
  started over stdio (default group, and again with ``group_ids`` given explicitly).

The direct side runs on a copy of the file (the server holds the original: one writer per
file). Each query goes to both sides in turn, so that the shared machine's load falls on both
alike; one warm-up each, then p50/p95 over ``--repeat`` calls of each side and of the per-call
difference: the server's cost (JSON-RPC over a pipe, argument checks, result shaping).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
sys.path[:0] = [str(HERE), str(REPO)]

from bench_graphiti import BATCHES, DIM, GROUP, SIZES, batches, make_data  # noqa: E402


def clients() -> dict[str, Any]:
    """The server's test hook (``ANATID_MCP_CLIENTS=bench_mcp:clients``): fakes at 1024 dims."""
    from tests.graphiti.fakes import FakeCrossEncoder, FakeEmbedder, FakeLLMClient

    return {
        "llm_client": FakeLLMClient(),
        "embedder": FakeEmbedder(DIM),
        "cross_encoder": FakeCrossEncoder(),
    }


def summary(samples: list[float]) -> dict[str, float]:
    samples = sorted(samples)
    return {
        "p50": samples[len(samples) // 2],
        "p95": samples[min(len(samples) - 1, int(len(samples) * 0.95))],
    }


async def paired(direct: Any, served: Any, queries: list[str], repeat: int) -> dict[str, Any]:
    """Each query on both sides in turn, so that the shared machine's load drifts over both
    alike; p50/p95 of each side and of the per-query difference."""
    await direct(queries[0])  # warm-up
    await served(queries[0])
    d, m = [], []
    for i in range(repeat):
        q = queries[i % len(queries)]
        t = time.perf_counter()
        await direct(q)
        d.append((time.perf_counter() - t) * 1000)
        t = time.perf_counter()
        await served(q)
        m.append((time.perf_counter() - t) * 1000)
    return {
        "direct": summary(d),
        "mcp": summary(m),
        "added": summary([b - a for a, b in zip(d, m, strict=True)]),
    }


async def build(path: str, size: str) -> list[str]:
    from anatid_graphiti import GraphitiDriver
    from graphiti_core.utils.bulk_utils import add_nodes_and_edges_bulk

    from tests.graphiti.fakes import FakeEmbedder

    data = make_data(SIZES[size])
    driver = GraphitiDriver(path)
    parts = [batches(data[k], BATCHES) for k in ("episodes", "mentions", "entities", "facts")]
    for i in range(BATCHES):
        await add_nodes_and_edges_bulk(
            driver, parts[0][i], parts[1][i], parts[2][i], parts[3][i], FakeEmbedder(DIM)
        )
    await driver.close()
    return [q for q, _ in data["queries"]]


def trust(session: Any) -> None:
    """Stop this client session from validating results against the tools' output schemas.

    The SDK's ``ClientSession.call_tool`` (mcp 1.x) runs ``jsonschema.validate`` on every
    structured result, which re-checks the whole schema each time: a cost of the Python client,
    paid whatever the server, that the rows marked "client not validating" leave out.
    """

    async def no_check(name: str, result: Any) -> None:
        return None

    session._validate_tool_result = no_check


async def measure(path: str, copy: str, queries: list[str], repeat: int) -> dict[str, Any]:
    """Graphiti directly on ``copy`` (the server holds ``path``: one writer per file) against
    the tools through ``anatid-mcp`` over stdio on ``path``."""
    from anatid_graphiti import GraphitiDriver
    from graphiti_core import Graphiti
    from graphiti_core.search.search_config_recipes import (
        EDGE_HYBRID_SEARCH_RRF,
        NODE_HYBRID_SEARCH_RRF,
    )
    from graphiti_core.search.search_filters import SearchFilters
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    driver = GraphitiDriver(copy)
    g = Graphiti(graph_driver=driver, **clients())
    configs = {}
    for tool, recipe in (
        ("search_memory_facts", EDGE_HYBRID_SEARCH_RRF),
        ("search_nodes", NODE_HYBRID_SEARCH_RRF),
    ):
        configs[tool] = recipe.model_copy(deep=True)
        configs[tool].limit = 10

    def on_graphiti(tool: str) -> Any:
        async def run(q: str) -> None:
            await g.search_(
                q, config=configs[tool], group_ids=[GROUP], search_filter=SearchFilters()
            )

        return run

    env = dict(
        os.environ,
        ANATID_MCP_CLIENTS="bench_mcp:clients",
        PYTHONPATH=os.pathsep.join([str(HERE), str(REPO)]),
        GRAPHITI_TELEMETRY_ENABLED="false",
        OPENAI_API_KEY="",
    )
    exe = str(Path(sys.executable).parent / "anatid-mcp")
    params = StdioServerParameters(command=exe, args=["--path", path, "--group-id", GROUP], env=env)
    out: dict[str, Any] = {}
    async with stdio_client(params) as (read, write), ClientSession(read, write) as s:
        await s.initialize()

        def on_mcp(tool: str, **extra: Any) -> Any:
            async def run(q: str) -> None:
                result = await s.call_tool(tool, {"query": q, **extra})
                assert not result.isError, result.content

            return run

        for tool in configs:
            out[tool] = await paired(on_graphiti(tool), on_mcp(tool), queries, repeat)
        out["search_memory_facts, group_ids given"] = await paired(
            on_graphiti("search_memory_facts"),
            on_mcp("search_memory_facts", group_ids=[GROUP]),
            queries,
            repeat,
        )
        trust(s)
        for tool in configs:
            out[f"{tool}, client not validating"] = await paired(
                on_graphiti(tool), on_mcp(tool), queries, repeat
            )
    await driver.close()
    return out


async def measure_in_process(path: str, queries: list[str], repeat: int) -> dict[str, Any]:
    """The server's own cost without pipes or a second process: the same tools through the
    SDK's in-memory transport, paired with Graphiti on the very same driver."""
    from anatid_mcp.config import load
    from anatid_mcp.memory import Memory, Options
    from anatid_mcp.server import build as build_server
    from graphiti_core.search.search_config_recipes import EDGE_HYBRID_SEARCH_RRF
    from graphiti_core.search.search_filters import SearchFilters
    from mcp.shared.memory import create_connected_server_and_client_session

    os.environ["ANATID_MCP_CLIENTS"] = "bench_mcp:clients"
    config = load(env={"GRAPHITI_GROUP_ID": GROUP})
    memory = await Memory.open(config, Options(path=path))
    recipe = EDGE_HYBRID_SEARCH_RRF.model_copy(deep=True)
    recipe.limit = 10

    async def on_graphiti(q: str) -> None:
        await memory.graphiti.search_(
            q, config=recipe, group_ids=[GROUP], search_filter=SearchFilters()
        )

    async with create_connected_server_and_client_session(build_server(memory)) as s:

        async def on_mcp(q: str) -> None:
            result = await s.call_tool("search_memory_facts", {"query": q})
            assert not result.isError, result.content

        out = {
            "search_memory_facts, in process": await paired(on_graphiti, on_mcp, queries, repeat)
        }
        trust(s)
        out["search_memory_facts, in process, client not validating"] = await paired(
            on_graphiti, on_mcp, queries, repeat
        )
    await memory.close()
    return out


def table(results: dict[str, Any]) -> str:
    lines = [
        "| call | Graphiti directly p50 / p95 | through anatid-mcp (stdio) p50 / p95 "
        "| added per call p50 / p95 |",
        "|---|---|---|---|",
    ]
    for op, r in results.items():
        d, m, a = r["direct"], r["mcp"], r["added"]
        lines.append(
            f"| {op} | {d['p50']:.1f} / {d['p95']:.1f} ms | {m['p50']:.1f} / {m['p95']:.1f} ms "
            f"| {a['p50']:+.1f} / {a['p95']:+.1f} ms |"
        )
    return "\n".join(lines)


async def run(size: str, repeat: int) -> None:
    os.environ["GRAPHITI_TELEMETRY_ENABLED"] = "false"
    path = os.path.join(tempfile.mkdtemp(prefix="bench-mcp-"), "memory.duckdb")
    t = time.perf_counter()
    queries = await build(path, size)
    copy = path + ".direct"
    shutil.copyfile(path, copy)
    print(f"built {SIZES[size]} in {time.perf_counter() - t:.0f} s", flush=True)
    results = await measure(path, copy, queries, repeat)
    results.update(await measure_in_process(copy, queries, repeat))
    commit = subprocess.run(
        ["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"], capture_output=True, text=True
    ).stdout.strip()
    print(
        f"\nsize {size} {SIZES[size]}, dim {DIM}, repeat {repeat}; commit {commit}, "
        f"python {platform.python_version()}, {platform.machine()} {os.cpu_count()} cores\n"
    )
    print(table(results))


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--full", action="store_true", help="10,000 entities, 20,000 facts")
    parser.add_argument("--repeat", type=int, default=50)
    args = parser.parse_args()
    asyncio.run(run("full" if args.full else "reduced", args.repeat))


if __name__ == "__main__":
    main()
