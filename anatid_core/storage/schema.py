"""Versioned DDL. The schema version lives in the ``meta`` table.

Every record version is one row: ``tx_to IS NULL`` marks the current version. ``vid`` (version id)
is unique across nodes and edges, so postings and embeddings can point at either.
Times are BIGINT microseconds since the epoch, UTC (see codec.py).

Version 2 added ``erasures``: one receipt per purge (issue 15). It is the one table that keeps
something about purged records (their ids, a digest, never their content), and compaction copies
it into the new file. Version 3 added ``erasures.kept_neighbour_ids``: the nodes that stay but
were endpoints of erased edges (records whose derived text may mention what was erased); receipts
of version 2 read it as an empty list. Version 4 added ``idempotency``: one row per idempotency key
a write verb was given (issue 17), naming the records it wrote; purged with them.
"""

from __future__ import annotations

from collections.abc import Callable

import duckdb

from ..base.errors import SchemaVersionError
from .sql import one, run

SCHEMA_VERSION = 4

#: Older versions a read-only store reads as they are (it cannot migrate them): version 1 only
#: lacks the receipts table, which then reads as empty; version 2 lacks the receipts' kept
#: neighbours, which then read as none; version 3 lacks the idempotency keys, which only writes
#: (refused read-only) consult.
READABLE_OLDER = frozenset({1, 2, 3})

_TABLES = """
CREATE TABLE IF NOT EXISTS meta (key VARCHAR PRIMARY KEY, value VARCHAR NOT NULL);
CREATE TABLE IF NOT EXISTS nodes (
    vid BIGINT NOT NULL,
    id VARCHAR NOT NULL,
    grp VARCHAR NOT NULL,
    labels VARCHAR[] NOT NULL,
    name VARCHAR NOT NULL,
    text VARCHAR NOT NULL,
    props VARCHAR NOT NULL,
    space VARCHAR,
    valid_from BIGINT,
    valid_to BIGINT,
    tx_from BIGINT NOT NULL,
    tx_to BIGINT,
    doc_len INTEGER NOT NULL,
    chash BIGINT NOT NULL
);
CREATE TABLE IF NOT EXISTS edges (
    vid BIGINT NOT NULL,
    id VARCHAR NOT NULL,
    src VARCHAR NOT NULL,
    dst VARCHAR NOT NULL,
    rel VARCHAR NOT NULL,
    grp VARCHAR NOT NULL,
    name VARCHAR NOT NULL,
    text VARCHAR NOT NULL,
    props VARCHAR NOT NULL,
    space VARCHAR,
    valid_from BIGINT,
    valid_to BIGINT,
    tx_from BIGINT NOT NULL,
    tx_to BIGINT,
    doc_len INTEGER NOT NULL,
    chash BIGINT NOT NULL
);
CREATE TABLE IF NOT EXISTS postings (vid BIGINT NOT NULL, term VARCHAR NOT NULL, tf INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS spaces (
    kind VARCHAR NOT NULL,
    name VARCHAR NOT NULL,
    dim INTEGER NOT NULL,
    tbl VARCHAR NOT NULL,
    PRIMARY KEY (kind, name)
);
"""

#: Receipts of erasures. ``gone_at`` is NULL while the erased bytes may still be in the file
#: (purged, not yet compacted) and the time of the compaction that removed them afterwards.
_ERASURES = """
CREATE TABLE IF NOT EXISTS erasures (
    eid BIGINT NOT NULL,
    erased_at BIGINT NOT NULL,
    node_ids VARCHAR[] NOT NULL,
    edge_ids VARCHAR[] NOT NULL,
    versions BIGINT NOT NULL,
    digest VARCHAR NOT NULL,
    everything BOOLEAN NOT NULL,
    gone_at BIGINT
);
"""

#: Version 3: the nodes that stay but were endpoints of erased edges. Added as a column with a
#: default so that a version-2 file's receipts migrate in place with an empty list.
_KEPT_NEIGHBOURS = """
ALTER TABLE erasures ADD COLUMN IF NOT EXISTS kept_neighbour_ids VARCHAR[] DEFAULT []
"""

#: Version 4: idempotency keys (issue 17). ``digest`` binds the key to the exact payload; ``ids``
#: are the records the write named (a purge of any of them removes the key); ``result`` is the
#: original WriteResult as JSON, returned again to a retry.
_IDEMPOTENCY = """
CREATE TABLE IF NOT EXISTS idempotency (
    key VARCHAR NOT NULL,
    verb VARCHAR NOT NULL,
    digest VARCHAR NOT NULL,
    ids VARCHAR[] NOT NULL,
    result VARCHAR NOT NULL,
    created_at BIGINT NOT NULL
);
CREATE INDEX IF NOT EXISTS idempotency_key ON idempotency (key);
"""

