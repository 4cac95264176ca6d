"""Erasure receipts (issue 15): the ``erasures`` table, and the digest of what was erased.

A receipt keeps ids, counts and a digest, never the content: the table survives compaction, so
anything it held would survive erasure. The digest is SHA-256 over the erased version rows (every
column, as stored, one JSON array per row in version-id order, nodes before edges) and then over
their embeddings (version id and float32 bytes, per vector space in table order). Postings are
derived from name and text, so they add nothing to it.

A receipt also names the *kept neighbours*: nodes that stay but were endpoints of erased edges.
Text derived from the erased records (a summary a host's LLM wrote) may live in them; the
receipt says where to look, so the caller can regenerate it.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from typing import Any

import duckdb
import numpy as np

from ..base.codec import from_micros
from ..base.model import Erasure, Kind
from .embeddings import all_spaces, fetch_matrix
from .rows import table_of
from .schema import has_column, has_table
from .sql import one, run

#: Rows per fetch while digesting (bounds memory on a large erasure).
DIGEST_BATCH = 10_000

_COLUMNS = "eid, erased_at, node_ids, edge_ids, versions, digest, everything, gone_at"
#: Version 3's column; a version-2 file opened read-only has none (its receipts list none).
_KEPT = "kept_neighbour_ids"


def _in_vids(vids: Sequence[int] | None) -> tuple[str, list[Any]]:
    """A WHERE clause over version ids; None means every version (``purge_all``)."""
    if vids is None:
        return "true", []
    return "vid IN (SELECT unnest(?::BIGINT[]))", [list(vids)]


def content_digest(cur: duckdb.DuckDBPyConnection, vids: dict[Kind, Sequence[int] | None]) -> str:
    """SHA-256 (hex) of the versions ``vids`` and their embeddings, read before they go."""
    h = hashlib.sha256()
    for kind in ("node", "edge"):
        where, params = _in_vids(vids.get(kind, ()))
        result = cur.execute(f"SELECT * FROM {table_of(kind)} WHERE {where} ORDER BY vid", params)
        while batch := result.fetchmany(DIGEST_BATCH):
            for row in batch:
                h.update(json.dumps(row, default=str, ensure_ascii=False).encode())
                h.update(b"\n")
    for kind, _space, dim, tbl in all_spaces(cur):
        where, params = _in_vids(vids.get(kind, ()))
        got, mat, _ = fetch_matrix(
            cur, f"SELECT vid, embedding FROM {tbl} WHERE {where} ORDER BY vid", params, dim
        )
        h.update(got.astype("<i8").tobytes())
        h.update(np.ascontiguousarray(mat, dtype="<f4").tobytes())
    return h.hexdigest()


def record(
    cur: duckdb.DuckDBPyConnection,
    *,
    time_us: int,
    node_ids: Sequence[str],
    edge_ids: Sequence[str],
    versions: int,
    digest: str,
    everything: bool = False,
    kept_neighbour_ids: Sequence[str] = (),
) -> int:
    """Insert a pending receipt inside the purging transaction; returns its id."""
    row = one(cur, "SELECT coalesce(max(eid), 0) + 1 FROM erasures")
    eid = int(row[0]) if row else 1
    run(
        cur,
        f"INSERT INTO erasures ({_COLUMNS}, {_KEPT}) "
        "VALUES (?, ?, ?::VARCHAR[], ?::VARCHAR[], ?, ?, ?, NULL, ?::VARCHAR[])",
        [
            eid,
            time_us,
            sorted(node_ids),
            sorted(edge_ids),
            versions,
            digest,
            everything,
            sorted(kept_neighbour_ids),
        ],
    )
    return eid


def kept_neighbours(
    cur: duckdb.DuckDBPyConnection, edge_ids: Sequence[str], erased_node_ids: Sequence[str]
) -> list[str]:
    """The nodes that stay but were an endpoint of any version of the edges ``edge_ids``.

    Call it before the edges are deleted; "stay" means some version of the node remains (it is
    not among ``erased_node_ids``)."""
    if not edge_ids:
        return []
    rows = cur.execute(
        "WITH ends AS (SELECT src AS id FROM edges WHERE id IN (SELECT unnest(?::VARCHAR[])) "
        "UNION SELECT dst FROM edges WHERE id IN (SELECT unnest(?::VARCHAR[]))) "
        "SELECT DISTINCT id FROM ends WHERE id NOT IN (SELECT unnest(?::VARCHAR[])) "
        "AND id IN (SELECT id FROM nodes) ORDER BY id",
        [list(edge_ids), list(edge_ids), list(erased_node_ids)],
    ).fetchall()
    return [str(r[0]) for r in rows]


def _receipt(row: Sequence[Any]) -> Erasure:
    erased_at = from_micros(int(row[1]))
    assert erased_at is not None
    return Erasure(
        id=int(row[0]),
        erased_at=erased_at,
        node_ids=tuple(row[2]),
        edge_ids=tuple(row[3]),
        versions=int(row[4]),
        digest=str(row[5]),
        everything=bool(row[6]),
        gone_at=from_micros(row[7]),
        kept_neighbour_ids=tuple(row[8] or ()),
    )


def _select(cur: duckdb.DuckDBPyConnection) -> str:
    """The receipt columns, with version 3's kept neighbours read as none where missing."""
    kept = _KEPT if has_column(cur, "erasures", _KEPT) else "[]::VARCHAR[]"
    return f"{_COLUMNS}, {kept}"


def receipts(
    cur: duckdb.DuckDBPyConnection, *, pending_only: bool = False, catalog: str | None = None
) -> list[Erasure]:
    """Every receipt, oldest first (none in a version-1 file read without migrating)."""
    if catalog is None and not has_table(cur, "erasures"):
        return []
    table = "erasures" if catalog is None else f"{catalog}.erasures"
    where = " WHERE gone_at IS NULL" if pending_only else ""
    rows = cur.execute(f"SELECT {_select(cur)} FROM {table}{where} ORDER BY eid").fetchall()
    return [_receipt(r) for r in rows]


def receipt(cur: duckdb.DuckDBPyConnection, eid: int) -> Erasure | None:
    if not has_table(cur, "erasures"):
        return None
    row = one(cur, f"SELECT {_select(cur)} FROM erasures WHERE eid = ?", [eid])
    return _receipt(row) if row else None


def mark_gone(cur: duckdb.DuckDBPyConnection, time_us: int, *, catalog: str | None = None) -> None:
    """Mark every pending receipt complete (in ``catalog``: the compacted copy, before the swap)."""
    table = "erasures" if catalog is None else f"{catalog}.erasures"
    run(cur, f"UPDATE {table} SET gone_at = ? WHERE gone_at IS NULL", [time_us])
