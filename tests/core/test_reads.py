from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from anatid_core import Cond, Edge, InvalidInput, Node, Store

from .conftest import T0


def test_get_nodes_keeps_request_order_and_omits_missing(seeded: Store) -> None:
    assert [n.id for n in seeded.get_nodes(["c", "ghost", "a"])] == ["c", "a"]


def test_find_nodes_filters_by_group_label_and_name(seeded: Store) -> None:
    assert [n.id for n in seeded.find_nodes(groups=["g1"], labels=["Person"])] == ["a", "b"]
    assert [n.id for n in seeded.find_nodes(names=["Acme"])] == ["c"]
    assert seeded.count_nodes(groups=["g2"]) == 2


def test_find_nodes_pages_with_limit_and_offset(seeded: Store) -> None:
    first = seeded.find_nodes(order_by="-id", limit=2)
    rest = seeded.find_nodes(order_by="-id", limit=2, offset=2)
    assert [n.id for n in first + rest] == ["e", "d", "c", "b"]


@pytest.mark.parametrize("in_memory", [True, False])
def test_find_node_columns_gives_the_columns_of_what_find_nodes_gives(
    store: Store, monkeypatch: pytest.MonkeyPatch, in_memory: bool
) -> None:
    from anatid_core import SETTINGS

    if not in_memory:
        monkeypatch.setitem(SETTINGS, "current_records_limit", 0)
    store.upsert_nodes(
        [
            Node(f"n{i:02d}", group=f"g{i % 2}", labels=(("A",), ("A", "B"), ())[i % 3],
                 name=f"name {i}", text=f"text {i}" if i % 4 else "")
            for i in range(20)
        ]
    )  # fmt: skip
    store.upsert_node(Node("n03", group="g1", labels=("B",), name="renamed"))
    before = datetime.now(timezone.utc)
    store.delete_nodes(["n05"])
    columns = ["id", "labels", "name", "group", "text"]
    for reader in (store, store.as_of(tx_time=before)):
        for filters in (
            {},
            {"labels": ["A"]},
            {"labels": ["B"], "where": [[Cond("group", "=", "g1")]]},
            {"where": [[Cond("group", "in", ["g0"]), Cond("id", ">", "n08")]], "limit": 3},
            {"where": [[Cond("name", "=", "renamed")]]},
        ):
            nodes = reader.find_nodes(order_by="id", **filters)  # type: ignore[arg-type]
            expected = [(n.id, n.labels, n.name, n.group, n.text) for n in nodes]
            found = reader.find_node_columns(columns, **filters)
            assert found == expected, filters
            assert all(type(t[1]) is tuple for t in found)  # as a record's labels
            twice = reader.find_node_columns(["labels", "id", "labels"], **filters)
            assert twice == [(n.labels, n.id, n.labels) for n in nodes], filters
    assert store.find_node_columns(["name"], where=[[Cond("id", "=", "n03")]]) == [("renamed",)]
    with pytest.raises(InvalidInput, match="columns must be some of"):
        store.find_node_columns(["props"])
    with pytest.raises(InvalidInput, match="columns must be some of"):
        store.find_node_columns([])


