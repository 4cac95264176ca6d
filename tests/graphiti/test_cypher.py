"""Raw Cypher through GraphitiDriver: Graphiti's Neo4j property names, whole records as
property maps, Neo4j's full-text procedures, the past through ``as_of_`` or an as_of driver."""

from __future__ import annotations

import time
from datetime import datetime, timezone

import pytest
from anatid_graphiti import GraphitiDriver

from anatid_core import CypherUnsupported

from .conftest import add


async def test_a_fact_reads_with_graphitis_neo4j_properties(graphiti, driver: GraphitiDriver):
    result = await add(graphiti, "Alice works at Acme.", 1)
    [edge] = result.edges
    records, _, keys = await driver.execute_query(
        """
        MATCH (a:Entity)-[r:RELATES_TO]->(b:Entity)
        RETURN a.name AS source, r.name AS relation, r.fact AS fact, b.name AS target,
               r.uuid AS uuid, r.episodes AS episodes, size(r.fact_embedding) AS dims,
               startNode(r).uuid = a.uuid AS forward
        """
    )
    assert keys == ["source", "relation", "fact", "target", "uuid", "episodes", "dims", "forward"]
    assert records == [
        {
            "source": "Alice",
            "relation": edge.name,
            "fact": edge.fact,
            "target": "Acme",
            "uuid": edge.uuid,
            "episodes": [result.episode.uuid],
            "dims": len(edge.fact_embedding or []),
            "forward": True,
        }
    ]
    [(node,)] = [
        tuple(r.values())
        for r in (await driver.execute_query("MATCH (n:Entity {name: 'Alice'}) RETURN n"))[0]
    ]
    assert {"uuid", "name", "group_id", "summary", "created_at", "name_embedding"} <= set(node)
    assert isinstance(node["created_at"], datetime)


async def test_full_text_procedure_reads_graphitis_lucene_query(graphiti, driver):
    await add(graphiti, "Alice works at Acme.", 1)
    await add(graphiti, "Bob lives in Paris.", 2)
    records, _, _ = await driver.execute_query(
        'CALL db.index.fulltext.queryNodes("node_name_and_summary", $q, {limit: 5}) '
        "YIELD node, score RETURN node.name AS name",
        q='group_id:"" AND (Alice)',
    )
    names = [r["name"] for r in records]
    # the index covers name and summary, as Neo4j's node_name_and_summary does
    assert names[0] == "Alice" and not {"Bob", "Paris"} & set(names)


async def test_the_past_through_as_of_and_an_as_of_driver(graphiti, driver: GraphitiDriver):
    await add(graphiti, "Alice works at Acme.", 1)
    before = datetime.now(timezone.utc)
    time.sleep(0.002)
    await add(graphiti, "Bob works at Acme.", 2)
    query = "MATCH (n:Entity) RETURN n.name AS name ORDER BY name"
    now_names = [r["name"] for r in (await driver.execute_query(query))[0]]
    assert now_names == ["Acme", "Alice", "Bob"]
    past = [r["name"] for r in (await driver.execute_query(query, as_of_=before))[0]]
    assert past == ["Acme", "Alice"]
    past_driver = driver.as_of(before)
    assert [r["name"] for r in (await past_driver.execute_query(query))[0]] == past
    async with driver.session() as session:
        records, _, _ = await session.run(query, as_of_=before)
    assert [r["name"] for r in records] == past


async def test_outside_the_subset_is_named(driver):
    with pytest.raises(CypherUnsupported, match="CALL apoc.meta.schema"):
        await driver.execute_query("CALL apoc.meta.schema() YIELD value RETURN value")


