"""shortest_path and expand over the in-memory index of the visible graph
(anatid_core.indexes.walk_index) return exactly what the walks by SQL return: the same paths, in the
same order, with the same records (the smallest edge id standing for parallel edges), and the
same subgraphs (nodes, edges, distances, in order), under every limit, scope and instant."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from anatid_core import SETTINGS, Edge, Node, Store
from anatid_core.indexes.graph_arrays import cached_graph
from anatid_core.indexes.walk_index import WALKS

from .graph_history import BATCHES, NODE_IDS, SCOPES, view_at_drawn_instant

NEVER = 10**9


@contextmanager
def load_after(count: int, record_rows: int | None = None) -> Iterator[None]:
    """Walks load the graph after ``count`` walks by SQL; ``record_rows``: the most records
    of a kind kept in columns (0: the path's records by SQL)."""
    before = dict(WALKS)
    WALKS["load_after"] = count
    if record_rows is not None:
        WALKS["record_rows"] = record_rows
    try:
        yield
    finally:
        WALKS.update(before)


@settings(max_examples=16, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    batches=BATCHES,
    scope=SCOPES,
    pairs=st.lists(st.tuples(st.sampled_from(NODE_IDS), st.sampled_from(NODE_IDS)), max_size=4),
    directed=st.booleans(),
    max_depth=st.integers(0, 5),
    limit=st.integers(1, 3),
    rels=st.sampled_from([None, ["R"], ["OTHER"]]),
    record_rows=st.sampled_from([0, 10**6]),
    data=st.data(),
)
def test_the_index_walk_returns_what_the_sql_walk_returns(
    batches, scope, pairs, directed, max_depth, limit, rels, record_rows, data
) -> None:
    with Store.open() as store:
        view, seen = view_at_drawn_instant(store, batches, scope, data)
        pairs = [(a, b) for a, b in pairs if a in seen.nodes and b in seen.nodes]
        kw = {"max_depth": max_depth, "directed": directed, "limit": limit, "rels": rels}
        with load_after(NEVER):
            by_sql = [view.shortest_path(a, b, **kw) for a, b in pairs]
        assert cached_graph(store.indexes.graphs, view.visibility, rels=rels) is None
        with load_after(1, record_rows):  # past views: records from the columns or by SQL
            by_index = [view.shortest_path(a, b, **kw) for a, b in pairs]
        assert by_index == by_sql
        if pairs:
            assert cached_graph(store.indexes.graphs, view.visibility, rels=rels) is not None


@contextmanager
def records_by_sql() -> Iterator[None]:
    """The in-memory current records off, so that the current view's expansion is not answered
    from them (their own walk, tested in test_current_records) but by SQL or the index."""
    before = SETTINGS["current_records_limit"]
    SETTINGS["current_records_limit"] = 0
    try:
        yield
    finally:
        SETTINGS["current_records_limit"] = before


@settings(max_examples=16, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    batches=BATCHES,
    scope=SCOPES,
    seeds=st.lists(st.sampled_from([*NODE_IDS, "unknown"]), max_size=3),
    depth=st.integers(1, 4),
    direction=st.sampled_from(["out", "in", "both"]),
    rels=st.sampled_from([None, ["R"], ["OTHER"]]),
    record_rows=st.sampled_from([0, 10**6]),
    data=st.data(),
)
def test_the_index_expansion_returns_what_the_sql_expansion_returns(
    batches, scope, seeds, depth, direction, rels, record_rows, data
) -> None:
    with Store.open() as store, records_by_sql():
        view, _ = view_at_drawn_instant(store, batches, scope, data)
        kw = {"depth": depth, "direction": direction, "rels": rels}
        with load_after(NEVER):
            by_sql = view.expand(seeds, **kw)
        assert cached_graph(store.indexes.graphs, view.visibility, rels=rels) is None
        with load_after(1, record_rows):
            by_index = view.expand(seeds, **kw)
        if seeds:  # no seeds: nothing to walk
            assert cached_graph(store.indexes.graphs, view.visibility, rels=rels) is not None
        assert by_index == by_sql
        assert [n.id for n in by_index.nodes] == [n.id for n in by_sql.nodes]
        assert [e.id for e in by_index.edges] == [e.id for e in by_sql.edges]


def _parallel(store: Store) -> None:
    store.upsert_nodes([Node(i) for i in ("a", "b", "c")])
    store.upsert_edges(
        [
            Edge("e9", "a", "b", "R0"),
            Edge("e3", "b", "a", "R0"),  # against the walk's way: still the smallest id
            Edge("e5", "a", "b", "R0"),
            Edge("e1", "b", "c", "R0"),
        ]
    )


def test_the_smallest_parallel_edge_id_stands_for_the_others() -> None:
    with Store.open() as store, load_after(1):
        _parallel(store)
        [path] = store.shortest_path("a", "c")
        assert [e.id for e in path.edges] == ["e3", "e1"]
        [path] = store.shortest_path("a", "c", directed=True)
        assert [e.id for e in path.edges] == ["e5", "e1"]


@pytest.mark.parametrize("records_in_memory", [True, False])
def test_a_write_after_the_load_is_seen_by_the_next_walk(
    records_in_memory: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    if not records_in_memory:  # the path's records come from the graph's record columns
        monkeypatch.setitem(SETTINGS, "current_records_limit", 0)
    with Store.open() as store, load_after(1):
        _parallel(store)
        assert store.shortest_path("a", "c")[0].length == 2
        store.upsert_edges([Edge("e0", "a", "c", "R0", props={"w": 1})])
        [path] = store.shortest_path("a", "c")
        assert path.ids == ("a", "c") and path.edges[0].props == {"w": 1}
        store.delete_nodes(["b"])
        assert [p.ids for p in store.shortest_path("a", "c", max_depth=2)] == [("a", "c")]
        with store.transaction():  # its own uncommitted writes: walked by SQL, not cached
            store.upsert_edges([Edge("e0", "a", "a", "R0")])
            assert store.shortest_path("a", "c") == []
        assert store.shortest_path("a", "c") == []
