"""AnatidGraphAdapter behaviour beyond Cognee's own suites: value round trips, upsert and
delete semantics, history (as_of), the shared store, and native extras checked against the
interface's reference implementations."""

from __future__ import annotations

import asyncio
import json
from datetime import date, datetime, timedelta, timezone
from uuid import UUID, uuid4

import pytest
from anatid_cognee import AnatidGraphAdapter, AnatidVectorAdapter, CypherNotSupported
from anatid_cognee.errors import ReadOnlyAdapter
from cognee.infrastructure.databases.graph.graph_db_interface import GraphDBInterface
from cognee.infrastructure.engine import DataPoint
from cognee.modules.storage.utils import JSONEncoder

from tests.cognee.cognee_fakes import HashEmbeddingEngine


class Person(DataPoint):
    name: str
    born: datetime | None = None
    friend_id: UUID | None = None
    tags: list[str] = []
    extra: dict = {}
    metadata: dict = {"index_fields": ["name"]}


class Stamp(DataPoint):
    time_at: int
    time_until: int | None = None
    timestamp_str: str = ""
    metadata: dict = {"index_fields": []}


@pytest.fixture
async def graph(tmp_path):
    adapter = AnatidGraphAdapter(graph_database_url=str(tmp_path / "g.duckdb"))
    yield adapter
    await adapter.close()


async def test_node_properties_come_back_as_ladybug_json_values_or_exactly_on_request(graph):
    friend = uuid4()
    born = datetime(1990, 5, 17, 8, 30, tzinfo=timezone(timedelta(hours=2)))
    alice = Person(
        name="Alice",
        born=born,
        friend_id=friend,
        tags=["a", "b"],
        extra={"nested": {"d": date(2020, 1, 2), "n": None}},
    )
    await graph.add_nodes([alice])

    # What LadybugDB returns (and what Cognee's json.dumps calls expect): JSON values.
    stored = await graph.get_node(str(alice.id))
    assert stored == json.loads(
        json.dumps({**alice.model_dump(), "id": str(alice.id)}, cls=JSONEncoder)
    )
    assert stored["born"] == "1990-05-17T08:30:00+02:00"
    assert stored["friend_id"] == str(friend) and stored["extra"]["nested"]["d"] == "2020-01-02"
    json.dumps(await graph.get_graph_data())  # no TypeError (issue 14)

    # The exact types stay reachable: the opt-in view returns what went in.
    exact = await graph.with_exact_values().get_node(str(alice.id))
    assert exact == {**alice.model_dump(), "id": str(alice.id)}
    assert exact["born"] == born and exact["born"].utcoffset() == timedelta(hours=2)
    assert isinstance(exact["friend_id"], UUID)


async def test_edges_from_uuids_get_string_ids_and_json_properties(graph):
    a, b = Person(name="A"), Person(name="B")
    await graph.add_nodes([a, b])
    when = datetime(2024, 1, 1, tzinfo=timezone.utc)
    props = {"source_node_id": a.id, "target_node_id": b.id, "updated_at": when, "w": 0.5}
    await graph.add_edges([(a.id, b.id, "knows", props)])

    nodes, edges = await graph.get_graph_data()
    as_json = {
        "source_node_id": str(a.id),
        "target_node_id": str(b.id),
        "updated_at": "2024-01-01T00:00:00+00:00",
        "w": 0.5,
    }
    assert edges == [(str(a.id), str(b.id), "knows", as_json)]
    assert sorted(n for n, _ in nodes) == sorted([str(a.id), str(b.id)])
    _, exact_edges = await graph.with_exact_values().get_graph_data()
    assert exact_edges == [(str(a.id), str(b.id), "knows", props)]


async def test_upserts_are_idempotent_and_last_write_wins(graph):
    a, b = Person(name="A"), Person(name="B")
    await graph.add_nodes([a, b, a])
    await graph.add_edges([(a.id, b.id, "knows", {"v": 1}), (a.id, b.id, "knows", {"v": 2})])
    await graph.add_edges([(a.id, b.id, "knows", {"v": 3})])
    await graph.add_nodes([Person(id=a.id, name="A2")])

    assert await graph.get_graph_counts() == (2, 1)
    assert (await graph.get_node(str(a.id)))["name"] == "A2"
    _, edges = await graph.get_graph_data()
    assert edges[0][3] == {"v": 3}


async def test_edges_to_missing_endpoints_are_skipped(graph):
    a = Person(name="A")
    await graph.add_nodes([a])
    await graph.add_edges([(a.id, uuid4(), "knows", {}), (uuid4(), a.id, "knows", {})])
    assert await graph.get_graph_counts() == (1, 0)