async def test_the_drivers_cypher_timeout_bounds_raw_cypher(monkeypatch: pytest.MonkeyPatch):
    from anatid_core import CypherTimeout, Edge, Node
    from anatid_core.cypher import limits

    monkeypatch.setitem(limits.LIMITS, "rows", 10**12)
    monkeypatch.setitem(limits.LIMITS, "steps", 10**12)
    d = GraphitiDriver(":memory:", cypher_timeout=0.2)
    try:
        n = 40
        d.store.upsert_nodes(Node(id=f"k{i}", labels=("Entity",)) for i in range(n))
        d.store.upsert_edges(
            Edge(id=f"k{i}-{j}", src=f"k{i}", dst=f"k{j}", rel="RELATES_TO")
            for i in range(n)
            for j in range(n)
            if i != j
        )
        with pytest.raises(CypherTimeout):
            await d.execute_query("MATCH (a:Entity)-[*]->(b) RETURN count(*) AS n")
        with pytest.raises(CypherTimeout):
            await d.as_of(datetime.now(timezone.utc)).execute_query(
                "MATCH (a:Entity)-[*]->(b) RETURN count(*) AS n"
            )
        records, _, _ = await d.execute_query("MATCH (a:Entity) RETURN count(a) AS n")
        assert records == [{"n": n}]
    finally:
        await d.close()


async def test_a_returned_relationship_omits_null_properties_as_neo4j_does(graphiti, driver):
    await add(graphiti, "Alice works at Acme.", 1)
    records, _, _ = await driver.execute_query(
        "MATCH ()-[e:RELATES_TO]->() RETURN e, keys(e) AS keys, e {.uuid, .expired_at} AS p"
    )
    [record] = records
    assert None not in record["e"].values()
    assert sorted(record["e"]) == sorted(record["keys"])
    assert record["p"] == {"uuid": record["e"]["uuid"], "expired_at": None}


def test_entity_and_fact_properties_equal_the_models_values():
    """Cypher reads an entity's and a fact's properties straight from the record (issue 42);
    they are the values Graphiti's models hold once read back (attributes, exact times)."""
    from datetime import timedelta

    from anatid_graphiti import cypher_shape
    from anatid_graphiti import mapping as m
    from graphiti_core.edges import EntityEdge
    from graphiti_core.nodes import EntityNode

    at = datetime(2024, 5, 1, 12, 30, 0, 123456, tzinfo=timezone.utc)
    entity = EntityNode(
        uuid="e1",
        name="Alice",
        group_id="g",
        labels=["Entity", "Person"],
        created_at=at,
        summary="a person",
        attributes={"age": 30, "tags": ["x"], "name": "not the name"},
    )
    fact = EntityEdge(
        uuid="f1",
        source_node_uuid="e1",
        target_node_uuid="e2",
        group_id="g",
        name="KNOWS",
        fact="Alice knows Bob",
        episodes=["ep1", "ep2"],
        created_at=at,
        valid_at=at - timedelta(days=1),
        invalid_at=at + timedelta(microseconds=7),
        expired_at=None,
        reference_time=at,
        attributes={"weight": 0.5, "fact": "not the fact"},
    )
    node, edge = m.to_node(entity), m.to_edge(fact)
    model_node, model_edge = m.from_node(node), m.from_edge(edge)
    assert isinstance(model_node, EntityNode) and isinstance(model_edge, EntityEdge)
    want_node = {
        "uuid": model_node.uuid,
        "name": model_node.name,
        "group_id": model_node.group_id,
        "summary": model_node.summary,
        "created_at": model_node.created_at,
        "age": 30,
        "tags": ["x"],
    }
    assert cypher_shape.node_properties(node) == want_node
    want_edge = {
        "uuid": model_edge.uuid,
        "source_uuid": model_edge.source_node_uuid,
        "target_uuid": model_edge.target_node_uuid,
        "name": model_edge.name,
        "group_id": model_edge.group_id,
        "fact": model_edge.fact,
        "episodes": model_edge.episodes,
        "created_at": model_edge.created_at,
        "expired_at": model_edge.expired_at,
        "valid_at": model_edge.valid_at,
        "invalid_at": model_edge.invalid_at,
        "reference_time": model_edge.reference_time,
        "weight": 0.5,
    }
    assert cypher_shape.edge_properties(edge) == want_edge
    # what Cypher reads without the map (``quick_property``) is the map's value, attributes
    # named like a column included; every other key needs the map
    from anatid_core import CYPHER_WHOLE_MAP as WHOLE_MAP

    for record, props in ((node, want_node), (edge, want_edge)):
        for key in [*props, "tags", "nothing", "name_embedding", "fact_embedding"]:
            quick = cypher_shape.SHAPE.quick_property(record, key)
            assert quick is WHOLE_MAP or quick == props.get(key), key
    assert cypher_shape.SHAPE.quick_property(node, "uuid") == "e1"
    open_fact = m.to_edge(fact.model_copy(update={"valid_at": None, "invalid_at": None}))
    props = cypher_shape.edge_properties(open_fact)
    assert props["valid_at"] is None and props["invalid_at"] is None
    for key in ("valid_at", "invalid_at"):
        assert cypher_shape.SHAPE.quick_property(open_fact, key) is None
    assert cypher_shape.SHAPE.quick_property(edge, "source_uuid") == "e1"
    # where the shape says a narrowed read is exact (the engine then does not check the
    # equality again), the property is the field's value, attributes named alike or not
    shape, exact = cypher_shape.SHAPE, 0
    for kind, record, props, among in (
        ("node", node, want_node, [m.ENTITY]),
        ("edge", edge, want_edge, [m.RELATES_TO]),
    ):
        for key in props:
            if shape.exact_field(kind, key, among):
                field = shape.field_of(kind, key)
                assert field is not None and props[key] == getattr(record, field), key
                exact += 1
    assert exact == 8  # uuid, name, group_id and summary or fact
    for among in (None, [m.ENTITY, "Episodic"], ["Episodic"], ["Person"]):
        assert not shape.exact_field("node", "summary", among)
    assert not shape.exact_field("edge", "uuid", ["MENTIONS"])


