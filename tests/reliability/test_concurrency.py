"""Concurrency: many writers and readers at once, in threads (core) and in one event loop
(Graphiti, Cognee). No error reaches a caller, no write is lost, and no reader ever sees part of
a transaction: every transaction writes a batch sharing one token and one embedding direction,
and every read (by id, by filter, by BM25, by cosine) must find all of a batch or none of it.
"""

from __future__ import annotations

import asyncio
import math
import random
import threading
import time
from datetime import datetime, timedelta, timezone

from anatid_core import Cond, Edge, Node, Store

from .conftest import SIZES

T0 = datetime(2025, 1, 1, tzinfo=timezone.utc)
DIM = 16


def _direction(tag: int) -> list[float]:
    rng = random.Random(tag)
    v = [rng.gauss(0, 1) for _ in range(DIM)]
    norm = math.sqrt(sum(x * x for x in v))
    return [x / norm for x in v]


def _batch(tag: int, size: int) -> list[Node]:
    base = _direction(tag)
    return [
        Node(
            f"t{tag}-{i}",
            group=f"g{tag % 5}",
            name=f"batch{tag}",
            text=f"member {i} of tok{tag}",
            props={"tag": tag, "i": i},
            embedding=[x + 1e-4 * ((i * 7 + k) % 5) for k, x in enumerate(base)],
        )
        for i in range(size)
    ]


def _seen_sizes(store: Store, tag: int, size: int) -> dict[str, int]:
    """How much of batch ``tag`` each kind of read sees right now."""
    return {
        "ids": len(store.get_nodes([f"t{tag}-{i}" for i in range(size)])),
        "filter": store.count_nodes(where=[[Cond("props.tag", "=", tag)]]),
        "bm25": len(store.search_text(f"tok{tag}", k=size + 10)),
        "cosine": len(store.search_vector(_direction(tag), k=size + 10, min_score=0.99)),
        "edges": len(store.find_edges(rels=[f"IN{tag}"])),
    }


