"""shortest_path, explain, provenance and hubs (issue 17), with networkx as the oracle on random
graphs, current and as of random past instants, with and without scopes."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime, timezone
from itertools import pairwise

import networkx as nx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from anatid_core import (
    Edge,
    Evidence,
    InvalidInput,
    Node,
    NotFound,
    Scope,
    Store,
)

from .graph_history import BATCHES, NODE_IDS, SCOPES, view_at_drawn_instant, write_history

PAIRS = st.lists(
    st.tuples(st.sampled_from(NODE_IDS), st.sampled_from(NODE_IDS)), min_size=1, max_size=4
)


def _all_shortest(g: nx.Graph, a: str, b: str, max_depth: int) -> list[tuple[str, ...]]:
    try:
        paths = sorted({tuple(p) for p in nx.all_shortest_paths(g, a, b)})
    except nx.NetworkXNoPath:
        return []
    return [p for p in paths if len(p) - 1 <= max_depth]


@settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(
    batches=BATCHES,
    scope=SCOPES,
    pairs=PAIRS,
    directed=st.booleans(),
    max_depth=st.integers(0, 5),
    data=st.data(),
)
def test_shortest_paths_and_degrees_match_networkx(
    batches, scope, pairs, directed, max_depth, data
) -> None:
    with Store.open() as store:
        view, seen = view_at_drawn_instant(store, batches, scope, data)
        g = seen.graph(directed=directed)
        for a, b in pairs:
            if a not in seen.nodes or b not in seen.nodes:
                with pytest.raises(NotFound):
                    view.shortest_path(a, b, max_depth=max_depth)
                continue
            got = view.shortest_path(a, b, max_depth=max_depth, directed=directed, limit=1000)
            assert [p.ids for p in got] == _all_shortest(g, a, b, max_depth)
            for p in got:  # each edge joins its two nodes, the right way round if directed
                for (x, y), e in zip(pairwise(p.ids), p.edges, strict=True):
                    assert (e.src, e.dst) == (x, y) or (not directed and (e.src, e.dst) == (y, x))
        multi = seen.graph(directed=True)
        for direction, degree in (
            ("both", multi.degree()),
            ("out", multi.out_degree()),
            ("in", multi.in_degree()),
        ):
            want = sorted(((-d, i) for i, d in degree if d > 0))[:5]
            got = [(-h.degree, h.node.id) for h in view.hubs(5, direction=direction)]
            assert got == want
            assert view.degrees(sorted(seen.nodes), direction=direction) == dict(degree)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(batches=BATCHES, pairs=PAIRS, directed=st.booleans(), max_depth=st.integers(0, 4))
def test_explain_returns_the_edges_on_every_simple_chain_networkx_finds(
    batches, pairs, directed, max_depth
) -> None:
    with Store.open() as store:
        model = write_history(store, batches)[-1][1]
        g = model.graph(directed=directed)
        simple = nx.DiGraph(g) if directed else nx.Graph(g)
        for a, b in pairs:
            if a not in model.nodes or b not in model.nodes:
                continue
            explained = store.explain(a, b, max_depth=max_depth, directed=directed, limit=10**6)
            if a == b:
                want = [(a,)]
            else:
                found = nx.all_simple_paths(simple, a, b, cutoff=max_depth) if max_depth else []
                want = sorted({tuple(p) for p in found}, key=lambda p: (len(p), p))
            assert [p.ids for p in explained.paths] == want
            linked = {k for p in want for x, y in pairwise(p) for k in g[x][y]}
            assert {f.edge.id for f in explained.facts} == linked
            assert explained.connected == bool(want)


# ---------------------------------------------------------------------------- examples


@pytest.fixture
def memory() -> Iterator[Store]:
    """Two episodes mentioning entities, facts carrying the episodes they came from."""
    store = Store.open()
    store.evidence = Evidence(rels=("MENTIONS",), props=("episodes",))
    store.upsert_nodes(
        [
            Node("ep1", group="g", labels=("Episodic",), name="monday"),
            Node("ep2", group="h", labels=("Episodic",), name="tuesday"),
            Node("alice", group="g", labels=("Entity",)),
            Node("acme", group="g", labels=("Entity",)),
            Node("bob", group="g", labels=("Entity",)),
        ]
    )
    store.upsert_edges(
        [
            Edge("m1", src="ep1", dst="alice", rel="MENTIONS", group="g"),
            Edge("m2", src="ep1", dst="acme", rel="MENTIONS", group="g"),
            Edge("m3", src="ep2", dst="bob", rel="MENTIONS", group="h"),
            Edge(
                "works",
                src="alice",
                dst="acme",
                rel="RELATES_TO",
                group="g",
                props={"episodes": ["ep1"]},
            ),
            Edge(
                "hired",
                src="acme",
                dst="bob",
                rel="RELATES_TO",
                group="g",
                props={"episodes": ["ep1", "ep2"]},
            ),
        ]
    )
    yield store
    store.close()


def test_explain_gives_each_linking_fact_with_the_episodes_it_came_from(memory: Store) -> None:
    explained = memory.explain("alice", "bob", max_depth=2)
    assert [p.ids for p in explained.paths] == [("alice", "acme", "bob")]
    evidence = {f.edge.id: [r.id for r in f.evidence] for f in explained.facts}
    assert evidence == {"works": ["ep1"], "hired": ["ep1", "ep2"]}
    # An episode mentioning both ends is evidence, not a link: not walked unless asked for.
    assert memory.explain("alice", "acme", max_depth=2).paths[0].ids == ("alice", "acme")
    via = memory.explain("alice", "acme", max_depth=2, rels=["MENTIONS"])
    assert [p.ids for p in via.paths] == [("alice", "ep1", "acme")]


def test_explain_hides_evidence_outside_the_scope(memory: Store) -> None:
    inside = memory.scoped(Scope.of(groups=["g"]))
    evidence = {f.edge.id: [r.id for r in f.evidence] for f in inside.explain("alice", "bob").facts}
    assert evidence == {"works": ["ep1"], "hired": ["ep1"]}


def test_explain_as_of_before_a_fact_does_not_know_it(memory: Store) -> None:
    before = memory.get_edge("hired").tx_from
    assert before is not None
    memory.upsert_edges([Edge("direct", src="alice", dst="bob", rel="RELATES_TO", group="g")])
    now = memory.explain("alice", "bob", max_depth=1)
    assert [f.edge.id for f in now.facts] == ["direct"]
    past = memory.as_of(tx_time=before).explain("alice", "bob", max_depth=1)
    assert past.facts == () and not past.connected


def test_provenance_gives_every_version_and_the_evidence(memory: Store) -> None:
    memory.upsert_nodes([Node("acme", group="g", labels=("Entity",), name="Acme Corp")])
    prov = memory.provenance("acme")
    assert prov.kind == "node" and [v.name for v in prov.versions] == ["", "Acme Corp"]
    assert [r.id for r in prov.evidence] == ["ep1"]
    fact = memory.provenance("hired")
    assert fact.kind == "edge" and [r.id for r in fact.evidence] == ["ep1", "ep2"]
    other = memory.provenance("hired", evidence=Evidence())
    assert other.evidence == ()
    with pytest.raises(NotFound):
        memory.provenance("nobody")
    with pytest.raises(NotFound):  # its versions are outside the wall
        memory.scoped(Scope.of(groups=["g"])).provenance("ep2")


def test_views_share_the_store_evidence_convention(memory: Store) -> None:
    view = memory.as_of(tx_time=None)
    assert view.evidence == memory.evidence
    assert [r.id for r in view.scoped(Scope.of(groups=["g"])).provenance("alice").evidence] == [
        "ep1"
    ]


def test_shortest_path_follows_rels_and_direction(memory: Store) -> None:
    assert [p.ids for p in memory.shortest_path("bob", "alice")] == [("bob", "acme", "alice")]
    assert memory.shortest_path("bob", "alice", directed=True) == []
    assert [p.ids for p in memory.shortest_path("alice", "bob", directed=True)] == [
        ("alice", "acme", "bob")
    ]
    assert [p.ids for p in memory.shortest_path("alice", "bob", rels=["MENTIONS"])] == []
    assert memory.shortest_path("alice", "bob", max_depth=1) == []
    [same] = memory.shortest_path("alice", "alice", max_depth=0)
    assert same.ids == ("alice",) and same.edges == ()
    # Through entities only: the episode is not a way from alice to acme.
    path = memory.shortest_path("ep1", "bob", labels=["Entity"])
    assert [p.ids for p in path] == [("ep1", "acme", "bob")]


def test_shortest_path_returns_records_in_order(memory: Store) -> None:
    [path] = memory.shortest_path("alice", "bob")
    assert [n.name for n in path.nodes] == ["", "", ""] and path.length == 2
    assert [e.id for e in path.edges] == ["works", "hired"]


def test_hubs_count_degree_by_direction_and_filters(memory: Store) -> None:
    assert [(h.node.id, h.degree) for h in memory.hubs(2)] == [("acme", 3), ("alice", 2)]
    assert [(h.node.id, h.degree) for h in memory.hubs(1, direction="out")] == [("ep1", 2)]
    assert [h.node.id for h in memory.hubs(10, rels=["RELATES_TO"], direction="in")] == [
        "acme",
        "bob",
    ]
    assert [h.node.id for h in memory.hubs(10, labels=["Episodic"])] == ["ep1", "ep2"]
    assert memory.hubs(0) == []


@pytest.mark.parametrize(
    "call",
    [
        lambda s: s.shortest_path("alice", "bob", max_depth=-1),
        lambda s: s.shortest_path("alice", "bob", max_depth=1.5),
        lambda s: s.shortest_path("alice", "bob", limit=0),
        lambda s: s.shortest_path("alice", "bob", rels="MENTIONS"),
        lambda s: s.explain("alice", "bob", max_depth=-2),
        lambda s: s.explain("alice", "bob", evidence=("MENTIONS",)),
        lambda s: s.hubs(-1),
        lambda s: s.hubs(3, direction="sideways"),
        lambda s: s.provenance(""),
        lambda s: Evidence(rels="MENTIONS"),
        lambda s: Evidence(props=(" ",)),
    ],
)
def test_bad_arguments_are_invalid_input(memory: Store, call) -> None:
    with pytest.raises(InvalidInput):
        call(memory)


@pytest.mark.parametrize("verb", ["shortest_path", "explain"])
def test_unknown_ids_are_not_found(memory: Store, verb: str) -> None:
    with pytest.raises(NotFound) as caught:
        getattr(memory, verb)("alice", "carol")
    assert caught.value.id == "carol"


def test_a_deleted_node_is_not_found_now_but_reachable_as_of_before(memory: Store) -> None:
    before = datetime.now(timezone.utc)
    memory.delete_nodes(["acme"])
    with pytest.raises(NotFound):
        memory.shortest_path("alice", "acme")
    assert memory.shortest_path("alice", "bob") == []
    past = memory.as_of(tx_time=before)
    assert [p.ids for p in past.shortest_path("alice", "bob")] == [("alice", "acme", "bob")]
