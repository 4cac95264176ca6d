"""Distances (diameter, mean shortest path) and average clustering (issue 35) against networkx,
on generated graphs and at past instants."""

from __future__ import annotations

import math
import time
from datetime import datetime, timezone

import networkx as nx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from anatid_core import Distances, Edge, InvalidInput, Node, Store
from anatid_core.graph.distances import DISTANCES

from .graph_oracle import build

EXAMPLES = settings(
    max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)


def _write(store: Store, n: int, pairs: list[tuple[int, int]], rels: str = "R") -> None:
    store.upsert_nodes([Node(f"n{i:03d}") for i in range(n)])
    edges = [
        Edge(f"e{k}", f"n{s:03d}", f"n{d:03d}", rels[k % len(rels)])
        for k, (s, d) in enumerate(pairs)
    ]
    if edges:
        store.upsert_edges(edges)


def _oracle(nodes, edges, directed: bool) -> tuple[int, int, int]:
    """(pairs, total, longest) over ordered pairs of distinct nodes joined by a path, by
    networkx's breadth-first search."""
    g = nx.DiGraph() if directed else nx.Graph()
    g.add_nodes_from(nodes)
    g.add_edges_from(edges)
    pairs = total = longest = 0
    for source, lengths in nx.all_pairs_shortest_path_length(g):
        for target, d in lengths.items():
            if target != source:
                pairs, total, longest = pairs + 1, total + d, max(longest, d)
    return pairs, total, longest


def _assert_like_networkx(got: Distances, nodes, edges, directed: bool) -> None:
    assert (got.pairs, got.total, got.diameter) == _oracle(nodes, edges, directed)
    g = nx.DiGraph() if directed else nx.Graph()
    g.add_nodes_from(nodes)
    g.add_edges_from(edges)
    connected = bool(nodes) and (nx.is_strongly_connected(g) if directed else nx.is_connected(g))
    assert got.connected is connected
    if connected:  # networkx's own verbs answer only then
        assert got.diameter == nx.diameter(g)
        assert got.average == nx.average_shortest_path_length(g)  # same division: equal


def _assert_clustering_like_networkx(got: float | None, nodes, edges) -> None:
    if not nodes:
        assert got is None
        return
    g = nx.Graph()
    g.add_nodes_from(nodes)
    g.add_edges_from(edges)
    assert got is not None
    assert math.isclose(got, nx.average_clustering(g), rel_tol=1e-12, abs_tol=1e-15)


#: Named graphs: (nodes, edges as index pairs).
SHAPES: dict[str, tuple[int, list[tuple[int, int]]]] = {
    "empty": (0, []),
    "single node": (1, []),
    "single node with a self-loop": (1, [(0, 0)]),
    "isolated nodes": (4, []),
    "path": (5, [(0, 1), (1, 2), (2, 3), (3, 4)]),
    "directed cycle": (6, [(i, (i + 1) % 6) for i in range(6)]),
    "triangle with a tail": (5, [(0, 1), (1, 2), (2, 0), (2, 3), (3, 4)]),
    "star": (7, [(0, i) for i in range(1, 7)]),
    "complete": (6, [(i, j) for i in range(6) for j in range(6) if i != j]),
    "two components": (7, [(0, 1), (1, 2), (3, 4), (4, 5), (5, 6), (6, 3)]),
    "self-loops and parallel edges": (
        4,
        [(0, 0), (0, 1), (0, 1), (1, 0), (1, 2), (2, 2), (2, 3), (1, 2), (3, 1)],
    ),
}


@pytest.mark.parametrize("shape", list(SHAPES))
@pytest.mark.parametrize("directed", [False, True])
def test_distances_and_clustering_equal_networkx_on_named_graphs(shape, directed) -> None:
    n, pairs = SHAPES[shape]
    with Store.open(":memory:") as store:
        _write(store, n, pairs, rels="RS")
        nodes = [f"n{i:03d}" for i in range(n)]
        edges = [(f"n{s:03d}", f"n{d:03d}") for s, d in pairs]
        _assert_like_networkx(store.distances(directed=directed), nodes, edges, directed)
        _assert_clustering_like_networkx(store.average_clustering(), nodes, edges)