async def test_delete_detaches_and_tolerates_missing_ids(graph):
    a, b, c = Person(name="A"), Person(name="B"), Person(name="C")
    await graph.add_nodes([a, b, c])
    await graph.add_edges([(a.id, b.id, "knows", {}), (b.id, c.id, "knows", {})])
    await graph.delete_nodes([str(b.id), "ghost"])
    await graph.delete_node("ghost-too")

    assert await graph.get_graph_counts() == (2, 0)
    assert await graph.has_node(str(b.id)) is False


async def test_query_runs_cypher_on_ladybugs_tables_and_refuses_writes(graph):
    a, b = Person(name="Alice"), Person(name="Bob")
    await graph.add_nodes([a, b])
    await graph.add_edges([(a.id, b.id, "knows", {"weight": 2})])
    rows = await graph.query(
        "MATCH (n:Node)-[r:EDGE]->(m:Node) RETURN n.name, r.relationship_name, m.id, r.properties"
    )
    assert rows == [("Alice", "knows", str(b.id), '{"weight": 2}')]
    assert await graph.query("MATCH (n:Node {name: $name}) RETURN n.type", {"name": "Bob"}) == [
        ("Person",)
    ]
    assert graph.supports_cypher_queries is True
    with pytest.raises(CypherNotSupported, match="DETACH DELETE writes") as info:
        await graph.query("MATCH (n) DETACH DELETE n")
    assert isinstance(info.value, NotImplementedError)
    assert await graph.get_graph_counts() == (2, 1)


async def test_as_of_sees_the_graph_as_it_was(graph):
    a, b = Person(name="Alice"), Person(name="Bob")
    await graph.add_nodes([a, b])
    await graph.add_edges([(a.id, b.id, "knows", {})])
    before = datetime.now(timezone.utc)
    await asyncio.sleep(0.01)
    await graph.add_nodes([Person(id=a.id, name="Alice Smith")])
    await graph.delete_node(str(b.id))

    past = graph.as_of(before)
    nodes, edges = await past.get_graph_data()
    assert {d["name"] for _, d in nodes} == {"Alice", "Bob"}
    assert len(edges) == 1
    hood, _ = await past.get_neighborhood([str(a.id)], depth=1)
    assert sorted(d["name"] for _, d in hood) == ["Alice", "Bob"]

    now_nodes, now_edges = await graph.get_graph_data()
    assert [d["name"] for _, d in now_nodes] == ["Alice Smith"] and now_edges == []
    cypher = "MATCH (n:Node)-[r:EDGE]->(m:Node) RETURN n.name, r.relationship_name, m.name"
    assert await past.query(cypher) == [("Alice", "knows", "Bob")]
    assert await graph.query(cypher) == []
    with pytest.raises(ReadOnlyAdapter):
        await past.add_nodes([Person(name="Carol")])
    await graph.close()
    with pytest.raises(RuntimeError, match="closed"):
        await past.get_graph_data()


async def test_graph_and_vector_adapters_share_one_store(tmp_path):
    path = str(tmp_path / "shared.duckdb")
    graph = AnatidGraphAdapter(graph_database_url=path)
    vector = AnatidVectorAdapter(url=path, embedding_engine=HashEmbeddingEngine())
    try:
        assert graph._store is vector._store
        await graph.add_nodes([Person(name="Alice")])
        await vector.create_data_points("Person_name", [Person(name="Alice")])
        await vector.prune()
        assert await graph.get_graph_counts() == (1, 0)
        await graph.close()
        assert not vector._store.closed
    finally:
        await graph.close()
        await vector.close()
    assert vector._store.closed


async def test_closed_adapter_raises_a_clean_error(graph):
    await graph.close()
    await graph.close()
    with pytest.raises(RuntimeError, match="closed"):
        await graph.get_graph_data()


async def _timeline(graph):
    chunk, other = Person(name="chunk"), Person(name="other chunk")
    alice, bob = Person(name="alice"), Person(name="bob")
    stamps = [
        Stamp(time_at=1_000_000, time_until=2_000_000, timestamp_str="a"),
        Stamp(time_at=5_000_000, timestamp_str="b"),
        Stamp(time_at=9_000_000, time_until=9_500_000, timestamp_str="c"),
    ]
    for s in stamps:
        object.__setattr__(s, "type", "Timestamp")
    for p, t in ((alice, "Entity"), (bob, "Entity")):
        object.__setattr__(p, "type", t)
    await graph.add_nodes([chunk, other, alice, bob, *stamps])
    await graph.add_edges(
        [
            (chunk.id, alice.id, "contains", {}),
            (other.id, bob.id, "contains", {}),
            (chunk.id, stamps[0].id, "contains", {}),
            (alice.id, stamps[1].id, "born_at", {}),
            (bob.id, stamps[2].id, "died_at", {}),
        ]
    )
    return [str(x.id) for x in (chunk, other)], [str(x.id) for x in (alice, bob)]