def test_many_threads_write_and_read_the_core_without_seeing_half_a_transaction(tmp_path):
    threads, per_thread, size = SIZES["core_threads"], SIZES["core_transactions"], 12
    errors: list[BaseException] = []
    torn: list[str] = []
    committed: list[int] = []
    lock = threading.Lock()
    stop = threading.Event()
    with Store.open(tmp_path / "threads.duckdb") as store:

        def writer(t: int) -> None:
            try:
                for k in range(per_thread):
                    tag = t * 10_000 + k
                    nodes = _batch(tag, size)
                    with store.transaction():  # three verbs, one transaction
                        store.upsert_nodes(nodes[: size // 2])
                        store.upsert_nodes(nodes[size // 2 :])
                        store.upsert_edges(
                            [
                                Edge(f"e{tag}-{i}", f"t{tag}-{i}", f"t{tag}-{i + 1}", f"IN{tag}")
                                for i in range(size - 1)
                            ]
                        )
                    with lock:
                        committed.append(tag)
                    if k % 5 == 4:  # supersede a whole earlier batch in one transaction
                        old = tag - 2
                        store.upsert_nodes(
                            [
                                Node(
                                    n.id,
                                    group=n.group,
                                    name=n.name,
                                    text=n.text + " revised",
                                    props=n.props,
                                    embedding=n.embedding,
                                )
                                for n in _batch(old, size)
                            ]
                        )
            except BaseException as exc:  # noqa: BLE001 - collected and asserted below
                errors.append(exc)

        def reader(seed: int) -> None:
            rng = random.Random(seed)
            try:
                while not stop.is_set():
                    with lock:
                        tag = rng.choice(committed[-20:]) if committed else None
                    if tag is None:
                        time.sleep(0.001)
                        continue
                    seen = _seen_sizes(store, tag, size)
                    want = {"edges": size - 1}
                    for how, n in seen.items():
                        if n != want.get(how, size):  # committed: every read sees all of it
                            torn.append(f"batch {tag}: {how} sees {n}")
                    # A batch being written right now: all or nothing, never part.
                    fresh = max(committed) + 1
                    for how, n in _seen_sizes(store, fresh, size).items():
                        if n not in (0, want.get(how, size)):
                            torn.append(f"batch {fresh} in flight: {how} sees {n}")
            except BaseException as exc:  # noqa: BLE001
                errors.append(exc)

        workers = [threading.Thread(target=writer, args=(t,)) for t in range(threads)]
        readers = [threading.Thread(target=reader, args=(s,)) for s in range(3)]
        for th in workers + readers:
            th.start()
        for th in workers:
            th.join()
        stop.set()
        for th in readers:
            th.join()
        assert errors == []
        assert torn == [], torn[:10]
        assert store.count_nodes() == threads * per_thread * size
        assert store.count_edges() == threads * per_thread * (size - 1)
        for tag in committed:
            assert _seen_sizes(store, tag, size) == {
                "ids": size,
                "filter": size,
                "bm25": size,
                "cosine": size,
                "edges": size - 1,
            }
        assert store.check() == []


# ------------------------------------------------------------------------------- graphiti


def _episode_models(j: int, size: int):
    from graphiti_core.edges import EntityEdge, EpisodicEdge
    from graphiti_core.nodes import EntityNode, EpisodeType, EpisodicNode

    from tests.graphiti.fakes import hash_embedding

    when = T0 + timedelta(minutes=j)
    group = f"grp{j % 3}"
    episode = EpisodicNode(
        name=f"ep{j}",
        group_id=group,
        source=EpisodeType.text,
        source_description="",
        content=f"episode {j} about tok{j}",
        created_at=when,
        valid_at=when,
    )
    entities = [
        EntityNode(
            name=f"Person{j}x{i}",
            group_id=group,
            labels=["Entity"],
            summary=f"a member of tok{j}",
            created_at=when,
            name_embedding=hash_embedding(f"tok{j}"),
        )
        for i in range(size)
    ]
    facts = [
        EntityEdge(
            source_node_uuid=entities[i].uuid,
            target_node_uuid=entities[i + 1].uuid,
            name="KNOWS",
            fact=f"Person{j}x{i} knows Person{j}x{i + 1} tok{j}",
            group_id=group,
            created_at=when,
            valid_at=when,
            episodes=[episode.uuid],
            fact_embedding=hash_embedding(f"fact tok{j}"),
        )
        for i in range(size - 1)
    ]
    mentions = [
        EpisodicEdge(
            source_node_uuid=episode.uuid, target_node_uuid=e.uuid, group_id=group, created_at=when
        )
        for e in entities
    ]
    return episode, entities, facts, mentions


async def test_graphiti_concurrent_bulk_saves_and_searches_in_one_event_loop(tmp_path):
    from anatid_graphiti import GraphitiDriver
    from graphiti_core.edges import EntityEdge
    from graphiti_core.nodes import EntityNode, EpisodicNode
    from graphiti_core.search.search_filters import SearchFilters
    from graphiti_core.search.search_utils import edge_fulltext_search, node_fulltext_search
    from graphiti_core.utils.bulk_utils import add_nodes_and_edges_bulk

    from tests.graphiti.fakes import FakeEmbedder

    episodes, size = SIZES["graphiti_episodes"], 6
    models = [_episode_models(j, size) for j in range(episodes)]
    driver = GraphitiDriver(tmp_path / "graphiti.duckdb")
    torn: list[str] = []
    finished = asyncio.Event()
    groups = ["grp0", "grp1", "grp2"]
    try:

        async def save(j: int) -> None:
            episode, entities, facts, mentions = models[j]
            await add_nodes_and_edges_bulk(
                driver, [episode], mentions, entities, facts, FakeEmbedder()
            )

        async def search(seed: int) -> int:
            rng, reads = random.Random(seed), 0
            while not finished.is_set():
                j = rng.randrange(episodes)
                episode, entities, facts, _ = models[j]
                nodes = await node_fulltext_search(
                    driver, f"tok{j}", SearchFilters(), groups, size + 5
                )
                edges = await edge_fulltext_search(
                    driver, f"tok{j}", SearchFilters(), groups, size + 5
                )
                got = await EntityNode.get_by_uuids(driver, [e.uuid for e in entities])
                counts = {"bm25 nodes": len(nodes), "bm25 facts": len(edges), "by uuid": len(got)}
                wanted = {"bm25 nodes": size, "bm25 facts": size - 1, "by uuid": size}
                for how, n in counts.items():
                    if n not in (0, wanted[how]):
                        torn.append(f"episode {j}: {how} sees {n}")
                reads += 1
            return reads

        async def writers() -> None:
            try:
                await asyncio.gather(*(save(j) for j in range(episodes)))
            finally:
                finished.set()

        results = await asyncio.gather(writers(), *(search(s) for s in range(6)))
        assert torn == [], torn[:10]
        assert sum(results[1:]) > 0
        all_episodes = await EpisodicNode.get_by_uuids(driver, [m[0].uuid for m in models])
        assert len(all_episodes) == episodes
        entity_ids = [e.uuid for m in models for e in m[1]]
        assert len(await EntityNode.get_by_uuids(driver, entity_ids)) == episodes * size
        fact_ids = [f.uuid for m in models for f in m[2]]
        assert len(await EntityEdge.get_by_uuids(driver, fact_ids)) == episodes * (size - 1)
        assert driver.store.check() == []
    finally:
        await driver.close()


async def test_graphiti_concurrent_add_episode_with_searches(tmp_path):
    """Graphiti's own add_episode (fake LLM), many at once, with searches running alongside."""
    from anatid_graphiti import GraphitiDriver
    from graphiti_core import Graphiti
    from graphiti_core.nodes import EntityNode, EpisodeType, EpisodicNode

    from tests.graphiti.fakes import FakeCrossEncoder, FakeEmbedder, FakeLLMClient

    n = SIZES["graphiti_episodes"]
    driver = GraphitiDriver(tmp_path / "episodes.duckdb")
    graphiti = Graphiti(
        graph_driver=driver,
        llm_client=FakeLLMClient(),
        embedder=FakeEmbedder(),
        cross_encoder=FakeCrossEncoder(),
    )
    finished = asyncio.Event()
    try:

        async def add(j: int):
            return await graphiti.add_episode(
                name=f"note {j}",
                episode_body=f"Alice{j} works at Acme{j}. Bob{j} knows Alice{j}.",
                source_description="chat",
                reference_time=T0 + timedelta(minutes=j),
                source=EpisodeType.text,
                group_id=f"team{j}",
            )

        async def searcher() -> int:
            searches = 0
            while not finished.is_set():
                await graphiti.search(
                    f"Who works at Acme{searches % n}?", group_ids=[f"team{searches % n}"]
                )
                searches += 1
            return searches

        async def writers():
            try:
                return await asyncio.gather(*(add(j) for j in range(n)))
            finally:
                finished.set()

        added, *searches = await asyncio.gather(writers(), searcher(), searcher())
        assert sum(searches) > 0
        assert len(await EpisodicNode.get_by_uuids(driver, [r.episode.uuid for r in added])) == n
        for j, result in enumerate(added):
            names = {e.name for e in await EntityNode.get_by_group_ids(driver, [f"team{j}"])}
            assert {f"Alice{j}", f"Acme{j}", f"Bob{j}"} <= names, (j, names)
            assert len(result.edges) >= 2
        assert driver.store.check() == []
    finally:
        await graphiti.close()


# --------------------------------------------------------------------------------- cognee


def test_cognee_concurrent_add_data_points_into_two_datasets(servers, tmp_path):
    rounds, team = SIZES["cognee_points"] // 10, 10
    reply = servers["cognee"].send(
        cmd="call",
        func="tests.reliability.scenarios:cognee_concurrent_add_data_points",
        args={"path": str(tmp_path / "cognee.duckdb"), "rounds": rounds, "team_size": team},
    )
    assert reply.get("ok"), reply.get("error")
    seen = reply["result"]
    print(f"\ncognee: {seen}")
    assert seen["torn"] == [] and seen["problems"] == []
    assert seen["graph_nodes"] == seen["expected_nodes"]
    assert seen["member_edges"] == seen["expected_edges"]
    assert seen["vector_rows"] == seen["expected_rows"]
    assert seen["reads"] > 0


async def test_cognee_adapters_on_two_dataset_files_at_once(tmp_path):
    """Backend access control gives each dataset its own file: writes to both at once."""
    from anatid_cognee import AnatidGraphAdapter, AnatidVectorAdapter

    from tests.cognee.cognee_fakes import HashEmbeddingEngine
    from tests.reliability.cognee_points import Person

    datasets = 2
    pairs = []
    for d in range(datasets):
        path = str(tmp_path / f"dataset{d}.anatid.duckdb")
        pairs.append(
            (
                AnatidGraphAdapter(graph_database_url=path),
                AnatidVectorAdapter(url=path, embedding_engine=HashEmbeddingEngine()),
            )
        )
    people = {
        d: [
            [Person(name=f"d{d} r{r} p{i}") for i in range(5)]
            for r in range(SIZES["cognee_points"] // 5)
        ]
        for d in range(datasets)
    }
    try:

        async def write(d: int, batch: list) -> None:
            graph, vector = pairs[d]
            await graph.add_nodes(batch)
            await graph.add_edges(
                [
                    (str(a.id), str(b.id), "knows", {})
                    for a, b in zip(batch, batch[1:], strict=False)
                ]
            )
            await vector.create_data_points("Person_name", batch)

        await asyncio.gather(*(write(d, batch) for d in people for batch in people[d]))
        for d, (graph, vector) in enumerate(pairs):
            nodes, edges = await graph.get_graph_data()
            assert len(nodes) == sum(len(b) for b in people[d])  # nothing of the other dataset
            assert len(edges) == sum(len(b) - 1 for b in people[d])
            ids = [str(p.id) for b in people[d] for p in b]
            assert len(await vector.retrieve("Person_name", ids)) == len(ids)
            assert graph._store.check() == []
    finally:
        for graph, vector in pairs:
            await graph.close()
            await vector.close()
