"""Issue 42, point 4: answers shaped as Neo4j shapes them. Map projections follow Neo4j's
documented semantics (Cypher manual, "Maps: map projection"); a returned node or relationship
has no null-valued properties (in Neo4j a property set to null does not exist)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest

from anatid_core import CypherError, CypherSyntaxError, Edge, Node, RecordShape, Store


@pytest.fixture
def people(store: Store) -> Store:
    store.upsert_nodes(
        [
            Node(id="a", labels=("Person",), name="Alice", props={"age": 30}),
            Node(id="b", labels=("Person",), name="Bob"),
        ]
    )
    store.upsert_edges([Edge(id="ab", src="a", dst="b", rel="KNOWS", props={"since": 2020})])
    return store


def one(store: Store, query: str, **params: Any) -> Any:
    [(value,)] = store.cypher(query, params).rows
    return value


# ------------------------------------------------------------------------ map projections


def test_property_selectors_give_null_for_a_missing_property(people: Store):
    value = one(people, "MATCH (n {name: 'Bob'}) RETURN n {.name, .age} AS m")
    assert value == {"name": "Bob", "age": None}


def test_all_properties_selector_gives_every_present_property(people: Store):
    value = one(people, "MATCH (n {name: 'Alice'}) RETURN n {.*} AS m")
    assert value == {"age": 30, "id": "a", "name": "Alice", "group": "", "text": ""}


def test_literal_entries_and_variable_selectors(people: Store):
    value = one(
        people,
        "MATCH (n {name: 'Alice'})-[r:KNOWS]->(b) WITH n, r, b.name AS friend "
        "RETURN n {.name, friend, years: 2025 - r.since, kind: type(r)} AS m",
    )
    assert value == {"name": "Alice", "friend": "Bob", "years": 5, "kind": "KNOWS"}


def test_a_later_entry_replaces_an_earlier_one(people: Store):
    value = one(people, "MATCH (n {name: 'Alice'}) RETURN n {.*, name: 'A', age: null} AS m")
    assert value["name"] == "A" and value["age"] is None


def test_a_relationship_and_a_map_project_too(people: Store):
    assert one(people, "MATCH ()-[r:KNOWS]->() RETURN r {.since} AS m") == {"since": 2020}
    value = one(people, "WITH {a: 1, b: 2} AS x RETURN x {.a, .z, c: x.b * 2} AS m")
    assert value == {"a": 1, "z": None, "c": 4}
    assert one(people, "WITH {a: 1, b: 2} AS x RETURN x {.*} AS m") == {"a": 1, "b": 2}


def test_a_projection_of_null_is_null(people: Store):
    assert one(people, "OPTIONAL MATCH (n:Nobody) RETURN n {.name} AS m") is None


def test_an_empty_projection_is_an_empty_map(people: Store):
    assert one(people, "MATCH (n {name: 'Bob'}) RETURN n {} AS m") == {}


def test_a_projection_may_hold_aggregates(people: Store):
    [(_, value)] = people.cypher(
        "WITH {x: 1} AS m MATCH (n:Person) "
        "RETURN m, m {.x, total: count(n), names: collect(n.name)} AS v"
    ).rows
    assert value["x"] == 1 and value["total"] == 2
    assert sorted(value["names"]) == ["Alice", "Bob"]


def test_a_projection_of_a_number_is_a_typed_error(people: Store):
    with pytest.raises(CypherError, match="map projection"):
        people.cypher("WITH 1 AS x RETURN x {.a}")


def test_a_bad_projection_item_is_a_syntax_error(people: Store):
    with pytest.raises(CypherSyntaxError):
        people.cypher("MATCH (n) RETURN n {1}")


def test_a_node_pattern_with_properties_still_matches(people: Store):
    assert people.cypher("MATCH (n {name: 'Bob'}) RETURN n.id").rows == [("b",)]


# ------------------------------------------------------------ null properties are absent


class PropsShape(RecordShape):
    """Returns a node or relationship as its property map (as Graphiti's shape does), with a
    null-valued property the store keeps (Graphiti's valid_at before a fact is dated)."""

    def node_properties(self, node: Node) -> dict[str, Any]:
        return {**super().node_properties(node), "valid_at": None}

    def rel_properties(self, edge: Edge) -> dict[str, Any]:
        return {**super().rel_properties(edge), "valid_at": None, "invalid_at": None}

    def node_value(self, node: Node, props: Mapping[str, Any]) -> Any:
        return dict(props)

    def rel_value(self, edge: Edge, props: Mapping[str, Any]) -> Any:
        return dict(props)


def test_a_returned_relationship_omits_null_properties(people: Store):
    [(rel, keys)] = people.cypher(
        "MATCH ()-[e:KNOWS]->() RETURN e, keys(e)", shape=PropsShape()
    ).rows
    assert "valid_at" not in rel and "invalid_at" not in rel
    assert rel["since"] == 2020
    assert sorted(rel) == sorted(keys)


def test_a_returned_node_omits_null_properties_also_inside_lists(people: Store):
    [(node, nodes)] = people.cypher(
        "MATCH (n {name: 'Alice'}) RETURN n, [n] AS ns", shape=PropsShape()
    ).rows
    assert "valid_at" not in node and node["age"] == 30
    assert nodes == [node]