def spy_on_cypher(d: GraphitiDriver, monkeypatch) -> list[tuple[str, float | None]]:
    """The (thread name, timeout) of each call of the driver's store's ``cypher``."""
    import threading

    calls: list[tuple[str, float | None]] = []
    cypher = d.store.cypher

    def spy(query, params=None, *, shape=None, timeout=None):
        calls.append((threading.current_thread().name, timeout))
        return cypher(query, params, shape=shape, timeout=timeout)

    monkeypatch.setattr(d.store, "cypher", spy)
    return calls


async def test_a_quick_query_runs_on_the_loop_and_a_long_one_on_a_thread(monkeypatch):
    import threading

    from anatid_graphiti import runner

    from anatid_core import Node

    d = GraphitiDriver(":memory:")
    calls = spy_on_cypher(d, monkeypatch)
    # the budget is set wide, then narrow: on a loaded machine a one-row query can take over
    # the real 2 ms, and this test is about where a query runs, not how fast it is
    monkeypatch.setattr(runner, "QUICK_QUERY", 10.0)
    loop_thread = threading.current_thread().name
    try:
        d.store.upsert_nodes(Node(id=f"k{i}", labels=("Entity",), name=f"n{i}") for i in range(20))
        quick = "MATCH (n:Entity {uuid: $uuid}) RETURN n.name AS name"
        await d.execute_query(quick, uuid="k0")  # may build the in-memory records first
        calls.clear()
        for i in range(5):
            records, _, _ = await d.execute_query(quick, uuid=f"k{i}")
            assert records == [{"name": f"n{i}"}]
        assert [thread for thread, _ in calls] == [loop_thread] * 5  # no thread hop

        calls.clear()
        monkeypatch.setattr(runner, "QUICK_QUERY", 1e-4)
        long = "UNWIND range(1, 300000) AS x RETURN count(x) AS n"
        records, _, _ = await d.execute_query(long)
        assert records == [{"n": 300000}]  # stopped on the loop, answered whole on a thread
        assert calls[0] == (loop_thread, runner.QUICK_QUERY)
        assert len(calls) == 2 and calls[1][0] != loop_thread and calls[1][1] is None
        calls.clear()
        assert (await d.execute_query(long))[0] == [{"n": 300000}]
        assert len(calls) == 1 and calls[0][0] != loop_thread  # known long: no try on the loop

        # another process waits for the file: a quick query hands it over from a thread,
        # never from the event loop
        monkeypatch.setattr(runner, "QUICK_QUERY", 10.0)
        paused: list[str] = []
        monkeypatch.setattr(d.store.connection, "others_wait", lambda: True)
        monkeypatch.setattr(
            d.store.connection, "pause", lambda: paused.append(threading.current_thread().name)
        )
        calls.clear()
        records, _, _ = await d.execute_query(quick, uuid="k3")
        assert records == [{"name": "n3"}]
        assert paused and loop_thread not in paused
        assert calls[-1][0] != loop_thread
    finally:
        await d.close()