@pytest.mark.parametrize("in_memory", [True, False])
def test_edge_and_node_columns_are_those_of_the_records(
    store: Store, monkeypatch: pytest.MonkeyPatch, in_memory: bool
) -> None:
    """``find_edge_columns`` gives the columns of what ``find_edges`` gives, in the same
    order, and ``get_node_columns`` those of what ``get_nodes`` gives, from the in-memory
    records or SQL, now and as of the past."""
    from anatid_core import SETTINGS

    if not in_memory:
        monkeypatch.setitem(SETTINGS, "current_records_limit", 0)
    store.upsert_nodes(
        [Node(f"n{i}", group="g", labels=(("A",), ())[i % 2], name=f"n{i}") for i in range(6)]
    )
    edges = [
        Edge(f"e{i:02d}", f"n{i % 6}", f"n{(i * 7) % 6}", ("R", "S")[i % 3 == 0],
             group=f"g{i % 2}", name=f"name {i}", text=f"fact {i}" if i % 4 else "",
             valid_from=T0 + timedelta(days=i) if i % 2 else None,
             valid_to=T0 + timedelta(days=40 + i) if i % 5 == 0 else None)
        for i in range(16)
    ]  # fmt: skip
    store.upsert_edges(edges)
    before = datetime.now(timezone.utc)
    store.upsert_edge(Edge("e03", "n1", "n2", "R", group="g1", text="changed"))
    store.delete_edges(["e04"])
    store.delete_nodes(["n5"])
    columns = ["id", "src", "dst", "rel", "group", "name", "text", "valid_from", "valid_to"]
    for reader in (store, store.as_of(tx_time=before)):
        for filters in (
            {},
            {"rels": ["R"]},
            {"rels": ["S"], "where": [[Cond("group", "=", "g0")]]},
            {"where": [[Cond("group", "in", ["g1"]), Cond("id", ">", "e05")]], "limit": 3},
        ):
            found = reader.find_edges(order_by="id", **filters)  # type: ignore[arg-type]
            expected = [
                (e.id, e.src, e.dst, e.rel, e.group, e.name, e.text, e.valid_from, e.valid_to)
                for e in found
            ]
            assert reader.find_edge_columns(columns, **filters) == expected, filters
            # built as read: every slice, item and pass the tuples the list holds
            lazy = reader.find_edge_columns_lazily(columns, **filters)
            assert len(lazy) == len(expected) and list(lazy) == expected, filters
            assert [lazy[i] for i in range(len(lazy))] == expected
            assert lazy[1:4] == expected[1:4] and lazy[-1:] == expected[-1:]
            assert [t for i in range(0, len(lazy), 3) for t in lazy[i : i + 3]] == expected
            one = reader.find_edge_columns_lazily(["valid_to"], **filters)
            assert list(one) == [(e.valid_to,) for e in found] and one[:2] == list(one)[:2]
        ids = ["n4", "n5", "zz", "n0", "n4", "n1"]
        nodes = reader.get_nodes(ids)
        assert reader.get_node_columns(ids, ["id", "labels", "name", "labels"]) == [
            (n.id, n.labels, n.name, n.labels) for n in nodes
        ]
    assert store.find_edge_columns(["text"], where=[[Cond("id", "=", "e03")]]) == [("changed",)]
    assert store.get_node_columns([], ["id"]) == []
    for bad in (["props"], [], "id"):
        with pytest.raises(InvalidInput, match="columns must be some of"):
            store.find_edge_columns(bad)
        with pytest.raises(InvalidInput, match="columns must be some of"):
            store.get_node_columns(["n1"], bad)
    with pytest.raises(InvalidInput):
        store.get_node_columns(["a\x00b"], ["id"])
    assert store.find_edge_columns(["id"] * 64, limit=1) == [("e00",) * 64]
    for read in (store.find_edge_columns, store.find_node_columns):
        with pytest.raises(InvalidInput, match="at most 64 columns"):
            read(["id"] * 10_000)


def test_where_is_an_or_of_ands_over_columns_and_props(store: Store) -> None:
    store.upsert_nodes(
        [
            Node(
                "x",
                props={"score": 5, "when": datetime(2024, 1, 2, tzinfo=timezone.utc), "tag": "a"},
            ),
            Node("y", props={"score": 1, "when": datetime(2024, 1, 5), "tag": "b"}),
            Node("z", props={"score": 9}, valid_from=T0),
        ]
    )
    cutoff = datetime(2024, 1, 3, tzinfo=timezone.utc)
    found = store.find_nodes(
        where=[
            [Cond("props.score", ">", 4), Cond("props.when", "<", cutoff)],
            [Cond("props.tag", "=", "b")],
        ]
    )
    assert [n.id for n in found] == ["x", "y"]
    assert [n.id for n in store.find_nodes(where=[[Cond("props.when", "is null")]])] == ["z"]
    assert [n.id for n in store.find_nodes(where=[[Cond("valid_from", "is not null")]])] == ["z"]
    assert [n.id for n in store.find_nodes(where=[[Cond("props.tag", "in", ["a", "b"])]])] == [
        "x",
        "y",
    ]
    by_when = store.find_nodes(where=[[Cond("props.when", "is not null")]], order_by="-props.when")
    assert [n.id for n in by_when] == ["y", "x"]


def test_where_rejects_unknown_fields_and_naive_times(store: Store) -> None:
    with pytest.raises(InvalidInput, match="unknown field"):
        store.find_nodes(where=[[Cond("colour", "=", "red")]])
    with pytest.raises(InvalidInput, match="naive"):
        store.find_nodes(where=[[Cond("valid_from", ">", datetime(2024, 1, 1))]])
    with pytest.raises(InvalidInput, match="edges only"):
        store.find_nodes(where=[[Cond("src", "=", "a")]])


