"""where operators on properties: list `contains`, and UUID-valued properties."""

from __future__ import annotations

import pytest

from anatid_core import Cond, InvalidInput, Node, Store


@pytest.fixture
def store():
    with Store.open(":memory:") as s:
        s.upsert_nodes(
            [
                Node("a", props={"tags": ["x", "y"]}),
                Node("b", props={"tags": "x"}),
                Node("c", props={"tags": ["y"], "nested": {"refs": ["x", "it's"]}}),
                Node("d", props={"tags": []}),
                Node("e"),
            ]
        )
        yield s


def ids(nodes):
    return sorted(n.id for n in nodes)


def test_contains_matches_lists_holding_the_string_only(store):
    assert ids(store.find_nodes(where=[[Cond("props.tags", "contains", "x")]])) == ["a"]
    assert ids(store.find_nodes(where=[[Cond("props.nested.refs", "contains", "it's")]])) == ["c"]
    either = [[Cond("props.tags", "contains", "x")], [Cond("props.tags", "contains", "y")]]
    assert ids(store.find_nodes(where=either)) == ["a", "c"]
    assert store.count_nodes(where=[[Cond("props.tags", "contains", "z")]]) == 0


def test_contains_needs_a_string_and_a_property(store):
    with pytest.raises(InvalidInput, match="string value"):
        store.find_nodes(where=[[Cond("props.tags", "contains", 1)]])
    with pytest.raises(InvalidInput, match="list properties"):
        store.find_nodes(where=[[Cond("name", "contains", "x")]])


def test_uuid_properties_compare_as_uuids():
    import uuid

    a, b = uuid.uuid4(), uuid.uuid4()
    with Store.open(":memory:") as s:
        s.upsert_nodes(
            [
                Node("n1", props={"ref": a}),
                Node("n2", props={"ref": b}),
                Node("n3", props={"ref": str(a)}),
            ]
        )
        assert ids(s.find_nodes(where=[[Cond("props.ref", "=", a)]])) == ["n1"]
        assert ids(s.find_nodes(where=[[Cond("props.ref", "in", [a, b])]])) == ["n1", "n2"]
        assert ids(s.find_nodes(where=[[Cond("props.ref", "=", str(a))]])) == ["n3"]
        assert ids(s.find_nodes(where=[[Cond("props.ref", "!=", a)]])) == ["n2"]
