"""recall's fusion (issue 36): a record that matches the query ranks above one that only the graph
reached, unless the caller weighs the graph arm up; records an arm scores alike share its rank.
The labelled ranking check through ``anatid search`` is tests/cli/test_search_ranking.py."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from anatid_core import Edge, InvalidInput, Node, Store
from anatid_core.hits import Ranked
from anatid_core.rank_fusion import fuse, pool_size, tied_ranks


@pytest.fixture
def jobs(store: Store) -> Store:
    """The README's memory: Alice worked at Acme, then at Globex; Acme is in Paris."""
    store.upsert_nodes(
        [
            Node("alice", name="Alice", labels=("Person",)),
            Node("acme", name="Acme", labels=("Company",)),
            Node("globex", name="Globex", labels=("Company",)),
            Node("paris", name="Paris", labels=("City",)),
        ]
    )
    store.upsert_edges(
        [
            Edge("job1", "alice", "acme", "WORKS_AT", text="Alice works at Acme"),
            Edge("job2", "alice", "globex", "WORKS_AT", text="Alice works at Globex"),
            Edge("where", "acme", "paris", "BASED_IN", text="Acme is based in Paris"),
        ]
    )
    return store


def _ids(hits: list) -> list[str]:
    return [h.id for h in hits]


def test_records_matching_the_words_rank_above_what_only_the_graph_reached(jobs: Store) -> None:
    hits = jobs.recall(text="Alice Globex", seeds=["alice", "globex"], k=3)
    assert set(_ids(hits[:2])) == {"alice", "globex"}
    assert hits[2].id == "acme" and dict(hits[2].arms) == {"graph": 1}  # matches neither word


def test_weighing_the_graph_arm_up_lets_the_neighbourhood_outrank_the_matches(
    jobs: Store,
) -> None:
    hits = jobs.recall(text="Alice Globex", seeds=["alice", "globex"], k=3, weights={"graph": 2})
    assert hits[0].id == "acme"
    down = jobs.recall(text="Alice Globex", seeds=["alice", "globex"], k=3, weights={"graph": 0})
    assert _ids(down)[:2] == _ids(hits)[1:]  # weight 0: the graph only fills the list


def test_the_pagerank_arm_is_a_graph_arm_too(jobs: Store) -> None:
    hits = jobs.recall(text="Alice Globex", seeds=["alice"], k=4, graph_arm="pagerank")
    matched = [h for h in hits if "text" in h.arms]
    assert hits[: len(matched)] == matched and len(matched) == 2


def test_records_an_arm_scores_alike_share_its_rank(jobs: Store) -> None:
    """Both of Alice's jobs lie one hop from her: the graph arm must not prefer one by id, so
    the text arm's order (the fact naming Globex matches two words) decides."""
    hits = jobs.recall(text="works Globex", seeds=["alice"], kind="edge", k=2)
    assert _ids(hits) == ["job2", "job1"]
    assert hits[0].arms["graph"] == hits[1].arms["graph"] == 1
    same = [Ranked("z", 2.0, 1), Ranked("a", 2.0, 2), Ranked("m", 1.0, 3), Ranked("b", 1.0, 4)]
    assert tied_ranks(same) == [("z", 1), ("a", 1), ("m", 3), ("b", 3)]


@pytest.mark.parametrize(
    "weights",
    [{"grpah": 1.0}, {"graph": -1.0}, {"graph": math.nan}, {"text": math.inf}, {"graph": True}],
)
def test_weights_name_known_arms_and_finite_numbers(jobs: Store, weights: dict) -> None:
    with pytest.raises(InvalidInput, match="weights"):
        jobs.recall(text="Alice", seeds=["alice"], weights=weights)


_RANKING = st.lists(
    st.tuples(st.sampled_from("abcdefghij"), st.integers(0, 3)), unique_by=lambda t: t[0]
)


@given(text=_RANKING, graph=_RANKING, k=st.integers(1, 30))
def test_with_default_weights_every_match_outranks_every_graph_only_record(
    text: list[tuple[str, int]], graph: list[tuple[str, int]], k: int
) -> None:
    """Whatever the arms return (ties included) and whatever k: the match arms' pool is at most
    pool_size(k) long, and a graph rank counts after it."""
    pool = pool_size(k)

    def arm(pairs: list[tuple[str, int]]) -> list[Ranked]:
        ordered = sorted(pairs[:pool], key=lambda p: -p[1])
        return [Ranked(i, float(s), n) for n, (i, s) in enumerate(ordered, 1)]

    fused = fuse(
        {"text": arm(text), "graph": arm(graph)},
        k,
        60,
        lambda ids: {i: Node(i) for i in ids},
    )
    kinds = ["text" in h.arms for h in fused]
    assert kinds == sorted(kinds, reverse=True)  # every match first, then graph-only records