def test_where_values_are_parameters_not_sql(store: Store) -> None:
    evil = "x'); DROP TABLE nodes; --"
    store.upsert_nodes([Node(evil, name=evil, props={evil: evil})])
    assert store.find_nodes(names=[evil])[0].id == evil
    assert store.find_nodes(where=[[Cond(f"props.{evil}", "=", evil)]])[0].props == {evil: evil}
    assert store.count_nodes() == 1


def test_edges_of_and_between_follow_direction(seeded: Store) -> None:
    assert [e.id for e in seeded.edges_of(["c"], direction="in")] == ["ac", "bc"]
    assert [e.id for e in seeded.edges_of(["c"], direction="out")] == ["cd"]
    assert [e.id for e in seeded.edges_of(["a"], rels=["KNOWS"])] == ["ab"]
    assert [e.id for e in seeded.edges_between(["a"], ["b", "c"])] == ["ab", "ac"]
    assert seeded.edges_between(["b"], ["a"]) == []
    assert [e.id for e in seeded.edges_between(["b"], ["a"], directed=False)] == ["ab"]


def test_neighbours_and_degrees(seeded: Store) -> None:
    assert {n.id for n in seeded.neighbours(["c"])} == {"a", "b", "d"}
    assert {n.id for n in seeded.neighbours(["c"], direction="out")} == {"d"}
    assert seeded.degrees(["c", "e"], direction="in") == {"c": 2, "e": 0}


def test_expand_counts_hops_and_collects_path_edges(seeded: Store) -> None:
    sub = seeded.expand(["a"], depth=1, direction="out")
    assert dict(sub.distance) == {"a": 0, "b": 1, "c": 1}
    assert {e.id for e in sub.edges} == {"ab", "ac"}
    sub2 = seeded.expand(["a"], depth=2, direction="out")
    assert dict(sub2.distance) == {"a": 0, "b": 1, "c": 1, "d": 2}
    # bc lies on the path a->b->c of length 2, so it is traversed too
    assert {e.id for e in sub2.edges} == {"ab", "ac", "bc", "cd"}
    assert dict(seeded.expand(["d"], depth=2, direction="both").distance) == {
        "d": 0,
        "c": 1,
        "a": 2,
        "b": 2,
    }
    assert dict(seeded.expand(["a"], depth=3, rels=["KNOWS"]).distance) == {"a": 0, "b": 1}
    assert dict(seeded.expand(["a"], depth=3, groups=["g1"]).distance) == {"a": 0, "b": 1, "c": 1}


def test_history_lists_versions_of_nodes_and_edges(seeded: Store) -> None:
    seeded.upsert_edges([Edge("ab", "a", "b", "KNOWS", group="g1", text="Alice knew Bob")])
    history = seeded.history("ab")
    assert [e.text for e in history] == ["Alice knows Bob", "Alice knew Bob"]
    assert history[0].tx_to is not None and history[1].tx_to is None


def test_as_of_sees_the_graph_as_it_was(store: Store) -> None:
    store.upsert_nodes([Node("a", name="one")])
    t1 = datetime.now(timezone.utc)
    store.upsert_nodes([Node("a", name="two"), Node("b")])
    store.delete_nodes(["b"])
    then = store.as_of(tx_time=t1)
    assert then.get_node("a").name == "one"  # type: ignore[union-attr]
    assert then.get_node("b") is None
    assert [h.id for h in then.search_text("one")] == ["a"]
    assert store.search_text("one") == []
    before_anything = store.as_of(tx_time=t1 - timedelta(days=1))
    assert before_anything.count_nodes() == 0


def test_valid_time_view_filters_by_validity(store: Store) -> None:
    store.upsert_nodes(
        [
            Node("old", valid_from=T0, valid_to=T0 + timedelta(days=1)),
            Node("new", valid_from=T0 + timedelta(days=1)),
            Node("always"),
        ]
    )
    view = store.as_of(valid_time=T0 + timedelta(hours=1))
    assert {n.id for n in view.find_nodes()} == {"old", "always"}
    later = store.as_of(valid_time=T0 + timedelta(days=2))
    assert {n.id for n in later.find_nodes()} == {"new", "always"}


