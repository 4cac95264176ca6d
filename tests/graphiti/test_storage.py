"""What GraphitiDriver stores and how: exact round trips, transactions, files, the interfaces."""

from __future__ import annotations

import asyncio
import inspect
from datetime import datetime, timedelta, timezone

import pytest
from anatid_graphiti import GraphitiDriver, mapping
from graphiti_core.driver.graph_operations.graph_operations import GraphOperationsInterface
from graphiti_core.driver.search_interface.search_interface import SearchInterface
from graphiti_core.edges import EntityEdge
from graphiti_core.errors import EdgeNotFoundError, NodeNotFoundError
from graphiti_core.nodes import EntityNode, EpisodeType, EpisodicNode, SagaNode
from graphiti_core.utils.bulk_utils import add_nodes_and_edges_bulk

from anatid_core import CypherWriteRefused, UnsupportedOperation

from .conftest import add, day, make_graphiti
from .fakes import FakeEmbedder

NESTED = {
    "age": 30,
    "tags": ["a", "b"],
    "address": {"city": "Paris", "since": datetime(2020, 5, 1, 12, 0, tzinfo=timezone.utc)},
    "met_at": datetime(2021, 3, 4, 5, 6, 7),  # naive stays naive
    "score": 0.25,
    "flag": None,
}


def pair(group_id: str = "") -> tuple[EntityNode, EntityNode]:
    return (
        EntityNode(name="Ann", group_id=group_id, labels=["Person"], name_embedding=[1.0, 0.0]),
        EntityNode(name="Bo", group_id=group_id, labels=["Person"], name_embedding=[0.0, 1.0]),
    )


def edge_between(a: EntityNode, b: EntityNode, **kw) -> EntityEdge:
    kw.setdefault("created_at", day(0))
    return EntityEdge(
        source_node_uuid=a.uuid,
        target_node_uuid=b.uuid,
        name="KNOWS",
        fact="Ann knows Bo",
        group_id=a.group_id,
        fact_embedding=[0.5, 0.5],
        **kw,
    )


# ------------------------------------------------------------------------ round trips


@pytest.mark.parametrize(
    ("valid_at", "invalid_at"),
    [
        (None, None),
        (day(1), None),
        (day(1), day(2)),
        (datetime(2024, 1, 1, 9, 30), datetime(2024, 2, 1)),  # naive
        (datetime(2024, 1, 1, 9, 30, tzinfo=timezone(timedelta(hours=2))), None),  # offset
        (day(5), day(2)),  # ends before it starts: kept as Graphiti said
    ],
)
async def test_edge_times_round_trip_exactly(driver, valid_at, invalid_at):
    a, b = pair()
    edge = edge_between(a, b, valid_at=valid_at, invalid_at=invalid_at, expired_at=day(3))
    for item in (a, b, edge):
        await item.save(driver)
    back = await EntityEdge.get_by_uuid(driver, edge.uuid)
    assert (back.valid_at, back.invalid_at, back.expired_at) == (valid_at, invalid_at, day(3))
    for value, got in ((valid_at, back.valid_at), (invalid_at, back.invalid_at)):
        assert (got is None and value is None) or (got.tzinfo == value.tzinfo)  # type: ignore[union-attr]


async def test_nested_and_datetime_attributes_round_trip_on_single_saves(driver):
    a, b = pair()
    a.attributes = dict(NESTED)
    edge = edge_between(a, b, attributes=dict(NESTED))
    for item in (a, b, edge):
        await item.save(driver)
    assert (await EntityNode.get_by_uuid(driver, a.uuid)).attributes == NESTED
    assert (await EntityEdge.get_by_uuid(driver, edge.uuid)).attributes == NESTED


async def test_nested_and_datetime_attributes_round_trip_on_the_bulk_path(driver):
    a, b = pair()
    a.attributes = dict(NESTED)
    edge = edge_between(a, b, attributes=dict(NESTED))
    await add_nodes_and_edges_bulk(driver, [], [], [a, b], [edge], FakeEmbedder())
    node = await EntityNode.get_by_uuid(driver, a.uuid)
    assert node.attributes == NESTED
    assert isinstance(node.attributes["address"]["since"], datetime)
    assert (await EntityEdge.get_by_uuid(driver, edge.uuid)).attributes == NESTED


async def test_a_single_save_replaces_attributes_and_episode_lists(driver):
    a, b = pair()
    a.attributes = {"stale": 1, "kept": 2}
    edge = edge_between(a, b, episodes=["ep1", "ep2"], attributes={"stale": True})
    for item in (a, b, edge):
        await item.save(driver)
    a.attributes = {"kept": 3}
    edge.episodes = ["ep2"]
    edge.attributes = {}
    await a.save(driver)
    await edge.save(driver)
    assert (await EntityNode.get_by_uuid(driver, a.uuid)).attributes == {"kept": 3}
    back = await EntityEdge.get_by_uuid(driver, edge.uuid)
    assert back.episodes == ["ep2"] and back.attributes == {}


