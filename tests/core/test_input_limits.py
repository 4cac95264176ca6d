"""Inputs at the edges: huge expansion depths, deep props, bad paging arguments."""

from __future__ import annotations

import random

import pytest

from anatid_core import Cond, Edge, InvalidInput, Node, Store
from anatid_core.graph import neighbourhood as graph


def _random_graph(store: Store, seed: int) -> list[str]:
    rng = random.Random(seed)
    ids = [f"n{i}" for i in range(30)]
    store.upsert_nodes([Node(i) for i in ids])
    store.upsert_edges(
        [Edge(f"e{k}", rng.choice(ids), rng.choice(ids), rng.choice(["A", "B"])) for k in range(60)]
    )
    return ids


def _shape(sub) -> tuple:
    return (dict(sub.distance), sorted(e.id for e in sub.edges))


@pytest.mark.parametrize("seed", range(6))
def test_hop_by_hop_and_one_query_expansion_agree(seed, monkeypatch) -> None:
    with Store.open(":memory:") as store:
        ids = _random_graph(store, seed)
        for depth in (1, 2, 3, 5):
            for direction in ("out", "in", "both"):
                one = store.expand([ids[0], ids[1]], depth=depth, direction=direction)
                monkeypatch.setattr(graph, "ONE_QUERY_MAX_DEPTH", 0)
                walked = store.expand([ids[0], ids[1]], depth=depth, direction=direction)
                monkeypatch.undo()
                assert _shape(one) == _shape(walked), (depth, direction)


def test_a_huge_depth_stops_when_nothing_new_is_reached() -> None:
    with Store.open(":memory:") as store:
        store.upsert_nodes([Node(f"c{i}") for i in range(12)])
        store.upsert_edges([Edge(f"l{i}", f"c{i}", f"c{(i + 1) % 12}", "NEXT") for i in range(12)])
        sub = store.expand(["c0"], depth=10**6)  # exhausted memory before the hop-by-hop walk
        assert sub.distance == {f"c{i}": min(i, 12 - i) for i in range(12)}
        assert len(sub.edges) == 12


def test_props_that_nest_too_deeply_are_invalid_input_and_write_nothing() -> None:
    deep: dict = {}
    for _ in range(5000):
        deep = {"a": deep}
    looped: list = []
    looped.append(looped)
    with Store.open(":memory:") as store:
        for props in (deep, {"x": looped}):
            with pytest.raises(InvalidInput, match="nest too deeply"):
                store.upsert_nodes([Node("ok"), Node("deep", props=props)])
        assert store.count_nodes() == 0


@pytest.mark.parametrize("bad", [{"limit": "5"}, {"limit": -1}, {"offset": -2}, {"offset": "x"}])
def test_bad_paging_arguments_are_invalid_input(bad) -> None:
    with Store.open(":memory:") as store:
        with pytest.raises(InvalidInput):
            store.find_nodes(**bad)


@pytest.mark.parametrize(
    "call",
    [
        lambda s: s.find_nodes(ids=["caf\ud800"]),
        lambda s: s.find_nodes(groups=["a\x00"]),
        lambda s: s.find_nodes(where=[[Cond("name", "=", "\udc80")]]),
        lambda s: s.find_nodes(where=[[Cond("id", "in", ["a", object()])]]),
        lambda s: s.find_nodes(where=[[Cond("props.tags", "contains", "\ud800")]]),
        lambda s: s.delete_where("table"),
        lambda s: s.purge_where("nodes"),
    ],
)
def test_bad_filter_values_and_kinds_are_invalid_input_and_delete_nothing(call) -> None:
    with Store.open(":memory:") as store:
        store.upsert_nodes([Node("a"), Node("b")])
        store.upsert_edges([Edge("ab", "a", "b", "R")])
        with pytest.raises(InvalidInput):
            call(store)
        assert store.count_nodes() == 2 and store.count_edges() == 1