@pytest.mark.parametrize(
    "window",
    [
        (None, None),
        (0, 1_500_000),
        (1_999_999, 5_000_001),
        (5_000_999, 9_000_001),
        (9_600_000, None),
        (None, 1_000_000),
    ],
)
async def test_temporal_methods_match_the_interface_reference(graph, window):
    chunks, entities = await _timeline(graph)
    start, end = window
    native = await graph.get_timestamps_in_range(start, end)
    reference = await GraphDBInterface.get_timestamps_in_range(graph, start, end)
    assert sorted(t["id"] for t in native) == sorted(t["id"] for t in reference)
    assert all({"timestamp_str", "time_at", "time_until"} <= set(t) for t in native)

    anchors = await graph.get_temporal_anchors(chunks, entities, start, end)
    expected = await GraphDBInterface.get_temporal_anchors(graph, chunks, entities, start, end)
    assert anchors == expected


async def test_entity_type_names_and_degree_helpers(graph):
    alice, person = Person(name="alice"), Person(name="person")
    object.__setattr__(alice, "type", "Entity")
    object.__setattr__(person, "type", "EntityType")
    lone = Person(name="lone")
    object.__setattr__(lone, "type", "Entity")
    await graph.add_nodes([alice, person, lone])
    await graph.add_edges([(alice.id, person.id, "is_a", {})])

    names = await graph.get_entity_type_names([str(alice.id), str(lone.id)])
    assert names == await GraphDBInterface.get_entity_type_names(graph, [str(alice.id)])
    assert names == {str(alice.id): "person"}
    assert [n["id"] for n in await graph.get_degree_one_nodes("Entity")] == [str(alice.id)]
    seeds = await graph.get_top_degree_node_ids(3)
    assert set(seeds[:2]) == {str(alice.id), str(person.id)} and len(seeds) == 3


async def test_bounded_neighbourhood_caps_members_and_yields_each_edge_once(graph):
    people = [Person(name=f"p{i}") for i in range(8)]
    await graph.add_nodes(people)
    await graph.add_edges([(people[0].id, p.id, "knows", {}) for p in people[1:]])
    chunks = [
        c
        async for c in graph.iter_bounded_neighborhood(
            [str(people[0].id)], depth=2, max_nodes=5, chunk_size=2
        )
    ]
    members = [n for nodes, _ in chunks for n, _ in nodes]
    assert len(members) == 5 and members[0] == str(people[0].id)
    edges = [e for _, es in chunks for e in es]
    assert len(edges) == 4


async def test_vector_failure_then_retry_converges(tmp_path):
    """Cognee's unified-contract scenario that builds its adapter itself, on anatid."""
    from cognee.infrastructure.databases.provenance import make_source_ref_key

    from tests.cognee.wheel_suites import load_wheel_module

    suite = load_wheel_module(
        "integration/infrastructure/graph/test_graph_provenance_unified_contract.py"
    )
    graph = AnatidGraphAdapter(graph_database_url=str(tmp_path / "g.duckdb"))
    try:
        key = make_source_ref_key(uuid4(), uuid4())
        node = suite._Ent(name="Doomed")
        await graph.add_nodes([node])
        await graph.attach_node_source_refs([str(node.id)], [key], str(uuid4()))
        snap = (await graph.get_node_delete_data([str(node.id)]))[str(node.id)]
        collection = f"{snap.node_type}_{snap.indexed_fields[0]}"
        engine = suite._new_engine(graph, suite.RecordingVectorEngine(fail_once_on=collection))
        with pytest.raises(RuntimeError, match="injected vector failure"):
            await engine.delete_by_source_ref(key)
        assert await graph.find_nodes_by_source_ref(key) == [str(node.id)]
        await engine.delete_by_source_ref(key)
        assert await graph.get_node_delete_data([str(node.id)]) == {}
    finally:
        await graph.close()


