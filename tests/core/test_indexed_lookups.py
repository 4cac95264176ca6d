"""Reads of a few records by id, or of one node's edges, go through the id/src/dst indexes in a
store whose versions have been closed (every real store: a re-save or a delete sets ``tx_to``),
so their cost does not grow with the memory (issue 43); and they answer exactly as the join
that more ids take."""

from __future__ import annotations

import re
from pathlib import Path

import duckdb
import pytest

from anatid_core import Edge, Node, Store
from anatid_core.storage.sql import INDEXED_IDS, edges_touching, rows_in

N = 3_000


@pytest.fixture(scope="module")
def resaved(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A store of N nodes in a ring of edges, a third of them re-saved and a few deleted."""
    path = tmp_path_factory.mktemp("lookups") / "m.duckdb"
    with Store.open(str(path)) as store:
        store.upsert_nodes(Node(f"n{i}", name=f"node {i}", labels=("P",)) for i in range(N))
        store.upsert_edges(Edge(f"e{i}", f"n{i}", f"n{(i + 1) % N}", "NEXT") for i in range(N))
        store.upsert_edges(
            Edge(f"e{i}", f"n{i}", f"n{(i + 2) % N}", "NEXT", text="moved") for i in range(0, N, 3)
        )
        store.upsert_nodes(Node(f"n{i}", name=f"renamed {i}") for i in range(0, N, 5))
        store.delete_edges([f"e{i}" for i in range(1, 60, 7)])
    return path


def _scan_types(con: duckdb.DuckDBPyConnection, sql: str, params: list) -> set[str]:
    plan = con.execute("EXPLAIN ANALYZE " + sql, params).fetchall()[0][1]
    return set(re.findall(r"Type: (Index Scan|Sequential Scan)", plan))


@pytest.mark.parametrize("column, value", [("id", "e9"), ("src", "n9"), ("dst", "n9")])
def test_a_few_values_are_read_through_the_index_after_updates(
    resaved: Path, column: str, value: str
) -> None:
    source, condition, params = rows_in("edges", column, [value])
    sql = f"SELECT r.id FROM {source} WHERE {condition} AND r.tx_to IS NULL"
    con = duckdb.connect(str(resaved), read_only=True)
    try:
        assert _scan_types(con, sql, params) == {"Index Scan"}
        touching, touching_params = edges_touching(["n9"])
        assert _scan_types(con, touching, touching_params) == {"Index Scan"}
    finally:
        con.close()


def test_few_and_many_ids_answer_alike(resaved: Path) -> None:
    with Store.open(str(resaved), read_only=True) as store:
        few = [f"e{i}" for i in range(0, 3 * INDEXED_IDS, 3)][:INDEXED_IDS]
        many = [f"e{i}" for i in range(0, 90)]
        joined = {e.id: e for e in store.get_edges(many)}
        deleted = {f"e{i}" for i in range(1, 60, 7)}
        assert [e.id for e in store.get_edges(few)] == [i for i in few if i not in deleted]
        assert store.get_edges(few) == [joined[i] for i in few if i in joined]
        moved, gone, renamed = store.get_edge("e3"), store.get_edge("e8"), store.get_node("n5")
        assert moved is not None and moved.text == "moved" and gone is None
        assert renamed is not None and renamed.name == "renamed 5"
        # one node's edges, by the index, against the same edges picked out of a wide read
        wide = store.edges_of([f"n{i}" for i in range(40)])
        for node in ("n3", "n4", "n8"):
            mine = store.edges_of([node])
            assert mine == [e for e in wide if node in (e.src, e.dst)]
        assert [n.id for n in store.neighbours(["n3"])] == ["n2", "n5"]  # e3 moved to n5


def test_version_ids_come_back_sorted_whatever_order_duckdb_scans_them() -> None:
    """Past views and filtered searches read their visible version ids without ORDER BY (it was
    most of their cost at 1M facts); the caller still gets them sorted."""
    from anatid_core.storage.sql import sorted_vids

    con = duckdb.connect()
    con.execute("CREATE TABLE t AS SELECT * FROM (VALUES (5), (1), (4), (2)) v(vid)")
    assert sorted_vids(con, "SELECT vid FROM t").tolist() == [1, 2, 4, 5]
    con.execute("CREATE TABLE u AS SELECT range AS vid FROM range(10)")
    assert sorted_vids(con, "SELECT vid FROM u WHERE vid > ?", [6]).tolist() == [7, 8, 9]
    assert sorted_vids(con, "SELECT vid FROM u WHERE vid > 99").tolist() == []
