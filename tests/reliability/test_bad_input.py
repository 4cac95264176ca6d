"""Garbage in: each bad input gives a typed error whose message says what to fix, writes nothing
(every version of every record is as before, in a file store), and leaves the store fully usable.
Inputs that look like SQL or Cypher are plain data: stored verbatim, found, and harmless.

Through the core, GraphitiDriver and the Cognee adapters.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from datetime import date, datetime, timezone
from typing import Any

import pytest

from anatid_core import AnatidError, Cond, Edge, InvalidInput, Node, NotFound, Store

UTC = timezone.utc
T0 = datetime(2024, 1, 1, tzinfo=UTC)
SURROGATE = "caf\ud800e"
EVIL = [
    "Robert'); DROP TABLE nodes; --",
    '" OR 1=1 --',
    "`n`) DETACH DELETE n //",
    "MATCH (n) DETACH DELETE n",
    "x\\'; SELECT * FROM meta; --",
    "$.\"a\".'b'[*]",
]


def snapshot(store: Store) -> tuple[Any, ...]:
    spaces = [
        (s["kind"], s["space"], s["dim"], s["vectors"]) for s in store.stats()["vector_spaces"]
    ]
    return tuple(store.versions("node")), tuple(store.versions("edge")), tuple(spaces)


def still_usable(store: Store, tag: str) -> None:
    store.upsert_nodes([Node(f"ok-{tag}", text=f"healthy {tag}", embedding=[0.3, 0.2, 0.1])])
    store.upsert_edges([Edge(f"ok-edge-{tag}", "a", f"ok-{tag}", "CHECKS")])
    assert [h.id for h in store.search_text(f"healthy {tag}", k=1)] == [f"ok-{tag}"]
    assert store.search_vector([0.3, 0.2, 0.1], k=1)[0].id in (f"ok-{tag}", "a")
    assert store.check() == []


@pytest.fixture
def store(tmp_path) -> Iterator[Store]:
    with Store.open(tmp_path / "bad.duckdb") as s:
        s.upsert_nodes(
            [
                Node("a", group="g", labels=("Person",), name="Alice", embedding=[1.0, 0.0, 0.0]),
                Node("b", group="g", labels=("Person",), name="Bob", embedding=[0.0, 1.0, 0.0]),
            ]
        )
        s.upsert_edges(
            [Edge("ab", "a", "b", "KNOWS", text="Alice knows Bob", embedding=[1.0, 1.0])]
        )
        yield s


def _in_one_transaction(store: Store) -> None:
    with store.transaction():
        store.upsert_nodes([Node("fine", text="would be rolled back")])
        store.upsert_nodes([Node("bad", embedding=[1.0, 2.0])])


def _nest(levels: int) -> dict[str, Any]:
    deep: dict[str, Any] = {}
    for _ in range(levels):
        deep = {"k": deep}
    return deep


#: (case, call, error type, words the message must hold)
CORE_CASES: list[tuple[str, Callable[[Store], Any], type[Exception], str]] = [
    (
        "embedding of the wrong dimension",
        lambda s: s.upsert_nodes([Node("c", embedding=[1.0, 2.0])]),
        InvalidInput,
        "dimension",
    ),
    (
        "two dimensions in one write",
        lambda s: s.upsert_nodes([Node("c", embedding=[1.0] * 4), Node("d", embedding=[1.0] * 5)]),
        InvalidInput,
        "dimension",
    ),
    (
        "query vector of the wrong dimension",
        lambda s: s.search_vector([1.0, 2.0]),
        InvalidInput,
        "dimension",
    ),
    (
        "NaN in an embedding",
        lambda s: s.upsert_nodes([Node("c", embedding=[math.nan, 0.0, 0.0])]),
        InvalidInput,
        "NaN",
    ),
    (
        "infinity in an embedding",
        lambda s: s.upsert_nodes([Node("c", embedding=[math.inf, 0.0, 0.0])]),
        InvalidInput,
        "infinity",
    ),
    (
        "beyond float32 in an embedding",
        lambda s: s.upsert_nodes([Node("c", embedding=[1e39, 0.0, 0.0])]),
        InvalidInput,
        "float32",
    ),
    ("NaN in a query vector", lambda s: s.search_vector([math.nan, 0.0, 0.0]), InvalidInput, "NaN"),
    (
        "empty embedding",
        lambda s: s.upsert_nodes([Node("c", embedding=[])]),
        InvalidInput,
        "non-empty",
    ),
    (
        "text as an embedding",
        lambda s: s.upsert_nodes([Node("c", embedding="abc")]),
        InvalidInput,
        "numbers",
    ),
    ("empty id", lambda s: s.upsert_nodes([Node("")]), InvalidInput, "must not be empty"),
    ("None as an id", lambda s: s.upsert_nodes([Node(None)]), InvalidInput, "must be a str"),  # type: ignore[arg-type]
    ("int as an id", lambda s: s.upsert_nodes([Node(7)]), InvalidInput, "must be a str"),  # type: ignore[arg-type]
    ("10 MB id", lambda s: s.upsert_nodes([Node("x" * 10_000_000)]), InvalidInput, "limit is"),
    (
        "empty edge type",
        lambda s: s.upsert_edges([Edge("e", "a", "b", "")]),
        InvalidInput,
        "rel must not be empty",
    ),
    (
        "lone surrogate in text",
        lambda s: s.upsert_nodes([Node("c", text=SURROGATE)]),
        InvalidInput,
        "surrogate",
    ),
    (
        "lone surrogate in an id",
        lambda s: s.upsert_nodes([Node(SURROGATE)]),
        InvalidInput,
        "surrogate",
    ),
    (
        "lone surrogate in a label",
        lambda s: s.upsert_nodes([Node("c", labels=(SURROGATE,))]),
        InvalidInput,
        "surrogate",
    ),
    (
        "lone surrogate in a prop value",
        lambda s: s.upsert_nodes([Node("c", props={"k": SURROGATE})]),
        InvalidInput,
        "surrogate",
    ),
    (
        "lone surrogate in a prop key",
        lambda s: s.upsert_nodes([Node("c", props={SURROGATE: 1})]),
        InvalidInput,
        "surrogate",
    ),
    ("NUL in a name", lambda s: s.upsert_nodes([Node("c", name="a\x00b")]), InvalidInput, "NUL"),
    (
        "NUL in an edge text",
        lambda s: s.upsert_edges([Edge("e", "a", "b", "R", text="\x00")]),
        InvalidInput,
        "NUL",
    ),
    (
        "a set in props",
        lambda s: s.upsert_nodes([Node("c", props={"k": {1, 2}})]),
        InvalidInput,
        "cannot be stored",
    ),
    (
        "an object in props",
        lambda s: s.upsert_nodes([Node("c", props={"k": [object()]})]),
        InvalidInput,
        "cannot be stored",
    ),
    (
        "a non-string prop key",
        lambda s: s.upsert_nodes([Node("c", props={1: "x"})]),
        InvalidInput,
        "str keys",
    ),  # type: ignore[dict-item]
    (
        "props nested 5,000 deep",
        lambda s: s.upsert_nodes([Node("c", props=_nest(5000))]),
        InvalidInput,
        "nest too deeply",
    ),
    (
        "props that are a list",
        lambda s: s.upsert_nodes([Node("c", props=[1])]),
        InvalidInput,
        "mapping",
    ),  # type: ignore[arg-type]
    (
        "naive valid_from",
        lambda s: s.upsert_nodes([Node("c", valid_from=datetime(2024, 1, 1))]),
        InvalidInput,
        "naive",
    ),
    (
        "a date as valid_to",
        lambda s: s.upsert_nodes([Node("c", valid_to=date(2024, 1, 1))]),
        InvalidInput,
        "must be a datetime",
    ),  # type: ignore[arg-type]
    (
        "a string as valid_from",
        lambda s: s.upsert_edges([Edge("e", "a", "b", "R", valid_from="2024-01-01")]),
        InvalidInput,
        "must be a datetime",
    ),  # type: ignore[arg-type]
    ("naive as_of", lambda s: s.as_of(datetime(2024, 1, 1)).count_nodes(), InvalidInput, "naive"),
    (
        "naive time in a filter",
        lambda s: s.find_nodes(where=[[Cond("valid_from", "<", datetime(2024, 1, 1))]]),
        InvalidInput,
        "naive",
    ),
    (
        "naive close time",
        lambda s: s.close_nodes(["a"], datetime(2024, 1, 1)),
        InvalidInput,
        "naive",
    ),
    (
        "valid_to before valid_from",
        lambda s: s.upsert_nodes(
            [Node("c", valid_from=T0, valid_to=datetime(2023, 1, 1, tzinfo=UTC))]
        ),
        InvalidInput,
        "before valid_from",
    ),
    (
        "edge to a missing node",
        lambda s: s.upsert_edges([Edge("e", "a", "ghost", "R")]),
        InvalidInput,
        "missing node",
    ),
    (
        "a bad record among good ones",
        lambda s: s.upsert_nodes([Node("c"), Node("d"), Node("e", embedding=[math.nan] * 3)]),
        InvalidInput,
        "NaN",
    ),
    (
        "a bad edge among good ones",
        lambda s: s.upsert_edges([Edge("e1", "a", "b", "R"), Edge("e2", "b", "ghost", "R")]),
        InvalidInput,
        "missing node",
    ),
    (
        "a bad write after a good one, one transaction",
        _in_one_transaction,
        InvalidInput,
        "dimension",
    ),
    (
        "closing a missing node among present ones",
        lambda s: s.close_nodes(["a", "ghost"], T0),
        NotFound,
        "ghost",
    ),
    (
        "an unknown filter field",
        lambda s: s.find_nodes(where=[[Cond("nodes; DROP TABLE nodes", "=", 1)]]),
        InvalidInput,
        "unknown field",
    ),
    (
        "an unknown filter operator",
        lambda s: s.find_nodes(where=[[Cond("id", "= 1; DROP TABLE nodes; --", 1)]]),
        InvalidInput,
        "unknown operator",
    ),
    (
        "an unknown order field",
        lambda s: s.find_nodes(order_by="id; DROP TABLE nodes"),
        InvalidInput,
        "unknown field",
    ),
    ("a negative k", lambda s: s.search_text("alice", k=-1), InvalidInput, "k must be"),
    ("a negative depth", lambda s: s.expand(["a"], depth=-1), InvalidInput, "depth"),
    ("a string as limit", lambda s: s.find_nodes(limit="5"), InvalidInput, "limit"),  # type: ignore[arg-type]
    (
        "a write through an as_of view",
        lambda s: s.as_of(T0).upsert_nodes([Node("c")]),
        AnatidError,
        "read",
    ),  # type: ignore[attr-defined]
]


@pytest.mark.parametrize(
    ("case", "call", "error", "words"), CORE_CASES, ids=[c[0] for c in CORE_CASES]
)
def test_core_bad_input_is_refused_and_writes_nothing(case, call, error, words, store):
    before = snapshot(store)
    with pytest.raises(error) as caught:
        call(store)
    assert words.lower() in str(caught.value).lower(), str(caught.value)
    assert snapshot(store) == before
    still_usable(store, "after")


#: Bad values inside read filters (DuckDB raised its own errors for these until the filters
#: checked them).
FILTER_CASES = [
    ("lone surrogate in filter ids", lambda s: s.find_nodes(ids=[SURROGATE])),
    ("lone surrogate in filter groups", lambda s: s.find_nodes(groups=[SURROGATE])),
    ("NUL in filter labels", lambda s: s.find_nodes(labels=["a\x00"])),
    (
        "lone surrogate in a where value",
        lambda s: s.find_nodes(where=[[Cond("name", "=", SURROGATE)]]),
    ),
    (
        "lone surrogate in a where list",
        lambda s: s.find_edges(where=[[Cond("rel", "in", ["R", SURROGATE])]]),
    ),
    ("an object as a where value", lambda s: s.find_nodes(where=[[Cond("id", "=", object())]])),
    ("an unknown record kind", lambda s: s.delete_where("table")),  # type: ignore[arg-type]
    ("an unknown record kind to purge", lambda s: s.purge_where("nodes")),  # type: ignore[arg-type]
]


@pytest.mark.parametrize(("case", "call"), FILTER_CASES, ids=[c[0] for c in FILTER_CASES])
def test_bad_filter_values_are_invalid_input(case, call, store):
    before = snapshot(store)
    with pytest.raises(InvalidInput):
        call(store)
    assert snapshot(store) == before
    still_usable(store, "after")


def test_unknown_groups_labels_spaces_and_ids_read_as_empty(store):
    assert store.find_nodes(groups=["nobody"]) == []
    assert store.count_edges(groups=["nobody"]) == 0
    assert store.search_text("alice", groups=["nobody"]) == []
    assert store.search_vector([1.0, 0.0, 0.0], groups=["nobody"]) == []
    assert store.search_vector([1.0, 0.0, 0.0], space="no-such-space") == []
    assert store.find_nodes(labels=["NoSuchLabel"]) == []
    assert store.get_node("ghost") is None and store.history("ghost") == []
    before = snapshot(store)
    assert store.delete_where("node", groups=["nobody"]) == 0
    assert store.delete_nodes(["ghost"]) == 0
    assert snapshot(store) == before


def test_empty_huge_and_far_out_values_are_stored_exactly(store):
    big = "word " * 2_000_000  # 10 MB of text
    lone = "x" * 10_000_000  # one 10 MB token
    far = (datetime(1, 1, 1, tzinfo=UTC), datetime(9999, 12, 31, 23, 59, 59, 999999, tzinfo=UTC))
    store.upsert_nodes(
        [
            Node("empty", name="", text="", props={}),
            Node("big", text=big, props={"blob": lone}),
            Node("far", valid_from=far[0], valid_to=far[1], props={"when": far[1], "n": 10**30}),
        ]
    )
    assert store.get_node("empty").text == ""  # type: ignore[union-attr]
    got = store.get_node("big")
    assert got is not None and got.text == big and got.props["blob"] == lone
    assert store.search_text("word", k=1)[0].id == "big"
    far_node = store.get_node("far")
    assert far_node is not None and (far_node.valid_from, far_node.valid_to) == far
    assert far_node.props == {"when": far[1], "n": 10**30}
    assert store.as_of(valid_time=datetime(5000, 1, 1, tzinfo=UTC)).get_node("far") is not None
    assert store.check() == []


@pytest.mark.parametrize("evil", EVIL)
def test_sql_and_cypher_lookalikes_are_plain_data(evil, store):
    store.upsert_nodes(
        [
            Node(
                evil,
                group=evil,
                labels=(evil,),
                name=evil,
                text=f"{evil} payload",
                props={evil: evil, "k": evil},
            )
        ]
    )
    store.upsert_edges(
        [Edge(evil + "-e", "a", evil, evil, group=evil, text=evil, props={evil: [evil]})]
    )
    node = store.get_node(evil)
    assert node is not None and (node.group, node.labels, node.name) == (evil, (evil,), evil)
    assert node.props == {evil: evil, "k": evil}
    assert [n.id for n in store.find_nodes(groups=[evil], labels=[evil])] == [evil]
    if "." not in evil:  # a dot separates nested keys in a props path
        by_key = store.find_nodes(
            where=[[Cond(f"props.{evil}", "=", evil)]], order_by=f"-props.{evil}"
        )
        assert [n.id for n in by_key] == [evil]
    assert [n.id for n in store.find_nodes(where=[[Cond("props.k", "=", evil)]])] == [evil]
    assert [e.id for e in store.find_edges(rels=[evil])] == [evil + "-e"]
    assert evil in {h.id for h in store.search_text(f"{evil} payload", k=5)}
    assert store.count_nodes() == 3 and store.count_edges() == 2  # every table still there
    assert store.check() == []


# ------------------------------------------------------------------------------- graphiti


@pytest.fixture
async def graphiti(tmp_path):
    from anatid_graphiti import GraphitiDriver

    driver = GraphitiDriver(tmp_path / "graphiti.duckdb")
    yield driver
    await driver.close()


def _entity(name: str = "Carol", **kw: Any) -> Any:
    from graphiti_core.nodes import EntityNode

    from tests.graphiti.fakes import hash_embedding

    kw.setdefault("name_embedding", hash_embedding(name))
    return EntityNode(
        name=name, group_id=kw.pop("group_id", "g"), labels=["Entity"], created_at=T0, **kw
    )


GRAPHITI_CASES = [
    ("embedding of the wrong dimension", lambda: _entity(name_embedding=[0.1] * 10), "dimension"),
    ("NaN in an embedding", lambda: _entity(name_embedding=[math.nan] * 64), "NaN"),
    ("lone surrogate in a name", lambda: _entity(name="Car\ud800ol"), "surrogate"),
    ("NUL in a summary", lambda: _entity(summary="a\x00b"), "NUL"),
    ("unserialisable attribute", lambda: _entity(attributes={"x": object()}), "cannot be stored"),
    ("props nested 5,000 deep", lambda: _entity(attributes={"x": _nest(5000)}), "nest too deeply"),
]


@pytest.mark.parametrize(
    ("case", "make", "words"), GRAPHITI_CASES, ids=[c[0] for c in GRAPHITI_CASES]
)
async def test_graphiti_bad_input_is_refused_and_writes_nothing(case, make, words, graphiti):
    from graphiti_core.utils.bulk_utils import add_nodes_and_edges_bulk

    from tests.graphiti.fakes import FakeEmbedder

    await _entity("Alice").save(graphiti)
    before = snapshot(graphiti.store)
    bad = make()
    with pytest.raises(InvalidInput) as caught:
        await bad.save(graphiti)
    assert words.lower() in str(caught.value).lower()
    # In a bulk save (add_episode's path) one bad entity keeps every other one out too.
    with pytest.raises(InvalidInput):
        await add_nodes_and_edges_bulk(graphiti, [], [], [_entity("Dave"), bad], [], FakeEmbedder())
    assert snapshot(graphiti.store) == before
    await _entity("Erin").save(graphiti)
    assert graphiti.store.check() == []


@pytest.mark.parametrize("evil", EVIL)
async def test_graphiti_sql_and_cypher_lookalikes_are_plain_data(evil, graphiti):
    from graphiti_core.edges import EntityEdge
    from graphiti_core.nodes import EntityNode
    from graphiti_core.search.search_filters import SearchFilters
    from graphiti_core.search.search_utils import edge_fulltext_search, node_fulltext_search

    a, b = _entity(evil, summary=evil), _entity("Bob")
    await a.save(graphiti)
    await b.save(graphiti)
    edge = EntityEdge(
        source_node_uuid=a.uuid,
        target_node_uuid=b.uuid,
        name="KNOWS",
        fact=f"{evil} knows Bob",
        group_id="g",
        created_at=T0,
        fact_embedding=[0.1] * 64,
        attributes={evil: evil},
    )
    await edge.save(graphiti)
    assert (await EntityNode.get_by_uuid(graphiti, a.uuid)).name == evil
    assert (await EntityEdge.get_by_uuid(graphiti, edge.uuid)).attributes == {evil: evil}
    found = await node_fulltext_search(graphiti, evil, SearchFilters(), ["g"], 5)
    assert a.uuid in {n.uuid for n in found}
    facts = await edge_fulltext_search(graphiti, evil, SearchFilters(), ["g"], 5)
    assert edge.uuid in {f.uuid for f in facts}
    assert graphiti.store.count_nodes() == 2 and graphiti.store.check() == []


async def test_graphiti_unknown_groups_and_missing_uuids(graphiti):
    from graphiti_core.errors import NodeNotFoundError
    from graphiti_core.nodes import EntityNode
    from graphiti_core.search.search_filters import SearchFilters
    from graphiti_core.search.search_utils import node_fulltext_search

    await _entity("Alice").save(graphiti)
    assert await node_fulltext_search(graphiti, "Alice", SearchFilters(), ["nobody"], 5) == []
    assert await EntityNode.get_by_group_ids(graphiti, ["nobody"]) == []
    with pytest.raises(NodeNotFoundError):
        await EntityNode.get_by_uuid(graphiti, "no-such-uuid")
    with pytest.raises(InvalidInput, match="surrogate"):
        await EntityNode.get_by_uuid(graphiti, "x\ud800")


# --------------------------------------------------------------------------------- cognee


@pytest.fixture
async def cognee_adapters(tmp_path):
    from anatid_cognee import AnatidGraphAdapter, AnatidVectorAdapter

    from tests.cognee.cognee_fakes import HashEmbeddingEngine

    path = str(tmp_path / "cognee.duckdb")
    graph = AnatidGraphAdapter(graph_database_url=path)
    vector = AnatidVectorAdapter(url=path, embedding_engine=HashEmbeddingEngine())
    yield graph, vector, path
    await graph.close()
    await vector.close()


class _FixedEngine:
    """An embedding engine that returns one fixed vector for every text."""

    def __init__(self, vector: list[float]) -> None:
        self.vector = vector

    async def embed_text(self, text: list[str]) -> list[list[float]]:
        return [list(self.vector) for _ in text]

    def get_vector_size(self) -> int:
        return len(self.vector)

    def get_batch_size(self) -> int:
        return 36


def _person(name: str) -> Any:
    from tests.reliability.cognee_points import Person

    return Person(name=name)


COGNEE_GRAPH_CASES = [
    ("lone surrogate in a name", lambda g: g.add_nodes([_person("x\ud800")]), "surrogate"),
    ("NUL in a name", lambda g: g.add_nodes([_person("x\x00")]), "NUL"),
    ("lone surrogate in an id lookup", lambda g: g.get_node("x\ud800"), "surrogate"),
    (
        "unserialisable edge property",
        lambda g: g.add_edges([("p1", "p2", "knows", {"x": object()})]),
        "cannot be stored",
    ),
]


@pytest.mark.parametrize(
    ("case", "call", "words"), COGNEE_GRAPH_CASES, ids=[c[0] for c in COGNEE_GRAPH_CASES]
)
async def test_cognee_graph_bad_input_is_a_validation_error_and_writes_nothing(
    case, call, words, cognee_adapters
):
    from cognee.exceptions import CogneeValidationError

    graph, _, _ = cognee_adapters
    await graph.add_nodes([("p1", {"name": "one"}), ("p2", {"name": "two"})])
    before = snapshot(graph._store)
    with pytest.raises(CogneeValidationError) as caught:
        await call(graph)
    assert isinstance(caught.value.__cause__, InvalidInput)
    assert words.lower() in str(caught.value).lower()
    assert snapshot(graph._store) == before
    await graph.add_nodes([("p3", {"name": "three"})])
    assert graph._store.check() == []


@pytest.mark.parametrize(
    ("case", "vector", "words"),
    [
        ("embedding of the wrong dimension", [0.1] * 32, "dimension"),
        ("NaN in an embedding", [math.nan] * 64, "NaN"),
    ],
)
async def test_cognee_vector_bad_embeddings_are_validation_errors(
    case, vector, words, cognee_adapters
):
    from anatid_cognee import AnatidVectorAdapter
    from cognee.exceptions import CogneeValidationError

    from tests.reliability.cognee_points import Person

    graph, good, path = cognee_adapters
    await good.create_data_points("Person_name", [Person(name="alice")])
    before = snapshot(graph._store)
    bad = AnatidVectorAdapter(url=path, embedding_engine=_FixedEngine(vector))
    try:
        with pytest.raises(CogneeValidationError, match=words):
            await bad.create_data_points("Person_name", [Person(name="bob"), Person(name="carol")])
        with pytest.raises(CogneeValidationError, match=words):
            await good.search("Person_name", query_vector=vector)
    finally:
        await bad.close()
    assert snapshot(graph._store) == before
    assert (await good.search("Person_name", query_text="alice", limit=1))[0].score < 1e-6


@pytest.mark.parametrize("evil", EVIL)
async def test_cognee_sql_and_cypher_lookalikes_are_plain_data(evil, cognee_adapters):
    from tests.reliability.cognee_points import Person

    graph, vector, _ = cognee_adapters
    a, b = Person(name=evil), Person(name="bob")
    await graph.add_nodes([a, b])
    await graph.add_edges([(str(a.id), str(b.id), evil, {evil: evil})])
    await vector.create_data_points("Person_name", [a, b])
    assert (await graph.get_node(str(a.id)))["name"] == evil
    _, edges = await graph.get_graph_data()
    assert edges == [(str(a.id), str(b.id), evil, {evil: evil})]
    hits = await vector.search("Person_name", query_text=evil, limit=1)
    assert str(hits[0].id) == str(a.id)
    assert graph._store.check() == []


async def test_cognee_unknown_collections_and_edges_to_missing_nodes(cognee_adapters):
    from cognee.infrastructure.databases.vector.exceptions import CollectionNotFoundError

    graph, vector, _ = cognee_adapters
    with pytest.raises(CollectionNotFoundError, match="Nope_text"):
        await vector.search("Nope_text", query_text="x")
    await graph.add_nodes([("p1", {"name": "one"})])
    before = snapshot(graph._store)
    # Cognee's contract (as on its Kuzu/Ladybug adapters): an edge to a missing node is skipped.
    await graph.add_edges([("p1", "ghost", "knows", {})])
    assert snapshot(graph._store) == before
