"""Idempotency keys (issue 17): a retried write with the same key writes nothing.

A write verb given ``idempotency_key=`` looks the key up inside its own transaction. Unknown: the
write runs and the key is recorded in the same transaction, with a digest of the exact payload,
the ids of the records it named and the :class:`~anatid_core.base.model.WriteResult`. Known with the
same digest: nothing is written and the recorded result is returned. Known with another digest:
:class:`~anatid_core.base.errors.IdempotencyConflict`.

The check and the record are in one transaction, and a transaction holds the file alone (other
processes wait for the lease, other threads for the write lock), so of several writers racing
with one key exactly one writes. Keys live in the file (table ``idempotency``, schema version 4)
and go when any record they name is purged, or with ``purge_all``.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence

import duckdb

from ..base.codec import check_text
from ..base.errors import IdempotencyConflict, InvalidInput
from ..base.model import WriteResult
from .prepare import Prepared
from .sql import one, run

#: Longest key accepted, in UTF-8 bytes.
MAX_KEY_BYTES = 512


def check_key(key: object) -> str:
    """A usable key, or ``InvalidInput``: a non-empty str, not only whitespace, <= 512 bytes."""
    text = check_text(key, what="idempotency_key")
    if not text.strip():
        raise InvalidInput(
            "idempotency_key is empty or only whitespace; pass a non-empty key that names this "
            "write (e.g. a request id), or None for no key"
        )
    size = len(text.encode("utf-8"))
    if size > MAX_KEY_BYTES:
        raise InvalidInput(
            f"idempotency_key is {size} bytes long; the limit is {MAX_KEY_BYTES} bytes "
            "(hash a longer key first)"
        )
    return text


def payload_digest(verb: str, prepared: Sequence[Prepared], options: Sequence[object]) -> str:
    """SHA-256 over the verb, its options and each record's content hash, in the given order."""
    h = hashlib.sha256(repr((verb, tuple(options))).encode())
    for p in prepared:
        h.update(p.chash.to_bytes(8, "little", signed=True))
    return h.hexdigest()


def replay(cur: duckdb.DuckDBPyConnection, key: str, verb: str, digest: str) -> WriteResult | None:
    """The result recorded for ``key`` if it was used with this payload; None if it is new.
    Raises ``IdempotencyConflict`` if it was used with another payload."""
    row = one(cur, "SELECT verb, digest, ids, result FROM idempotency WHERE key = ?", [key])
    if row is None:
        return None
    if row[0] != verb or row[1] != digest:
        ids = tuple(str(i) for i in row[2])
        raise IdempotencyConflict(
            f"idempotency_key {key!r:.80} was already used by a {row[0]} with a different "
            f"payload (records {', '.join(ids[:3]) or 'none'}); use a new key for a new write",
            key=key,
            existing_ids=ids,
        )
    fields = json.loads(row[3])
    return WriteResult(**{k: int(v) for k, v in fields.items()})


def record(
    cur: duckdb.DuckDBPyConnection,
    *,
    key: str,
    verb: str,
    digest: str,
    ids: Sequence[str],
    result: WriteResult,
    time_us: int,
) -> None:
    """Bind ``key`` to this payload and result, inside the writing transaction."""
    value = json.dumps(
        {"written": result.written, "unchanged": result.unchanged, "skipped": result.skipped}
    )
    run(
        cur,
        "INSERT INTO idempotency VALUES (?, ?, ?, ?::VARCHAR[], ?, ?)",
        [key, verb, digest, list(ids), value, time_us],
    )


def forget_records(cur: duckdb.DuckDBPyConnection, ids: Sequence[str]) -> None:
    """Drop every key naming one of these (purged) records."""
    if ids:
        run(
            cur,
            "DELETE FROM idempotency WHERE list_has_any(ids, ?::VARCHAR[])",
            [list(ids)],
        )


def forget_all(cur: duckdb.DuckDBPyConnection) -> None:
    run(cur, "DELETE FROM idempotency")


__all__ = ["MAX_KEY_BYTES", "check_key", "forget_all", "forget_records", "payload_digest"]
