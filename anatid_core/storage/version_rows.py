"""Version rows and their postings: what every write verb ends in.

The write verbs stamp each version with their transaction's time; ``restore_timeline`` writes
the stamps a timeline was recorded with. Both insert through here, so a version row has one
column layout in the whole store.

Bulk writes go in as Arrow batches. A few rows (an agent's single-record save) go in as one
statement with bound parameters instead: registering an Arrow table and scanning it costs a few
milliseconds per statement, several times the insert itself (issue 16).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import duckdb
import numpy as np
import pyarrow as pa

from ..base.model import Kind
from .arrow_arrays import columns_table, int32s, int64s, string_lists, strings
from .prepare import Prepared
from .rows import table_of
from .sql import SMALL_BATCH, run


def _columns(kind: Kind) -> list[str]:
    head = (
        ["vid", "id", "src", "dst", "rel", "grp"]
        if kind == "edge"
        else ["vid", "id", "grp", "labels"]
    )
    tail = ["props", "space", "valid_from", "valid_to", "tx_from", "tx_to", "doc_len", "chash"]
    return [*head, "name", "text", *tail]


def _values(kind: Kind, p: Prepared, vid: int, tx_from: int, tx_to: int | None) -> list[Any]:
    i = p.item
    if kind == "edge":
        head: list[Any] = [vid, i.id, i.src, i.dst, i.rel, i.group]  # type: ignore[union-attr]
    else:
        head = [vid, i.id, i.group, list(i.labels)]  # type: ignore[union-attr]
    space = i.space if p.vector is not None else None
    tail = [p.props, space, p.valid_from, p.valid_to, tx_from, tx_to, p.doc_len, p.chash]
    return [*head, i.name, i.text, *tail]


def _insert_few(
    cur: duckdb.DuckDBPyConnection,
    kind: Kind,
    rows: list[Prepared],
    vids: np.ndarray,
    tx_from: Sequence[int],
    tx_to: Sequence[int | None],
) -> None:
    cols = _columns(kind)
    one_row = "(" + ", ".join("?" * len(cols)) + ")"
    params: list[Any] = []
    for p, vid, start, end in zip(rows, vids.tolist(), tx_from, tx_to, strict=True):
        params.extend(_values(kind, p, int(vid), int(start), None if end is None else int(end)))
    run(
        cur,
        f"INSERT INTO {table_of(kind)} ({', '.join(cols)}) VALUES "
        + ", ".join([one_row] * len(rows)),
        params,
    )


def insert_versions(
    cur: duckdb.DuckDBPyConnection,
    kind: Kind,
    rows: list[Prepared],
    vids: np.ndarray,
    tx_from: Sequence[int],
    tx_to: Sequence[int | None],
) -> None:
    """Insert one version row per prepared record, with these version ids and transaction times."""
    if len(rows) <= SMALL_BATCH:
        _insert_few(cur, kind, rows, vids, tx_from, tx_to)
        return
    items = [p.item for p in rows]
    cols: dict[str, pa.Array] = {"vid": int64s(vids), "id": strings([i.id for i in items])}
    if kind == "edge":
        cols["src"] = strings([i.src for i in items])  # type: ignore[union-attr]
        cols["dst"] = strings([i.dst for i in items])  # type: ignore[union-attr]
        cols["rel"] = strings([i.rel for i in items])  # type: ignore[union-attr]
    cols["grp"] = strings([i.group for i in items])
    if kind == "node":
        cols["labels"] = string_lists([i.labels for i in items])  # type: ignore[union-attr]
    cols["name"] = strings([i.name for i in items])
    cols["text"] = strings([i.text for i in items])
    cols["props"] = strings([p.props for p in rows])
    cols["space"] = strings([p.item.space if p.vector is not None else None for p in rows])
    cols["valid_from"] = int64s([p.valid_from for p in rows])
    cols["valid_to"] = int64s([p.valid_to for p in rows])
    cols["tx_from"] = int64s(tx_from)
    cols["tx_to"] = int64s(tx_to)
    cols["doc_len"] = int32s([p.doc_len for p in rows])
    cols["chash"] = int64s([p.chash for p in rows])
    cur.register("_anatid_rows", columns_table(cols))
    try:
        run(cur, f"INSERT INTO {table_of(kind)} BY NAME SELECT * FROM _anatid_rows")
    finally:
        cur.unregister("_anatid_rows")


def insert_postings(
    cur: duckdb.DuckDBPyConnection, rows: list[Prepared], vids: np.ndarray
) -> tuple[list[str], np.ndarray, np.ndarray]:
    """Write the postings; returns them sorted by term, for the in-memory text index."""
    terms: list[str] = []
    owners: list[int] = []
    tfs: list[int] = []
    for vid, p in zip(vids.tolist(), rows, strict=True):
        terms.extend(p.terms.keys())
        tfs.extend(p.terms.values())
        owners.extend([vid] * len(p.terms))
    if not terms:
        return [], np.zeros(0, dtype=np.int64), np.zeros(0)
    if len(rows) <= SMALL_BATCH:
        run(
            cur,
            "INSERT INTO postings SELECT unnest(?::BIGINT[]), unnest(?::VARCHAR[]), "
            "unnest(?::INTEGER[])",
            [owners, terms, tfs],
        )
    else:
        _insert_postings_batch(cur, owners, terms, tfs)
    order = sorted(range(len(terms)), key=terms.__getitem__)
    return (
        [terms[i] for i in order],
        np.asarray(owners, dtype=np.int64)[order],
        np.asarray(tfs, dtype=np.float64)[order],
    )


def _insert_postings_batch(
    cur: duckdb.DuckDBPyConnection, owners: list[int], terms: list[str], tfs: list[int]
) -> None:
    postings = columns_table({"vid": int64s(owners), "term": strings(terms), "tf": int32s(tfs)})
    cur.register("_anatid_postings", postings)
    try:
        run(cur, "INSERT INTO postings SELECT vid, term, tf FROM _anatid_postings")
    finally:
        cur.unregister("_anatid_postings")
