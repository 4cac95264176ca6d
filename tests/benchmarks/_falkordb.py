"""FalkorDB Lite for bench_graphiti.py: its venv, its driver, its server's memory, its shutdown.

FalkorDB Lite (``falkordblite``) starts an embedded redis-server with the FalkorDB module as a
daemon child of the process that opens it, reached over a unix socket; the graph lives in that
server's memory and is saved to one RDB file. So the server's own peak RSS (``VmHWM``) is read
from ``/proc`` before it stops and added to the worker's; the file is measured after a SAVE.

FalkorDB keeps each group in a graph of its own, and Graphiti routes a group's calls (``add_episode``,
``search_``, ``retrieve_episodes`` with one group id) to the graph named after that group id. The
benchmark has one group, so everything is loaded into that group's graph (``bench``): the driver
is opened on it, as Graphiti's own routing would clone it.

The venv is the differential references' ``venvs/graphiti-falkordblite`` (Python 3.12+,
graphiti-core[falkordb] 0.31.2, falkordblite 0.11.0), built the same way if it is missing; here
without the references' opt-in, since running this script is the request (it compiles
redis-server and FalkorDB from source: about 20 minutes on a 2-core machine).
"""

from __future__ import annotations

import asyncio
import atexit
import dataclasses
import os
import signal
import sys
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]


def venv_python() -> str:
    """The FalkorDB Lite venv's interpreter, built first (a long compile) if it is missing."""
    sys.path.insert(0, str(REPO))
    from tests.graphiti.differential import references

    ref = references.FALKORDB
    python = references.cache_root() / ref.venv / "bin" / "python"
    if not python.exists():
        print(f"building {python.parent.parent} (compiles from source, ~20 min)...", flush=True)
    return str(references.venv_python(dataclasses.replace(ref, opt_in=None)))


async def open_driver(path: str, group: str, *, fsync: bool = False) -> Any:
    """Graphiti's FalkorDriver on an embedded server saving to ``path``, on ``group``'s graph,
    with the indexes FalkorDriver schedules when it is made already built.

    By default the server runs as FalkorDB Lite configures it (redislite's defaults): no
    append-only file, the graph reaching disk only in RDB snapshots (``save 900 1 / 300 100 /
    60 200 / 15 1000``), so a write is in memory only when it returns and a crash loses the
    writes since the last snapshot. ``fsync`` turns on the append-only file with ``appendfsync
    always``: every write is on disk when it returns, as a committed anatid transaction is."""
    from graphiti_core.driver.falkordb_driver import FalkorDriver
    from redislite.async_falkordb_client import AsyncFalkorDB  # type: ignore[import-not-found]

    driver = FalkorDriver(falkor_db=AsyncFalkorDB(path, **_client_options()), database=group)
    _stop_at_exit(driver)
    if driver._init_task is not None:  # pyright: ignore[reportPrivateUsage]
        await driver._init_task  # pyright: ignore[reportPrivateUsage]
    if fsync:
        await _append_only(_server(driver))
    return driver


#: redis-py's read timeout for FalkorDB Lite's client, in seconds ("none": no timeout). Unset,
#: the client's default (5 s): Graphiti's bulk query for a tenth of 200k entities takes longer,
#: and the worker fails with a TimeoutError (issue 43's 200k run).
SOCKET_TIMEOUT_ENV = "ANATID_BENCH_FALKORDB_SOCKET_TIMEOUT"


def _client_options() -> dict[str, Any]:
    text = os.environ.get(SOCKET_TIMEOUT_ENV, "").strip().lower()
    if not text:
        return {}
    return {"socket_timeout": None if text == "none" else float(text)}


async def _append_only(server: Any) -> None:
    """Every write appended to the AOF and fsynced before the server answers; returns once
    the rewrite that turning AOF on starts has ended (the graph is still empty here)."""
    await server.execute_command("CONFIG", "SET", "appendfsync", "always")
    await server.execute_command("CONFIG", "SET", "appendonly", "yes")
    deadline = time.monotonic() + 120
    while True:
        fields = await server.info("persistence")  # redis-py parses INFO into a dict
        if fields.get("aof_enabled") == 1 and fields.get("aof_rewrite_in_progress") == 0:
            return
        if time.monotonic() > deadline:
            raise RuntimeError(f"FalkorDB Lite did not turn its append-only file on: {fields}")
        await asyncio.sleep(0.05)


def _server(driver: Any) -> Any:
    return driver.client.client  # redislite's AsyncRedis, which owns the server process


def _stop_at_exit(driver: Any) -> None:
    """Kill the embedded server when the worker exits without stopping it (a failed run):
    it runs as a daemon, outlives the worker, and would go on loading the machine (seen: a
    timed-out query kept it at 140% CPU through the next run)."""
    pid = _server(driver).pid

    def kill() -> None:
        cmdline = Path(f"/proc/{pid}/cmdline")
        if cmdline.exists() and b"redis-server" in cmdline.read_bytes():
            os.kill(pid, signal.SIGKILL)

    atexit.register(kill)


def server_peak_rss_mb(driver: Any) -> float:
    """The embedded redis-server's peak resident set (VmHWM), in MB."""
    pid = _server(driver).pid
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError(f"no VmHWM for the FalkorDB Lite server (pid {pid})")


async def _save(server: Any) -> None:
    """SAVE, once any background save that the server's own save rules started has ended:
    redis refuses a SAVE beside one ("Background save already in progress"; seen on a slow
    machine, where the 1k run's writes took long enough to trigger one)."""
    deadline = time.monotonic() + 120
    while True:
        try:
            await server.execute_command("SAVE")
            return
        except Exception as exc:  # redis.exceptions.ResponseError, from the worker's venv
            if "in progress" not in str(exc) or time.monotonic() > deadline:
                raise
            await asyncio.sleep(0.05)


async def save_and_stop(driver: Any) -> None:
    """Write the RDB file, close the connection and stop the server this worker started
    (redislite's async close leaves it running), waiting until it has exited."""
    server = _server(driver)
    pid = server.pid
    await _save(server)
    await driver.close()
    os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + 60
    while os.path.exists(f"/proc/{pid}") and time.monotonic() < deadline:
        try:  # a daemon is not our child, but reap it if it is
            os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:
            pass
        time.sleep(0.05)
