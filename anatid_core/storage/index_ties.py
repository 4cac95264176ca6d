"""What ties a persistent index to its store (issues 34, 41), and the one test of whether an index
may answer for the file: the single home of "is it stale or damaged?".

An index answers for the versions up to its ``high`` version id. It may, when

* it is this store's (``meta.store_id``, made by the first build);
* the file holds the build it came from: a build writes a row ``index_token:<stem>:<token>``
  into the store's ``meta`` in the same turn that reads the versions it will index, and its
  manifest carries the token. An older copy of the file restored from a backup lacks the row of
  any build after the copy, so that build's index is never used with it, even where the copy
  has since written other versions under the same ids (the ids are the only thing the two share).
  Compaction copies ``meta``: a compacted file keeps its indexes;
* the file holds as many versions up to ``high`` as the index (a purge since changes that) and
  the same at its ends (``fingerprint``);
* its files hold the bytes they were sealed with (:mod:`~.index_seal`).

A published build drops the tokens of the builds before it (:func:`prune_tokens`).
"""

from __future__ import annotations

import hashlib
import os
import uuid
from collections.abc import Callable
from datetime import datetime, timezone

import duckdb
import numpy as np

from .index_files import Manifest, folder_of, stem
from .index_seal import first_damage, verify
from .sql import one, run

TOKEN_PREFIX = "index_token:"

Fingerprint = Callable[[duckdb.DuckDBPyConnection, str, int], str]


def store_id(cur: duckdb.DuckDBPyConnection) -> str | None:
    """The store's identity (made by its first index build), or None."""
    row = one(cur, "SELECT value FROM meta WHERE key = 'store_id'")
    return str(row[0]) if row else None


def make_store_id(cur: duckdb.DuckDBPyConnection) -> str:
    """The store's identity, made now if it has none (call inside a transaction)."""
    found = store_id(cur)
    if found is not None:
        return found
    made = uuid.uuid4().hex
    run(cur, "INSERT INTO meta VALUES ('store_id', ?)", [made])
    return made


def new_token(cur: duckdb.DuckDBPyConnection, m_stem: str) -> str:
    """A build's token, written into the store (call inside the transaction that reads what
    the build will index)."""
    token = uuid.uuid4().hex
    now = datetime.now(timezone.utc).isoformat(timespec="seconds")
    run(cur, "INSERT INTO meta VALUES (?, ?)", [f"{TOKEN_PREFIX}{m_stem}:{token}", now])
    return token


def prune_tokens(cur: duckdb.DuckDBPyConnection, m_stem: str, keep: str) -> None:
    """Drop every token of the index but ``keep`` (the one just published; call after the
    manifest names it: a build that waited, or died, left its own behind)."""
    prefix = f"{TOKEN_PREFIX}{m_stem}:"
    run(cur, "DELETE FROM meta WHERE starts_with(key, ?) AND key <> ?", [prefix, prefix + keep])


def has_token(cur: duckdb.DuckDBPyConnection, m: Manifest) -> bool:
    key = f"{TOKEN_PREFIX}{stem(m.kind, m.space)}:{m.token}"
    return bool(m.token) and one(cur, "SELECT 1 FROM meta WHERE key = ?", [key]) is not None


def fingerprint(cur: duckdb.DuckDBPyConnection, table: str, high: int) -> str:
    """A digest of the embeddings of ``table`` at its lowest version id and at ``high``."""
    digest = hashlib.sha256()
    for vid, vector in _ends(cur, table, high, "embedding"):
        digest.update(int(vid).to_bytes(8, "little", signed=True))
        digest.update(np.asarray(vector, dtype=np.float32).tobytes())
    return digest.hexdigest()


def text_fingerprint(cur: duckdb.DuckDBPyConnection, table: str, high: int) -> str:
    """A digest of the versions of ``table`` (a kind's) at its lowest version id and at
    ``high``: id and document length."""
    rows = _ends(cur, table, high, "id, doc_len")
    return hashlib.sha256(repr(rows).encode("utf-8", "surrogatepass")).hexdigest()


def _ends(cur: duckdb.DuckDBPyConnection, table: str, high: int, columns: str) -> list[tuple]:
    """``vid, columns`` of the rows at the table's lowest version id and at ``high``: two
    point reads (an OR with a subquery scans every row, 400 MB of vectors at 100k x 1024)."""
    row = one(cur, f"SELECT min(vid) FROM {table}")
    low = int(row[0]) if row and row[0] is not None else None
    out = []
    for vid in sorted({v for v in (low, int(high)) if v is not None}):
        out += cur.execute(f"SELECT vid, {columns} FROM {table} WHERE vid = {vid}").fetchall()
    return out


def stale_reason(
    cur: duckdb.DuckDBPyConnection, m: Manifest, table: str, fingerprint_of: Fingerprint
) -> str | None:
    """Why the index of ``m`` (over ``table``) does not match the file now, or None."""
    sid = store_id(cur)
    if sid is None:
        return "it was not built from this file (another store's, or an older copy of this file?)"
    if sid != m.store_id:
        return "it belongs to another store"
    if not has_token(cur, m):
        return (
            "the file does not hold the build it was made from (an older copy of the file, "
            "restored from a backup?)"
        )
    row = one(cur, f"SELECT count(*) FROM {table} WHERE vid <= ?", [m.high])
    held = int(row[0]) if row else 0
    if held != m.count:
        return f"the file holds {held} of its versions, it holds {m.count} (a purge since?)"
    if fingerprint_of(cur, table, m.high) != m.fingerprint:
        return "the file's versions differ from the ones it was built from"
    return None


def damage_of(store_path: str, m: Manifest, *, every_byte: bool = False) -> str | None:
    """Where a file of the index differs from its seal (``every_byte``: read in full whatever
    its stamp, as ``anatid check`` does), naming the file; None if both are whole."""
    folder = folder_of(store_path)
    for name in (m.file, m.keys):
        path = os.path.join(folder, name)
        seal = m.seal(name)
        found = first_damage(path, seal) if every_byte else verify(path, seal, m.stamp(name))
        if found is not None:
            return f"{path} is damaged: {found}"
    return None


def unused_reason(
    cur: duckdb.DuckDBPyConnection,
    store_path: str,
    m: Manifest,
    table: str,
    fingerprint_of: Fingerprint,
    *,
    every_byte: bool = False,
) -> str | None:
    """Why the index of ``m`` must not answer for the file (stale or damaged), or None."""
    return stale_reason(cur, m, table, fingerprint_of) or damage_of(
        store_path, m, every_byte=every_byte
    )


__all__ = [
    "TOKEN_PREFIX",
    "damage_of",
    "fingerprint",
    "has_token",
    "make_store_id",
    "new_token",
    "prune_tokens",
    "stale_reason",
    "store_id",
    "text_fingerprint",
    "unused_reason",
]