_INDEXES = """
CREATE INDEX IF NOT EXISTS nodes_id ON nodes (id);
CREATE INDEX IF NOT EXISTS edges_id ON edges (id);
CREATE INDEX IF NOT EXISTS edges_src ON edges (src);
CREATE INDEX IF NOT EXISTS edges_dst ON edges (dst);
"""

# version -> function that upgrades a file from (version - 1); each runs inside one transaction.
MIGRATIONS: dict[int, Callable[[duckdb.DuckDBPyConnection], None]] = {}


def _add_erasures(cur: duckdb.DuckDBPyConnection) -> None:
    for statement in _statements(_ERASURES):
        run(cur, statement)


def _add_kept_neighbours(cur: duckdb.DuckDBPyConnection) -> None:
    for statement in _statements(_KEPT_NEIGHBOURS):
        run(cur, statement)


def _add_idempotency(cur: duckdb.DuckDBPyConnection) -> None:
    for statement in _statements(_IDEMPOTENCY):
        run(cur, statement)


MIGRATIONS[2] = _add_erasures
MIGRATIONS[3] = _add_kept_neighbours
MIGRATIONS[4] = _add_idempotency


def _statements(script: str) -> list[str]:
    return [s.strip() for s in script.split(";") if s.strip()]


def read_version(cur: duckdb.DuckDBPyConnection) -> int | None:
    """The file's schema version, or None for a file with no anatid tables yet."""
    exists = one(
        cur,
        "SELECT count(*) FROM information_schema.tables WHERE table_name = 'meta' "
        "AND table_catalog = current_database()",
    )
    if not exists or not exists[0]:
        return None
    row = one(cur, "SELECT value FROM meta WHERE key = 'schema_version'")
    return int(row[0]) if row else None


def has_table(cur: duckdb.DuckDBPyConnection, name: str) -> bool:
    """Whether the store's catalog has table ``name`` (``erasures`` is missing in version 1)."""
    row = one(
        cur,
        "SELECT count(*) FROM information_schema.tables WHERE table_name = ? "
        "AND table_catalog = current_database()",
        [name],
    )
    return bool(row and row[0])


def has_column(cur: duckdb.DuckDBPyConnection, table: str, column: str) -> bool:
    """Whether ``table`` of the store's catalog has ``column`` (added by a later version)."""
    row = one(
        cur,
        "SELECT count(*) FROM information_schema.columns WHERE table_name = ? "
        "AND column_name = ? AND table_catalog = current_database()",
        [table, column],
    )
    return bool(row and row[0])


def _has_foreign_tables(cur: duckdb.DuckDBPyConnection) -> bool:
    row = one(
        cur,
        "SELECT count(*) FROM information_schema.tables WHERE table_catalog = current_database()",
    )
    return bool(row and row[0])


def ensure(cur: duckdb.DuckDBPyConnection, *, path: str, read_only: bool) -> None:
    """Create the schema in a new file, migrate an older one, refuse a newer one."""
    version = read_version(cur)
    if version is not None and version > SCHEMA_VERSION:
        raise SchemaVersionError(
            f"{path} has anatid schema version {version}, but this anatid reads up to version "
            f"{SCHEMA_VERSION}: upgrade anatid-drivers (pip install -U anatid-drivers)"
        )
    if version == SCHEMA_VERSION or (read_only and version in READABLE_OLDER):
        return
    if version is None and _has_foreign_tables(cur):
        raise SchemaVersionError(
            f"{path} is a DuckDB database but not an anatid store (it has tables and no anatid "
            "meta table); anatid will not write into it: pass a new path"
        )
    if read_only:
        raise SchemaVersionError(
            f"{path} needs its anatid schema created or upgraded (found version {version}); "
            "open it once without read_only=True"
        )
    run(cur, "BEGIN")
    try:
        if version is None:
            script = _TABLES + _ERASURES + ";" + _KEPT_NEIGHBOURS + ";" + _IDEMPOTENCY
            for statement in _statements(script) + _statements(_INDEXES):
                run(cur, statement)
        else:
            for target in range(version + 1, SCHEMA_VERSION + 1):
                MIGRATIONS[target](cur)
        run(cur, "INSERT OR REPLACE INTO meta VALUES ('schema_version', ?)", [str(SCHEMA_VERSION)])
        run(cur, "COMMIT")
    except BaseException:
        run(cur, "ROLLBACK")
        raise
