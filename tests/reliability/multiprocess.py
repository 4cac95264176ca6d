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


# ------------------------------------------------------------------------------ graphiti


def _graphiti(path: str) -> Any:
    from anatid_graphiti import GraphitiDriver
    from graphiti_core import Graphiti

    from tests.graphiti.fakes import FakeCrossEncoder, FakeEmbedder, FakeLLMClient

    driver = GraphitiDriver(path)
    return Graphiti(
        graph_driver=driver,
        llm_client=FakeLLMClient(),
        embedder=FakeEmbedder(),
        cross_encoder=FakeCrossEncoder(),
    )


def episode_text(w: int, j: int) -> str:
    return f"Walker{w}x{j} works at Acme{w}x{j}."


async def graphiti_writer(path: str, w: int, log: str, seconds: float) -> dict[str, Any]:
    """Alternate Graphiti's bulk save (the path add_episode takes, prepared records), real
    ``add_episode`` calls (fake LLM) and searches, logging each write after it returns."""
    from datetime import datetime, timezone

    from graphiti_core.utils.bulk_utils import add_nodes_and_edges_bulk

    from tests.reliability.workloads import GraphitiWorkload

    fd = os.open(log, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    graphiti = _graphiti(path)
    workload = GraphitiWorkload(seed=1000 + w)
    deadline = time.monotonic() + seconds
    j, searches = 0, 0
    try:
        while time.monotonic() < deadline:
            if j % 2 == 0:
                episodes, mentions, entities, facts = workload.models(j)
                await add_nodes_and_edges_bulk(
                    graphiti.driver, episodes, mentions, entities, facts, graphiti.embedder
                )
            else:
                await graphiti.add_episode(
                    name=f"w{w}-ep{j}",
                    episode_body=episode_text(w, j),
                    source_description="test",
                    reference_time=datetime.now(timezone.utc),
                    group_id=f"w{w}",
                )
            _append(fd, j)
            j += 1
            if j % 3 == 0:
                await graphiti.search(f"Where does Walker{w}x{j - 1} work?", group_ids=[f"w{w}"])
                searches += 1
    finally:
        await graphiti.driver.close()
        os.close(fd)
    return {"writes": j, "searches": searches}


async def graphiti_check(path: str, logs: list[str], seconds: float) -> dict[str, Any]:
    """Read another process's logged writes through Graphiti while they keep coming (reader
    process), or once afterwards (``seconds=0``): every logged write is there, whole."""
    from graphiti_core.nodes import EntityNode, EpisodicNode

    from tests.reliability.workloads import GraphitiWorkload

    graphiti = _graphiti(path)
    driver = graphiti.driver
    problems: list[str] = []
    looks = 0
    deadline = time.monotonic() + seconds
    try:
        while True:
            for w, log in enumerate(logs):
                workload = GraphitiWorkload(seed=1000 + w)
                for j in logged(log):
                    if j % 2 == 0:
                        _, _, entities, _ = workload.models(j)
                        found = await EntityNode.get_by_uuids(driver, [e.uuid for e in entities])
                        if len(found) != len(entities):
                            problems.append(f"w{w} bulk {j}: {len(found)}/{len(entities)}")
                    looks += 1
                episodes = await EpisodicNode.get_by_group_ids(driver, [f"w{w}"])
                names = {e.name for e in episodes}
                for j in logged(log):
                    if j % 2 == 1 and f"w{w}-ep{j}" not in names:
                        problems.append(f"w{w} episode {j} missing")
            if time.monotonic() >= deadline:
                break
        results = await graphiti.search("Where does Walker0x1 work?", group_ids=["w0"])
        facts = [e.fact for e in results]
    finally:
        await driver.close()
    return {"looks": looks, "problems": sorted(set(problems))[:10], "facts": facts}


# -------------------------------------------------------------------------------- cognee


def _person(w: int, j: int, i: int) -> Any:
    import uuid as uuid_module

    from tests.reliability.cognee_points import Person

    pid = uuid_module.uuid5(uuid_module.NAMESPACE_URL, f"anatid-mp/{w}/{j}/{i}")
    return Person(id=pid, name=f"writer{w} batch{j} person{i}")


async def _cognee(path: str) -> tuple[Any, Any]:
    import anatid_cognee
    from cognee.infrastructure.databases.graph import get_graph_engine
    from cognee.infrastructure.databases.vector import get_vector_engine_async
    from cognee.low_level import setup

    from tests.cognee.cognee_fakes import install_hash_embeddings

    install_hash_embeddings()
    anatid_cognee.configure(path)
    await setup()
    return await get_graph_engine(), await get_vector_engine_async()


async def cognee_setup(path: str) -> bool:
    """Cognee's one-time setup (its relational database), before the writers start: two
    processes running Cognee's first-time migrations at once race in Cognee's own SQLite setup
    ("table ... already exists"), whatever the graph backend."""
    await _cognee(path)
    return True


async def cognee_writer(
    path: str, w: int, log: str, seconds: float, points: int = 5
) -> dict[str, Any]:
    """Cognee's own ``add_data_points`` into one anatid file, then a vector search and a graph
    read, logging each call after it returns."""
    from cognee.tasks.storage import add_data_points

    graph, vector = await _cognee(path)
    fd = os.open(log, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    deadline = time.monotonic() + seconds
    j = 0
    try:
        while time.monotonic() < deadline:
            people = [_person(w, j, i) for i in range(points)]
            await add_data_points(people)
            _append(fd, j)
            j += 1
            await vector.search("Person_name", f"writer{w} batch{j - 1}", limit=3)
            await graph.get_node(str(people[0].id))
    finally:
        os.close(fd)
    return {"writes": j}


async def cognee_check(path: str, logs: list[str], points: int = 5) -> dict[str, Any]:
    """Afterwards, in a new process: every logged add_data_points call is there in full, in
    the graph and in the vector collection."""
    graph, vector = await _cognee(path)
    problems: list[str] = []
    for w, log in enumerate(logs):
        for j in logged(log):
            ids = [str(_person(w, j, i).id) for i in range(points)]
            found = await graph.get_nodes(ids)
            if len(found) != points:
                problems.append(f"w{w} call {j}: {len(found)}/{points} nodes")
            rows = await vector.retrieve("Person_name", ids)
            if len(rows) != points:
                problems.append(f"w{w} call {j}: {len(rows)}/{points} vectors")
    return {"problems": problems[:10], "calls": sum(len(logged(log)) for log in logs)}