def test_what_each_named_graph_gives() -> None:
    """The values themselves, for a reader of the semantics."""
    with Store.open(":memory:") as store:
        assert store.distances() == Distances(0, 0, 0, 0)
        assert store.distances().average is None and not store.distances().connected
        assert store.average_clustering() is None
        _write(store, 1, [(0, 0)])
        one = store.distances()
        assert (one.connected, one.average, one.diameter) == (True, 0.0, 0)
        assert store.average_clustering() == 0.0
    with Store.open(":memory:") as store:
        _write(store, 6, [(i, (i + 1) % 6) for i in range(6)])
        assert store.distances(directed=True).diameter == 5  # around the cycle
        assert store.distances().diameter == 3  # either way round
        assert store.distances().average == 1.8
    with Store.open(":memory:") as store:
        n, pairs = SHAPES["two components"]
        _write(store, n, pairs)
        split = store.distances()
        # networkx refuses a disconnected graph; the joined pairs: path of 3, square of 4.
        assert not split.connected
        assert (split.pairs, split.total, split.diameter) == (2 * 3 + 4 * 3, 2 * 4 + 2 * 8, 2)
        assert split.average == 24 / 18


CASE = {
    "seed": st.integers(0, 10_000),
    "n": st.integers(1, 60),
    "density": st.floats(0.0, 3.0),
    "filtered": st.booleans(),
    "directed": st.booleans(),
    "data": st.data(),
}


@EXAMPLES
@given(**CASE)
def test_distances_and_clustering_equal_networkx_now_and_as_of_the_past(
    seed, n, density, filtered, directed, data
) -> None:
    """Random histories (self-loops, parallel edges, deleted nodes, several components), read at
    a drawn instant, filtered by groups and rels or not, in batches of 64 sources or more."""
    DISTANCES["batch"] = data.draw(st.sampled_from([64, 128, 1024]), label="batch")
    try:
        with Store.open(":memory:") as store:
            snaps = build(store, seed, n, int(n * density))
            at = data.draw(st.integers(0, len(snaps) - 1), label="instant")
            view = store if at == len(snaps) - 1 else store.as_of(tx_time=snaps[at].at)
            groups = {"g0", "g1"} if filtered else None
            rels = {"R"} if filtered else None
            nodes, edges = snaps[at].graph(groups, rels)
            got = view.distances(directed=directed, groups=groups, rels=rels)
            _assert_like_networkx(got, nodes, edges, directed)
            clustering = view.average_clustering(groups=groups, rels=rels)
            _assert_clustering_like_networkx(clustering, nodes, edges)
    finally:
        DISTANCES["batch"] = 1024


def test_past_instants_keep_their_distances_after_writes() -> None:
    """A path of 5 nodes, then an edge closing it into a ring and a triangle: the current view
    sees the new graph at once, a view as of before the write still the path."""
    with Store.open(":memory:") as store:
        _write(store, 5, [(0, 1), (1, 2), (2, 3), (3, 4)])
        path = store.distances()
        assert (path.diameter, path.average, store.average_clustering()) == (4, 2.0, 0.0)
        time.sleep(0.002)
        before = datetime.now(timezone.utc)
        time.sleep(0.002)
        store.upsert_edges([Edge("ring", "n004", "n000", "R"), Edge("chord", "n000", "n002", "R")])
        now = store.distances()
        assert (now.diameter, now.pairs) == (2, 20)
        assert store.average_clustering() == pytest.approx((1 + 1 / 3 + 1 / 3 + 0 + 0) / 5)
        past = store.as_of(tx_time=before)
        assert past.distances() == path
        assert past.average_clustering() == 0.0
        store.delete_nodes(["n002"])
        gone = store.distances()
        assert (gone.nodes, gone.diameter, gone.connected) == (4, 3, True)  # n3-n4-n0-n1


def test_results_are_kept_until_the_next_write() -> None:
    with Store.open(":memory:") as store:
        _write(store, 3, [(0, 1)])
        first = store.distances()
        assert store.distances() is first  # from the graph's cache
        store.upsert_edges([Edge("e9", "n001", "n002", "R")])
        assert store.distances() is not first
        assert store.distances().diameter == 2


def test_distances_refuse_a_direction_that_is_not_a_bool() -> None:
    with Store.open(":memory:") as store, pytest.raises(InvalidInput, match="directed"):
        store.distances(directed="out")  # type: ignore[arg-type]
