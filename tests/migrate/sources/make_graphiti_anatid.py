"""Build an anatid file through Graphiti on GraphitiDriver (fake LLM, no network), for the export
tests: six episodes in two groups, communities, a saga with its HAS_EPISODE / NEXT_EPISODE chain,
custom attributes and labels, an invalidated fact, and earlier versions (history) of an entity
and a fact."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from pathlib import Path

from graphiti_core import Graphiti
from graphiti_core.edges import EntityEdge, HasEpisodeEdge, NextEpisodeEdge
from graphiti_core.nodes import EntityNode, EpisodeType, EpisodicNode, SagaNode

from tests.migrate.sources.graphiti_fakes import FakeCrossEncoder, FakeEmbedder, FakeLLMClient

T0 = datetime(2024, 3, 1, 9, 0, tzinfo=timezone.utc)
EPISODES = [
    ("g1", "Alice works with Bob at Acme in Berlin."),
    ("g1", "Bob moved from Acme to Globex last spring."),
    ("g1", "Carol manages Alice and reports to Dana."),
    ("g1", "Dana founded Initech with Erin in Paris."),
    ("g2", "Frank and Grace maintain the Lighthouse project."),
    ("g2", "Grace presented Lighthouse at Pycon in Lisbon."),
]
SAGA = "5a9a0000-0000-4000-8000-000000000001"


async def build_anatid(path: Path) -> None:
    from anatid_graphiti import GraphitiDriver

    driver = GraphitiDriver(str(path))
    try:
        graphiti = Graphiti(
            graph_driver=driver,
            llm_client=FakeLLMClient(),
            embedder=FakeEmbedder(),
            cross_encoder=FakeCrossEncoder(),
        )
        for i, (group, body) in enumerate(EPISODES):
            await graphiti.add_episode(
                name=f"episode-{i}",
                episode_body=body,
                source_description="export fixture",
                reference_time=T0 + timedelta(days=i),
                source=EpisodeType.text if i % 2 else EpisodeType.message,
                group_id=group,
            )
        await graphiti.build_communities(group_ids=["g1"])
        await _enrich(driver)
    finally:
        await driver.close()


async def _enrich(driver: object) -> None:
    """Fields add_episode leaves empty, and second versions of records (the history)."""
    entities = await EntityNode.get_by_group_ids(driver, ["g1"])
    alice = next(n for n in entities if n.name == "Alice")
    await alice.load_name_embedding(driver)
    # Primitive values and arrays of them: what FalkorDB and Neo4j can store as properties.
    alice.attributes = {"role": "engineer", "level": 3, "tags": ["a", "b"], "score": 1.5}
    alice.labels = sorted(set(alice.labels) | {"Person"})
    await alice.save(driver)
    alice.summary = "Alice, an engineer, works with Bob."
    await alice.save(driver)  # a third version of Alice

    edges = await EntityEdge.get_by_group_ids(driver, ["g1"])
    first = sorted(edges, key=lambda e: e.uuid)[0]
    await first.load_fact_embedding(driver)
    first.invalid_at = T0 + timedelta(days=30)
    first.expired_at = T0 + timedelta(days=31)
    first.valid_at = T0 - timedelta(days=1)
    first.attributes = {"confidence": 0.75}
    await first.save(driver)

    await SagaNode(uuid=SAGA, name="weekly-notes", group_id="g1", created_at=T0,
                   summary="notes", last_summarized_at=T0).save(driver)  # fmt: skip
    episodes = sorted(await EpisodicNode.get_by_group_ids(driver, ["g1"]), key=lambda e: e.valid_at)
    for i, ep in enumerate(episodes):
        await HasEpisodeEdge(
            uuid=f"5a9a0000-0000-4000-8000-1000000000{i:02d}",
            group_id="g1",
            source_node_uuid=SAGA,
            target_node_uuid=ep.uuid,
            created_at=T0,
        ).save(driver)
    for i, (a, b) in enumerate(zip(episodes, episodes[1:], strict=False)):
        await NextEpisodeEdge(
            uuid=f"5a9a0000-0000-4000-8000-2000000000{i:02d}",
            group_id="g1",
            source_node_uuid=a.uuid,
            target_node_uuid=b.uuid,
            created_at=T0,
        ).save(driver)
