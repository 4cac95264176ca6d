"""get_embedding_arrays: the same vectors as get_embeddings, as float32 numpy rows."""

from __future__ import annotations

from datetime import datetime, timezone

import numpy as np

from anatid_core import Edge, Node, Store


def test_embedding_arrays_equal_embeddings_for_current_and_past(store: Store) -> None:
    store.upsert_nodes(
        [
            Node("a", embedding=[0.1, 0.2, 0.3]),
            Node("b", embedding=[1.0, 0.0, 0.5], space="other"),
            Node("c"),
        ]
    )
    store.upsert_edges([Edge("e", "a", "b", "R", embedding=[0.5, 0.25])])
    before = datetime.now(timezone.utc)
    store.upsert_nodes([Node("a", embedding=[0.9, 0.8, 0.7])])

    arrays = store.get_embedding_arrays(["a", "b", "c", "missing"])
    lists = store.get_embeddings(["a", "b", "c", "missing"])

    assert sorted(arrays) == sorted(lists) == ["a", "b"]
    for key, row in arrays.items():
        assert row.dtype == np.float32 and row.shape == (len(lists[key]),)
        assert row.tolist() == lists[key]
    assert arrays["a"].tolist() == np.float32([0.9, 0.8, 0.7]).tolist()
    past = store.as_of(tx_time=before).get_embedding_arrays(["a"])
    assert past["a"].tolist() == np.float32([0.1, 0.2, 0.3]).tolist()
    assert store.get_embedding_arrays(["e"], kind="edge")["e"].tolist() == [0.5, 0.25]
    assert store.get_embedding_arrays([]) == {}
