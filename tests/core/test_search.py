from __future__ import annotations

import math
from collections import Counter
from datetime import datetime, timezone

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from anatid_core import Cond, Edge, Node, Store, rrf, tokenize
from anatid_core.indexes.text import BM25


def reference_bm25(docs: dict[str, str], query: str) -> dict[str, float]:
    """Okapi BM25 with Lucene's idf, written plainly from the definition."""
    k1, b = BM25["k1"], BM25["b"]
    toks = {i: tokenize(t) for i, t in docs.items()}
    n = len(docs)
    avgdl = sum(len(t) for t in toks.values()) / n if n else 0.0
    scores: dict[str, float] = {}
    for term in dict.fromkeys(tokenize(query)):
        df = sum(1 for t in toks.values() if term in t)
        if not df:
            continue
        idf = math.log(1 + (n - df + 0.5) / (df + 0.5))
        for i, t in toks.items():
            tf = Counter(t)[term]
            if tf:
                scores[i] = scores.get(i, 0.0) + idf * tf * (k1 + 1) / (
                    tf + k1 * (1 - b + b * len(t) / avgdl)
                )
    return scores


WORDS = st.sampled_from(["apple", "banana", "cherry", "date", "elder", "fig", "grape"])


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    corpus=st.lists(st.lists(WORDS, min_size=0, max_size=8).map(" ".join), min_size=1, max_size=12),
    query=st.lists(WORDS, min_size=1, max_size=3).map(" ".join),
)
def test_bm25_scores_equal_the_reference(corpus: list[str], query: str) -> None:
    with Store.open() as store:
        store.upsert_nodes([Node(f"d{i}", text=t) for i, t in enumerate(corpus)])
        expected = reference_bm25({f"d{i}": t for i, t in enumerate(corpus)}, query)
        hits = store.search_text(query, k=100)
        assert {h.id for h in hits} == set(expected)
        for h in hits:
            assert math.isclose(h.score, expected[h.id], rel_tol=1e-9, abs_tol=1e-12)
        assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)


def test_text_search_filters_and_sees_writes_immediately(seeded: Store) -> None:
    assert [h.id for h in seeded.search_text("acme")][:1] == ["c"]
    assert {h.id for h in seeded.search_text("acme", labels=["Person"])} == {"a"}
    assert [h.id for h in seeded.search_text("acme", kind="edge", rels=["WORKS_AT"])] == [
        "ac",
        "bc",
    ] or [h.id for h in seeded.search_text("acme", kind="edge", rels=["WORKS_AT"])] == ["bc", "ac"]
    seeded.upsert_nodes([Node("z", text="zeppelin")])
    assert [h.id for h in seeded.search_text("Zeppelin")] == ["z"]


def test_text_search_inside_a_transaction_sees_its_own_writes(store: Store) -> None:
    with store.transaction():
        store.upsert_nodes([Node("z", text="zeppelin")])
        assert [h.id for h in store.search_text("zeppelin")] == ["z"]


@settings(max_examples=25, deadline=None)
@given(
    vectors=st.lists(
        st.lists(
            st.floats(-10, 10, allow_nan=False, allow_subnormal=False, width=32),
            min_size=4,
            max_size=4,
        ),
        min_size=1,
        max_size=30,
    ),
    query=st.lists(
        st.floats(-10, 10, allow_nan=False, allow_subnormal=False, width=32), min_size=4, max_size=4
    ),
)
def test_cosine_search_matches_numpy_on_the_cache_and_sql_paths(
    vectors: list[list[float]], query: list[float]
) -> None:
    if not np.linalg.norm(query):
        return
    with Store.open() as store:
        store.upsert_nodes([Node(f"v{i:02d}", embedding=v) for i, v in enumerate(vectors)])
        mat = np.asarray(vectors, dtype=np.float32)
        q = np.asarray(query, dtype=np.float32)
        norms = np.linalg.norm(mat, axis=1) * np.linalg.norm(q)
        expected = {
            f"v{i:02d}": (float(mat[i] @ q / norms[i]) if norms[i] else 0.0)
            for i in range(len(vectors))
        }
        cached = store.search_vector(query, k=100)
        historical = store.as_of(tx_time=datetime.now(timezone.utc)).search_vector(query, k=100)
        for hits in (cached, historical):
            got = {h.id: h.score for h in hits}
            nonzero = {i for i, s in expected.items() if np.linalg.norm(mat[int(i[1:])]) > 0}
            assert nonzero <= set(got)
            for i in nonzero:
                assert math.isclose(got[i], expected[i], rel_tol=1e-4, abs_tol=1e-4)


def test_vector_search_filters_min_score_and_updates(seeded: Store) -> None:
    assert [h.id for h in seeded.search_vector([1.0, 0.0, 0.0], k=2)] == ["a", "c"]
    assert [h.id for h in seeded.search_vector([1.0, 0.0, 0.0], k=5, groups=["g2"])] == ["d"]
    assert [h.id for h in seeded.search_vector([1.0, 0.0, 0.0], k=5, labels=["Company"])] == ["c"]
    assert [h.id for h in seeded.search_vector([1.0, 0.0, 0.0], min_score=0.5)] == ["a", "c"]
    seeded.upsert_nodes([Node("a", group="g1", name="Alice", embedding=[0.0, 0.0, 1.0])])
    assert [h.id for h in seeded.search_vector([0.0, 0.0, 1.0], k=2)] == ["a", "d"] or [
        h.id for h in seeded.search_vector([0.0, 0.0, 1.0], k=2)
    ] == ["d", "a"]
    seeded.delete_nodes(["d"])
    assert "d" not in {h.id for h in seeded.search_vector([0.0, 0.0, 1.0], k=5)}
    where = [[Cond("name", "=", "Acme")]]
    assert [h.id for h in seeded.search_vector([1.0, 0.0, 0.0], where=where)] == ["c"]


def test_recall_fuses_arms_and_reports_which_found_each(seeded: Store) -> None:
    hits = seeded.recall(text="bob coffee", vector=[0.0, 1.0, 0.0], seeds=["a"], k=3)
    assert hits[0].id == "b"
    assert dict(hits[0].arms) == {"text": 1, "vector": 1, "graph": 1}
    assert all(h.score > 0 for h in hits)
    edges = seeded.recall(text="acme", seeds=["a"], kind="edge", k=5)
    assert {h.id for h in edges} >= {"ac", "bc"}


@given(
    st.dictionaries(
        st.sampled_from("abc"), st.lists(st.sampled_from("vwxyz"), unique=True), min_size=1
    )
)
def test_rrf_is_monotone_and_sums_reciprocal_ranks(rankings: dict[str, list[str]]) -> None:
    fused = rrf(rankings, k=60)
    for item, score, arms in fused:
        assert math.isclose(score, sum(1 / (60 + r) for r in arms.values()))
        for arm, rank in arms.items():
            assert rankings[arm][rank - 1] == item
    scores = [s for _, s, _ in fused]
    assert scores == sorted(scores, reverse=True)
    # an item ranked first by every arm that ranks it, in every arm, cannot lose to any other
    all_ids = {i for ids in rankings.values() for i in ids}
    assert {i for i, _, _ in fused} == all_ids


def test_edges_carry_their_own_vector_space(store: Store) -> None:
    store.upsert_nodes([Node("a"), Node("b")])
    store.upsert_edges(
        [
            Edge("e", "a", "b", "R", embedding=[1.0, 0.0]),
            Edge("f", "b", "a", "R", embedding=[0.0, 1.0]),
        ]
    )
    assert [h.id for h in store.search_vector([0.1, 1.0], kind="edge", k=1)] == ["f"]
