"""Scopes are walls (issue 17): a reader inside a scope sees only the graph the scope lets
through, at every instant, through every read verb; no result holds or passes through a node
outside it. The oracle is the plain-Python model of the writes, restricted to the scope."""

from __future__ import annotations

import networkx as nx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from anatid_core import Edge, InvalidInput, Node, NotFound, ReadOnlyError, Scope, Store
from anatid_core.reads import Reader

from .graph_history import BATCHES, NODE_IDS, SCOPES, Model, write_history


def _warm(store: Store) -> None:
    """Load the in-memory indexes, so that a fast path that ignored the wall would answer."""
    store.find_nodes()
    store.search_text("word", k=100)
    store.search_vector([1.0, 1.0], k=100)
    store.expand(NODE_IDS, depth=2)
    store.get_nodes(NODE_IDS)


def _check_lists(view: Reader, seen: Model) -> None:
    assert {n.id for n in view.find_nodes()} == set(seen.nodes)
    assert {e.id for e in view.find_edges()} == set(seen.edges)
    assert view.count_nodes() == len(seen.nodes)
    assert view.count_edges() == len(seen.edges)
    assert {n.id for n in view.get_nodes(NODE_IDS)} == set(seen.nodes)
    for nid in NODE_IDS:
        assert (view.get_node(nid) is not None) == (nid in seen.nodes)
    assert {r[0] for r in view.node_rows()} == set(seen.nodes)
    adjacency = view.adjacency()
    assert set(adjacency.nodes) == set(seen.nodes)
    assert {e.id for e in adjacency.edges} == set(seen.edges)
    assert set(view.get_embeddings(NODE_IDS)) == set(seen.nodes)


def _check_search(view: Reader, seen: Model) -> None:
    assert {h.id for h in view.search_text("word", k=100)} == set(seen.nodes)
    assert {h.id for h in view.search_text("word", kind="edge", k=100)} == set(seen.edges)
    assert {h.id for h in view.search_vector([1.0, 1.0], k=100)} == set(seen.nodes)
    hits = view.recall(text="word", seeds=NODE_IDS, k=100)
    assert {h.id for h in hits} <= set(seen.nodes)


def _check_graph(view: Reader, seen: Model) -> None:
    g = seen.graph()
    for nid in NODE_IDS[::2]:
        sub = view.expand([nid], depth=3)
        want = nx.single_source_shortest_path_length(g, nid, cutoff=3) if nid in g else {}
        assert dict(sub.distance) == want
        assert {e.id for e in sub.edges} <= set(seen.edges)
        assert {n.id for n in view.neighbours([nid])} == (set(g[nid]) if nid in g else set())
        assert {e.id for e in view.edges_of([nid])} <= set(seen.edges)
    degrees = view.degrees(NODE_IDS, direction="both")
    assert {i: d for i, d in degrees.items() if i in g} == dict(g.degree())
    assert {h.node.id: h.degree for h in view.hubs(100)} == {i: d for i, d in g.degree() if d > 0}
    for a in sorted(seen.nodes)[:2]:
        for b in sorted(seen.nodes)[-2:]:
            paths = view.shortest_path(a, b, max_depth=8)
            assert bool(paths) == nx.has_path(g, a, b)
            for path in paths:
                assert set(path.ids) <= set(seen.nodes)
                assert path.length == nx.shortest_path_length(g, a, b)
            explained = view.explain(a, b, max_depth=3)
            assert {f.edge.id for f in explained.facts} <= set(seen.edges)
            assert all(set(p.ids) <= set(seen.nodes) for p in explained.paths)


def _hidden_ids_refused(view: Reader, seen: Model, scope: Scope | None) -> None:
    for nid in NODE_IDS:
        if nid not in seen.nodes:
            with pytest.raises(NotFound):
                view.shortest_path(nid, nid)
        if scope is not None:  # history spans every instant, never the wall
            for v in view.history(nid):
                assert isinstance(v, Node) and scope.node_visible(v.group, v.labels), v


@settings(
    max_examples=12,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(batches=BATCHES, scope=SCOPES, data=st.data())
def test_no_read_verb_sees_through_the_wall(batches, scope, data) -> None:
    with Store.open() as store:
        history = write_history(store, batches)
        _warm(store)
        instant, model = data.draw(st.sampled_from(history))
        final = history[-1][1]
        views = [
            (store.as_of(tx_time=instant, scope=scope), model),
            (store.scoped(scope) if scope is not None else store, final),
        ]
        for view, state in views:
            seen = state.visible(scope)
            _check_lists(view, seen)
            _check_search(view, seen)
            _check_graph(view, seen)
            _hidden_ids_refused(view, seen, scope)


def _store_with_two_groups() -> Store:
    store = Store.open()
    store.upsert_nodes(
        [
            Node("a", group="public", labels=("Person",)),
            Node("secret", group="private", labels=("Person",)),
            Node("b", group="public", labels=("Person",)),
        ]
    )
    store.upsert_edges(
        [
            Edge("a-s", src="a", dst="secret", rel="KNOWS", group="public"),
            Edge("s-b", src="secret", dst="b", rel="KNOWS", group="public"),
        ]
    )
    return store


def test_a_path_through_a_hidden_node_does_not_exist_inside_the_scope() -> None:
    with _store_with_two_groups() as store:
        assert [p.ids for p in store.shortest_path("a", "b")] == [("a", "secret", "b")]
        inside = store.scoped(Scope.of(exclude_groups=["private"]))
        assert inside.shortest_path("a", "b") == []
        assert inside.explain("a", "b").facts == ()
        assert dict(inside.expand(["a"], depth=5).distance) == {"a": 0}
        assert inside.neighbours(["a"]) == []


def test_a_scoped_view_stays_inside_its_wall_when_asked_for_another_instant() -> None:
    with _store_with_two_groups() as store:
        inside = store.scoped(Scope.of(groups=["public"]))
        later = inside.as_of(tx_time=None)
        assert {n.id for n in later.find_nodes()} == {"a", "b"}
        narrower = inside.as_of(scope=Scope.of(labels=["Person"], exclude_groups=["x"]))
        assert {n.id for n in narrower.find_nodes()} == {"a", "b"}
        with pytest.raises(ReadOnlyError):
            inside.upsert_nodes([Node("c")])


@pytest.mark.parametrize(
    "kwargs",
    [
        {},
        {"groups": []},
        {"labels": []},
        {"groups": [""]},
        {"exclude_groups": ["  "]},
        {"labels": ["ok", " "]},
        {"groups": "public"},
    ],
)
def test_a_scope_naming_nothing_or_blank_names_is_refused(kwargs) -> None:
    with pytest.raises(InvalidInput):
        Scope.of(**kwargs)


def test_a_scope_must_be_a_scope() -> None:
    with Store.open() as store, pytest.raises(InvalidInput):
        store.scoped({"groups": ["a"]})  # type: ignore[arg-type]


def test_scopes_sharing_no_group_are_refused_when_narrowed() -> None:
    with Store.open() as store:
        inside = store.scoped(Scope.of(groups=["a"]))
        with pytest.raises(InvalidInput):
            inside.as_of(scope=Scope.of(groups=["b"]))
