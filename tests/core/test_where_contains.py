"""The ``contains`` operator: list properties holding a string."""

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
