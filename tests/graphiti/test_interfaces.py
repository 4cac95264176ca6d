"""The hooks Graphiti itself rarely calls (users reach them through the model classes)."""

from __future__ import annotations

import pytest
from graphiti_core.edges import EntityEdge, EpisodicEdge
from graphiti_core.errors import EdgeNotFoundError, GroupsEdgesNotFoundError
from graphiti_core.nodes import CommunityNode, EntityNode, EpisodeType, EpisodicNode, Node, SagaNode

from .conftest import add, day


def episode(group_id: str = "g") -> EpisodicNode:
    return EpisodicNode(
        name="ep",
        group_id=group_id,
        source=EpisodeType.text,
        source_description="",
        content="c",
        valid_at=day(1),
    )


async def test_empty_results_raise_like_graphitis_own_fallbacks(driver):
    with pytest.raises(EdgeNotFoundError):
        await EpisodicEdge.get_by_uuids(driver, ["nope"])
    with pytest.raises(GroupsEdgesNotFoundError):
        await EntityEdge.get_by_group_ids(driver, ["empty"])
    with pytest.raises(GroupsEdgesNotFoundError):
        await EpisodicEdge.get_by_group_ids(driver, ["empty"])
    assert await EntityEdge.get_by_uuids(driver, []) == []


async def test_delete_by_group_id_reaches_every_kind_whatever_the_class(driver):
    # As Graphiti's own queries on Neo4j, FalkorDB and Kuzu: MATCH (n:Entity|Episodic|Community).
    for cls in (EntityNode, EpisodicNode, Node):
        ent = EntityNode(name="a", group_id="g")
        ep = episode()
        com = CommunityNode(name="c", group_id="g")
        other = EntityNode(name="b", group_id="h")
        for n in (ent, ep, com, other):
            await n.save(driver)
        await cls.delete_by_group_id(driver, "g")
        assert await EntityNode.get_by_group_ids(driver, ["g"]) == []
        assert await EpisodicNode.get_by_group_ids(driver, ["g"]) == []
        assert await CommunityNode.get_by_group_ids(driver, ["g"]) == []
        assert [n.uuid for n in await EntityNode.get_by_group_ids(driver, ["h"])] == [other.uuid]
        await other.delete(driver)


async def test_delete_by_uuids_reaches_every_kind_whatever_the_class(driver):
    ent = EntityNode(name="a", group_id="g")
    ep = episode()
    keep = EntityNode(name="b", group_id="g")
    for n in (ent, ep, keep):
        await n.save(driver)
    await EntityNode.delete_by_uuids(driver, [ent.uuid, ep.uuid])
    assert await EpisodicNode.get_by_group_ids(driver, ["g"]) == []
    assert [n.uuid for n in await EntityNode.get_by_group_ids(driver, ["g"])] == [keep.uuid]


async def test_node_getters_by_names_attributes_and_group(driver):
    a = EntityNode(name="Ann", group_id="g", attributes={"role": "cto", "age": 40})
    b = EntityNode(name="Bo", group_id="g", attributes={"role": "cfo", "age": 40})
    c = EntityNode(name="Ann", group_id="h")
    for n in (a, b, c):
        await n.save(driver)
    ops = driver.graph_operations_interface
    by_names = await ops.node_get_by_names(EntityNode, driver, ["Ann"], ["g", "h"])
    assert sorted(n.group_id for n in by_names) == ["g", "h"]
    by_attrs = await ops.node_get_by_attribute_values(
        EntityNode, driver, "g", {"role": "cto", "age": 40}
    )
    assert [n.uuid for n in by_attrs] == [a.uuid]
    in_group = await EntityNode.get_by_uuids(driver, [a.uuid, c.uuid], group_id="h")
    assert [n.uuid for n in in_group] == [c.uuid]


async def test_saga_crud(driver):
    saga = SagaNode(name="s", group_id="g", summary="sum")
    await saga.save(driver)
    assert (await SagaNode.get_by_uuids(driver, [saga.uuid]))[0].summary == "sum"
    await saga.delete(driver)
    assert await SagaNode.get_by_group_ids(driver, ["g"]) == []


async def test_namespace_writes_join_an_explicit_transaction(graphiti, driver):
    a = EntityNode(name="Ann", group_id="")
    with pytest.raises(RuntimeError):
        async with driver.transaction() as tx:
            await graphiti.nodes.entity.save(a, tx=tx)
            raise RuntimeError("rolled back")
    assert await EntityNode.get_by_uuids(driver, [a.uuid]) == []


async def test_history_of_a_node_and_purge(graphiti, driver):
    first = await add(graphiti, "Alice works at Acme.", 1)
    alice = next(n for n in first.nodes if n.name == "Alice")
    alice.summary = "changed"
    await alice.save(driver)
    versions = await driver.history(alice.uuid)
    assert versions[-1].item.summary == "changed" and len(versions) >= 2
    assert all(isinstance(v.item, EntityNode) for v in versions)
    await driver.purge([""])
    assert await driver.history(alice.uuid) == []
    assert await EpisodicNode.get_by_group_ids(driver, [""]) == []