def reference_expand(
    edges: list[tuple[str, str, str]], seeds: list[str], depth: int, direction: str
):
    """Plain BFS: distances, and every edge leaving a node at distance < depth."""
    dist = {s: 0 for s in seeds}
    frontier = list(seeds)
    for hop in range(1, depth + 1):
        nxt = []
        for u in frontier:
            for _eid, a, b in edges:
                for near, far in ((a, b),) * (direction in ("out", "both")) + ((b, a),) * (
                    direction in ("in", "both")
                ):
                    if near == u and far not in dist:
                        dist[far] = hop
                        nxt.append(far)
        frontier = nxt
    found = {
        eid
        for eid, a, b in edges
        if (direction in ("out", "both") and a in dist and dist[a] < depth)
        or (direction in ("in", "both") and b in dist and dist[b] < depth)
    }
    return dist, found


from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402


@settings(max_examples=40, deadline=None)
@given(
    pairs=st.lists(st.tuples(st.integers(0, 7), st.integers(0, 7)), max_size=20),
    seed=st.integers(0, 7),
    depth=st.integers(0, 3),
    direction=st.sampled_from(["out", "in", "both"]),
)
def test_expand_equals_a_plain_bfs(pairs, seed, depth, direction) -> None:
    edges = [(f"e{i}", f"n{a}", f"n{b}") for i, (a, b) in enumerate(pairs)]
    with Store.open() as store:
        store.upsert_nodes([Node(f"n{i}", labels=("X",)) for i in range(8)])
        store.upsert_edges([Edge(e, a, b, "R") for e, a, b in edges])
        dist, found = reference_expand(edges, [f"n{seed}"], depth, direction)
        for kwargs in ({}, {"labels": ["X"]}):  # the one-query path and the filtered path
            sub = store.expand([f"n{seed}"], depth=depth, direction=direction, **kwargs)
            assert dict(sub.distance) == dist
            assert {e.id for e in sub.edges} == found


@pytest.mark.parametrize("in_memory", [True, False])
def test_column_reads_refuse_what_the_sql_filter_refuses(
    store: Store, monkeypatch: pytest.MonkeyPatch, in_memory: bool
) -> None:
    """The column reads answered from the in-memory records skip building the SQL filter
    when every name and value surely passes its checks (``_surely_fine``); every other
    argument is checked by it first, so a bad one is refused as the SQL read refuses it, and
    an odd but valid one (an empty group, a long text) answers as SQL does."""
    from anatid_core import SETTINGS

    if not in_memory:
        monkeypatch.setitem(SETTINGS, "current_records_limit", 0)
    store.upsert_nodes([Node("a", group="", labels=("A",)), Node("b", group="g", labels=("A",))])
    store.upsert_edges([Edge("e1", "a", "b", "R", group=""), Edge("e2", "b", "a", "R", group="g")])
    reads = (store.find_edge_columns, store.find_edge_columns_lazily, store.find_node_columns)
    bad = [
        {"where": [[Cond("group", "=", "g\x00")]]},
        {"where": [[Cond("group", "in", ["g", "\ud800"])]]},
        {"where": [[Cond("group", "=", 7)]]},
        {"where": [[Cond("group", "in", "g")]]},
        {"where": [[Cond("id", ">", "x" * 5_000)]]},
        {"where": [[Cond("nope", "=", "g")]]},
        {"where": [Cond("group", "=", "g")]},
        {"limit": -1},
    ]
    for read in reads:
        for filters in bad:
            with pytest.raises(InvalidInput):
                list(read(["id"], **filters))  # type: ignore[arg-type]
    for filters in ({"rels": ["R\x00"]}, {"rels": "R"}):
        with pytest.raises(InvalidInput):
            store.find_edge_columns(["id"], **filters)  # type: ignore[arg-type]
    with pytest.raises(InvalidInput):
        store.find_node_columns(["id"], labels=["A\x00"])
    empty_group = [[Cond("group", "=", "")]]
    assert store.find_edge_columns(["id"], where=empty_group) == [("e1",)]
    assert store.find_node_columns(["id"], where=empty_group) == [("a",)]
    assert store.find_node_columns(["id"], where=[[Cond("name", "=", "n" * 5_000)]]) == []
    assert list(store.find_edge_columns_lazily(["id"], rels=("R",), limit=1)) == [("e1",)]
