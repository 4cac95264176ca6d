"""The in-memory indexes filter by group and label exactly as the SQL path does."""

from __future__ import annotations

import random
from datetime import datetime, timezone

import pytest

from anatid_core import Edge, Node, Store


def _graph(store: Store, n_labels: int) -> None:
    rng = random.Random(n_labels)
    labels = [f"L{i}" for i in range(n_labels)]
    words = ["apple", "pear", "plum", "fig", "kiwi"]
    store.upsert_nodes(
        [
            Node(
                f"n{i}",
                group=f"g{i % 3}",
                labels=tuple(rng.sample(labels, k=min(2, n_labels))),
                text=" ".join(rng.choices(words, k=4)),
                embedding=[rng.uniform(-1, 1) for _ in range(4)],
            )
            for i in range(120)
        ]
    )
    store.upsert_edges(
        [
            Edge(
                f"e{i}",
                f"n{i}",
                f"n{(i + 1) % 120}",
                rng.choice(["A", "B"]),
                group=f"g{i % 3}",
                text=" ".join(rng.choices(words, k=3)),
                embedding=[rng.uniform(-1, 1) for _ in range(4)],
            )
            for i in range(120)
        ]
    )


@pytest.mark.parametrize("n_labels", [5, 70])  # 70 > 64: label filters fall back to SQL
def test_cached_and_sql_searches_agree_under_filters(n_labels: int) -> None:
    with Store.open() as store:
        _graph(store, n_labels)
        past = store.as_of(tx_time=datetime.now(timezone.utc))  # the SQL path
        q = [0.3, -0.2, 0.9, 0.1]
        for groups in (None, ["g1"], ["g0", "g2"], ["nope"]):
            for labels in (None, ["L1"], ["L2", "L3"], ["missing"]):
                now_t = store.search_text("apple fig", k=7, groups=groups, labels=labels)
                old_t = past.search_text("apple fig", k=7, groups=groups, labels=labels)
                assert [(h.id, round(h.score, 9)) for h in now_t] == [
                    (h.id, round(h.score, 9)) for h in old_t
                ]
                now_v = store.search_vector(q, k=7, groups=groups, labels=labels)
                old_v = past.search_vector(q, k=7, groups=groups, labels=labels)
                assert [h.id for h in now_v] == [h.id for h in old_v]
            for rels in (None, ["A"]):
                now_e = store.search_text("plum", kind="edge", k=5, groups=groups, rels=rels)
                old_e = past.search_text("plum", kind="edge", k=5, groups=groups, rels=rels)
                assert [h.id for h in now_e] == [h.id for h in old_e]
                assert [
                    h.id for h in store.search_vector(q, kind="edge", k=5, groups=groups, rels=rels)
                ] == [
                    h.id for h in past.search_vector(q, kind="edge", k=5, groups=groups, rels=rels)
                ]


def test_relabelled_node_moves_between_label_filters() -> None:
    with Store.open() as store:
        store.upsert_nodes([Node("a", labels=("X",), text="zebra", embedding=[1.0, 0.0])])
        assert [h.id for h in store.search_text("zebra", labels=["X"])] == ["a"]
        store.upsert_nodes([Node("a", labels=("Y",), text="zebra", embedding=[1.0, 0.0])])
        assert store.search_text("zebra", labels=["X"]) == []
        assert [h.id for h in store.search_text("zebra", labels=["Y"])] == ["a"]
        assert store.search_vector([1.0, 0.0], labels=["X"]) == []
        assert [h.id for h in store.search_vector([1.0, 0.0], labels=["Y"])] == ["a"]
