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
            await graph.get_graph_data()  # a read through Cognee's own interface
            store = graph._store
            return {"opened": True, "nodes": store.count_nodes(), "problems": store.check()}
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


async def cognee_concurrent_add_data_points(
    path: str, rounds: int, team_size: int
) -> dict[str, Any]:
    """Cognee's own ``add_data_points`` task, many calls at once into two datasets (two node
    sets in one anatid file), while readers check that no adapter call is seen half-applied."""
    import random
    import uuid as uuid_module

    import anatid_cognee
    from cognee.infrastructure.databases.graph import get_graph_engine
    from cognee.infrastructure.databases.vector import get_vector_engine_async
    from cognee.infrastructure.databases.vector.exceptions import CollectionNotFoundError
    from cognee.low_level import setup
    from cognee.tasks.storage import add_data_points

    from tests.cognee.cognee_fakes import install_hash_embeddings
    from tests.reliability.cognee_points import Person, Team

    install_hash_embeddings()
    anatid_cognee.configure(path)
    await setup()
    graph = await get_graph_engine()
    vector = await get_vector_engine_async()

    def team(dataset: str, r: int) -> Any:
        def uid(*parts: object) -> uuid_module.UUID:
            return uuid_module.uuid5(
                uuid_module.NAMESPACE_URL, "/".join(map(str, (dataset, r, *parts)))
            )

        members = [
            Person(id=uid("p", i), name=f"{dataset} member{r}x{i}", belongs_to_set=[dataset])
            for i in range(team_size)
        ]
        return Team(
            id=uid("team"), name=f"{dataset} team{r}", members=members, belongs_to_set=[dataset]
        )

    teams = [team(ds, r) for r in range(rounds) for ds in ("dataset_a", "dataset_b")]
    torn: list[str] = []
    done = asyncio.Event()

    async def reader(seed: int) -> int:
        rng, reads = random.Random(seed), 0
        while not done.is_set():
            t = rng.choice(teams)
            ids = [str(t.id)] + [str(m.id) for m in t.members]
            found = await graph.get_nodes(ids[1:])
            if len(found) not in (0, team_size):  # one add_nodes call: all or nothing
                torn.append(f"{t.name}: {len(found)} of {team_size} members visible")
            try:
                await vector.search("Person_name", query_text=t.members[0].name, limit=3)
            except CollectionNotFoundError:
                pass  # the first add_data_points has not created the collection yet
            reads += 1
            await asyncio.sleep(0)
        return reads

    async def writers() -> None:
        try:
            await asyncio.gather(*(add_data_points([t]) for t in teams))
        finally:
            done.set()

    results = await asyncio.gather(writers(), *(reader(s) for s in range(4)))
    nodes, edges = await graph.get_graph_data()
    member_ids = [str(m.id) for t in teams for m in t.members]
    rows = await vector.retrieve("Person_name", member_ids)
    per_set: dict[str, int] = {}
    for _, data in nodes:
        for tag in data.get("belongs_to_set") or []:
            name = tag if isinstance(tag, str) else getattr(tag, "name", str(tag))
            per_set[name] = per_set.get(name, 0) + 1
    return {
        "teams": len(teams),
        "graph_nodes": len([n for n, d in nodes if d.get("type") in ("Person", "Team")]),
        "expected_nodes": len(teams) * (team_size + 1),
        "member_edges": len([e for e in edges if e[2] == "members"]),
        "expected_edges": len(teams) * team_size,
        "vector_rows": len(rows),
        "expected_rows": len(member_ids),
        "torn": torn[:5],
        "reads": sum(results[1:]),
        "per_set": per_set,
        "problems": graph._store.check(),
    }
