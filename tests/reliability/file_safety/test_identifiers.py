"""Every name a caller passes is checked like a value (issue 32).

Ids, labels, rel types, groups, vector spaces and the property keys of ``where``/``order_by``
go through every verb that takes one: a name holding a lone surrogate or a NUL, or 100 kB long,
is ``InvalidInput`` naming the argument and what is wrong (never DuckDB's own error), and the
store is as it was; a name with quotes, a backslash or SQL in it is an ordinary name and comes
back. The same through the Graphiti driver, the Cognee adapters, the ``anatid`` command and
anatid-mcp, each with its host's own error.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable, Iterator
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pytest

from anatid_core import Cond, Edge, InvalidInput, Node, Scope, Store
from tests.extras import needs

#: Names that must be refused, and a word the message must hold about what is wrong.
BAD = {
    "lone surrogate": ("x\udcff", "surrogate"),
    "NUL": ("x\x00y", "NUL"),
    "100 kB": ("n" * 100_000, "limit"),
}
#: Names that are ordinary names: stored, found, and given back as they were.
ODD = {
    "single quote": "it's",
    "double quote": 'say "hi"',
    "backslash": "back\\slash",
    "SQL": "x'); DROP TABLE nodes; --",
}
NAMES = {**{k: v for k, (v, _) in BAD.items()}, **ODD}
V = [1.0, 0.0]
LATER = datetime(2100, 1, 1, tzinfo=timezone.utc)


def _seeded(x: str | None) -> Store:
    """A store where node ``x`` and edge ``x`` (x -> plain) carry ``x`` as every name (a
    group, a label, a rel, a vector space, a property key); without ``x``, plain names."""
    store = Store.open(":memory:")
    name = x if x is not None else "seed"
    store.upsert_nodes(
        [
            Node(
                name,
                group=name,
                labels=(name,),
                name="needle",
                text="needle",
                props={name: 1, "k": name},
                embedding=V,
                space=name,
            ),
            Node("plain", group="g", labels=("L",), text="hay", embedding=[0.0, 1.0], space=name),
        ]
    )
    store.upsert_edges(
        [Edge(name, name, "plain", name, group=name, text="needle", props={name: 1})]
    )
    return store


def _named(store: Store) -> str:
    """The node that carries the names (``x``, or "seed")."""
    return next(n.id for n in store.find_nodes() if n.id != "plain")


def _node(store: Store, id: str) -> Node:
    node = store.get_node(id)
    assert node is not None, id
    return node


def _edge(store: Store, id: str) -> Edge:
    edge = store.get_edge(id)
    assert edge is not None, id
    return edge


def _ids(items: Any) -> list[str]:
    return [getattr(i, "id", i) for i in items]


def _hit_ids(hits: Any) -> list[str]:
    return [h.id for h in hits]


def _state(store: Store) -> tuple[Any, ...]:
    """What a refused call must leave as it was: every version of every record."""
    return (
        [(i.id, i.version, i.tx_to) for i in store.versions("node")],
        [(i.id, i.version, i.tx_to) for i in store.versions("edge")],
    )


# One row per (verb, argument): the call, a word the refusal must name, and for an ordinary
# name, what the call gives back.
Verb = tuple[str, Callable[[Store, str], Any], str, Callable[[Any, Store, str], bool]]

CORE: list[Verb] = [
    # writes
    (
        "upsert_nodes id",
        lambda s, x: s.upsert_nodes([Node(x, text="new")]),
        "id",
        lambda r, s, x: _node(s, x).text == "new",
    ),
    (
        "upsert_nodes group",
        lambda s, x: s.upsert_nodes([Node("w", group=x)]),
        "group",
        lambda r, s, x: _node(s, "w").group == x,
    ),
    (
        "upsert_nodes label",
        lambda s, x: s.upsert_nodes([Node("w", labels=(x,))]),
        "label",
        lambda r, s, x: _node(s, "w").labels == (x,),
    ),
    (
        "upsert_nodes space",
        lambda s, x: s.upsert_nodes([Node("w", embedding=V, space=x)]),
        "space",
        lambda r, s, x: "w" in _hit_ids(s.search_vector(V, space=x)),
    ),
    (
        "upsert_edges rel",
        lambda s, x: s.upsert_edges([Edge("w", "plain", "plain", x)]),
        "rel",
        lambda r, s, x: _edge(s, "w").rel == x,
    ),
    (
        "upsert_edges src",
        lambda s, x: s.upsert_edges([Edge("w", x, "plain", "R")]),
        "src",
        lambda r, s, x: _edge(s, "w").src == x,
    ),
    (
        "upsert idempotency_key",
        lambda s, x: s.upsert_nodes([Node("w")], idempotency_key=x),
        "idempotency_key",
        lambda r, s, x: r.written == 1,
    ),
    # by id
    ("get_node", lambda s, x: s.get_node(x), "id", lambda r, s, x: r.id == x),
    ("get_nodes", lambda s, x: s.get_nodes([x]), "id", lambda r, s, x: _ids(r) == [x]),
    ("get_edges", lambda s, x: s.get_edges([x]), "id", lambda r, s, x: _ids(r) == [x]),
    ("history", lambda s, x: s.history(x, kind="node"), "id", lambda r, s, x: _ids(r) == [x]),
    # list filters
    ("find ids", lambda s, x: s.find_nodes(ids=[x]), "id", lambda r, s, x: _ids(r) == [x]),
    ("find groups", lambda s, x: s.find_nodes(groups=[x]), "group", lambda r, s, x: _ids(r) == [x]),
    ("find labels", lambda s, x: s.find_nodes(labels=[x]), "label", lambda r, s, x: _ids(r) == [x]),
    ("find rels", lambda s, x: s.find_edges(rels=[x]), "rel", lambda r, s, x: _ids(r) == [x]),
    ("find src", lambda s, x: s.find_edges(src=[x]), "src", lambda r, s, x: _ids(r) == [x]),
    ("count labels", lambda s, x: s.count_nodes(labels=[x]), "label", lambda r, s, x: r == 1),
    # where and order_by
    (
        "where props key",
        lambda s, x: s.find_nodes(where=[[Cond(f"props.{x}", "=", 1)]]),
        "where field",
        lambda r, s, x: _ids(r) == [x],
    ),
    (
        "where props key is not null",
        lambda s, x: s.find_nodes(where=[[Cond(f"props.{x}", "is not null")]]),
        "where field",
        lambda r, s, x: _ids(r) == [x],
    ),
    (
        "where props key contains",
        lambda s, x: s.find_nodes(where=[[Cond(f"props.{x}", "contains", "a")]]),
        "where field",
        lambda r, s, x: r == [],
    ),
    (
        "where edge props key",
        lambda s, x: s.find_edges(where=[[Cond(f"props.{x}", "=", 1)]]),
        "where field",
        lambda r, s, x: _ids(r) == [x],
    ),
    (
        "where id value",
        lambda s, x: s.find_nodes(where=[[Cond("id", "in", [x])]]),
        "where field 'id'",
        lambda r, s, x: _ids(r) == [x],
    ),
    (
        "where group value",
        lambda s, x: s.find_nodes(where=[[Cond("group", "=", x)]]),
        "where field 'group'",
        lambda r, s, x: _ids(r) == [x],
    ),
    (
        "order_by props key",
        lambda s, x: s.find_nodes(order_by=f"-props.{x}", limit=1),
        "order_by key",
        lambda r, s, x: _ids(r) == [x],
    ),
    (
        "order_by props key, edges",
        lambda s, x: s.find_edges(order_by=[f"props.{x}", "id"]),
        "order_by key",
        lambda r, s, x: _ids(r) == [x],
    ),
    (
        "count where",
        lambda s, x: s.count_edges(where=[[Cond(f"props.{x}", ">=", 1)]]),
        "where field",
        lambda r, s, x: r == 1,
    ),
    # searches
    (
        "search_text labels",
        lambda s, x: s.search_text("needle", labels=[x]),
        "label",
        lambda r, s, x: _hit_ids(r) == [x],
    ),
    (
        "search_text groups",
        lambda s, x: s.search_text("needle", groups=[x]),
        "group",
        lambda r, s, x: _hit_ids(r) == [x],
    ),
    (
        "search_text rels",
        lambda s, x: s.search_text("needle", kind="edge", rels=[x]),
        "rel",
        lambda r, s, x: _hit_ids(r) == [x],
    ),
    (
        "search_text where",
        lambda s, x: s.search_text("needle", where=[[Cond(f"props.{x}", "=", 1)]]),
        "where field",
        lambda r, s, x: _hit_ids(r) == [x],
    ),
    (
        "search_vector space",
        lambda s, x: s.search_vector(V, space=x, k=1),
        "space",
        lambda r, s, x: _hit_ids(r) == [x],
    ),
    (
        "search_vector labels",
        lambda s, x: s.search_vector(V, space=_named(s), labels=[x]),
        "label",
        lambda r, s, x: _hit_ids(r) == [x],
    ),
    (
        "recall space",
        lambda s, x: s.recall(vector=V, space=x, k=1),
        "space",
        lambda r, s, x: _hit_ids(r) == [x],
    ),
    (
        "recall seeds",
        lambda s, x: s.recall(seeds=[x], k=5),
        "seed",
        lambda r, s, x: _hit_ids(r) == ["plain"],  # the graph arm leaves the seeds out
    ),
    # the graph
    (
        "expand seeds",
        lambda s, x: s.expand([x]),
        "seed",
        lambda r, s, x: set(r.distance) == {x, "plain"},
    ),
    (
        "expand labels",
        lambda s, x: s.expand(["plain"], labels=[x]),
        "label",
        lambda r, s, x: set(r.distance) == {x, "plain"},
    ),
    (
        "expand groups",
        lambda s, x: s.expand(["plain"], groups=[x]),
        "group",
        lambda r, s, x: set(r.distance) == {x, "plain"},
    ),
    (
        "neighbours labels",
        lambda s, x: s.neighbours(["plain"], labels=[x]),
        "label",
        lambda r, s, x: _ids(r) == [x],
    ),
    ("edges_of", lambda s, x: s.edges_of([x]), "node_id", lambda r, s, x: _ids(r) == [x]),
    (
        "edges_of rels",
        lambda s, x: s.edges_of(["plain"], rels=[x]),
        "rel",
        lambda r, s, x: _ids(r) == [x],
    ),
    (
        "shortest_path",
        lambda s, x: s.shortest_path(x, "plain"),
        "node id",
        lambda r, s, x: len(r) == 1,
    ),
    (
        "shortest_path rels",
        lambda s, x: s.shortest_path(_named(s), "plain", rels=[x]),
        "rel",
        lambda r, s, x: len(r) == 1,
    ),
    (
        "shortest_path groups",
        lambda s, x: s.shortest_path(_named(s), "plain", groups=[x]),
        "group",
        lambda r, s, x: len(r) == 1,
    ),
    (
        "visible_node_ids labels",
        lambda s, x: s.visible_node_ids([_named(s), "plain"], labels=[x]),
        "label",
        lambda r, s, x: r == {x},
    ),
    (
        "pagerank seeds",
        lambda s, x: s.pagerank([x], k=1),
        "seed",
        lambda r, s, x: _hit_ids(r) == [x],
    ),
    (
        "hubs groups",
        lambda s, x: s.hubs(groups=[x]),
        "group",
        lambda r, s, x: [h.node.id for h in r] == [x],
    ),
    (
        "communities labels",
        lambda s, x: s.communities(labels=[x]),
        "label",
        lambda r, s, x: r == [[x]],
    ),
    (
        "node_rows labels",
        lambda s, x: s.node_rows(labels=[x]),
        "label",
        lambda r, s, x: [row[0] for row in r] == [x],
    ),
    (
        "edge_rows touching",
        lambda s, x: s.edge_rows(touching=[x]),
        "touching",
        lambda r, s, x: len(r) == 1,
    ),
    # views
    (
        "scope groups",
        lambda s, x: s.scoped(Scope.of(groups=[x])).find_nodes(),
        "groups",
        lambda r, s, x: _ids(r) == [x],
    ),
    (
        "scope exclude_labels",
        lambda s, x: s.scoped(Scope.of(exclude_labels=[x])).find_nodes(),
        "exclude_labels",
        lambda r, s, x: _ids(r) == ["plain"],
    ),
    (
        "as_of where",
        lambda s, x: s.as_of(LATER).find_nodes(where=[[Cond(f"props.{x}", "=", 1)]]),
        "where field",
        lambda r, s, x: _ids(r) == [x],
    ),
    (
        "as_of space",
        lambda s, x: s.as_of(LATER).search_vector(V, space=x, k=1),
        "space",
        lambda r, s, x: _hit_ids(r) == [x],
    ),
    # deletes by name
    (
        "delete_where groups",
        lambda s, x: s.delete_where("node", groups=[x]),
        "group",
        lambda r, s, x: r == 1 and _ids(s.find_nodes()) == ["plain"],
    ),
    (
        "purge_where where",
        lambda s, x: s.purge_where("edge", where=[[Cond(f"props.{x}", "=", 1)]]),
        "where field",
        lambda r, s, x: r == 1 and s.count_edges() == 0 and s.count_nodes() == 2,
    ),
    (
        "delete_nodes",
        lambda s, x: s.delete_nodes([x]),
        "id",
        lambda r, s, x: r == 1 and _ids(s.find_nodes()) == ["plain"],
    ),
]

#: Calls where a 100 kB name is a value, not a name: property keys written in props (values of
#: any length) are stored; reaching them in a filter is what the limit is about.
STORED_LONG = {("upsert property key", "100 kB")}

CORE.append(
    (
        "upsert property key",
        lambda s, x: s.upsert_nodes([Node("w", props={x: 2})]),
        "property key",
        lambda r, s, x: _node(s, "w").props == {x: 2},
    )
)


#: The verbs that write: each gets a store of its own, checked after the call.
WRITES = {label for label, *_ in CORE if label.startswith(("upsert", "delete", "purge"))}


@pytest.fixture(scope="module")
def shared() -> Iterator[dict[str | None, Store]]:
    """One seeded store per name for the verbs that only read (opening one per case would
    take most of the suite's time)."""
    stores: dict[str | None, Store] = {}
    yield stores
    for store in stores.values():
        store.close()


@pytest.mark.parametrize("name", list(NAMES), ids=str)
@pytest.mark.parametrize("verb", CORE, ids=lambda v: v[0])
def test_every_core_verb_checks_its_names(
    verb: Verb, name: str, shared: dict[str | None, Store]
) -> None:
    label, call, argument, gives = verb
    x = NAMES[name]
    refused = name in BAD and (label, name) not in STORED_LONG
    seed = None if name in BAD else x
    writes = label in WRITES
    if writes:
        store = _seeded(seed)
    elif seed not in shared:
        store = shared[seed] = _seeded(seed)
    else:
        store = shared[seed]
    try:
        if refused:
            before = _state(store)
            with pytest.raises(InvalidInput) as error:
                call(store, x)
            message = str(error.value)
            assert argument.lower() in message.lower(), message
            assert BAD[name][1] in message, message
            assert len(message) < 1000  # the message quotes at most a little of the name
            assert _state(store) == before
            assert store.get_node("seed") is not None  # and the store still answers
        else:
            result = call(store, x)
            assert gives(result, store, x), result
        if writes:
            assert store.check() == []
    finally:
        if writes:
            store.close()


def test_a_single_string_is_not_a_list_of_names() -> None:
    with _seeded(None) as store:
        for call in (
            lambda: store.find_nodes(labels="seed"),
            lambda: store.expand(["plain"], labels="seed"),
            lambda: store.neighbours(["plain"], labels="seed"),
            lambda: store.visible_node_ids(["plain"], groups="seed"),
            lambda: store.shortest_path("plain", "seed", groups="g"),
        ):
            with pytest.raises(InvalidInput, match="list"):
                call()


@pytest.mark.parametrize(
    "cond",
    [
        Cond("id", "=", 5),
        Cond("name", ">", 1.5),
        Cond("group", "in", [1]),
        Cond("text", "=", True),
        Cond("props.k", "=", [1]),
        Cond("props.k", "in", [1, "one"]),
        Cond("props.k", "in", 5),
        Cond(7, "=", 1),  # type: ignore[arg-type]
    ],
    ids=repr,
)
def test_a_where_value_of_the_wrong_type_is_invalid_input(cond: Cond) -> None:
    with _seeded(None) as store:
        with pytest.raises(InvalidInput):
            store.find_nodes(where=[[cond]])


def test_order_by_must_be_names() -> None:
    with _seeded(None) as store:
        for order_by in (7, [7], ["props."], ["props.a..b"]):
            with pytest.raises(InvalidInput, match="order_by"):
                store.find_nodes(order_by=order_by)  # type: ignore[arg-type]


# ------------------------------------------------------------------------------- Graphiti


def _graphiti_calls() -> dict[str, Callable[[Any, str, str], Any]]:
    from graphiti_core.nodes import EntityNode
    from graphiti_core.search.search_filters import SearchFilters
    from graphiti_core.search.search_utils import (
        edge_fulltext_search,
        node_bfs_search,
        node_fulltext_search,
        node_similarity_search,
    )

    return {
        "node_fulltext_search group_ids": lambda d, x, _: node_fulltext_search(
            d, "alice", SearchFilters(), group_ids=[x]
        ),
        "node_similarity_search group_ids": lambda d, x, _: node_similarity_search(
            d, [1.0] * 4, SearchFilters(), group_ids=[x], min_score=0.0
        ),
        "node_bfs_search group_ids": lambda d, x, origin: node_bfs_search(
            d, [origin], SearchFilters(), 2, group_ids=[x]
        ),
        "edge_fulltext_search edge_uuids": lambda d, x, _: edge_fulltext_search(
            d, "alice", SearchFilters(edge_uuids=[x])
        ),
        "EntityNode.get_by_group_ids": lambda d, x, _: EntityNode.get_by_group_ids(d, [x]),
        "EntityNode.get_by_uuids": lambda d, x, _: EntityNode.get_by_uuids(d, [x]),
    }


GRAPHITI_CALLS = [
    "node_fulltext_search group_ids",
    "node_similarity_search group_ids",
    "node_bfs_search group_ids",
    "edge_fulltext_search edge_uuids",
    "EntityNode.get_by_group_ids",
    "EntityNode.get_by_uuids",
]


async def _graphiti_pair(driver: Any, group: str) -> tuple[str, str]:
    """Alice -> Bob in ``group``; their uuids."""
    from graphiti_core.edges import EntityEdge
    from graphiti_core.nodes import EntityNode

    t = datetime(2024, 1, 1, tzinfo=timezone.utc)
    a, b = (
        EntityNode(name=n, group_id=group, labels=[], name_embedding=[1.0] * 4, created_at=t)
        for n in ("alice", "bob")
    )
    edge = EntityEdge(
        source_node_uuid=a.uuid,
        target_node_uuid=b.uuid,
        name="KNOWS",
        fact="alice knows bob",
        group_id=group,
        created_at=t,
    )
    for item in (a, b, edge):
        await item.save(driver)
    return a.uuid, edge.uuid


@pytest.mark.parametrize("name", list(NAMES), ids=str)
@pytest.mark.parametrize("call", GRAPHITI_CALLS)
async def test_graphiti_driver_checks_names(call: str, name: str) -> None:
    from anatid_graphiti import GraphitiDriver

    x = NAMES[name]
    driver = GraphitiDriver(":memory:")
    try:
        origin, edge = await _graphiti_pair(driver, "g" if name in BAD else x)
        before = _state(driver.store)
        run = _graphiti_calls()[call]
        if name in BAD:
            with pytest.raises(InvalidInput, match=BAD[name][1]):  # passed through as is
                await run(driver, x, origin)
            assert _state(driver.store) == before and driver.store.check() == []
            return
        found = await run(driver, x, origin)
        if "uuids" in call:  # x names no record: nothing, and no error
            assert found == []
        else:  # x is the group of everything: found
            assert found and all(item.group_id == x for item in found)
    finally:
        await driver.close()


async def test_graphiti_save_checks_the_group_and_keeps_odd_ones() -> None:
    from anatid_graphiti import GraphitiDriver
    from graphiti_core.nodes import EntityNode

    driver = GraphitiDriver(":memory:")
    try:
        t = datetime(2024, 1, 1, tzinfo=timezone.utc)
        for value, _ in BAD.values():
            with pytest.raises(InvalidInput):
                await EntityNode(name="n", group_id=value, labels=[], created_at=t).save(driver)
        assert driver.store.count_nodes() == 0
        for x in ODD.values():
            await EntityNode(name="n", group_id=x, labels=[], created_at=t).save(driver)
            assert [n.group_id for n in await EntityNode.get_by_group_ids(driver, [x])] == [x]
    finally:
        await driver.close()


# --------------------------------------------------------------------------------- Cognee


def _cognee_point(text: str, tags: list[str] | None = None) -> Any:
    from cognee.infrastructure.engine import DataPoint

    class Chunk(DataPoint):
        text: str
        metadata: dict = {"index_fields": ["text"]}  # pyright: ignore[reportIncompatibleVariableOverride]

    return Chunk(text=text, belongs_to_set=tags)


@pytest.mark.parametrize("name", list(NAMES), ids=str)
async def test_cognee_vector_adapter_checks_collection_names_and_tags(
    name: str, tmp_path: Path
) -> None:
    from anatid_cognee import AnatidVectorAdapter
    from cognee.exceptions import CogneeValidationError

    from tests.cognee.cognee_fakes import HashEmbeddingEngine

    x = NAMES[name]
    vectors = AnatidVectorAdapter(
        url=str(tmp_path / "v.duckdb"), embedding_engine=HashEmbeddingEngine()
    )
    try:
        await vectors.create_data_points("Chunk_text", [_cognee_point("alice", ["kept"])])
        if name in BAD:
            store = vectors._store
            before = _state(store)
            calls = [
                lambda: vectors.create_data_points(x, [_cognee_point("bob")]),
                lambda: vectors.search(x, query_text="alice"),
                lambda: vectors.search("Chunk_text", query_text="alice", node_name=[x]),
                lambda: vectors.create_data_points("Chunk_text", [_cognee_point("bob", [x])]),
            ]
            for call in calls:
                with pytest.raises(CogneeValidationError) as refused:
                    await call()
                assert isinstance(refused.value.__cause__, InvalidInput), refused.value
            assert _state(store) == before and store.check() == []
            return
        await vectors.create_data_points(x, [_cognee_point("bob", [x])])
        assert x in await vectors.get_collection_names()
        hits = await vectors.search(x, query_text="bob", include_payload=True)
        assert [(h.payload or {}).get("text") for h in hits] == ["bob"]
        tagged = await vectors.search(x, query_text="bob", node_name=[x])
        assert len(tagged) == 1
    finally:
        await vectors.close()


@pytest.mark.parametrize("name", list(NAMES), ids=str)
async def test_cognee_graph_adapter_checks_ids_types_and_filters(name: str, tmp_path: Path) -> None:
    from anatid_cognee import AnatidGraphAdapter
    from cognee.exceptions import CogneeValidationError

    x = NAMES[name]
    graph = AnatidGraphAdapter(graph_database_url=str(tmp_path / "g.duckdb"))
    try:
        await graph.add_nodes([("plain", {"type": "T", "name": "plain"})])
        # A filter key must be a Python identifier (the adapter's own rule, as Cognee's): a
        # quote is refused with Cognee's error, a 100 kB identifier by the store's limit.
        with pytest.raises(CogneeValidationError):
            await graph.get_filtered_graph_data([{x: ["v"]}])
        if name in BAD:
            store = graph._store
            before = _state(store)
            calls = [
                lambda: graph.add_nodes([(x, {"type": "T", "name": "n"})]),
                lambda: graph.add_nodes([("n", {"type": x, "name": "n"})]),
                lambda: graph.get_node(x),
                lambda: graph.get_filtered_graph_data([{"type": [x]}]),
                lambda: graph.get_filtered_graph_data([{"id": [x]}]),
                lambda: graph.get_neighborhood([x]),
            ]
            for call in calls:
                with pytest.raises(CogneeValidationError) as refused:
                    await call()
                assert isinstance(refused.value.__cause__, InvalidInput), refused.value
            assert _state(store) == before and store.check() == []
            return
        await graph.add_nodes([(x, {"type": x, "name": "n"})])
        assert ((await graph.get_node(x)) or {}).get("type") == x
        nodes, _edges = await graph.get_filtered_graph_data([{"type": [x]}])
        assert [i for i, _ in nodes] == [x]
        nodes, _edges = await graph.get_filtered_graph_data([{"id": [x, "plain"]}])
        assert sorted(i for i, _ in nodes) == sorted([x, "plain"])
    finally:
        await graph.close()


# ----------------------------------------------------------------------------- the command


@pytest.fixture(scope="module")
def cli_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("cli") / "m.duckdb"
    with Store.open(path) as store:
        store.upsert_nodes([Node("plain", labels=("L",), text="needle")])
        for x in ODD.values():
            store.upsert_nodes([Node(x, group=x, labels=(x,), text="needle")])
            store.upsert_edges([Edge(x, x, "plain", x, group=x)])
    return path


def _anatid(*argv: bytes | str | Path) -> subprocess.CompletedProcess[bytes]:
    # bytes: a name that is not UTF-8 reaches Python as a lone surrogate (surrogateescape).
    args = [a if isinstance(a, bytes) else str(a).encode() for a in argv]
    return subprocess.run(
        [sys.executable.encode(), b"-m", b"anatid_core.cli", *args],
        capture_output=True,
        timeout=120,
    )


#: Command lines with a name in them (NAME is replaced); NUL cannot be in a command line.
COMMANDS = {
    "search --label": ["search", "FILE", "needle", "--label", "NAME", "--json"],
    "search --group": ["search", "FILE", "needle", "--group", "NAME", "--json"],
    "search --rel": ["search", "FILE", "needle", "--kind", "edge", "--rel", "NAME", "--json"],
    "neighbours --label": ["neighbours", "FILE", "plain", "--label", "NAME", "--json"],
    "show": ["show", "FILE", "NAME", "--json"],
}
CLI_BAD = {"lone surrogate": b"x\xff", "100 kB": b"n" * 100_000}


def _argv(command: str, path: Path, name: bytes) -> list[bytes | str | Path]:
    return [path if a == "FILE" else name if a == "NAME" else a for a in COMMANDS[command]]


@pytest.mark.parametrize("name", list(CLI_BAD), ids=str)
@pytest.mark.parametrize("command", list(COMMANDS))
def test_the_command_refuses_bad_names_in_one_line(command: str, name: str, cli_file: Path) -> None:
    before = cli_file.read_bytes()
    r = _anatid(*_argv(command, cli_file, CLI_BAD[name]))
    err = r.stderr.decode("utf-8", "replace")
    assert r.returncode == 2, err  # docs/cli.md: 2 is an error in the arguments or the file
    assert err.count("\n") == 1 and "Traceback" not in err and "unexpected" not in err, err
    assert BAD[name][1] in err and len(err) < 1000, err
    assert cli_file.read_bytes() == before


@pytest.mark.parametrize("name", list(ODD), ids=str)
def test_the_command_finds_odd_names(name: str, cli_file: Path) -> None:
    x = ODD[name]
    r = _anatid(*_argv("search --label", cli_file, x.encode()))
    assert r.returncode == 0, r.stderr
    assert [h["item"]["id"] for h in json.loads(r.stdout)] == [x]
    r = _anatid(*_argv("neighbours --label", cli_file, x.encode()))
    assert r.returncode == 0, r.stderr
    assert [n["id"] for n in json.loads(r.stdout)] == [x]


# --------------------------------------------------------------------------------- the MCP


def _mcp_calls(x: str) -> list[tuple[str, dict[str, Any], str]]:
    """Tool calls with ``x`` as a name, and the argument a refusal must name."""
    return [
        ("search_nodes", {"query": "Alice", "entity_types": [x]}, "entity_type"),
        ("search_nodes", {"query": "Alice", "center_node_uuid": x}, "center_node_uuid"),
        # an edge type is a fact's name, a text value of any length: no 100 kB limit
        ("search_memory_facts", {"query": "Alice", "edge_types": [x]}, "name"),
        ("get_episodes", {"group_ids": [x]}, "group"),
        ("get_entity_edge", {"uuid": x}, "uuid"),
        ("get_history", {"uuid": x}, "uuid"),
        ("shortest_path", {"source_node_uuid": x, "target_node_uuid": "b"}, "uuid"),
    ]


def _tool_error(result: Any) -> str | None:
    """A tool's error text (Graphiti's ``{"error": ...}`` shape), None if it answered."""
    body = json.loads(result.content[0].text)
    if not result.isError:
        return None
    assert set(body) == {"error"} and result.structuredContent == {"result": body}, body
    return body["error"]


@needs("mcp", "graphiti")
async def test_mcp_tools_answer_names_with_their_error_shape(tmp_path: Path) -> None:
    from tests.mcp.conftest import call, remember, stdio_session

    async with stdio_session(tmp_path / "memory.duckdb") as s:
        await remember(s, "Alice works at Acme.", 1)
        for name, x in NAMES.items():
            if name == "lone surrogate":
                continue  # JSON cannot carry one: test_mcp_tools_refuse_a_lone_surrogate
            for tool, args, argument in _mcp_calls(x):
                error = _tool_error(await s.call_tool(tool, args))
                if name in BAD and not (name == "100 kB" and "edge_types" in args):
                    assert error is not None, (tool, name)
                if error is not None:
                    assert "\n" not in error and len(error) < 1000, (tool, name, error[:300])
                    if name in BAD:
                        assert argument in error or "id" in error, (tool, name, error)
        facts = (await call(s, "search_memory_facts", query="Alice"))["facts"]
        assert [f["fact"] for f in facts] == ["Alice works at Acme"]  # served, nothing harmed


@needs("mcp", "graphiti")
async def test_mcp_tools_refuse_a_lone_surrogate(monkeypatch: pytest.MonkeyPatch) -> None:
    # Over the wire the client's JSON encoder (and the server's parser) refuse a lone
    # surrogate before any tool runs; in the server's own process a tool must still answer.
    monkeypatch.setenv("ANATID_MCP_CLIENTS", "tests.mcp.fake_clients:clients")
    monkeypatch.setenv("OPENAI_API_KEY", "")
    monkeypatch.setenv("CONFIG_PATH", "")
    from anatid_mcp.config import load
    from anatid_mcp.memory import Memory, Options
    from anatid_mcp.server import build

    memory = await Memory.open(load(None), Options(path=":memory:"))
    try:
        mcp = build(memory)
        for tool, args, argument in _mcp_calls("x\udcff"):
            error = _tool_error(await mcp.call_tool(tool, args))
            assert error is not None, tool
            assert argument in error or "id" in error, (tool, error)
            error.encode("utf-8")  # sendable as JSON: no lone surrogate quoted back
    finally:
        await memory.close()
