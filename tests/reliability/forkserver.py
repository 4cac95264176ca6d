"""A fork server for the crash tests: import the heavy frameworks once, fork a writer per kill.

Importing Graphiti takes seconds and Cognee tens of seconds, far too long to pay once per kill.
So the test starts this module once per workload (``python -m tests.reliability.forkserver
<workload>``); it imports the workload's modules, opens no store and starts no thread, then
answers JSON-line commands on stdin:

* ``write``: fork a writer that opens the store and commits operations ``start, start+1, ...``
  forever, appending each operation's number to the side log (and fsyncing it) after the commit
  returns. Replies ``{"pid": ...}``; the test SIGKILLs that pid whenever it likes.
* ``reap``: wait for a writer to end; replies how it ended.
* ``verify``: fork a fresh process that reopens the store and compares it with the model
  (``tests.reliability.verify``); replies with its findings.
* ``call``: fork a process that runs ``module:function(**args)`` (async or not) and replies with
  its JSON result (used for scenarios that need a framework's global configuration).
* ``start``: the same without waiting: replies ``{"pid": ...}`` at once and the child writes its
  JSON result to ``out`` (several processes at once on one file; ``reap`` waits for one).

Forked children leave with ``os._exit`` so they never run the server's own cleanup.
"""

from __future__ import annotations

import asyncio
import importlib
import json
import os
import sys
import tempfile
import traceback
from typing import Any

from tests.reliability.workloads import WORKLOADS, Workload

_COGNEE_ENV = {
    "ENABLE_BACKEND_ACCESS_CONTROL": "false",
    "TELEMETRY_DISABLED": "1",
    "GRAPHITI_TELEMETRY_ENABLED": "false",
    "COGNEE_SKIP_CONNECTION_TEST": "true",
    "CACHING": "false",
    "AUTO_FEEDBACK": "false",
    "LLM_API_KEY": "dummy",
    "EMBEDDING_DIMENSIONS": "64",
    "LOG_LEVEL": "ERROR",
}


def _append(fd: int, j: int) -> None:
    os.write(fd, f"{j}\n".encode())
    os.fsync(fd)


def _stress_checkpoints(store: Any) -> None:
    """Make DuckDB checkpoint every few transactions, so kills also land inside checkpoints."""
    store.connection.query("SET checkpoint_threshold = '64KB'")


def _write_core(workload: Workload, cmd: dict[str, Any], fd: int) -> None:
    from anatid_core import Store

    store = Store.open(cmd["path"])
    if cmd.get("checkpoints"):
        _stress_checkpoints(store)
    j = cmd["start"]
    while True:
        workload.run(store, j)  # type: ignore[attr-defined]
        _append(fd, j)
        j += 1


async def _write_graphiti(workload: Workload, cmd: dict[str, Any], fd: int) -> None:
    from anatid_graphiti import GraphitiDriver

    from tests.graphiti.fakes import FakeEmbedder

    driver = GraphitiDriver(cmd["path"])
    if cmd.get("checkpoints"):
        _stress_checkpoints(driver.store)
    embedder = FakeEmbedder()
    j = cmd["start"]
    while True:
        await workload.run_async(driver, embedder, j)  # type: ignore[attr-defined]
        _append(fd, j)
        j += 1


async def _write_cognee(workload: Workload, cmd: dict[str, Any], fd: int) -> None:
    from anatid_cognee import AnatidGraphAdapter, AnatidVectorAdapter

    from tests.cognee.cognee_fakes import HashEmbeddingEngine

    graph = AnatidGraphAdapter(graph_database_url=cmd["path"])
    vector = AnatidVectorAdapter(url=cmd["path"], embedding_engine=HashEmbeddingEngine())
    if cmd.get("checkpoints"):
        _stress_checkpoints(graph._store)
    j = cmd["start"]
    while True:
        await workload.run_async(graph, vector, j)  # type: ignore[attr-defined]
        _append(fd, j)
        j += 1


def _writer(workload: Workload, cmd: dict[str, Any]) -> None:
    fd = os.open(cmd["log"], os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    if workload.name == "core":
        _write_core(workload, cmd, fd)
    elif workload.name == "graphiti":
        asyncio.run(_write_graphiti(workload, cmd, fd))
    else:
        asyncio.run(_write_cognee(workload, cmd, fd))


def _verify(workload: Workload, cmd: dict[str, Any]) -> Any:
    from tests.reliability.verify import verify

    return verify(workload, cmd["path"], cmd["log"], sample=cmd.get("sample", 40))


def _call(cmd: dict[str, Any]) -> Any:
    module, _, name = cmd["func"].partition(":")
    result = getattr(importlib.import_module(module), name)(**cmd.get("args", {}))
    if asyncio.iscoroutine(result):
        result = asyncio.run(result)
    return result


def _fork(work: Any, out: str | None) -> int:
    """Run ``work()`` in a forked child; its JSON result (or traceback) goes to ``out``."""
    pid = os.fork()
    if pid:
        return pid
    os.dup2(2, 1)  # the server's stdout is the reply channel: a child's prints go to stderr
    code = 0
    try:
        result = work()
        payload = {"ok": True, "result": result}
    except BaseException:  # noqa: BLE001 - reported to the test, which fails on it
        payload = {"ok": False, "error": traceback.format_exc()}
        code = 1
    if out is not None:
        with open(out, "w", encoding="utf-8") as fh:
            json.dump(payload, fh, default=str)
    elif not payload["ok"]:
        sys.stderr.write(payload["error"])
    sys.stderr.flush()
    os._exit(code)


def _finished(pid: int) -> dict[str, Any]:
    _, status = os.waitpid(pid, 0)
    if os.WIFSIGNALED(status):
        return {"signal": os.WTERMSIG(status)}
    return {"exit": os.WEXITSTATUS(status)}


def serve(name: str) -> None:
    workload_type = WORKLOADS[name]
    for module in workload_type.preload:
        importlib.import_module(module)
    print(json.dumps({"ready": True}), flush=True)
    for line in sys.stdin:
        cmd = json.loads(line)
        workload = workload_type(cmd.get("seed", 0))
        if cmd["cmd"] == "write":
            pid = _fork(lambda w=workload, c=cmd: _writer(w, c), cmd.get("err"))
            reply: dict[str, Any] = {"pid": pid}
        elif cmd["cmd"] == "start":  # like call, without waiting: the result goes to cmd["out"]
            reply = {"pid": _fork(lambda c=cmd: _call(c), cmd["out"])}
        elif cmd["cmd"] == "reap":
            reply = _finished(cmd["pid"])
        elif cmd["cmd"] in ("verify", "call"):
            fd, out = tempfile.mkstemp(suffix=".json")
            os.close(fd)
            work = (
                (lambda w=workload, c=cmd: _verify(w, c))
                if cmd["cmd"] == "verify"
                else (lambda c=cmd: _call(c))
            )
            ended = _finished(_fork(work, out))
            with open(out, encoding="utf-8") as fh:
                text = fh.read()
            os.unlink(out)
            reply = {**ended, **(json.loads(text) if text else {"ok": False, "error": "no output"})}
        else:
            reply = {"error": f"unknown command {cmd['cmd']!r}"}
        print(json.dumps(reply, default=str), flush=True)


if __name__ == "__main__":
    for key, value in _COGNEE_ENV.items():
        os.environ.setdefault(key, value)
    serve(sys.argv[1])
