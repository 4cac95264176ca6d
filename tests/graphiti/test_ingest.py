"""Graphiti's ingest paths end to end on GraphitiDriver, with the deterministic fake clients."""

from __future__ import annotations

import asyncio
from datetime import timedelta

from anatid_graphiti import GraphitiDriver
from graphiti_core.edges import EntityEdge, HasEpisodeEdge, NextEpisodeEdge
from graphiti_core.nodes import (
    CommunityNode,
    EntityNode,
    EpisodeType,
    EpisodicNode,
    SagaNode,
)
from graphiti_core.utils.bulk_utils import RawEpisode

from .conftest import add, day


async def entity_names(driver: GraphitiDriver, group_id: str = "") -> list[str]:
    return sorted(n.name for n in await EntityNode.get_by_group_ids(driver, [group_id]))


async def test_add_episode_extracts_entities_and_facts(graphiti, driver):
    result = await add(graphiti, "Alice works at Acme. Bob knows Alice.", 1)
    assert sorted(n.name for n in result.nodes) == ["Acme", "Alice", "Bob"]
    assert sorted(e.fact for e in result.edges) == ["Alice works at Acme", "Bob knows Alice"]
    assert await entity_names(driver) == ["Acme", "Alice", "Bob"]
    stored = await EpisodicNode.get_by_uuid(driver, result.episode.uuid)
    assert stored.content == "Alice works at Acme. Bob knows Alice."
    assert stored.valid_at == day(1)
    assert set(stored.entity_edges) == {e.uuid for e in result.edges}


async def test_groups_stay_apart(graphiti, driver):
    await add(graphiti, "Alice works at Acme.", 1, group_id="g1")
    await add(graphiti, "Alice works at Initech.", 2, group_id="g2")
    assert await entity_names(driver, "g1") == ["Acme", "Alice"]
    assert await entity_names(driver, "g2") == ["Alice", "Initech"]
    alices = [
        n for n in await EntityNode.get_by_group_ids(driver, ["g1", "g2"]) if n.name == "Alice"
    ]
    assert len({n.uuid for n in alices}) == 2
    facts = [e.fact for e in await graphiti.search("Alice works", group_ids=["g1"])]
    assert facts == ["Alice works at Acme"]


async def test_concurrent_episodes_in_many_groups_lose_nothing(graphiti, driver):
    groups = [f"g{i}" for i in range(6)]
    await asyncio.gather(
        *[add(graphiti, f"Alice met Bob{i} at Acme.", i, group_id=g) for i, g in enumerate(groups)]
    )
    for i, g in enumerate(groups):
        assert await entity_names(driver, g) == ["Acme", "Alice", f"Bob{i}"]
        assert len(await EpisodicNode.get_by_group_ids(driver, [g])) == 1


async def test_second_episode_dedupes_entities(graphiti, driver):
    await add(graphiti, "Alice works at Acme. Bob knows Alice.", 1)
    second = await add(graphiti, "Bob likes Carol.", 2)
    assert await entity_names(driver) == ["Acme", "Alice", "Bob", "Carol"]
    bob = next(n for n in second.nodes if n.name == "Bob")
    episodes = await EpisodicNode.get_by_entity_node_uuid(driver, bob.uuid)
    assert sorted(e.name for e in episodes) == ["e1", "e2"]


async def test_contradiction_invalidates_the_old_fact(graphiti, driver):
    first = await add(graphiti, "Alice works at Acme.", 1)
    old = first.edges[0]
    second = await add(graphiti, "Alice works at Globex.", 30)
    new = next(e for e in second.edges if e.fact == "Alice works at Globex")
    stored_old = await EntityEdge.get_by_uuid(driver, old.uuid)
    assert stored_old.valid_at == day(1)
    assert stored_old.invalid_at == day(30)
    assert stored_old.expired_at is not None
    stored_new = await EntityEdge.get_by_uuid(driver, new.uuid)
    assert stored_new.valid_at == day(30) and stored_new.invalid_at is None


async def test_add_episode_bulk(graphiti, driver):
    raw = [
        RawEpisode(
            name=f"b{i}",
            content=text,
            source_description="bulk",
            source=EpisodeType.text,
            reference_time=day(i),
        )
        for i, text in enumerate(["Alice works at Acme.", "Bob knows Alice.", "Carol likes Bob."])
    ]
    result = await graphiti.add_episode_bulk(raw, group_id="bulk")
    assert len(result.episodes) == 3
    assert await entity_names(driver, "bulk") == ["Acme", "Alice", "Bob", "Carol"]
    episodes = await EpisodicNode.get_by_group_ids(driver, ["bulk"])
    assert sorted(e.name for e in episodes) == ["b0", "b1", "b2"]
    mentioned = await graphiti.get_nodes_and_edges_by_episode([e.uuid for e in episodes])
    assert sorted({n.name for n in mentioned.nodes}) == ["Acme", "Alice", "Bob", "Carol"]
    facts = sorted(e.fact for e in await EntityEdge.get_by_group_ids(driver, ["bulk"]))
    assert facts == ["Alice works at Acme", "Bob knows Alice", "Carol likes Bob"]


