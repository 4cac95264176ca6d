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


def sorted_vids(cur: duckdb.DuckDBPyConnection, sql: str, params: Sequence[Any] = ()) -> np.ndarray:
    """The one column ``vid`` that ``sql`` selects, sorted. The query should not sort: DuckDB
    returns a scan in the table's order, which is nearly always version order already, and
    numpy checks that in one pass and sorts only when it is not (an ``ORDER BY vid`` was 22 of
    a past view's 35 ms at 1M facts)."""
    vids = vid_column(cur, sql, params)
    if len(vids) > 1 and not bool(np.all(vids[1:] >= vids[:-1])):
        vids.sort()
    return vids


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


def rows_in(
    table: str, column: str, values: Sequence[str], alias: str = "r"
) -> tuple[str, str, list[Any]]:
    """``(FROM item, condition, parameters)`` for the rows (all versions) of ``table`` whose
    ``column`` (``id``, ``src`` or ``dst``, each indexed) is in ``values``. At most
    ``INDEXED_IDS`` values are read through the column's index (condition ``TRUE``); more are
    joined with the table (the FROM item the bare table, the condition an ``IN`` over the list),
    which then costs less than that many lookups.

    DuckDB reads an index only when the lookup is the scan's one filter. Once a table has had
    an UPDATE (every re-save or delete closes a version: ``tx_to`` is set), the planner keeps
    ``tx_to IS NULL`` as a second filter of the scan and scans the whole table instead: a get
    by id at 100k facts took 3.3 ms and grew with the table, against 1.0 ms flat through the
    index. ``OFFSET 0`` keeps the caller's filters out of the subquery, so its scan has the
    ``IN`` list alone; an ``IN (SELECT unnest(?))`` join never reads the index at all."""
    if 0 < len(values) <= INDEXED_IDS:
        marks = ", ".join("?" * len(values))
        few = f"(SELECT * FROM {table} WHERE {column} IN ({marks}) OFFSET 0) {alias}"
        return few, "TRUE", list(values)
    return f"{table} {alias}", f"{alias}.{column} IN (SELECT unnest(?::VARCHAR[]))", [list(values)]


def edges_touching(node_ids: Sequence[str]) -> tuple[str, list[Any]]:
    """SQL and parameters for ``(vid, id)`` of the current edges with an end in ``node_ids``:
    one lookup per end joined by UNION (an OR across ``src`` and ``dst`` scans the table)."""
    parts, params = [], []
    for end in ("src", "dst"):
        source, condition, lookup = rows_in("edges", end, node_ids, alias="e")
        parts.append(f"SELECT e.vid, e.id FROM {source} WHERE {condition} AND e.tx_to IS NULL")
        params += lookup
    return " UNION ".join(parts), params


def current_by_id(table: str, columns: str, ids: Sequence[str]) -> tuple[str, list[Any]]:
    """SQL and parameters for the current versions (``tx_to IS NULL``) of ``ids`` in ``table``
    (``nodes`` or ``edges``), ``columns`` of them (unqualified), through the id index for a
    few ids (:func:`rows_in`)."""
    source, condition, params = rows_in(table, "id", ids, alias="hit")
    return f"SELECT {columns} FROM {source} WHERE {condition} AND hit.tx_to IS NULL", params
