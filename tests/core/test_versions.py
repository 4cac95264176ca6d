"""``versions(kind)``: the whole timeline of every record, in transaction order."""

from __future__ import annotations

import pytest

from anatid_core import Edge, InvalidInput, Node, Store

from .conftest import T0


def test_versions_lists_every_version_in_tx_order_including_deleted(store: Store) -> None:
    store.upsert_nodes([Node("a", name="Alice"), Node("b", group="g", name="Bob")])
    store.upsert_nodes([Node("a", name="Alice Smith")])
    store.upsert_edges([Edge("ab", "a", "b", "KNOWS")])
    store.close_edges(["ab"], valid_to=T0)
    store.delete_nodes(["b"])

    nodes = store.versions("node")
    assert [(n.id, n.name) for n in nodes] == [("a", "Alice"), ("b", "Bob"), ("a", "Alice Smith")]
    assert [n.tx_from for n in nodes] == sorted(n.tx_from for n in nodes)  # type: ignore[type-var]
    assert nodes[0].tx_to == nodes[2].tx_from  # superseded when the new version was written
    assert nodes[1].tx_to is not None  # deleted, still listed
    assert nodes[2].tx_to is None

    edges = store.versions("edge")
    assert [(e.id, e.valid_to) for e in edges] == [("ab", None), ("ab", T0)]
    assert all(e.tx_to is not None for e in edges)  # closed, then deleted with b


def test_versions_filters_groups_pages_and_ignores_views(store: Store) -> None:
    store.upsert_nodes([Node("a"), Node("b", group="g"), Node("c", group="g")])
    assert [n.id for n in store.versions("node", groups=["g"])] == ["b", "c"]
    assert [n.id for n in store.versions("node", groups=[""])] == ["a"]
    assert [n.id for n in store.versions("node", limit=1, offset=1)] == ["b"]
    first = store.versions("node")[0].tx_from
    assert first is not None
    past = store.as_of(tx_time=first)
    assert len(past.versions("node")) == 3  # like history(): the timeline, whatever the view
    with pytest.raises(InvalidInput):
        store.versions("graph")  # type: ignore[arg-type]
    with pytest.raises(InvalidInput):
        store.versions("node", limit=-1)
    with Store.open(":memory:") as empty:
        assert empty.versions("edge") == []
