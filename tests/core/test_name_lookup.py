"""``nodes_named``: the nodes a typed name, or the start of a name or an id, stands for."""

from __future__ import annotations

import pytest

from anatid_core import InvalidInput, Node, Store


@pytest.fixture
def people(store: Store) -> Store:
    store.upsert_nodes(
        [
            Node("p-1", name="Alice Smith"),
            Node("p-2", name="alice smith"),
            Node("p-3", name="Alicia"),
            Node("q-1", name="Bob"),
            Node("x", name="Zed"),
        ]
    )
    return store


def test_a_name_matches_in_any_case_in_id_order(people: Store) -> None:
    assert [n.id for n in people.nodes_named("ALICE SMITH")] == ["p-1", "p-2"]
    assert [n.id for n in people.nodes_named("bob")] == ["q-1"]
    assert people.nodes_named("Ali") == []  # a name must match whole unless prefix


def test_a_prefix_matches_the_start_of_a_name_or_an_id(people: Store) -> None:
    assert [n.id for n in people.nodes_named("ali", prefix=True)] == ["p-1", "p-2", "p-3"]
    assert [n.id for n in people.nodes_named("Q-", prefix=True)] == ["q-1"]
    assert people.nodes_named("smith", prefix=True) == []  # the start, not anywhere


def test_the_lookup_is_bounded_by_its_limit(people: Store) -> None:
    assert [n.id for n in people.nodes_named("a", prefix=True, limit=2)] == ["p-1", "p-2"]


def test_deleted_nodes_are_not_found_but_a_past_view_sees_them(people: Store) -> None:
    before = people.history("q-1")[0].tx_from
    assert before is not None
    people.delete_nodes(["q-1"])
    assert people.nodes_named("Bob") == []
    assert [n.id for n in people.as_of(before).nodes_named("Bob")] == ["q-1"]


def test_an_empty_text_is_refused(people: Store) -> None:
    with pytest.raises(InvalidInput, match="must not be empty"):
        people.nodes_named("")
