"""Vector spaces and their embedding tables.

Each (kind, space) has a fixed dimension and its own table ``vec_<n>(vid, embedding FLOAT[dim])``
keyed by the version id of the node or edge that carries the embedding; the ``spaces`` table
names them. The tables are the source of truth: searches read them by SQL
(:mod:`anatid_core.vector_search`) or through the in-memory matrices built from them
(:mod:`anatid_core.indexes.vectors`).
"""

from __future__ import annotations

from typing import Any

import duckdb
import numpy as np
import pyarrow as pa

from ..base.errors import InvalidInput
from ..base.model import Kind
from .arrow_arrays import arrow_numbers, columns_table, float32s, int64s
from .connection import Connection
from .rows import Visibility, table_of
from .sql import SMALL_BATCH, arrow_table, one, rows_in, run


def space_table(cur: duckdb.DuckDBPyConnection, kind: Kind, space: str) -> tuple[str, int] | None:
    row = one(cur, "SELECT tbl, dim FROM spaces WHERE kind = ? AND name = ?", [kind, space])
    return (row[0], int(row[1])) if row else None


def ensure_space(cur: duckdb.DuckDBPyConnection, kind: Kind, space: str, dim: int) -> str:
    """The table of a space, created with ``dim`` if new; a different ``dim`` is an error."""
    found = space_table(cur, kind, space)
    if found is not None:
        tbl, have = found
        if have != dim:
            raise InvalidInput(
                f"embedding has dimension {dim}, but the {kind} vector space {space!r} holds "
                f"dimension {have}; use the same embedding model, or another space name"
            )
        return tbl
    row = one(cur, "SELECT count(*) FROM spaces")
    n = int(row[0]) if row else 0
    tbl = f"vec_{n + 1}"
    while one(
        cur,
        "SELECT count(*) FROM information_schema.tables WHERE table_name = ? "
        "AND table_catalog = current_database()",
        [tbl],
    )[0]:  # type: ignore[index]
        n += 1
        tbl = f"vec_{n + 1}"
    run(cur, f"CREATE TABLE {tbl} (vid BIGINT NOT NULL, embedding FLOAT[{int(dim)}] NOT NULL)")
    run(cur, "INSERT INTO spaces VALUES (?, ?, ?, ?)", [kind, space, int(dim), tbl])
    return tbl


def all_spaces(cur: duckdb.DuckDBPyConnection) -> list[tuple[Kind, str, int, str]]:
    return [
        (r[0], r[1], int(r[2]), r[3])
        for r in cur.execute("SELECT kind, name, dim, tbl FROM spaces ORDER BY tbl").fetchall()
    ]


def insert_vectors(
    cur: duckdb.DuckDBPyConnection, tbl: str, vids: np.ndarray, mat: np.ndarray
) -> None:
    dim = mat.shape[1]
    if len(vids) <= SMALL_BATCH:
        # Bound parameters: registering an Arrow table costs more than a few rows. A numpy row
        # binds as DOUBLE[], which holds every float32 exactly.
        values = ", ".join([f"(?, ?::FLOAT[{int(dim)}])"] * len(vids))
        params: list[Any] = []
        for vid, row in zip(vids.tolist(), mat, strict=True):
            params.extend([int(vid), row])
        run(cur, f"INSERT INTO {tbl} VALUES {values}", params)
        return
    column = pa.FixedSizeListArray.from_arrays(float32s(mat.reshape(-1)), dim)
    cur.register("_anatid_vectors", columns_table({"vid": int64s(vids), "embedding": column}))
    try:
        run(cur, f"INSERT INTO {tbl} SELECT vid, embedding FROM _anatid_vectors")
    finally:
        cur.unregister("_anatid_vectors")


def fetch_matrix(
    cur: duckdb.DuckDBPyConnection, sql: str, params: list[Any], dim: int
) -> tuple[np.ndarray, np.ndarray, list[list[Any]]]:
    """Run a query returning (vid, embedding, extra...) and give (vids, matrix, extra columns)."""
    table = arrow_table(cur.execute(sql, params))
    vids = arrow_numbers(table.column(0)).astype(np.int64)
    emb = table.column(1).combine_chunks()
    if len(emb) == 0:
        mat = np.zeros((0, dim), dtype=np.float32)
    else:
        mat = arrow_numbers(emb.flatten()).astype(np.float32).reshape(-1, dim)
    extras = [table.column(i).to_pylist() for i in range(2, table.num_columns)]
    return vids, mat, extras


def embeddings_of(
    db: Connection, vis: Visibility, kind: Kind, ids: list[str]
) -> dict[str, list[float]]:
    return {i: row.tolist() for i, row in embedding_arrays_of(db, vis, kind, ids).items()}


def embedding_arrays_of(
    db: Connection, vis: Visibility, kind: Kind, ids: list[str]
) -> dict[str, np.ndarray]:
    """The visible embeddings of ``ids``, whatever their space, as float32 rows."""
    if not ids:
        return {}
    out: dict[str, np.ndarray] = {}
    for k, space, dim, tbl in all_spaces(db.cursor()):
        if k != kind:
            continue
        source, condition, lookup = rows_in(table_of(kind), "id", ids)
        _vids, mat, (rids,) = fetch_matrix(
            db.cursor(),
            f"SELECT r.vid, v.embedding, r.id FROM {source} JOIN {tbl} v "
            f"ON v.vid = r.vid WHERE {condition} AND r.space = ? AND {vis.sql('r', kind)}",
            [*lookup, space],
            dim,
        )
        out.update(zip(rids, mat, strict=True))
    return out


__all__ = [
    "all_spaces",
    "embedding_arrays_of",
    "embeddings_of",
    "ensure_space",
    "fetch_matrix",
    "insert_vectors",
    "space_table",
]
