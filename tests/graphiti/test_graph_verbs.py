"""GraphitiDriver.explain / shortest_path / hubs (issue 17): the core's graph verbs answered in
Graphiti's own models, with episodes as the evidence of facts and group ids as a wall."""

from __future__ import annotations

from anatid_graphiti import GraphitiDriver
from graphiti_core.edges import EntityEdge, EpisodicEdge
from graphiti_core.nodes import EntityNode, EpisodeType, EpisodicNode

from .conftest import T0


async def _seed(driver: GraphitiDriver) -> None:
    ep = EpisodicNode(
        uuid="ep1",
        name="standup",
        group_id="team",
        source=EpisodeType.text,
        source_description="chat",
        content="Alice joined Acme",
        valid_at=T0,
        created_at=T0,
    )
    await ep.save(driver)
    for uuid, name, group in (
        ("alice", "Alice", "team"),
        ("acme", "Acme", "team"),
        ("bob", "Bob", "team"),
        ("vault", "Vault", "secret"),
    ):
        await EntityNode(uuid=uuid, name=name, group_id=group, created_at=T0).save(driver)
    await EpisodicEdge(
        uuid="m1", source_node_uuid="ep1", target_node_uuid="alice", group_id="team", created_at=T0
    ).save(driver)
    for uuid, src, dst, group in (
        ("works", "alice", "acme", "team"),
        ("hired", "acme", "bob", "team"),
        ("opens", "alice", "vault", "secret"),
        ("guards", "vault", "bob", "secret"),
    ):
        await EntityEdge(
            uuid=uuid,
            source_node_uuid=src,
            target_node_uuid=dst,
            group_id=group,
            name="REL",
            fact=f"{src} {dst}",
            episodes=["ep1"],
            created_at=T0,
        ).save(driver)


async def test_explain_returns_entity_edges_with_their_episodes(driver: GraphitiDriver) -> None:
    await _seed(driver)
    found = await driver.explain("alice", "bob", max_depth=2, group_ids=["team"])
    assert [[n.uuid for n in p.nodes] for p in found.paths] == [["alice", "acme", "bob"]]
    assert all(isinstance(f.edge, EntityEdge) for f in found.facts)
    assert {f.edge.uuid: [e.uuid for e in f.episodes] for f in found.facts} == {
        "works": ["ep1"],
        "hired": ["ep1"],
    }
    assert all(isinstance(e, EpisodicNode) for f in found.facts for e in f.episodes)


async def test_shortest_path_and_hubs_in_graphiti_models(driver: GraphitiDriver) -> None:
    await _seed(driver)
    paths = await driver.shortest_path("alice", "bob")
    assert [[n.uuid for n in p.nodes] for p in paths] == [
        ["alice", "acme", "bob"],
        ["alice", "vault", "bob"],
    ]
    assert isinstance(paths[0].nodes[0], EntityNode)
    walled = await driver.shortest_path("alice", "bob", group_ids=["team"])
    assert [[e.uuid for e in p.edges] for p in walled] == [["works", "hired"]]
    hubs = await driver.hubs(2)
    assert [(n.uuid, d) for n, d in hubs] == [("acme", 2), ("alice", 2)]
    assert [(n.uuid, d) for n, d in await driver.hubs(5, group_ids=["team"])] == [
        ("acme", 2),
        ("alice", 1),
        ("bob", 1),
    ]