async def test_entity_labels_include_entity_and_episodes_keep_content(driver):
    a, _ = pair()
    await a.save(driver)
    assert set((await EntityNode.get_by_uuid(driver, a.uuid)).labels) == {"Entity", "Person"}
    episode = EpisodicNode(
        name="ep",
        group_id="",
        source=EpisodeType.json,
        source_description="a feed",
        content='{"x": "y"}\n\n',
        valid_at=datetime(2024, 1, 1),
        episode_metadata={"k": [1]},
    )
    await episode.save(driver)
    back = await EpisodicNode.get_by_uuid(driver, episode.uuid)
    assert back.model_dump() == episode.model_dump()


def test_mapping_is_public_and_symmetric():
    a, b = pair()
    a.attributes = dict(NESTED)
    node = mapping.to_node(a)
    assert node.labels == ("Person", "Entity") and node.space == mapping.NAME_SPACE
    again = mapping.from_node(node, [1.0, 0.0])
    assert again.labels == ["Person", "Entity"]  # as Neo4j's labels(n) reports them
    assert again.model_dump(exclude={"labels"}) == a.model_dump(exclude={"labels"})
    edge = edge_between(a, b, valid_at=datetime(2024, 1, 1), attributes={"x": 1})
    core = mapping.to_edge(edge)
    assert core.rel == mapping.RELATES_TO and core.text == "Ann knows Bo"
    assert mapping.from_edge(core, [0.5, 0.5]).model_dump() == edge.model_dump()


def test_bulk_payload_attributes_are_split_from_graphiti_keys():
    payload = {
        "uuid": "n1",
        "name": "Ann",
        "group_id": "",
        "summary": "s",
        "created_at": day(0),
        "name_embedding": [1.0],
        "labels": ["Entity", "Person"],
        "age": 3,
        "home": {"city": "X"},
    }
    node = mapping.entity_payload_node(payload)
    assert node.props["attributes"] == {"age": 3, "home": {"city": "X"}}
    assert node.text == "s" and node.labels == ("Entity", "Person")


# ----------------------------------------------------------------------- getters, errors


async def test_missing_records_raise_graphitis_errors(driver):
    with pytest.raises(NodeNotFoundError):
        await EntityNode.get_by_uuid(driver, "nope")
    with pytest.raises(EdgeNotFoundError):
        await EntityEdge.get_by_uuid(driver, "nope")
    ghost = EntityNode(name="ghost", group_id="")
    with pytest.raises(NodeNotFoundError):
        await ghost.load_name_embedding(driver)


async def test_an_edge_to_a_missing_node_is_not_written(driver):
    a, b = pair()
    await a.save(driver)
    await edge_between(a, b).save(driver)  # Neo4j's MATCH ... MERGE writes nothing either
    assert await EntityEdge.get_by_node_uuid(driver, a.uuid) == []


async def test_get_by_group_ids_pages_by_uuid_descending(driver):
    nodes = [EntityNode(uuid=f"u{i}", name=f"n{i}", group_id="g") for i in range(5)]
    for n in nodes:
        await n.save(driver)
    first = await EntityNode.get_by_group_ids(driver, ["g"], limit=2)
    assert [n.uuid for n in first] == ["u4", "u3"]
    rest = await EntityNode.get_by_group_ids(driver, ["g"], limit=10, uuid_cursor="u3")
    assert [n.uuid for n in rest] == ["u2", "u1", "u0"]


async def test_get_by_group_ids_with_embeddings_returns_them_as_the_cypher_backends_do(driver):
    # Graphiti drops with_embeddings on its way to the hook; Kuzu and FalkorDB run the Cypher
    # fallback, which returns them. A fetch-edit-save must not lose the embedding.
    a, b = pair("g")
    edge = edge_between(a, b)
    for record in (a, b, edge):
        await record.save(driver)
    nodes = await EntityNode.get_by_group_ids(driver, ["g"], with_embeddings=True)
    assert {n.name: n.name_embedding for n in nodes} == {"Ann": [1.0, 0.0], "Bo": [0.0, 1.0]}
    [fact] = await EntityEdge.get_by_group_ids(driver, ["g"], with_embeddings=True)
    assert fact.fact_embedding == [0.5, 0.5]
    plain = await EntityNode.get_by_group_ids(driver, ["g"])
    assert [n.name_embedding for n in plain] == [None, None]
    [plain_fact] = await EntityEdge.get_by_group_ids(driver, ["g"])
    assert plain_fact.fact_embedding is None


