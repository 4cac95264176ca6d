"""PageRank and communities (issue 17) against networkx, current and as of past instants."""

from __future__ import annotations

import math
import random
from typing import Any

import networkx as nx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from anatid_core import Edge, InvalidInput, Node, NotFound, Store
from anatid_core.graph.communities import COMMUNITIES
from tests.extras import needs

from .graph_oracle import GROUPS, RELS, Snapshot, build, nx_pagerank, nx_weighted

EXAMPLES = settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)


def _scores(store_or_view, seeds, **kw) -> dict[str, float]:
    hits = store_or_view.pagerank(seeds, k=None, tolerance=1e-13, iterations=5_000, **kw)
    return {h.id: h.score for h in hits}


def _view(store: Store, snaps: list[Snapshot], at: int):
    return store if at == len(snaps) - 1 else store.as_of(tx_time=snaps[at].at)


def _random_case(store: Store, seed: int, n: int, density: float, filtered: bool, data: Any):
    """A random graph history written to ``store``; then (view at a drawn instant, its visible
    nodes and edges, up to 3 seeds, groups, rels), or None if that graph has no node."""
    snaps = build(store, seed, n, int(n * density))
    at = data.draw(st.integers(0, len(snaps) - 1), label="instant")
    rng = random.Random(seed)
    groups = set(rng.sample(GROUPS, 2)) if filtered else None
    rels = {rng.choice(RELS)} if filtered else None
    nodes, edges = snaps[at].graph(groups, rels)
    if not nodes:
        return None
    seeds = rng.sample(nodes, k=min(3, len(nodes)))
    return _view(store, snaps, at), nodes, edges, seeds, groups, rels


# ---------------------------------------------------------------------------------- PageRank


#: What _random_case draws from, and the damping: a PageRank test's given().
CASE = {
    "seed": st.integers(0, 10_000),
    "n": st.integers(2, 40),
    "density": st.floats(0.0, 3.0),
    "damping": st.floats(0.05, 0.95),
    "filtered": st.booleans(),
    "data": st.data(),
}


@EXAMPLES
@given(**CASE, direction=st.sampled_from(["both", "out", "in"]))
def test_personalized_pagerank_matches_networkx_now_and_as_of_the_past(
    seed, n, density, damping, direction, filtered, data
) -> None:
    with Store.open(":memory:") as store:
        case = _random_case(store, seed, n, density, filtered, data)
        if case is None:
            return
        view, nodes, edges, seeds, groups, rels = case
        expected = nx_pagerank(nodes, edges, seeds, damping, direction)
        got = _scores(view, seeds, damping=damping, direction=direction, groups=groups, rels=rels)
        assert set(got) <= set(nodes)  # nothing outside the visible, filtered graph
        assert max(abs(got.get(i, 0.0) - p) for i, p in expected.items()) < 1e-6
        assert math.isclose(sum(got.values()), 1.0, abs_tol=1e-9)


@EXAMPLES
@given(**CASE, tolerance=st.sampled_from([1e-2, 1e-4, 1e-6]))
def test_push_scores_are_within_tolerance_times_degree_below_networkx(
    seed, n, density, damping, tolerance, filtered, data
) -> None:
    """method="push": every score at most ``tolerance`` x its node's degree (at least 1)
    below the exact one, never above it, now and as of the past."""
    with Store.open(":memory:") as store:
        case = _random_case(store, seed, n, density, filtered, data)
        if case is None:
            return
        view, nodes, edges, seeds, groups, rels = case
        expected = nx_pagerank(nodes, edges, seeds, damping, "both")
        degree = dict.fromkeys(nodes, 0)
        for s, d in edges:
            degree[s] += 1
            degree[d] += 1
        hits = view.pagerank(
            seeds,
            k=None,
            damping=damping,
            tolerance=tolerance,
            method="push",
            groups=groups,
            rels=rels,
        )
        got = {h.id: h.score for h in hits}
        assert set(got) <= set(nodes)
        for i, exact in expected.items():
            below = exact - got.get(i, 0.0)
            assert -1e-9 <= below <= tolerance * max(degree[i], 1) + 1e-9, (i, below)
        assert sum(got.values()) <= 1.0 + 1e-9


