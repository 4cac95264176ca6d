"""A retryable ``WriteConflict`` is retried inside the drivers, a bounded number of times.

Within one process the store serialises writers, so the one retryable conflict left is a writer
that waited longer than ``SETTINGS["write_lock_timeout"]`` for another thread's transaction. Here
a thread holds a transaction a little longer than a (shortened) timeout: the drivers' writes must
get through on a retry. A conflict that keeps coming back is raised after the last attempt, and a
non-retryable one at once.
"""

from __future__ import annotations

import threading
import time
from datetime import datetime, timezone

import pytest

from anatid_core import SETTINGS, WriteConflict

T0 = datetime(2024, 1, 1, tzinfo=timezone.utc)


@pytest.fixture
def short_lock_timeout(monkeypatch):
    monkeypatch.setitem(SETTINGS, "write_lock_timeout", 0.25)


def hold_the_write_lock(store, seconds: float) -> threading.Thread:
    entered = threading.Event()

    def hold() -> None:
        with store.transaction():
            entered.set()
            time.sleep(seconds)

    holder = threading.Thread(target=hold)
    holder.start()
    entered.wait()
    return holder


def failing(calls: list[int], real, failures: int, retryable: bool = True):
    def wrapper(*args, **kwargs):
        calls.append(1)
        if len(calls) <= failures:
            raise WriteConflict("simulated conflict; retry it", retryable=retryable)
        return real(*args, **kwargs)

    return wrapper


def _entity(name: str):
    from graphiti_core.nodes import EntityNode

    from tests.graphiti.fakes import hash_embedding

    return EntityNode(
        name=name,
        group_id="g",
        labels=["Entity"],
        created_at=T0,
        name_embedding=hash_embedding(name),
    )


async def test_graphiti_writes_get_through_a_writer_that_outlasts_the_lock_timeout(
    short_lock_timeout, tmp_path
):
    from anatid_graphiti import GraphitiDriver
    from graphiti_core.nodes import EntityNode
    from graphiti_core.utils.bulk_utils import add_nodes_and_edges_bulk

    from tests.graphiti.fakes import FakeEmbedder

    driver = GraphitiDriver(tmp_path / "g.duckdb")
    try:
        holder = hold_the_write_lock(driver.store, 0.35)
        alice = _entity("Alice")
        await alice.save(driver)  # one store call: retried in the runner
        holder.join()
        holder = hold_the_write_lock(driver.store, 0.35)
        bob = _entity("Bob")
        await add_nodes_and_edges_bulk(driver, [], [], [bob], [], FakeEmbedder())  # execute_write
        holder.join()
        assert len(await EntityNode.get_by_uuids(driver, [alice.uuid, bob.uuid])) == 2
    finally:
        await driver.close()


@pytest.mark.parametrize(
    ("failures", "retryable", "succeeds", "calls"),
    [(2, True, True, 3), (10, True, False, 4), (1, False, False, 1)],
)
async def test_graphiti_retries_are_bounded_and_only_for_retryable_conflicts(
    failures, retryable, succeeds, calls, tmp_path, monkeypatch
):
    from anatid_graphiti import GraphitiDriver

    import anatid_core

    monkeypatch.setitem(anatid_core.RETRY, "first_delay", 0.001)
    driver = GraphitiDriver(tmp_path / "g.duckdb")
    seen: list[int] = []
    monkeypatch.setattr(
        driver.store, "upsert_nodes", failing(seen, driver.store.upsert_nodes, failures, retryable)
    )
    try:
        if succeeds:
            await _entity("Alice").save(driver)
        else:
            with pytest.raises(WriteConflict):
                await _entity("Alice").save(driver)
        assert len(seen) == calls
        assert driver.store.count_nodes() == (1 if succeeds else 0)
    finally:
        await driver.close()


async def test_cognee_writes_get_through_a_writer_that_outlasts_the_lock_timeout(
    short_lock_timeout, tmp_path
):
    from anatid_cognee import AnatidGraphAdapter, AnatidVectorAdapter

    from tests.cognee.cognee_fakes import HashEmbeddingEngine
    from tests.reliability.cognee_points import Person

    path = str(tmp_path / "c.duckdb")
    graph = AnatidGraphAdapter(graph_database_url=path)
    vector = AnatidVectorAdapter(url=path, embedding_engine=HashEmbeddingEngine())
    try:
        people = [Person(name="alice"), Person(name="bob")]
        holder = hold_the_write_lock(graph._store, 0.35)
        await graph.add_nodes(people)
        holder.join()
        holder = hold_the_write_lock(graph._store, 0.35)
        await vector.create_data_points("Person_name", people)
        holder.join()
        assert len(await graph.get_nodes([str(p.id) for p in people])) == 2
        assert len(await vector.retrieve("Person_name", [str(p.id) for p in people])) == 2
    finally:
        await graph.close()
        await vector.close()


@pytest.mark.parametrize(
    ("failures", "retryable", "succeeds", "calls"),
    [(2, True, True, 3), (10, True, False, 4), (1, False, False, 1)],
)
async def test_cognee_retries_are_bounded_and_only_for_retryable_conflicts(
    failures, retryable, succeeds, calls, tmp_path, monkeypatch
):
    from anatid_cognee import AnatidGraphAdapter
    from cognee.exceptions import CogneeTransientError

    import anatid_core

    monkeypatch.setitem(anatid_core.RETRY, "first_delay", 0.001)
    graph = AnatidGraphAdapter(graph_database_url=str(tmp_path / "c.duckdb"))
    seen: list[int] = []
    monkeypatch.setattr(
        graph._store, "upsert_nodes", failing(seen, graph._store.upsert_nodes, failures, retryable)
    )
    try:
        if succeeds:
            await graph.add_nodes([("p1", {"name": "one"})])
        else:
            with pytest.raises(CogneeTransientError):
                await graph.add_nodes([("p1", {"name": "one"})])
        assert len(seen) == calls
        assert graph._store.count_nodes() == (1 if succeeds else 0)
    finally:
        await graph.close()