async def test_a_deadline_under_the_loop_budget_keeps_a_query_on_a_thread(monkeypatch):
    """ANATID_CYPHER_TIMEOUT under the event loop's budget: the loop try would stop the query
    at the budget, later than its deadline, so the query runs on a thread with its deadline."""
    import threading

    from anatid_graphiti import runner

    d = GraphitiDriver(":memory:")
    calls = spy_on_cypher(d, monkeypatch)
    monkeypatch.setattr(runner, "QUICK_QUERY", 10.0)
    try:
        await d.execute_query("RETURN 1 AS one")
        await d.execute_query("RETURN 1 AS one")
        assert calls[-1][0] == threading.current_thread().name  # quick: on the loop
        monkeypatch.setenv("ANATID_CYPHER_TIMEOUT", "5")  # under the (widened) budget
        calls.clear()
        records, _, _ = await d.execute_query("RETURN 1 AS one")
        assert records == [{"one": 1}]
        assert len(calls) == 1 and calls[0] == (calls[0][0], None)
        assert calls[0][0] != threading.current_thread().name
        monkeypatch.setenv("ANATID_CYPHER_TIMEOUT", "soon")
        with pytest.raises(ValueError, match="ANATID_CYPHER_TIMEOUT"):  # InvalidInput, as before
            await d.execute_query("RETURN 1 AS one")
    finally:
        await d.close()


async def test_records_graphiti_did_not_write_come_back_without_its_keys():
    # an entity and a fact written by the core's verbs (another tool, a script) have no
    # created_at: Neo4j returns such a node with the properties it has; execute_query raised
    # an untyped KeyError
    from anatid_core import Edge, Node

    d = GraphitiDriver(":memory:")
    try:
        d.store.upsert_nodes(
            [
                Node(id="a", labels=("Entity",), name="A", group="g"),
                Node(id="b", labels=("Entity",), name="B", group="g"),
            ]
        )
        d.store.upsert_edge(Edge(id="e", src="a", dst="b", rel="RELATES_TO", group="g", text="f"))
        records, _, _ = await d.execute_query(
            "MATCH (n:Entity {uuid: 'a'})-[r:RELATES_TO]->(m) RETURN n, r, [(n)-->(x) | x.name] AS xs"
        )
        [record] = records
        assert record["n"] == {"uuid": "a", "name": "A", "group_id": "g", "summary": ""}
        assert record["r"]["uuid"] == "e" and "created_at" not in record["r"]
        assert record["xs"] == ["B"]
        # the other kinds: their models could not be built (no source, no created_at)
        d.store.upsert_nodes(
            Node(id=kind.lower(), labels=(kind,), name=kind, group="g")
            for kind in ("Episodic", "Community", "Saga")
        )
        d.store.upsert_edge(Edge(id="m", src="episodic", dst="a", rel="MENTIONS", group="g"))
        records, _, _ = await d.execute_query(
            "MATCH (n) WHERE NOT n:Entity RETURN n.uuid AS id, n ORDER BY id"
        )
        assert [(r["id"], r["n"]["name"]) for r in records] == [
            ("community", "Community"),
            ("episodic", "Episodic"),
            ("saga", "Saga"),
        ]
        records, _, _ = await d.execute_query("MATCH ()-[r:MENTIONS]->() RETURN r")
        assert records[0]["r"]["uuid"] == "m"
    finally:
        await d.close()


