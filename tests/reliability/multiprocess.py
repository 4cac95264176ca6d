"""Writers and readers that share one store file from separate processes (issue 11).

Each writer process ``w`` commits batches ``j = start, start+1, ...``: ``size`` nodes and the
``size - 1`` edges that chain them, in one transaction, all sharing the token ``tokw<w>b<j>`` and
one embedding direction; after the commit returns it appends ``j`` to its own fsynced side log.
A batch is therefore visible completely or not at all, and a logged batch must be visible to every
process at its next operation. The functions run in processes forked by the fork server
(``harness.ForkServer``), so every writer and reader is a real, separate process.
"""

from __future__ import annotations

import math
import os
import random
import time
from pathlib import Path
from typing import Any

from anatid_core import Cond, Edge, Node, Store

DIM = 8


def direction(w: int, j: int) -> list[float]:
    rng = random.Random(f"{w}:{j}")
    v = [rng.gauss(0, 1) for _ in range(DIM)]
    norm = math.sqrt(sum(x * x for x in v)) or 1.0
    return [x / norm for x in v]


def token(w: int, j: int) -> str:
    return f"tokw{w}b{j}"


def batch(w: int, j: int, size: int) -> tuple[list[Node], list[Edge]]:
    base = direction(w, j)
    nodes = [
        Node(
            f"w{w}-b{j}-{i}",
            group=f"w{w}",
            name=f"writer {w} batch {j}",
            text=f"{token(w, j)} member {i}",
            props={"w": w, "j": j, "i": i},
            embedding=[x + 1e-5 * ((i + k) % 3) for k, x in enumerate(base)],
        )
        for i in range(size)
    ]
    edges = [
        Edge(
            f"w{w}-e{j}-{i}",
            f"w{w}-b{j}-{i}",
            f"w{w}-b{j}-{i + 1}",
            rel="NEXT",
            group=f"w{w}",
            props={"w": w, "j": j},
        )
        for i in range(size - 1)
    ]
    return nodes, edges


def logged(log: str | os.PathLike[str]) -> list[int]:
    """The batch numbers a writer's side log holds (a torn last line is not a commit yet)."""
    try:
        text = Path(log).read_text()
    except FileNotFoundError:
        return []
    lines = text.split("\n")
    return [int(x) for x in lines[:-1] if x.strip()]  # the part after the last newline is torn


def _append(fd: int, j: int) -> None:
    os.write(fd, f"{j}\n".encode())
    os.fsync(fd)


def core_writer(
    path: str, w: int, log: str, seconds: float, size: int = 6, start: int = 0
) -> dict[str, Any]:
    """Commit batches for ``seconds`` (or until killed); returns counts for the test's report."""
    fd = os.open(log, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    store = Store.open(path)
    deadline = time.monotonic() + seconds
    j = start
    latencies: list[float] = []
    while time.monotonic() < deadline:
        nodes, edges = batch(w, j, size)
        began = time.perf_counter()
        with store.transaction():
            store.upsert_nodes(nodes)
            store.upsert_edges(edges)
        latencies.append(time.perf_counter() - began)
        _append(fd, j)
        j += 1
    store.close()
    os.close(fd)
    latencies.sort()
    return {
        "commits": j - start,
        "p50_ms": 1000 * latencies[len(latencies) // 2] if latencies else None,
        "p95_ms": 1000 * latencies[int(len(latencies) * 0.95)] if latencies else None,
    }


def seen(store: Store, w: int, j: int, size: int) -> dict[str, int]:
    """How much of batch (w, j) each kind of read sees."""
    return {
        "ids": len(store.get_nodes([f"w{w}-b{j}-{i}" for i in range(size)])),
        "filter": store.count_nodes(where=[[Cond("props.w", "=", w), Cond("props.j", "=", j)]]),
        "bm25": len(store.search_text(token(w, j), k=size + 5)),
        "cosine": len(
            [h for h in store.search_vector(direction(w, j), k=size + 5) if h.score > 0.999]
        ),
        "edges": store.count_edges(where=[[Cond("props.w", "=", w), Cond("props.j", "=", j)]]),
    }


def core_reader(
    path: str, logs: list[str], seconds: float, size: int = 6, read_only: bool = False
) -> dict[str, Any]:
    """Look at logged and in-flight batches for ``seconds``: a logged batch must be seen whole
    (another process's commit is visible at our next operation), any batch whole or not at all."""
    store = Store.open(path, read_only=read_only)
    rng = random.Random(os.getpid())
    deadline = time.monotonic() + seconds
    torn: list[str] = []
    missing: list[str] = []
    looks = 0
    while time.monotonic() < deadline:
        w = rng.randrange(len(logs))
        done = logged(logs[w])  # read first: these commits happened before our next operation
        j = rng.choice(done) if done and rng.random() < 0.7 else len(done)
        counts = seen(store, w, j, size)
        looks += 1
        whole = {"ids": size, "filter": size, "bm25": size, "cosine": size, "edges": size - 1}
        if j in done and counts != whole:
            missing.append(f"w{w} b{j}: {counts}")
        elif any(n not in (0, whole[arm]) for arm, n in counts.items()):
            # Each read is its own operation (a commit may land between two of them), so each
            # alone must see the batch whole or not at all.
            torn.append(f"w{w} b{j}: {counts}")
    store.close()
    return {"looks": looks, "torn": torn[:5], "missing": missing[:5]}


def verify_batches(path: str, logs: list[str], size: int = 6) -> dict[str, Any]:
    """Afterwards: every logged batch present exactly once and whole, nothing torn, check() clean."""
    problems: list[str] = []
    with Store.open(path, read_only=True) as store:
        problems += [f"check(): {p}" for p in store.check()]
        expected = 0
        for w, log in enumerate(logs):
            done = logged(log)
            if len(done) != len(set(done)):
                problems.append(f"writer {w} logged a batch twice")
            for j in done:
                got = store.count_nodes(where=[[Cond("props.w", "=", w), Cond("props.j", "=", j)]])
                if got != size:
                    problems.append(f"w{w} b{j}: {got} of {size} nodes")
            expected += len(done) * size
            nxt = len(done) and max(done) + 1
            extra = store.count_nodes(where=[[Cond("props.w", "=", w), Cond("props.j", "=", nxt)]])
            if extra not in (0, size):
                problems.append(f"w{w} b{nxt} (in flight): {extra} of {size} nodes")
            expected += extra
        total = store.count_nodes()
        if total != expected:
            problems.append(f"{total} nodes, expected {expected}")
        versions = len(store.versions("node"))
        if versions != total:
            problems.append(f"{versions} node versions for {total} nodes (a batch written twice)")
    return {"problems": problems, "nodes": total}
