"""What a Cognee ``delete_data`` costs now that it erases (issue 15).

``python -m tests.benchmarks.bench_cognee_delete MODE WORKDIR BALLAST`` (cwd = the repository
root), one fresh interpreter per run: one anatid file (access control off) gets ``BALLAST``
graph nodes and vector rows written through the adapters (to size the file) and the scenario
documents of tests/cognee/erasure_scenarios.py through Cognee; then ``delete_data`` of the
``secret`` document is timed. MODE ``erase`` is the default behaviour (purge + one compaction
when Cognee's call returns); ``keep`` is the audit setting (soft deletes, no compaction), the
peer: the difference is what erasure costs. Prints one ``RESULT`` JSON line.

    for b in 0 60000; do for m in erase keep; do
        python -m tests.benchmarks.bench_cognee_delete $m /tmp/bench-$m-$b $b; done; done
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import sys
import time
from pathlib import Path
from typing import Any

MODE, WORKDIR, BALLAST = sys.argv[1], Path(sys.argv[2]), int(sys.argv[3])
shutil.rmtree(WORKDIR, ignore_errors=True)
WORKDIR.mkdir(parents=True)
if MODE == "keep":
    os.environ["ANATID_COGNEE_KEEP_DELETED"] = "1"

from tests.cognee import erasure_scenarios as sc  # noqa: E402  (reads WORKDIR from argv)


async def _ballast(graph: Any, rows: int) -> None:
    from cognee.infrastructure.databases.vector import get_vector_engine_async

    vector = await get_vector_engine_async()
    note = sc._models()
    text = " ".join(f"ballast{i % 500}" for i in range(120))
    for start in range(0, rows, 5000):
        batch = [note(name=f"ballast {i} {text}") for i in range(start, min(rows, start + 5000))]
        await graph.add_nodes(batch)
        await vector.create_data_points("Ballast_name", batch)


async def main() -> dict[str, Any]:
    import warnings

    import cognee

    warnings.simplefilter("ignore")
    graph = await sc._setup(uncompressed=False)
    await _ballast(graph, BALLAST)
    await sc._fill(["secret", "keep"])
    dataset, data = await sc._data_of("secret")
    size = sc.MEMORY_FILE.stat().st_size + (
        os.path.getsize(str(sc.MEMORY_FILE) + ".wal")
        if os.path.exists(str(sc.MEMORY_FILE) + ".wal")
        else 0
    )
    started = time.perf_counter()
    await cognee.datasets.delete_data(dataset.id, data.id)
    seconds = time.perf_counter() - started
    receipts = graph._store.erasures()
    return {
        "mode": MODE,
        "ballast": BALLAST,
        "file_mb_before": round(size / 1e6, 1),
        "file_mb_after": round(sc.MEMORY_FILE.stat().st_size / 1e6, 1),
        "delete_data_s": round(seconds, 2),
        "purges": len(receipts),
        "compactions": len({r.gone_at for r in receipts if r.gone_at is not None}),
    }


if __name__ == "__main__":
    print("RESULT " + json.dumps(asyncio.run(main())))
