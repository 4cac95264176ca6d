"""A save of a few records binds its rows as parameters; a bulk save scans Arrow batches
(``anatid_core.storage.sql.SMALL_BATCH``). Both must store exactly the same rows."""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta
from typing import Any

import numpy as np

from anatid_core import Edge, Node, Store
from anatid_core.storage.sql import SMALL_BATCH

from .conftest import T0

#: The few-rows path's size; on duckdb < 2 there is none (SMALL_BATCH = -1) and every save takes
#: the Arrow path, which must store the same rows all the same.
FEW = max(SMALL_BATCH, 8)
N = 3 * FEW  # more than one bulk batch's worth, so the bulk store takes the Arrow path


def _nodes() -> list[Node]:
    rng = np.random.default_rng(3)
    out = []
    for i in range(N):
        vec = rng.standard_normal(5).astype(np.float32)
        vec[0] = np.float32(1e-38) if i % 3 == 0 else vec[0]  # values float32 holds, double shows
        out.append(
            Node(
                f"n{i}",
                group=f"g{i % 2}",
                labels=() if i % 4 == 0 else ("A", f"L{i}"),
                name=f"name {i} ünï",
                text="" if i % 5 == 0 else f'body text {i} it\'s "quoted"',
                props={"i": i, "nested": {"x": [i, None]}} if i % 2 else {},
                valid_from=T0 + timedelta(days=i) if i % 3 else None,
                valid_to=T0 + timedelta(days=i + 9) if i % 6 == 1 else None,
                embedding=None if i % 7 == 0 else vec.tolist(),
            )
        )
    return out


def _edges() -> list[Edge]:
    return [
        Edge(
            f"e{i}",
            f"n{i}",
            f"n{(i * 5 + 1) % N}",
            "KNOWS" if i % 2 else "LIKES",
            group="g0",
            name=f"fact {i}",
            text=f"n{i} knows someone {i}",
            props={"w": i / 3},
            embedding=None if i % 4 == 0 else [float(i), 1.0, -2.5],
        )
        for i in range(N)
    ]


def _rows(store: Store) -> dict[str, list[tuple[Any, ...]]]:
    """Every stored row, with the version ids and transaction times replaced by the record id."""
    q = store.connection.query
    out: dict[str, list[tuple[Any, ...]]] = {}
    for table in ("nodes", "edges"):
        rows = q(f"SELECT * EXCLUDE (vid, tx_from, tx_to), tx_to IS NULL FROM {table} ORDER BY ALL")
        out[table] = rows
        out[f"{table} postings"] = q(
            f"SELECT r.id, r.tx_to IS NULL, p.term, p.tf FROM postings p JOIN {table} r "
            "ON r.vid = p.vid ORDER BY ALL"
        )
    for kind, name, tbl in q("SELECT kind, name, tbl FROM spaces ORDER BY ALL"):
        table = "nodes" if kind == "node" else "edges"
        out[f"{kind} {name}"] = q(
            f"SELECT r.id, r.tx_to IS NULL, v.embedding FROM {tbl} v JOIN {table} r "
            "ON r.vid = v.vid ORDER BY ALL"
        )
    return out


def _changed(items: list[Any]) -> list[Any]:
    return [replace(x, props={"changed": x.id}) for x in items[::2]]


def test_saves_one_by_one_store_the_same_rows_as_one_bulk_save() -> None:
    with Store.open(":memory:") as single, Store.open(":memory:") as bulk:
        for node in _nodes():
            assert single.upsert_nodes([node]).written == 1
        for edge in _edges():
            assert single.upsert_edges([edge]).written == 1
        for node in _changed(_nodes()):  # re-saves close the old version one at a time
            assert single.upsert_nodes([node]).written == 1
        for edge in _changed(_edges()):
            assert single.upsert_edges([edge]).written == 1
        assert bulk.upsert_nodes(_nodes()).written == N
        assert bulk.upsert_edges(_edges()).written == N
        assert bulk.upsert_nodes(_changed(_nodes())).written == N // 2
        assert bulk.upsert_edges(_changed(_edges())).written == N // 2
        got, want = _rows(single), _rows(bulk)
        assert set(got) == set(want)
        for key in want:
            assert len(want[key]) > 0, key
            assert got[key] == want[key], key


def test_a_few_records_in_one_save_are_read_back_exactly(tmp_path) -> None:
    nodes = _nodes()[:FEW]
    path = tmp_path / "few.duckdb"
    with Store.open(path) as store:
        assert store.upsert_nodes(nodes).written == FEW
    with Store.open(path, read_only=True) as store:
        got = {n.id: n for n in store.get_nodes([n.id for n in nodes])}
        vectors = store.get_embeddings([n.id for n in nodes])
        for node in nodes:
            back = got[node.id]
            assert (back.group, back.labels, back.name, back.text) == (
                node.group,
                tuple(node.labels),
                node.name,
                node.text,
            )
            assert back.props == node.props
            assert (back.valid_from, back.valid_to) == (node.valid_from, node.valid_to)
            if node.embedding is None:
                assert node.id not in vectors
            else:
                want = np.asarray(node.embedding, dtype=np.float32)
                assert np.asarray(vectors[node.id], dtype=np.float32).tobytes() == want.tobytes()
