"""Build a Graphiti-on-Kuzu file with Graphiti's own KuzuDriver, and dump what Graphiti reads back.

Run by an interpreter that has graphiti-core 0.31.2 and kuzu 0.11.3 (see setup_sources.sh):

    python make_graphiti_kuzu.py OUT.kz EXPECTED.json

EXPECTED.json holds every record as Graphiti's own API returns it from the Kuzu file (models
dumped with ``model_dump(mode="json")``, embeddings loaded), which the migrate tests compare
against what GraphitiDriver returns from the migrated anatid file.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from datetime import datetime, timedelta, timezone
from pathlib import Path

os.environ.setdefault("GRAPHITI_TELEMETRY_ENABLED", "false")
sys.path.insert(0, str(Path(__file__).resolve().parent))

from graphiti_core import Graphiti  # noqa: E402
from graphiti_core.driver.driver import GraphProvider  # noqa: E402
from graphiti_core.driver.kuzu_driver import KuzuDriver  # noqa: E402
from graphiti_core.edges import (  # noqa: E402
    EntityEdge,
    HasEpisodeEdge,
    NextEpisodeEdge,
)
from graphiti_core.graph_queries import get_fulltext_indices  # noqa: E402
from graphiti_core.nodes import EntityNode, EpisodeType, EpisodicNode  # noqa: E402
from graphiti_dump import dump  # noqa: E402
from graphiti_fakes import FakeCrossEncoder, FakeEmbedder, FakeLLMClient  # noqa: E402

T0 = datetime(2024, 3, 1, 9, 0, tzinfo=timezone.utc)
EPISODES = [
    ("g1", "Alice works with Bob at Acme in Berlin."),
    ("g1", "Bob moved from Acme to Globex last spring."),
    ("g1", "Carol manages Alice and reports to Dana."),
    ("g1", "Dana founded Initech with Erin in Paris."),
    ("g2", "Frank and Grace maintain the Lighthouse project."),
    ("g2", "Grace presented Lighthouse at Pycon in Lisbon."),
]


async def build(path: str) -> tuple[KuzuDriver, Graphiti]:
    driver = KuzuDriver(db=path)
    # KuzuDriver has no _database and never builds its FTS indexes itself (upstream bugs).
    driver._database = "default"  # type: ignore[attr-defined]
    for query in get_fulltext_indices(GraphProvider.KUZU):
        await driver.execute_query(query)
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
            source_description="migrate fixture",
            reference_time=T0 + timedelta(days=i),
            source=EpisodeType.text if i % 2 else EpisodeType.message,
            group_id=group,
        )
    await graphiti.build_communities(group_ids=["g1"])
    await enrich(driver)
    return driver, graphiti


async def enrich(driver: KuzuDriver) -> None:
    """Exercise fields add_episode leaves empty: attributes, invalidation, sagas, episode chains."""
    entities = await EntityNode.get_by_group_ids(driver, ["g1"])
    alice = next(n for n in entities if n.name == "Alice")
    await alice.load_name_embedding(driver)
    alice.attributes = {"role": "engineer", "level": 3, "tags": ["a", "b"], "nested": {"x": 1.5}}
    alice.labels = sorted(set(alice.labels) | {"Person"})
    await alice.save(driver)

    edges = await EntityEdge.get_by_group_ids(driver, ["g1"])
    first = sorted(edges, key=lambda e: e.uuid)[0]
    await first.load_fact_embedding(driver)
    first.invalid_at = T0 + timedelta(days=30)
    first.expired_at = T0 + timedelta(days=31)
    first.valid_at = T0 - timedelta(days=1)
    first.attributes = {"confidence": 0.75}
    await first.save(driver)

    # Kuzu's Saga table has only uuid/name/group_id/created_at, and add_episode(saga=...) fails
    # on it upstream, so the saga row is written the way that schema allows.
    saga_uuid = "5a9a0000-0000-4000-8000-000000000001"
    await driver.execute_query(
        "CREATE (:Saga {uuid: $uuid, name: $name, group_id: $group_id, created_at: $created_at})",
        uuid=saga_uuid,
        name="weekly-notes",
        group_id="g1",
        created_at=T0,
    )
    episodes = sorted(await EpisodicNode.get_by_group_ids(driver, ["g1"]), key=lambda e: e.valid_at)
    for i, ep in enumerate(episodes):
        await HasEpisodeEdge(
            uuid=f"5a9a0000-0000-4000-8000-1000000000{i:02d}",
            group_id="g1",
            source_node_uuid=saga_uuid,
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


async def main(out: str, expected: str) -> None:
    if os.path.exists(out):
        os.remove(out)
    driver, _ = await build(out)
    records = await dump(driver)
    await driver.close()
    Path(expected).write_text(json.dumps(records, indent=1, sort_keys=True))
    print({k: len(v) for k, v in records.items()})


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2]))
