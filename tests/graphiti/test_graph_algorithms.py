"""GraphitiDriver.pagerank / communities (issue 17): over the facts between entities, as
Graphiti's own EntityNode models, in the driver's groups and as of past instants."""

from __future__ import annotations

from datetime import datetime, timezone

from anatid_graphiti import GraphitiDriver
from graphiti_core.edges import EntityEdge
from graphiti_core.nodes import EntityNode

from .conftest import T0


def _entity(uuid: str, group: str = "g") -> EntityNode:
    return EntityNode(
        uuid=uuid, name=uuid.upper(), group_id=group, labels=["Entity"], created_at=T0
    )


def _fact(uuid: str, a: str, b: str, group: str = "g") -> EntityEdge:
    return EntityEdge(
        uuid=uuid,
        source_node_uuid=a,
        target_node_uuid=b,
        name="KNOWS",
        fact=f"{a} knows {b}",
        group_id=group,
        created_at=T0,
    )


async def test_pagerank_and_communities_return_entity_nodes(driver: GraphitiDriver) -> None:
    for uuid in ["a1", "a2", "a3", "b1", "b2", "b3"]:
        await _entity(uuid).save(driver)
    await _entity("x", group="other").save(driver)
    triangles = [("a1", "a2"), ("a2", "a3"), ("a1", "a3"), ("b1", "b2"), ("b2", "b3"), ("b1", "b3")]
    for i, (s, d) in enumerate(triangles):
        await _fact(f"f{i}", s, d).save(driver)
    before_bridge = datetime.now(timezone.utc)
    await _fact("bridge", "a3", "b1").save(driver)

    parts = await driver.communities(group_ids=["g"])
    assert [sorted(n.uuid for n in p) for p in parts] == [["a1", "a2", "a3"], ["b1", "b2", "b3"]]
    assert all(isinstance(n, EntityNode) and n.name == n.uuid.upper() for p in parts for n in p)

    ranked = await driver.pagerank(["a1"], k=6)
    assert ranked[0][0].uuid == "a1" and isinstance(ranked[0][0], EntityNode)
    assert {n.uuid for n, _ in ranked[1:3]} == {"a2", "a3"}  # its triangle first
    assert all(x[1] >= y[1] for x, y in zip(ranked, ranked[1:], strict=False))
    pushed = await driver.pagerank(["a1"], k=6, method="push", tolerance=1e-9)
    assert [n.uuid for n, _ in pushed] == [n.uuid for n, _ in ranked]
    assert all(0 <= s - p < 1e-6 for (_, s), (_, p) in zip(ranked, pushed, strict=True))

    past = driver.as_of(tx_time=before_bridge)
    old = await past.pagerank(["a1"], k=10)
    assert {n.uuid for n, _ in old} == {"a1", "a2", "a3"}  # no bridge yet: b is unreachable
    assert len(await past.communities()) == 3  # x alone in its group