async def test_a_distinct_neighbourhood_walks_each_entity_once(graphiti, driver, monkeypatch):
    # ``m.uuid <> n.uuid`` rules the start out (an entity's uuid is its id: an exact field of
    # Graphiti's shape), so a DISTINCT walk reaches each entity once (issue 42's *1..3)
    from anatid_core.cypher import engine

    for n, body in enumerate(
        ["Alice works at Acme.", "Bob works at Acme.", "Bob lives in Paris.", "Carol knows Alice."]
    ):
        await add(graphiti, body, n)
    decided: list[bool] = []  # walked by the reach column plan (its reads are exact columns)
    rows = engine.reach_column_rows
    monkeypatch.setattr(engine, "reach_column_rows", lambda *a: decided.append(True) or rows(*a))
    query = (
        "MATCH (n:Entity {name: $name})-[:RELATES_TO*1..3]-(m:Entity) WHERE m.uuid <> n.uuid "
        "RETURN DISTINCT m.name AS name"
    )
    for name, reached in (("Alice", {"Acme", "Bob", "Carol", "Paris"}), ("Paris", {"Bob", "Acme"})):
        decided.clear()
        records, _, _ = await driver.execute_query(query, name=name)
        assert decided and all(decided)  # (run again on a thread where it would wait)
        walked = await driver.execute_query(
            query.replace("m.uuid <> n.uuid", "NOT m.uuid = n.uuid"), name=name
        )
        assert {r["name"] for r in records} == {r["name"] for r in walked[0]} >= reached
    # two fixed hops through an unnamed middle entity: walked as sets of nodes, by the reach
    # column plan too (issue 42's 2-hop)
    query = (
        "MATCH (n:Entity {name: $name})-[:RELATES_TO]-(:Entity)-[:RELATES_TO]-(m:Entity) "
        "WHERE m.uuid <> n.uuid RETURN DISTINCT m.name AS name"
    )
    for name in ("Alice", "Paris", "Bob"):
        decided.clear()
        records, _, _ = await driver.execute_query(query, name=name)
        assert decided and all(decided), name
        every = await driver.execute_query(
            query.replace("m.uuid <> n.uuid", "NOT m.uuid = n.uuid"), name=name
        )
        assert sorted(r["name"] for r in records) == sorted(r["name"] for r in every[0]), name
    assert records  # (Bob: Alice and Paris's other ends)


async def test_an_entitys_columns_are_read_without_its_record(graphiti, driver, monkeypatch):
    # an entity's uuid, name, group_id and summary are its columns (Graphiti's shape says so):
    # ``RETURN n.uuid, n.name`` of a group's entities reads them alone (issue 42); an
    # episode's content is not a column, and its query binds the records as before
    from anatid_core.cypher import engine

    for n, body in enumerate(["Alice works at Acme.", "Bob lives in Paris."]):
        await add(graphiti, body, n, group_id="g1")
    planned: list[object] = []
    original = engine.column_rows
    monkeypatch.setattr(engine, "column_rows", lambda p, *a: planned.append(p) or original(p, *a))
    for query, taken in (
        ("MATCH (n:Entity) WHERE n.group_id = $g RETURN n.uuid AS uuid, n.name AS name", True),
        ("MATCH (n:Entity {group_id: $g}) RETURN n.name AS name, n.summary AS summary", True),
        ("MATCH (n:Episodic) WHERE n.group_id = $g RETURN n.uuid AS uuid, n.content AS c", False),
        ("MATCH (n:Entity) WHERE n.group_id = $g RETURN n.uuid AS uuid, n.labels AS l", False),
    ):
        planned.clear()
        records, _, _ = await driver.execute_query(query, g="g1")
        assert bool(planned) is taken, query
        bound = await driver.execute_query(query.replace(" RETURN ", " WITH n RETURN ", 1), g="g1")
        assert records == bound[0] and records, query