@pytest.mark.parametrize("depth", [0, 1, 2, 3])
@pytest.mark.parametrize("edge_types", [None, ["a"]])
async def test_neighbourhood_returns_every_edge_among_its_nodes(graph, depth, edge_types):
    """Against a brute-force reference: reachability over allowed edges, then all edges
    (of any type) whose two ends were reached."""
    import random

    rng = random.Random(depth)
    people = [Person(name=f"p{i}") for i in range(30)]
    await graph.add_nodes(people)
    pairs = {(rng.randrange(30), rng.randrange(30), rng.choice("ab")) for _ in range(70)}
    await graph.add_edges([(people[s].id, people[t].id, r, {}) for s, t, r in pairs])

    ids = [str(p.id) for p in people]
    reached, frontier = {ids[0]}, {ids[0]}
    for _ in range(depth):
        nxt = set()
        for s, t, r in pairs:
            if edge_types and r not in edge_types:
                continue
            for here, there in ((ids[s], ids[t]), (ids[t], ids[s])):
                if here in frontier and there not in reached:
                    nxt.add(there)
        reached |= nxt
        frontier = nxt
    expected = {(ids[s], ids[t], r) for s, t, r in pairs if ids[s] in reached and ids[t] in reached}

    nodes, edges = await graph.get_neighborhood([ids[0]], depth=depth, edge_types=edge_types)
    assert {n for n, _ in nodes} == reached
    assert {(s, t, r) for s, t, r, _ in edges} == expected
    assert len(edges) == len(expected)


async def test_history_lists_versions_and_purge_erases_them(graph):
    a, b = Person(name="Alice"), Person(name="Bob")
    await graph.add_nodes([a, b])
    await graph.add_edges([(a.id, b.id, "knows", {"since": 1})])
    await graph.add_edges([(a.id, b.id, "knows", {"since": 2})])
    await graph.add_nodes([Person(id=a.id, name="Alice Smith")])
    await graph.delete_node(str(a.id))

    versions = await graph.history(str(a.id))
    assert [v["properties"]["name"] for v in versions] == ["Alice", "Alice Smith"]
    assert versions[0]["tx_to"] is not None and versions[1]["tx_to"] is not None
    edge_versions = await graph.edge_history(str(a.id), str(b.id), "knows")
    assert [v["properties"]["since"] for v in edge_versions] == [1, 2]

    await graph.purge_nodes([str(a.id)])
    assert await graph.history(str(a.id)) == []
    assert await graph.edge_history(str(a.id), str(b.id), "knows") == []
    assert await graph.has_node(str(b.id))


async def test_feedback_weights_and_truth_state(graph):
    from cognee.modules.improve.capabilities import probe_graph_capabilities

    a, b = Person(name="A"), Person(name="B")
    await graph.add_nodes([a, b])
    object_id = uuid4()
    await graph.add_edges([(a.id, b.id, "knows", {"edge_object_id": object_id})])
    ia, ib = str(a.id), str(b.id)

    assert await graph.get_node_feedback_weights([ia, "ghost"]) == {ia: 0.5}
    assert await graph.set_node_feedback_weights({ia: 0.9, "ghost": 0.1}) == {
        ia: True,
        "ghost": False,
    }
    assert await graph.get_node_feedback_weights([ia]) == {ia: 0.9}

    assert await graph.set_node_truth_state({ib: {"truth_alignment": [1, 0], "truth_epoch": 3}})
    assert await graph.get_node_truth_state([ib]) == {
        ib: {"truth_alignment": [1, 0], "truth_epoch": 3}
    }

    eid = str(object_id)
    assert await graph.get_edge_feedback_weights([eid]) == {eid: 0.5}
    assert await graph.set_edge_feedback_weights({eid: 0.2, "nope": 0.3}) == {
        eid: True,
        "nope": False,
    }
    assert await graph.get_edge_feedback_weights([eid]) == {eid: 0.2}
    _, edges = await graph.get_graph_data()
    assert edges[0][3] == {"edge_object_id": str(object_id), "feedback_weight": 0.2}

    capabilities = probe_graph_capabilities(graph)
    assert capabilities.supports_feedback_weights and capabilities.supports_truth_state


def _typed(name: str, node_type: str) -> Person:
    node = Person(name=name)
    object.__setattr__(node, "type", node_type)
    return node


