"""Time travel: ``driver.as_of(t)`` is a read-only driver on which Graphiti sees the past."""

from __future__ import annotations

import asyncio
from datetime import datetime, timezone

import pytest
from anatid_graphiti import GraphitiDriver, ReadOnlyDriverError
from graphiti_core.edges import EntityEdge
from graphiti_core.errors import GraphitiError
from graphiti_core.nodes import EntityNode
from graphiti_core.search.search_config_recipes import EDGE_HYBRID_SEARCH_RRF

from anatid_core import ReadOnlyError

from .conftest import add, day, make_graphiti


async def now_after_commit() -> datetime:
    await asyncio.sleep(0.002)  # the next transaction gets a later instant
    t = datetime.now(timezone.utc)
    await asyncio.sleep(0.002)
    return t


@pytest.fixture
async def job_change(graphiti):
    """Alice worked at Acme (day 1), then at Globex (day 30); ``t1`` is between the two."""
    first = await add(graphiti, "Alice works at Acme.", 1)
    t1 = await now_after_commit()
    second = await add(graphiti, "Alice works at Globex.", 30)
    return first, second, t1


async def test_search_as_of_sees_the_graph_as_it_was(job_change, driver, graphiti):
    first, _, t1 = job_change
    now = {e.fact: e.invalid_at for e in await graphiti.search("Alice works")}
    assert now == {"Alice works at Acme": day(30), "Alice works at Globex": None}

    past_graphiti = make_graphiti(driver.as_of(t1))
    then = {e.fact: e.invalid_at for e in await past_graphiti.search("Alice works")}
    assert then == {"Alice works at Acme": None}
    results = await graphiti.search_(
        "Alice works", config=EDGE_HYBRID_SEARCH_RRF, driver=driver.as_of(t1)
    )
    assert [e.fact for e in results.edges] == ["Alice works at Acme"]
    old = await EntityEdge.get_by_uuid(driver.as_of(t1), first.edges[0].uuid)
    assert old.invalid_at is None and old.expired_at is None


async def test_retrieve_episodes_and_getters_as_of(job_change, driver):
    _, second, t1 = job_change
    past_graphiti = make_graphiti(driver.as_of(t1))
    assert [e.name for e in await past_graphiti.retrieve_episodes(day(100))] == ["e1"]
    names = sorted(n.name for n in await EntityNode.get_by_group_ids(driver.as_of(t1), [""]))
    assert names == ["Acme", "Alice"]
    globex = next(n for n in second.nodes if n.name == "Globex")
    with pytest.raises(GraphitiError):
        await EntityNode.get_by_uuid(driver.as_of(t1), globex.uuid)


async def test_valid_time_view_keeps_only_facts_valid_then(job_change, driver):
    in_january = driver.as_of(valid_time=day(10))
    facts = [e.fact for e in await EntityEdge.get_by_group_ids(in_january, [""])]
    assert facts == ["Alice works at Acme"]


async def test_removed_data_is_erased_from_the_past_too(job_change, driver, graphiti):
    _, second, _ = job_change
    before = await now_after_commit()
    await graphiti.remove_episode(second.episode.uuid)
    assert "Globex" not in {n.name for n in await EntityNode.get_by_group_ids(driver, [""])}
    past = {n.name for n in await EntityNode.get_by_group_ids(driver.as_of(before), [""])}
    assert past == {"Alice", "Acme"}  # a host delete is an erasure: no version of Globex is left


async def test_with_audit_deletes_removed_data_stays_visible_in_the_past():
    driver = GraphitiDriver(":memory:", audit_deletes=True)
    try:
        graphiti = make_graphiti(driver)
        await add(graphiti, "Alice works at Acme.", 1)
        second = await add(graphiti, "Alice works at Globex.", 30)
        before = await now_after_commit()
        await graphiti.remove_episode(second.episode.uuid)
        assert "Globex" not in {n.name for n in await EntityNode.get_by_group_ids(driver, [""])}
        past = await EntityNode.get_by_group_ids(driver.as_of(before), [""])
        assert "Globex" in {n.name for n in past}
        assert await driver.erasures() == []  # nothing was erased
    finally:
        await driver.close()


async def test_history_lists_every_version(job_change, driver):
    first, _, _ = job_change
    versions = await driver.history(first.edges[0].uuid)
    assert [v.item.invalid_at for v in versions] == [None, day(30)]
    assert all(isinstance(v.item, EntityEdge) for v in versions)
    assert versions[0].tx_to == versions[1].tx_from
    assert versions[0].item.fact_embedding is not None


async def test_writes_through_the_past_are_refused(job_change, driver):
    _, _, t1 = job_change
    past = driver.as_of(t1)
    with pytest.raises(ReadOnlyDriverError) as caught:
        await EntityNode(name="Zed", group_id="").save(past)
    assert isinstance(caught.value, GraphitiError) and isinstance(caught.value, ReadOnlyError)
    with pytest.raises(ReadOnlyDriverError, match="view of the past"):
        await add(make_graphiti(past), "Zed knows Alice.", 40)
    await past.close()  # closing a view leaves the store open
    assert len(await EntityNode.get_by_group_ids(driver, [""])) == 3


async def test_a_read_only_file_driver_refuses_writes(tmp_path):
    path = tmp_path / "ro.duckdb"
    writer = GraphitiDriver(path)
    await add(make_graphiti(writer), "Alice works at Acme.", 1)
    await writer.close()
    reader = GraphitiDriver(path, read_only=True)
    try:
        assert len(await EntityNode.get_by_group_ids(reader, [""])) == 2
        with pytest.raises(ReadOnlyDriverError):
            await EntityNode(name="Zed", group_id="").save(reader)
    finally:
        await reader.close()