async def test_a_facts_and_its_entities_columns_are_read_without_their_records(driver, monkeypatch):
    # a fact's uuid, name, group_id and fact are its columns, and its invalid_at/valid_at
    # are null where its valid_to/valid_from are (Graphiti's shape says so): a group's
    # filtered facts read those alone (issue 42's filtered LIMIT 10); a time read for its
    # value is read from the record (an interval ending before it starts keeps its own end)
    from datetime import timedelta

    from graphiti_core.edges import EntityEdge
    from graphiti_core.nodes import EntityNode

    from anatid_core.cypher import engine

    at = datetime(2024, 5, 1, 12, 30, tzinfo=timezone.utc)
    names = ["Alice", "Bob", "Acme", "Anna", "Paris"]
    for i, name in enumerate(names):
        await EntityNode(uuid=f"n{i}", name=name, group_id="g", labels=["Entity"],
                         created_at=at).save(driver)  # fmt: skip
    ends = [(0, 1), (0, 2), (1, 2), (3, 4), (3, 0), (4, 1), (2, 3), (1, 3)]
    for i, (a, b) in enumerate(ends):
        await EntityEdge(
            uuid=f"f{i}", source_node_uuid=f"n{a}", target_node_uuid=f"n{b}", group_id="g",
            name="RELATES", fact=f"fact {i}", episodes=[], created_at=at,
            valid_at=at if i % 2 else None,
            invalid_at=(None, at + timedelta(days=1), at - timedelta(days=1))[i % 3],
        ).save(driver)  # fmt: skip
    planned: list[object] = []
    original = engine.rel_column_rows
    monkeypatch.setattr(
        engine, "rel_column_rows", lambda p, *a: planned.append(p) or original(p, *a)
    )
    match = "MATCH (n:Entity)-[r:RELATES_TO]->(m:Entity) WHERE r.group_id = $g "
    for query, taken in (
        (match + "AND r.invalid_at IS NULL AND n.name STARTS WITH $p "
         "RETURN n.name AS source, r.fact AS fact, m.name AS target", True),
        (match + "AND r.invalid_at IS NOT NULL RETURN r.uuid AS uuid ORDER BY uuid", True),
        (match + "AND r.valid_at IS NULL RETURN n.uuid AS a, m.uuid AS b", True),
        # a time read for its value: records read for those set (most), so bound as before
        (match + "RETURN r.uuid AS uuid, r.invalid_at AS until, r.valid_at AS since", False),
        (match + "AND r.invalid_at < $t RETURN r.uuid AS uuid", False),
        (match + "RETURN r.uuid AS uuid, r.episodes AS episodes", False),  # not a column
        ("MATCH (n:Episodic)-[r:MENTIONS]->(m:Entity) WHERE r.group_id = $g RETURN m.name", False),
    ):  # fmt: skip
        planned.clear()
        params = {"g": "g", "p": "A", "t": at}
        records, _, _ = await driver.execute_query(query, **params)
        assert bool(planned) is taken, query
        bound = await driver.execute_query(
            query.replace(" RETURN ", " WITH * RETURN ", 1), **params
        )
        assert records == bound[0], query
        assert [str(r) for r in records] == [str(r) for r in bound[0]], query  # times' zones too
        if taken:
            assert records, query
