"""The version ids that pass a filter are kept between searches (issue 41, point 4:
:mod:`anatid_core.indexes.filter_cache`): group-filtered and ``as_of`` searches through a
persistent index answer the same from a kept set as from SQL, and every change to the file
(a commit here, another process's, a purge) drops the kept sets."""

from __future__ import annotations

from datetime import datetime, timezone

from anatid_core import Node
from anatid_core.indexes.filter_cache import FILTER_CACHE

from .test_ann import K, clustered, filled, run_child, small_threshold, unit

__all__ = ["small_threshold"]  # the fixture: indexes at these sizes, built when asked


def ids(hits) -> list[str]:
    return [h.id for h in hits]


def test_a_kept_set_answers_as_sql_and_every_change_drops_it(tmp_path) -> None:
    path = tmp_path / "m.duckdb"
    store, truth, rng = filled(path, 7, n=1500)
    with store:
        store.build_indexes()
        filters = store.indexes.filters
        q = unit(clustered(rng, 1)[0])
        before = datetime.now(timezone.utc)
        FILTER_CACHE["bytes"] = 0  # nothing kept: SQL finds the set at every search
        try:
            by_sql = store.search_vector(q.tolist(), k=K, groups=["g1"])
            assert len(filters) == 0
        finally:
            FILTER_CACHE["bytes"] = 64 << 20
        first = store.search_vector(q.tolist(), k=K, groups=["g1"])
        assert len(filters) == 1  # kept
        assert store.search_vector(q.tolist(), k=K, groups=["g1"]) == first == by_sql
        assert all(truth.groups[h.id] == "g1" for h in first)

        # A commit of this process: the new version is in the group's set at once.
        store.upsert_nodes([Node("near", group="g1", embedding=q.tolist())])
        assert len(filters) == 0
        assert ids(store.search_vector(q.tolist(), k=K, groups=["g1"]))[0] == "near"

        # Another process moves it to another group: its old version leaves the set.
        run_child(f"""
            from anatid_core import Node, Store
            with Store.open({str(path)!r}) as s:
                s.upsert_nodes([Node("near", group="g2", embedding={q.tolist()!r})])
        """)
        moved = store.search_vector(q.tolist(), k=K, groups=["g1"])
        assert "near" not in ids(moved)
        assert ids(store.search_vector(q.tolist(), k=K, groups=["g2"]))[0] == "near"

        # A past instant: its set is kept too, and answers what it answered then.
        past = store.as_of(tx_time=before)
        then = past.search_vector(q.tolist(), k=K, groups=["g1"])
        assert then == first and past.search_vector(q.tolist(), k=K, groups=["g1"]) == then
        assert "near" not in ids(past.search_vector(q.tolist(), k=K))

        # A purge: the erased record is in no kept set.
        kept = len(filters)
        assert kept >= 2
        store.erase_nodes(["near"])
        assert len(filters) == 0
        assert "near" not in ids(store.search_vector(q.tolist(), k=K, groups=["g2"]))
