"""as_of(t) must equal a plain-Python replay of the writes committed up to t."""

from __future__ import annotations

import time
from datetime import datetime, timezone

from hypothesis import given, settings
from hypothesis import strategies as st

from anatid_core import Node, Store

IDS = st.sampled_from(["a", "b", "c", "d"])
OPS = st.lists(
    st.one_of(
        st.tuples(st.just("upsert"), IDS, st.sampled_from(["x", "y", "z"])),
        st.tuples(st.just("delete"), IDS, st.just("")),
    ),
    min_size=1,
    max_size=15,
)


@settings(max_examples=30, deadline=None)
@given(ops=OPS)
def test_as_of_equals_replay_at_every_commit(ops: list[tuple[str, str, str]]) -> None:
    with Store.open() as store:
        model: dict[str, str] = {}
        snapshots: list[tuple[datetime, dict[str, str]]] = [(datetime.now(timezone.utc), {})]
        for op, node_id, name in ops:
            if op == "upsert":
                store.upsert_nodes([Node(node_id, name=name, text=f"{name} text")])
                model[node_id] = name
            else:
                store.delete_nodes([node_id])
                model.pop(node_id, None)
            time.sleep(0.000002)  # a distinct microsecond after each commit
            snapshots.append((datetime.now(timezone.utc), dict(model)))
        for instant, expected in snapshots:
            view = store.as_of(tx_time=instant)
            assert {n.id: n.name for n in view.find_nodes()} == expected
            for name in ("x", "y", "z"):
                want = {i for i, n in expected.items() if n == name}
                assert {h.id for h in view.search_text(name, k=10)} == want
        assert {n.id: n.name for n in store.find_nodes()} == model
        assert store.check() == []
