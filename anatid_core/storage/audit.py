"""Store-wide verbs for people and tools: ``stats()`` and the integrity ``check()``."""

from __future__ import annotations

import os
from typing import Any

from ..base.model import Kind
from .connection import Connection
from .damage import unreadable
from .embeddings import all_spaces
from .rows import table_of
from .schema import READABLE_OLDER, SCHEMA_VERSION, read_version


def stats(db: Connection) -> dict[str, Any]:
    def count(sql: str) -> int:
        return int(db.query(sql)[0][0])

    def grouped(sql: str) -> dict[str, int]:
        return {str(k): int(v) for k, v in db.query(sql)}

    size = os.path.getsize(db.path) if db.path != ":memory:" and os.path.exists(db.path) else 0
    return {
        "path": db.path,
        "file_bytes": size,
        "schema_version": read_version(db.cursor()),
        "nodes": count("SELECT count(*) FROM nodes WHERE tx_to IS NULL"),
        "edges": count("SELECT count(*) FROM edges WHERE tx_to IS NULL"),
        "node_versions": count("SELECT count(*) FROM nodes"),
        "edge_versions": count("SELECT count(*) FROM edges"),
        "nodes_by_group": grouped(
            "SELECT grp, count(*) FROM nodes WHERE tx_to IS NULL GROUP BY grp ORDER BY grp"
        ),
        "nodes_by_label": grouped(
            "SELECT l, count(*) FROM (SELECT unnest(labels) AS l FROM nodes WHERE tx_to IS NULL) "
            "GROUP BY l ORDER BY l"
        ),
        "edges_by_group": grouped(
            "SELECT grp, count(*) FROM edges WHERE tx_to IS NULL GROUP BY grp ORDER BY grp"
        ),
        "edges_by_rel": grouped(
            "SELECT rel, count(*) FROM edges WHERE tx_to IS NULL GROUP BY rel ORDER BY rel"
        ),
        "postings": count("SELECT count(*) FROM postings"),
        "vector_spaces": [
            {"kind": k, "space": s, "dim": d, "vectors": count(f"SELECT count(*) FROM {t}")}
            for k, s, d, t in all_spaces(db.cursor())
        ],
    }


# Each check: a description and a query returning offending example ids (empty = fine).
_CHECKS: list[tuple[str, str]] = []
for _table in ("nodes", "edges"):
    _CHECKS += [
        (
            f"{_table}: more than one current version of an id",
            f"SELECT id FROM {_table} WHERE tx_to IS NULL GROUP BY id HAVING count(*) > 1 LIMIT 5",
        ),
        (
            f"{_table}: a version whose transaction interval ends before it starts",
            f"SELECT id FROM {_table} WHERE tx_to IS NOT NULL AND tx_to < tx_from LIMIT 5",
        ),
        (
            f"{_table}: overlapping transaction-time versions of an id",
            f"""SELECT id FROM (
                  SELECT id, tx_to, lead(tx_from) OVER (PARTITION BY id ORDER BY tx_from, vid) AS nxt
                  FROM {_table}) WHERE nxt IS NOT NULL AND (tx_to IS NULL OR tx_to > nxt) LIMIT 5""",
        ),
        (
            f"{_table}: a valid-time interval that ends before it starts",
            f"SELECT id FROM {_table} WHERE valid_to < valid_from LIMIT 5",
        ),
        (
            f"{_table}: full-text postings disagree with the document length",
            f"""SELECT r.id FROM {_table} r LEFT JOIN (
                  SELECT vid, sum(tf) AS n FROM postings GROUP BY vid) p ON p.vid = r.vid
                WHERE coalesce(p.n, 0) <> r.doc_len LIMIT 5""",
        ),
    ]
_CHECKS += [
    (
        "postings: entries for versions that do not exist",
        "SELECT CAST(p.vid AS VARCHAR) FROM postings p WHERE p.vid NOT IN (SELECT vid FROM nodes) "
        "AND p.vid NOT IN (SELECT vid FROM edges) LIMIT 5",
    ),
    (
        "versions: a version id used twice",
        "SELECT CAST(vid AS VARCHAR) FROM (SELECT vid FROM nodes UNION ALL SELECT vid FROM edges) "
        "GROUP BY vid HAVING count(*) > 1 LIMIT 5",
    ),
    (
        "edges: a current edge whose endpoint is not a current node",
        "SELECT e.id FROM edges e WHERE e.tx_to IS NULL AND (e.src NOT IN (SELECT id FROM nodes "
        "WHERE tx_to IS NULL) OR e.dst NOT IN (SELECT id FROM nodes WHERE tx_to IS NULL)) LIMIT 5",
    ),
]


def check(db: Connection) -> list[str]:
    """Return a list of problems found; an empty list means the file is consistent."""
    damage = unreadable(db)  # the queries below would stop at the first damaged block
    if damage is not None:
        return [damage]
    problems: list[str] = []
    version = read_version(db.cursor())
    readable = db.read_only and version in READABLE_OLDER  # migrated on the next write opening
    if version != SCHEMA_VERSION and not readable:
        problems.append(f"schema version is {version}, expected {SCHEMA_VERSION}")
    for description, sql in _CHECKS:
        bad = [str(r[0]) for r in db.query(sql)]
        if bad:
            problems.append(f"{description} (e.g. {', '.join(bad)})")
    for kind, space, _dim, tbl in all_spaces(db.cursor()):
        problems += _space_problems(db, kind, space, tbl)
    return problems


def _space_problems(db: Connection, kind: Kind, space: str, tbl: str) -> list[str]:
    problems: list[str] = []
    table = table_of(kind)
    orphan = db.query(
        f"SELECT CAST(v.vid AS VARCHAR) FROM {tbl} v LEFT JOIN {table} r ON r.vid = v.vid "
        "WHERE r.vid IS NULL OR r.space IS DISTINCT FROM ? LIMIT 5",
        [space],
    )
    if orphan:
        problems.append(
            f"vector space {kind}/{space}: embeddings for versions that do not carry them "
            f"(e.g. vid {', '.join(r[0] for r in orphan)})"
        )
    missing = db.query(
        f"SELECT r.id FROM {table} r WHERE r.space = ? AND r.vid NOT IN (SELECT vid FROM {tbl}) LIMIT 5",
        [space],
    )
    if missing:
        problems.append(
            f"vector space {kind}/{space}: versions missing their embedding "
            f"(e.g. {', '.join(r[0] for r in missing)})"
        )
    dup = db.query(
        f"SELECT CAST(vid AS VARCHAR) FROM {tbl} GROUP BY vid HAVING count(*) > 1 LIMIT 5"
    )
    if dup:
        problems.append(f"vector space {kind}/{space}: a version with two embeddings")
    return problems
