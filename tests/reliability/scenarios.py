"""Functions the fork server runs in a fresh process (``call``): opening files through the core
or a driver, and reporting what happened as plain JSON.

A separate process is the point: a second opener must be another process for DuckDB's file lock
to apply, and a crash (a signal) while reading a damaged file must not take the test with it.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any


def _describe(exc: BaseException, started: float) -> dict[str, Any]:
    cause = exc.__cause__
    return {
        "opened": False,
        "type": type(exc).__name__,
        "message": str(exc),
        "cause": type(cause).__name__ if cause is not None else None,
        "cause_message": str(cause) if cause is not None else None,
        "seconds": time.monotonic() - started,
    }


async def _open(path: str, how: str) -> dict[str, Any]:
    if how in ("core", "core_read_only"):
        from anatid_core import Store

        with Store.open(path, read_only=how == "core_read_only") as store:
            return {"opened": True, "nodes": store.count_nodes(), "problems": store.check()}
    if how == "graphiti":
        from anatid_graphiti import GraphitiDriver

        driver = GraphitiDriver(path)
        try:
            return {
                "opened": True,
                "nodes": driver.store.count_nodes(),
                "problems": driver.store.check(),
            }
        finally:
            await driver.close()
    if how == "cognee":
        from anatid_cognee import AnatidGraphAdapter

        graph = AnatidGraphAdapter(graph_database_url=path)
        try:
            nodes, _ = await graph.get_graph_data()
            return {"opened": True, "nodes": len(nodes), "problems": graph._store.check()}
        finally:
            await graph.close()
    raise ValueError(how)


def open_store(path: str, how: str) -> dict[str, Any]:
    """Open ``path`` as ``how`` (core, core_read_only, graphiti, cognee) and say what happened."""
    started = time.monotonic()
    try:
        result = asyncio.run(_open(path, how))
    except Exception as exc:  # noqa: BLE001 - the test asserts on the type and message
        return _describe(exc, started)
    return {**result, "seconds": time.monotonic() - started}


def fill(
    workload: str,
    path: str,
    log: str,
    file_size_limit: int | None = None,
    checkpoints: bool = False,
) -> dict[str, Any]:
    """Run a crash-suite writer until the storage refuses a write; report that error.

    With ``file_size_limit`` the process may not grow any file beyond it (``ulimit -f``), which
    stands in for a full disk where a small filesystem cannot be mounted.
    """
    import resource
    import signal

    from tests.reliability.forkserver import _writer
    from tests.reliability.workloads import WORKLOADS

    if file_size_limit is not None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # write() then fails with EFBIG
        resource.setrlimit(resource.RLIMIT_FSIZE, (file_size_limit, file_size_limit))
    started = time.monotonic()
    cmd = {"path": path, "log": log, "start": 0, "checkpoints": checkpoints}
    try:
        _writer(WORKLOADS[workload](seed=11), cmd)
    except Exception as exc:  # noqa: BLE001 - the test asserts on the type and message
        return _describe(exc, started)
    raise AssertionError("the writer stopped without an error")