async def test_add_triplet_then_again_updates_in_place(graphiti, driver):
    alice = EntityNode(name="Alice", group_id="", labels=["Person"], summary="a person")
    acme = EntityNode(name="Acme", group_id="", labels=["Company"])
    edge = EntityEdge(
        source_node_uuid=alice.uuid,
        target_node_uuid=acme.uuid,
        name="WORKS_AT",
        fact="Alice works at Acme",
        group_id="",
        created_at=day(1),
        valid_at=day(1),
    )
    result = await graphiti.add_triplet(alice, edge, acme)
    assert [e.fact for e in result.edges] == ["Alice works at Acme"]
    stored = await EntityNode.get_by_uuid(driver, alice.uuid)
    assert set(stored.labels) == {"Entity", "Person"}
    assert stored.summary == "a person"
    await graphiti.add_triplet(alice, edge, acme)
    assert [e.fact for e in await EntityEdge.get_by_group_ids(driver, [""])] == [
        "Alice works at Acme"
    ]


async def test_sagas_chain_episodes_and_are_found_by_name(graphiti, driver):
    await add(graphiti, "Alice works at Acme.", 1, saga="onboarding")
    await add(graphiti, "Alice met Bob.", 2, saga="onboarding")
    await add(graphiti, "Carol likes Dave.", 3)
    sagas = await SagaNode.get_by_group_ids(driver, [""])
    assert [s.name for s in sagas] == ["onboarding"]  # found by name, not created twice
    saga = sagas[0]
    in_saga = await graphiti.retrieve_episodes(day(10), last_n=5, saga="onboarding", group_ids=[""])
    assert [e.name for e in in_saga] == ["e1", "e2"]
    assert saga.first_episode_uuid == in_saga[0].uuid
    assert saga.last_episode_uuid == in_saga[1].uuid
    has = await HasEpisodeEdge.get_by_group_ids(driver, [""])
    assert {e.target_node_uuid for e in has} == {e.uuid for e in in_saga}
    (nxt,) = await NextEpisodeEdge.get_by_group_ids(driver, [""])
    assert (nxt.source_node_uuid, nxt.target_node_uuid) == (in_saga[0].uuid, in_saga[1].uuid)
    summarized = await graphiti.summarize_saga(saga.uuid)
    assert summarized.summary
    assert (await SagaNode.get_by_uuid(driver, saga.uuid)).summary == summarized.summary


async def test_retrieve_episodes_returns_the_last_n_oldest_first(graphiti):
    for n in range(1, 6):
        await add(graphiti, f"Note number {n}.", n)
    episodes = await graphiti.retrieve_episodes(day(4), last_n=2)
    assert [e.name for e in episodes] == ["e3", "e4"]


async def test_build_communities_replaces_previous_ones(graphiti, driver):
    await add(graphiti, "Alice works at Acme. Bob works at Acme.", 1)
    await add(graphiti, "Carol knows Dave.", 2)
    communities, community_edges = await graphiti.build_communities()
    assert communities and community_edges
    members = {e.target_node_uuid for e in community_edges}
    names = {n.uuid: n.name for n in await EntityNode.get_by_group_ids(driver, [""])}
    assert {names[u] for u in members} == {"Alice", "Acme", "Bob", "Carol", "Dave"}
    again, _ = await graphiti.build_communities()
    stored = await CommunityNode.get_by_group_ids(driver, [""])
    assert {c.uuid for c in stored} == {c.uuid for c in again}


async def test_remove_episode_deletes_what_only_it_mentioned(graphiti, driver):
    await add(graphiti, "Alice works at Acme.", 1)
    second = await add(graphiti, "Bob knows Alice.", 2)
    await graphiti.remove_episode(second.episode.uuid)
    assert await entity_names(driver) == ["Acme", "Alice"]
    facts = [e.fact for e in await EntityEdge.get_by_group_ids(driver, [""])]
    assert facts == ["Alice works at Acme"]
    assert [e.name for e in await EpisodicNode.get_by_group_ids(driver, [""])] == ["e1"]


async def test_get_nodes_and_edges_by_episode(graphiti):
    first = await add(graphiti, "Alice works at Acme.", 1)
    await add(graphiti, "Bob knows Carol.", 2)
    found = await graphiti.get_nodes_and_edges_by_episode([first.episode.uuid])
    assert sorted(n.name for n in found.nodes) == ["Acme", "Alice"]
    assert [e.fact for e in found.edges] == ["Alice works at Acme"]


async def test_retrieve_episodes_breaks_valid_at_ties_by_created_at(driver):
    # twenty episodes at one reference time, ingested one minute apart, in shuffled save order
    order = [7, 3, 19, 0, 12, 5, 16, 9, 1, 14, 18, 2, 11, 6, 17, 4, 13, 10, 15, 8]
    for i in order:
        await EpisodicNode(
            name=f"t{i:02d}",
            group_id="",
            source=EpisodeType.text,
            source_description="",
            content="x",
            valid_at=day(1),
            created_at=day(1) + timedelta(minutes=i),
        ).save(driver)
    episodes = await driver.episode_node_ops.retrieve_episodes(driver, day(2), last_n=3)
    assert [e.name for e in episodes] == ["t17", "t18", "t19"]
