"""The one place statements that return no rows are run, and results are read as Arrow."""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import Any

import duckdb
import numpy as np
import pyarrow as pa

#: Writes of up to this many rows bind them as parameters of one statement rather than scan an
#: Arrow batch: registering and scanning a table costs milliseconds, several times what a
#: single-record save's insert itself costs (issue 16).
#: Not on duckdb < 2: there every bound parameter tries ``import pandas`` several times, and
#: without pandas installed each failed import walks sys.path under the import lock, which makes
#: the parameter path slower than the Arrow scan (and starves other threads).
SMALL_BATCH = 8 if int(duckdb.__version__.split(".")[0]) >= 2 else -1


def run(cur: duckdb.DuckDBPyConnection, sql: str, params: Sequence[Any] | None = None) -> None:
    """Execute a statement and drain its result.

    duckdb 2.0 keeps a statement's result open until it is fetched, and refuses other work on
    the connection meanwhile; draining here keeps DML and DDL usable on duckdb 1.5 and 2.x alike.
    """
    result = cur.execute(sql, list(params) if params is not None else [])
    result.fetchall()


def one(cur: duckdb.DuckDBPyConnection, sql: str, params: Sequence[Any] | None = None) -> Any:
    """The first row of a query, or None. Drains the result (see :func:`run`)."""
    rows = cur.execute(sql, list(params) if params is not None else []).fetchall()
    return rows[0] if rows else None


def vid_column(cur: duckdb.DuckDBPyConnection, sql: str, params: Sequence[Any] = ()) -> np.ndarray:
    """The one column ``vid`` that ``sql`` selects, as int64 (in the query's order)."""
    return np.asarray(cur.execute(sql, params).fetchnumpy()["vid"], dtype=np.int64)


def arrow_table(result: Any) -> pa.Table:
    """A DuckDB result as an Arrow table."""
    # duckdb 2.0 renamed fetch_arrow_table to to_arrow_table (and warns about a copy we accept).
    to_arrow = getattr(result, "to_arrow_table", None) or getattr(result, "fetch_arrow_table")  # noqa: B009
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return to_arrow()


#: At most this many ids are looked up through a table's id index (a list of parameters);
#: more are joined with the table, a scan that costs less than that many lookups.
INDEXED_IDS = 16


def current_by_id(table: str, columns: str, ids: Sequence[str]) -> tuple[str, list[Any]]:
    """SQL and parameters for the current versions (``tx_to IS NULL``) of ``ids`` in ``table``
    (``nodes`` or ``edges``), ``columns`` of them.

    DuckDB answers ``id IN (?, ...)`` through the id index only when it is the scan's one
    filter: ``tx_to IS NULL AND id = ?``, or an ``IN (SELECT unnest(?))`` join, scans the table
    (a re-save at 100k facts: 2.2 ms, growing with the table, against 0.7 ms flat). So a few ids
    are looked up alone in a materialised CTE and the current versions kept after it."""
    if 0 < len(ids) <= INDEXED_IDS:
        marks = ", ".join("?" * len(ids))
        return (
            f"WITH hit AS MATERIALIZED (SELECT {columns}, tx_to FROM {table} WHERE id IN ({marks})) "
            f"SELECT {columns} FROM hit WHERE tx_to IS NULL",
            list(ids),
        )
    return (
        f"SELECT {columns} FROM {table} WHERE tx_to IS NULL AND id IN (SELECT unnest(?::VARCHAR[]))",
        [list(ids)],
    )