async def test_namespaces_use_the_operations_interfaces(graphiti, driver):
    a, b = pair()
    await graphiti.nodes.entity.save(a)
    await graphiti.nodes.entity.save(b)
    await graphiti.edges.entity.save(edge_between(a, b))
    assert (await graphiti.nodes.entity.get_by_uuid(a.uuid)).name == "Ann"
    assert [e.fact for e in await graphiti.edges.entity.get_by_node_uuid(b.uuid)] == [
        "Ann knows Bo"
    ]


def test_every_legacy_hook_is_implemented(driver):
    for interface, impl in (
        (GraphOperationsInterface, driver.graph_operations_interface),
        (SearchInterface, driver.search_interface),
    ):
        hooks = _hooks(interface)
        missing = [n for n in hooks if getattr(type(impl), n) is getattr(interface, n)]
        assert hooks and missing == []


def _hooks(interface):
    return [
        n for n, f in vars(interface).items() if inspect.isfunction(f) and not n.startswith("_")
    ]


def test_every_legacy_hook_takes_graphitis_parameters(driver):
    # Graphiti calls some hooks with keywords and relies on their defaults; the hooks that are
    # written once per kind (legacy/hooks.py) must still carry each kind's own parameter names.
    def shape(fn):
        params = inspect.signature(fn).parameters.values()
        return [(p.name, p.kind, p.default) for p in params], inspect.iscoroutinefunction(fn)

    for interface, impl in (
        (GraphOperationsInterface, driver.graph_operations_interface),
        (SearchInterface, driver.search_interface),
    ):
        differ = [
            n
            for n in _hooks(interface)
            if shape(getattr(type(impl), n)) != shape(getattr(interface, n))
        ]
        assert differ == []


def test_a_hook_table_under_a_name_graphiti_does_not_have_is_refused():
    from anatid_graphiti.legacy.hooks import GraphHooks, getter_hooks, with_hooks

    # Graphiti's prefix is "episodic_node"; a hook named "episode_node_..." would never be called.
    with pytest.raises(TypeError, match="episode_node_get_by_uuid"):

        @with_hooks(episode_node=getter_hooks("episode_node"))
        class Misnamed(GraphHooks):
            pass


async def test_kind_hooks_act_on_their_own_kind_only(driver):
    # One hook family serves every kind: a saga's hooks must not see or delete an episode.
    ops = driver.graph_operations_interface
    saga = SagaNode(name="s", group_id="g")
    episode = EpisodicNode(
        name="e",
        group_id="g",
        source=EpisodeType.text,
        source_description="",
        content="c",
        valid_at=datetime(2024, 1, 1, tzinfo=timezone.utc),
    )
    await ops.saga_node_save(saga, driver)
    await ops.episodic_node_save(episode, driver)
    assert [s.uuid for s in await ops.saga_node_get_by_group_ids(SagaNode, driver, ["g"])] == [
        saga.uuid
    ]
    assert await ops.saga_node_get_by_uuids(SagaNode, driver, [episode.uuid]) == []
    await ops.saga_node_delete_by_uuids(SagaNode, driver, [saga.uuid, episode.uuid])
    assert await ops.saga_node_get_by_uuids(SagaNode, driver, [saga.uuid]) == []
    assert [
        e.uuid for e in await ops.episodic_node_get_by_uuids(EpisodicNode, driver, [episode.uuid])
    ] == [episode.uuid]


def test_driver_identity_for_graphiti():
    d = GraphitiDriver()
    assert d.provider.name == "NEO4J" and d._database
    assert d.clone(database="g2") is d
    assert d.session().provider == d.provider


# ------------------------------------------------------------------------------ Cypher


async def test_cypher_writes_are_refused_naming_the_clause(driver):
    with pytest.raises(CypherWriteRefused, match="MERGE writes") as caught:
        await driver.execute_query("\n   MERGE (n:Entity {uuid: 'x'}) RETURN n\n")
    assert isinstance(caught.value, UnsupportedOperation)
    assert (await driver.execute_query("MATCH (n:Entity {uuid: 'x'}) RETURN n"))[0] == []