def test_push_needs_the_undirected_walk_and_ranks_like_iterating(seeded: Store) -> None:
    with pytest.raises(InvalidInput):
        seeded.pagerank(["a"], method="push", direction="out")
    with pytest.raises(InvalidInput):
        seeded.pagerank(["a"], method="sweep")  # type: ignore[arg-type]
    pushed = seeded.pagerank(["a"], method="push", tolerance=1e-9, k=3)
    assert [h.id for h in pushed] == [h.id for h in seeded.pagerank(["a"], k=3)]


def test_pagerank_ranks_best_first_with_nodes_and_ties_by_id(seeded: Store) -> None:
    hits = seeded.pagerank(["a"], k=3)
    assert [h.rank for h in hits] == [1, 2, 3] and hits[0].id == "a"
    assert all(x.score >= y.score for x, y in zip(hits, hits[1:], strict=False))
    assert all(h.item == seeded.get_node(h.id) for h in hits)
    with Store.open(":memory:") as star:  # x, y and z tie: by id
        star.upsert_nodes([Node(i) for i in "hxyz"])
        star.upsert_edges([Edge(f"e{i}", "h", i, "R") for i in "zyx"])
        assert [h.id for h in star.pagerank(["h"], k=None)] == ["h", "x", "y", "z"]
        assert [h.id for h in star.pagerank(["h"], k=2)] == ["h", "x"]
        assert star.pagerank(["h"], k=0) == []


@pytest.mark.parametrize(
    "kw",
    [
        {"damping": 0},
        {"damping": 1},
        {"damping": 1.5},
        {"damping": -0.2},
        {"damping": float("nan")},
        {"damping": True},
        {"iterations": 0},
        {"tolerance": 0},
        {"tolerance": float("inf")},
        {"k": -1},
        {"direction": "up"},
    ],
)
def test_pagerank_refuses_bad_options(seeded: Store, kw) -> None:
    with pytest.raises(InvalidInput):
        seeded.pagerank(["a"], **kw)


def test_pagerank_seeds_must_be_visible_nodes(seeded: Store) -> None:
    with pytest.raises(NotFound) as caught:
        seeded.pagerank(["a", "nope"])
    assert caught.value.id == "nope"
    with pytest.raises(InvalidInput):
        seeded.pagerank([])
    with pytest.raises(InvalidInput):
        seeded.pagerank("a")
    with pytest.raises(NotFound):  # d is in group g2: outside the graph asked for
        seeded.pagerank(["d"], groups=["g1"])
    past = seeded.as_of(tx_time=seeded.get_node("a").tx_from)  # type: ignore[union-attr]
    seeded.delete_nodes(["a"])
    with pytest.raises(NotFound):
        seeded.pagerank(["a"])
    assert past.pagerank(["a"], k=1)[0].id == "a"  # still a node as of then


def test_seed_weights_restart_the_walk_in_proportion(seeded: Store) -> None:
    nodes = [n.id for n in seeded.find_nodes()]
    edges = [(e.src, e.dst) for e in seeded.find_edges()]
    g = nx.MultiDiGraph()
    g.add_nodes_from(nodes)
    for s, d in edges:
        g.add_edges_from([(s, d), (d, s)])
    expected = nx.pagerank(g, personalization={"a": 3.0, "d": 1.0}, tol=1e-15, max_iter=10_000)
    got = _scores(seeded, {"a": 3.0, "d": 1.0})
    assert max(abs(got.get(i, 0.0) - p) for i, p in expected.items()) < 1e-6


def test_a_write_is_seen_by_the_next_pagerank(seeded: Store) -> None:
    before = _scores(seeded, ["e"])
    assert before == {"e": 1.0}  # isolated: all the mass stays on the seed
    seeded.upsert_edge(Edge("ea", "e", "a", "KNOWS"))
    after = _scores(seeded, ["e"])
    assert after["e"] < 1.0 and after["a"] > 0
    with seeded.transaction():  # its own uncommitted writes are visible to it
        seeded.delete_edges(["ea"])
        assert _scores(seeded, ["e"]) == {"e": 1.0}
    assert _scores(seeded, ["e"]) == {"e": 1.0}


# ----------------------------------------------------------------------------------- recall


