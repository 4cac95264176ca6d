"""Finding damage before a query meets it: read every block a query could reach, once (issue 32).

DuckDB reads a file lazily, block by block, and verifies each block's checksum as it reads it.
A truncated or overwritten file can therefore open fine and fail only on the query that reaches
the damaged block: a table's column, or a node of an index (an ART, read only by lookups
through it, never by a scan of the table). :func:`unreadable` reads both kinds:

* every column of every table, by hashing it whole;
* every node of every single-column index, by one range lookup through it over all its keys.
  A range lookup fetches each row it finds, about 20 us a row, so the lookup is capped at one
  row fewer than it matches: DuckDB then walks the whole index to its last key, stops, and
  answers from a table scan instead (0.1 s for 100k keys, against 2 s). Index lookups on more
  than one column are not used by DuckDB's reads (it scans), so those indexes are not read.

It only reads (``anatid check`` opens the file read-only), and the settings it changes are its
own cursor's (``SET SESSION``), put back after: other threads' lookups are not affected.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import duckdb

from .connection import Connection
from .dberrors import first_line
from .embeddings import all_spaces
from .schema import has_table
from .sql import one, run

#: How a problem reporting damage ends. Callers tell damage from inconsistent rows by its words
#: "truncated or damaged" (``anatid stats`` refuses to count such a file; the tests look for them).
ADVICE = "the file is truncated or damaged; restore it from a backup"

#: The tables of every store, then those of later schema versions (absent from older files).
TABLES = ("meta", "spaces", "nodes", "edges", "postings")
LATER_TABLES = ("erasures", "idempotency")


def unreadable(db: Connection) -> str | None:
    """The problem that makes the file unreadable in part, or None when every block reads."""
    what = "table spaces"
    try:
        cur = db.cursor()
        tables = list(TABLES) + [t for *_, t in all_spaces(cur)]
        tables += [t for t in LATER_TABLES if has_table(cur, t)]
        for table in tables:
            what = f"table {table}"
            run(cur, f"SELECT bit_xor(hash(COLUMNS(*))) FROM {table}")
        what = "the list of indexes"
        for table, key in _indexed_columns(cur):
            what = f"the index on {table} ({key})"
            _walk_index(cur, table, key)
    except duckdb.Error as exc:
        return f"{what} cannot be read ({first_line(exc)}): {ADVICE}"
    return None


def _indexed_columns(cur: duckdb.DuckDBPyConnection) -> list[tuple[str, str]]:
    """(table, key expression) of every single-column index and primary or unique key."""
    indexes = cur.execute(
        "SELECT table_name, CAST(expressions AS VARCHAR[]) FROM duckdb_indexes() "
        "WHERE database_name = current_database() ORDER BY index_name"
    ).fetchall()
    keys = cur.execute(
        "SELECT table_name, constraint_column_names FROM duckdb_constraints() "
        "WHERE database_name = current_database() "
        "AND constraint_type IN ('PRIMARY KEY', 'UNIQUE') ORDER BY table_name"
    ).fetchall()
    found = [(str(t), str(e[0])) for t, e in indexes if len(e) == 1]
    found += [(str(t), _quoted(str(c[0]))) for t, c in keys if len(c) == 1]
    return found


def _quoted(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _walk_index(cur: duckdb.DuckDBPyConnection, table: str, key: str) -> None:
    """Read every node of the index on ``table`` (``key``): a lookup of the smallest and of the
    largest key, and a range lookup over every key above the smallest."""
    with _index_lookups(cur, 0):  # counting: no lookup through the index, a table scan
        lo, hi = one(cur, f"SELECT min({key}), max({key}) FROM {table}")
        if lo is None:
            return
        above = int(one(cur, f"SELECT count(*) FROM {table} WHERE {key} > ?", [lo])[0])
    for bound in (lo, hi):
        run(cur, f"SELECT count(*) FROM {table} WHERE {key} = ?", [bound])
    if above > 1:
        with _index_lookups(cur, above - 1):
            run(cur, f"SELECT count(*) FROM {table} WHERE {key} > ?", [lo])


@contextmanager
def _index_lookups(cur: duckdb.DuckDBPyConnection, most: int) -> Iterator[None]:
    """Within the block, a lookup on ``cur`` through an index gives up and scans the table
    instead once it has found more than ``most`` rows."""
    run(cur, f"SET SESSION index_scan_max_count = {int(most)}")
    run(cur, "SET SESSION index_scan_percentage = 0")
    try:
        yield
    finally:
        try:
            run(cur, "RESET SESSION index_scan_max_count")
            run(cur, "RESET SESSION index_scan_percentage")
        except duckdb.Error:
            pass  # the database failed on the damage; its first error is the one reported