async def test_the_two_graphiti_queries_are_answered(graphiti, driver):
    result = await add(graphiti, "Alice works at Acme.", 1, saga="s")
    alice = next(n for n in result.nodes if n.name == "Alice")
    records, _, _ = await driver.execute_query(
        "MATCH (e:Episodic)-[:MENTIONS]->(n:Entity {uuid: $uuid}) RETURN count(*) AS episode_count",
        uuid=alice.uuid,
        routing_="r",
    )
    assert records == [{"episode_count": 1}]
    records, _, _ = await driver.execute_query(
        """MATCH (s:Saga {name: $name, group_id: $group_id})
        RETURN s.uuid AS uuid, s.name AS name, s.group_id AS group_id, s.created_at AS created_at,
        s.first_episode_uuid AS first_episode_uuid, s.last_episode_uuid AS last_episode_uuid""",
        name="s",
        group_id="",
    )
    assert [r["name"] for r in records] == ["s"] and records[0][
        "last_episode_uuid"
    ] == result.episode.uuid


# ------------------------------------------------------------------ transactions, files


async def test_execute_write_is_one_transaction(driver):
    a, b = pair()

    async def work(tx, *, fail: bool):
        await driver.entity_node_ops.save(driver, a, tx=tx)
        # a read inside the transaction sees its own write
        assert (await driver.entity_node_ops.get_by_uuid(driver, a.uuid)).name == "Ann"
        await driver.entity_node_ops.save(driver, b, tx=tx)
        if fail:
            raise RuntimeError("boom")

    with pytest.raises(RuntimeError):
        await driver.session().execute_write(work, fail=True)
    assert await EntityNode.get_by_uuids(driver, [a.uuid, b.uuid]) == []
    await driver.session().execute_write(work, fail=False)
    assert len(await EntityNode.get_by_uuids(driver, [a.uuid, b.uuid])) == 2


async def test_transactions_and_concurrent_writers_do_not_block_the_loop(driver):
    ticks = 0

    async def ticker():
        nonlocal ticks
        while True:
            ticks += 1
            await asyncio.sleep(0)

    async def writer(i: int):
        nodes = [
            EntityNode(name=f"w{i}-{j}", group_id=f"g{i}", name_embedding=[1.0, float(j)])
            for j in range(50)
        ]
        await driver.entity_node_ops.save_bulk(driver, nodes)

    tick = asyncio.create_task(ticker())
    await asyncio.sleep(0)
    before = ticks
    # a store call that ran on the event loop would finish without letting the ticker run
    await driver.entity_node_ops.save(driver, EntityNode(name="alone", group_id="a"))
    assert ticks > before
    before = ticks
    async with driver.transaction():
        await driver.entity_node_ops.save(driver, EntityNode(name="in-tx", group_id="t"))
        await asyncio.gather(*[writer(i) for i in range(8)])
    tick.cancel()
    assert ticks > before
    for i in range(8):
        assert len(await EntityNode.get_by_group_ids(driver, [f"g{i}"])) == 50
    assert len(await EntityNode.get_by_group_ids(driver, ["t"])) == 1


async def test_close_and_reopen_the_file(tmp_path):
    path = tmp_path / "memory.duckdb"
    first = GraphitiDriver(path)
    g = make_graphiti(first)
    result = await add(g, "Alice works at Acme.", 1)
    await g.close()
    await first.close()  # idempotent

    second = GraphitiDriver(path)
    try:
        again = make_graphiti(second)
        assert [e.fact for e in await again.search("Alice works")] == ["Alice works at Acme"]
        episode = await EpisodicNode.get_by_uuid(second, result.episode.uuid)
        assert episode.content == "Alice works at Acme."
        await add(again, "Bob knows Alice.", 2)
        names = sorted(n.name for n in await EntityNode.get_by_group_ids(second, [""]))
        assert names == ["Acme", "Alice", "Bob"]
    finally:
        await second.close()


async def test_transactions_reuse_their_threads(driver):
    for i in range(20):
        async with driver.transaction():
            await EntityNode(name=f"n{i}", group_id="").save(driver)
    assert len(driver.runner.threads._all) == 1  # one store cursor, not one per transaction


# ------------------------------------------------------------------------- communities


def test_label_propagation_ends_on_a_multi_edge():
    from anatid_graphiti.graph_ops import label_propagation

    # Graphiti's own synchronous propagation swaps these two labels for ever (getzep/graphiti#1397).
    assert label_propagation({"a": {"b": 2}, "b": {"a": 2}}) == [["a", "b"]]
    ring = {str(i): {str((i + 1) % 6): 2, str((i - 1) % 6): 2} for i in range(6)}
    assert sorted(map(len, label_propagation(ring))) and sum(map(len, label_propagation(ring))) == 6


async def test_community_clusters_on_a_multi_edge(driver):
    a, b = pair()
    await a.save(driver)
    await b.save(driver)
    await edge_between(a, b).save(driver)
    await edge_between(b, a).save(driver)  # a second edge between the same pair
    clusters = await driver.graph_ops.get_community_clusters(driver, None)
    assert [sorted(n.name for n in c) for c in clusters] == [["Ann", "Bo"]]
