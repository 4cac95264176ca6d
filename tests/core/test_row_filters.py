"""``node_rows``/``edge_rows`` filters (labels, names, where; touching, among): the rows from the
in-memory current records equal the rows SQL gives, for every combination (issue 16)."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from anatid_core import Cond, Edge, InvalidInput, Node, Store


def _seed(store: Store) -> None:
    store.upsert_nodes(
        [
            Node("a", group="g", labels=("Person", "Author"), name="same", props={"n": 1}),
            Node("b", group="g", labels=("Person",), name="same", props={"n": 2}),
            Node("c", group="g", labels=("Book",), name="c"),
            Node("d", group="h", labels=("Person",), name="same"),
            Node("e", group="g", name=""),
        ]
    )
    store.upsert_edges(
        [
            Edge("ab", "a", "b", "KNOWS", group="g", props={"w": 1}),
            Edge("bc", "b", "c", "WROTE", group="g"),
            Edge("ca", "c", "a", "CITES", group="h"),
            Edge("cd", "c", "d", "KNOWS", group="g"),
            Edge("aa", "a", "a", "SELF", group="g"),
        ]
    )


NODE_FILTERS: list[dict] = [
    {"labels": ["Person"]},
    {"labels": ["Author", "Book"], "groups": ["g"]},
    {"names": ["same"]},
    {"names": ["same", "c"], "labels": ["Person"], "groups": ["g"]},
    {"names": ["same"], "ids": ["b", "d", "zz"]},
    {"names": [""]},
    {"labels": []},
    {"names": ["nobody"]},
]
EDGE_FILTERS: list[dict] = [
    {"touching": ["a"]},
    {"touching": ["c", "zz"], "groups": ["g"]},
    {"among": ["a", "b", "c"]},
    {"among": ["a"]},
    {"touching": ["b"], "among": ["a", "b", "c"]},
    {"touching": ["c"], "ids": ["ca", "bc", "zz"]},
    {"among": []},
    {"touching": []},
]


def _both(store: Store, verb: str, **kw: object) -> tuple[list, list]:
    sql = store.as_of(tx_time=datetime.now(timezone.utc))  # an as_of view never reads memory
    return getattr(store, verb)(**kw), getattr(sql, verb)(**kw)


def test_filtered_rows_from_memory_equal_sql_and_find(store: Store) -> None:
    _seed(store)
    for kw in NODE_FILTERS:
        fast, slow = _both(store, "node_rows", **kw)
        found = [(n.id, n.labels, n.name, n.props) for n in store.find_nodes(**kw)]
        assert fast == slow == found, kw
    for kw in EDGE_FILTERS:
        fast, slow = _both(store, "edge_rows", **kw)
        assert fast == slow, kw
    assert store.indexes.current.loaded("node") is not None  # memory answered
    assert [r[:3] for r in store.edge_rows(touching=["a"])] == [
        ("a", "a", "SELF"),
        ("a", "b", "KNOWS"),
        ("c", "a", "CITES"),
    ]
    assert [r[:3] for r in store.edge_rows(among=["a", "b"])] == [
        ("a", "a", "SELF"),
        ("a", "b", "KNOWS"),
    ]
    store.upsert_nodes([Node("b", group="g", labels=("Book",), name="other")])  # moved in both
    store.delete_nodes(["a"])  # and its edges
    for kw in NODE_FILTERS:
        assert _both(store, "node_rows", **kw)[0] == _both(store, "node_rows", **kw)[1], kw
    for kw in EDGE_FILTERS:
        assert _both(store, "edge_rows", **kw)[0] == _both(store, "edge_rows", **kw)[1], kw
    assert [r[0] for r in store.node_rows(names=["same"])] == ["d"]


def test_a_props_filter_reads_sql(store: Store) -> None:
    _seed(store)
    where = [[Cond("props.n", "in", [2, 3])]]
    rows = store.node_rows(labels=["Person"], where=where, plain_props=True)
    assert rows == [("b", ("Person",), "same", {"n": 2})]


def test_bad_filters_are_refused(store: Store) -> None:
    _seed(store)
    with pytest.raises(InvalidInput):
        store.edge_rows(touching=[1])  # type: ignore[list-item]
    with pytest.raises(InvalidInput):
        store.edge_rows(among="a")  # a string is not a list of ids
    with pytest.raises(InvalidInput):
        store.node_rows(labels=[None])  # type: ignore[list-item]