async def test_document_subgraph_finds_what_only_this_document_owns(graph):
    doc, other_doc = _typed("doc", "TextDocument"), _typed("other", "TextDocument")
    chunk, other_chunk = _typed("c1", "DocumentChunk"), _typed("c2", "DocumentChunk")
    own, shared = _typed("own", "Entity"), _typed("shared", "Entity")
    own_type, shared_type = _typed("own type", "EntityType"), _typed("shared type", "EntityType")
    summary = _typed("summary", "TextSummary")
    await graph.add_nodes(
        [doc, other_doc, chunk, other_chunk, own, shared, own_type, shared_type, summary]
    )
    await graph.add_edges(
        [
            (chunk.id, doc.id, "is_part_of", {}),
            (other_chunk.id, other_doc.id, "is_part_of", {}),
            (chunk.id, own.id, "contains", {}),
            (chunk.id, shared.id, "contains", {}),
            (other_chunk.id, shared.id, "contains", {}),
            (own.id, own_type.id, "is_a", {}),
            (shared.id, shared_type.id, "is_a", {}),
            (summary.id, chunk.id, "made_from", {}),
        ]
    )

    sub = await graph.get_document_subgraph(str(doc.id))
    names = {key: sorted(n["name"] for n in nodes) for key, nodes in sub.items()}
    assert names == {
        "document": ["doc"],
        "chunks": ["c1"],
        "orphan_entities": ["own"],
        "made_from_nodes": ["summary"],
        "orphan_types": ["own type"],
    }
    missing = await graph.get_document_subgraph(str(uuid4()))
    assert all(v == [] for v in missing.values())


async def test_small_reads_answer_on_the_loop_with_the_same_values(graph, tmp_path, monkeypatch):
    """get_node/get_nodes of a few ids answer on the event loop from the in-memory records
    (no worker thread), with exactly what the thread path gives; a past (as_of) adapter and
    a large read still go through a thread."""
    from anatid_core import SETTINGS

    people = [
        Person(name=f"p{i}", born=datetime(2000, 1, 1, tzinfo=timezone.utc)) for i in range(120)
    ]
    await graph.add_nodes(people)
    ids = [str(p.id) for p in people]
    hops = []
    real = asyncio.to_thread

    async def counted(fn, *args, **kwargs):
        hops.append(fn)
        return await real(fn, *args, **kwargs)

    await graph.get_node(ids[0])  # the first read builds the in-memory records (a thread)
    monkeypatch.setattr(asyncio, "to_thread", counted)
    on_loop = [await graph.get_node(i) for i in ids[:5]], await graph.get_nodes(ids[:100])
    assert hops == []
    await graph.get_nodes(ids)  # 120 ids: more than a loop's share
    assert len(hops) == 1
    monkeypatch.setitem(SETTINGS, "current_records_limit", 0)  # no records in memory
    other = AnatidGraphAdapter(graph_database_url=str(tmp_path / "off.duckdb"))
    await other.add_nodes(people)
    hops.clear()
    in_thread = [await other.get_node(i) for i in ids[:5]], await other.get_nodes(ids[:100])
    assert len(hops) == 6 and in_thread == on_loop
    assert on_loop[0][0]["born"] == "2000-01-01T00:00:00+00:00"
    await other.close()


class Chunk(DataPoint):
    text: str
    chunk_index: int
    chunk_size: int = 0
    metadata: dict = {"index_fields": ["text"]}


async def test_update_chunk_index_moves_only_the_index(graph):
    """Cognee's incremental update renumbers a kept chunk with update_chunk_index: nothing
    else on the node may change, provenance included (issue 35)."""
    from cognee.infrastructure.databases.provenance import make_source_ref_key

    chunk = Chunk(text="Alice works at Acme.", chunk_index=1, chunk_size=5)
    key = make_source_ref_key(uuid4(), uuid4())
    await graph.add_nodes([chunk], source_ref_key=key)
    cid = str(chunk.id)
    before = await graph.get_node(cid)
    moved_at = datetime.now(timezone.utc)
    await asyncio.sleep(0.01)

    await graph.update_chunk_index({cid: 3, str(uuid4()): 0})  # a missing id is skipped

    assert await graph.get_node(cid) == {**before, "chunk_index": 3}
    assert (await graph.get_node_delete_data([cid]))[cid].source_ref_keys == [key]
    assert (await graph.as_of(moved_at).get_node(cid))["chunk_index"] == 1
    await graph.update_chunk_index({})
    assert graph.supports_incremental_chunk_updates


async def test_query_takes_its_deadline_from_the_environment(graph, monkeypatch):
    # Cognee's query() has no timeout argument: ANATID_CYPHER_TIMEOUT bounds it (issue 42)
    from anatid_core import CypherTimeout

    monkeypatch.setenv("ANATID_CYPHER_TIMEOUT", "0.05")
    slow = "UNWIND range(1, 3000) AS i RETURN size([x IN range(1, 3000) WHERE x % 7 = i])"
    with pytest.raises(Exception) as info:  # noqa: PT011 (Cognee's mapped type, checked below)
        await graph.query(slow)
    assert isinstance(info.value.__cause__, CypherTimeout)
    assert "deadline" in str(info.value)
    monkeypatch.setenv("ANATID_CYPHER_TIMEOUT", "30")
    assert await graph.query("RETURN 1") == [(1,)]