def test_recall_with_the_pagerank_arm_says_which_arms_found_each_hit(seeded: Store) -> None:
    hits = seeded.recall(text="Acme", seeds=["a", "unknown"], graph_arm="pagerank", k=10)
    ranked = [h.id for h in seeded.pagerank(["a"], k=None) if h.id != "a"]
    by_arm = sorted((h.arms["pagerank"], h.id) for h in hits if "pagerank" in h.arms)
    assert [i for _, i in by_arm] == ranked  # the arm's order is PageRank's, seeds left out
    assert {"text", "pagerank"} == {a for h in hits for a in h.arms}
    default = seeded.recall(seeds=["a"], k=10)
    assert all(set(h.arms) == {"graph"} for h in default)  # the k-hop arm stays the default
    edges = seeded.recall(seeds=["a"], kind="edge", graph_arm="pagerank", k=3)
    assert edges and all(isinstance(h.item, Edge) and "pagerank" in h.arms for h in edges)
    with pytest.raises(InvalidInput):
        seeded.recall(seeds=["a"], graph_arm="random")


# ------------------------------------------------------------------------------ communities


@pytest.fixture(params=["plain", pytest.param("igraph", marks=needs("graph"))])
def backend(request, monkeypatch) -> str:
    """Each communities test runs on both backends: the plain Louvain, and igraph's Leiden."""
    monkeypatch.setitem(COMMUNITIES, "backend", request.param)
    return request.param


def _modularity(nodes, edges, parts) -> float:
    g = nx_weighted(nodes, edges)
    return nx.community.modularity(g, [set(p) for p in parts]) if g.number_of_edges() else 0.0


@EXAMPLES
@given(seed=st.integers(0, 10_000), n=st.integers(2, 60), density=st.floats(0.3, 4.0))
def test_communities_are_a_partition_as_good_as_networkx_louvain(backend, seed, n, density) -> None:
    with Store.open(":memory:") as store:
        snaps = build(store, seed, n, int(n * density))
        at = seed % len(snaps)
        nodes, edges = snaps[at].graph()
        parts = _view(store, snaps, at).communities()
        assert sorted(i for p in parts for i in p) == nodes  # every visible node, once
        g = nx_weighted(nodes, edges)
        if g.number_of_edges() == 0:
            assert len(parts) == len(nodes)
            return
        theirs = nx.community.modularity(g, nx.community.louvain_communities(g, seed=seed))
        mine = _modularity(nodes, edges, parts)
        assert mine >= theirs - 0.05 * abs(theirs) - 1e-9


@settings(
    max_examples=5, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(seed=st.integers(0, 10_000))
def test_communities_are_the_same_whatever_order_the_graph_was_written_in(backend, seed) -> None:
    rng = random.Random(seed)
    n = rng.randrange(5, 50)
    nodes = [Node(f"n{i:02d}") for i in range(n)]
    edges = [
        Edge(f"e{j}", f"n{rng.randrange(n):02d}", f"n{rng.randrange(n):02d}", "R")
        for j in range(2 * n)
    ]
    results = []
    for _ in range(2):
        with Store.open(":memory:") as s:
            rng.shuffle(nodes)
            rng.shuffle(edges)
            for chunk in (nodes[: n // 2], nodes[n // 2 :]):
                s.upsert_nodes(chunk)
            s.upsert_edges(edges)
            results.append(s.communities())
            assert s.communities() == results[-1]
    assert results[0] == results[1]


def _two_cliques(store: Store) -> None:
    store.upsert_nodes([Node(f"{c}{i}") for c in "pq" for i in range(4)])
    store.upsert_edges(
        [
            Edge(f"{c}{i}{j}", f"{c}{i}", f"{c}{j}", "R")
            for c in "pq"
            for i in range(4)
            for j in range(i + 1, 4)
        ]
    )


def test_communities_follow_writes_and_leave_the_file_alone(backend, tmp_path) -> None:
    with Store.open(tmp_path / "g.duckdb") as s:
        _two_cliques(s)
        tables = s.connection.query("SELECT table_name FROM duckdb_tables() ORDER BY 1")
        first = s.communities()
        assert first == [["p0", "p1", "p2", "p3"], ["q0", "q1", "q2", "q3"]]
        past = s.as_of(tx_time=s.get_edge("q01").tx_from)  # type: ignore[union-attr]
        s.delete_nodes(["p0"])
        assert s.communities() == [["q0", "q1", "q2", "q3"], ["p1", "p2", "p3"]]  # largest first
        assert past.communities() == first
        assert s.communities(groups=["other"]) == []
        assert s.connection.query("SELECT table_name FROM duckdb_tables() ORDER BY 1") == tables
        with pytest.raises(InvalidInput):
            s.communities(resolution=0)
