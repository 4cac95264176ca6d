"""What Graphiti's ``remove_episode`` costs now that a delete is an erasure (issue 15).

``remove_episode`` makes three deletes (the facts only the episode supports, the entities only it
mentions, the episode). Each is an erasure; the driver purges the first two and compacts once, at
the episode's delete. This measures that (``coalesced``) against one compaction per delete
(``per-delete``: the coalescing switched off), on copies of the same file, alternating, and
``GraphitiDriver.erase_episode`` (one purge, one compaction). Sizes: a small store (two
episodes) and one grown to ``--mb`` with bulk-saved entities (64-dim embeddings, 300-character
summaries) in another group.

    python tests/benchmarks/bench_graphiti_erasure.py --mb 50 --repeat 3
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

os.environ.setdefault("GRAPHITI_TELEMETRY_ENABLED", "false")
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from anatid_graphiti import GraphitiDriver, erasure  # noqa: E402
from graphiti_core.nodes import EntityNode  # noqa: E402

from anatid_core import Store  # noqa: E402
from tests.graphiti.conftest import add, make_graphiti  # noqa: E402

WORDS = "river stone cloud house tree light north field glass paper storm".split()


async def build(path: Path, mb: int) -> str:
    """The store; returns the uuid of the episode to remove."""
    driver = GraphitiDriver(path)
    try:
        g = make_graphiti(driver)
        await add(g, "Alice works at Acme.", 1)
        victim = await add(g, "Quorvex met Zembla at the harbour. Alice visited Acme.", 2)
        rng = random.Random(15)
        while mb and path.stat().st_size < mb * 1024 * 1024:
            batch = [
                EntityNode(
                    name=f"filler {rng.random()}",
                    group_id="bulk",
                    summary=" ".join(rng.choice(WORDS) for _ in range(50)),
                    name_embedding=[rng.random() for _ in range(64)],
                )
                for _ in range(5000)
            ]
            await driver.entity_node_ops.save_bulk(driver, batch)
            wal = Path(f"{path}.wal")
            if wal.exists() and wal.stat().st_size > 0:  # the file grows at checkpoints
                await driver.close()
                driver = GraphitiDriver(path)
    finally:
        await driver.close()
    return victim.episode.uuid


def _counting() -> list[float]:
    times: list[float] = []
    real = Store.compact

    def counting(self: Store) -> Any:
        t = time.perf_counter()
        try:
            return real(self)
        finally:
            times.append(time.perf_counter() - t)

    Store.compact = counting  # type: ignore[method-assign]
    return times


async def run_once(master: Path, episode: str, mode: str) -> tuple[float, int, float]:
    work = Path(tempfile.mkdtemp(dir=master.parent))
    path = work / master.name
    shutil.copyfile(master, path)
    compactions = _counting()
    real_start = erasure.start_episode_removal
    if mode == "per-delete":
        erasure.start_episode_removal = lambda: None  # type: ignore[assignment]
    try:
        driver = GraphitiDriver(path)
        t = time.perf_counter()
        if mode == "erase_episode":
            await driver.erase_episode(episode)
        else:
            await make_graphiti(driver).remove_episode(episode)
        wall = time.perf_counter() - t
        await driver.close()
    finally:
        erasure.start_episode_removal = real_start  # type: ignore[assignment]
    shutil.rmtree(work)
    return wall, len(compactions), sum(compactions)


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=int, default=50)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    real_compact = Store.compact
    root = Path(tempfile.mkdtemp())
    for mb in (0, args.mb):
        master = root / f"m{mb}.duckdb"
        episode = await build(master, mb)
        size = master.stat().st_size / 1e6
        results: dict[str, list[tuple[float, int, float]]] = {}
        for _ in range(args.repeat):
            for mode in ("coalesced", "per-delete", "erase_episode"):
                results.setdefault(mode, []).append(await run_once(master, episode, mode))
                Store.compact = real_compact  # type: ignore[method-assign]
        for mode, runs in results.items():
            walls = [r[0] for r in runs]
            print(
                f"{size:7.1f} MB  {mode:14s} wall p50 {statistics.median(walls):6.2f} s "
                f"(min {min(walls):.2f}, max {max(walls):.2f})  compactions {runs[0][1]}  "
                f"compaction time p50 {statistics.median(r[2] for r in runs):6.2f} s"
            )
    shutil.rmtree(root)


if __name__ == "__main__":
    asyncio.run(main())
