"""Erasure (issue 15): purge, compact, and the receipts of both.

Two states, and verbs for each:

* ``purge_*`` deletes every version of the records, their postings and embeddings in one
  transaction and records a *pending* receipt: the records are gone from every read, but DuckDB
  only marks deleted rows, so their bytes may remain in the file's free blocks.
* ``compact()`` rewrites the file without them (:mod:`anatid_core.storage.compaction`) and
  marks every pending receipt *gone*.
* ``erase_*`` is both in one call: it checks the free space first (``StorageError``, nothing
  written), purges, compacts, and returns the completed receipt.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Iterable
from datetime import datetime, timezone
from typing import Any

import duckdb
import numpy as np

from .base.codec import check_id, from_micros
from .base.errors import NotFound, ReadOnlyError, UnsupportedOperation
from .base.model import Compaction, Erasure, Kind, Where
from .storage import compaction, idempotency, receipts
from .storage.connection import Tx, count_purge
from .storage.embeddings import all_spaces
from .storage.prepare import listed
from .storage.rows import table_of
from .storage.sql import one, run
from .storage.turns import in_turn
from .writes import Writer

_Versions = list[tuple[int, str, bool]]  # (vid, id, current)


class Eraser(Writer):
    """The erasure verbs (and the write verbs they build on), mixed into
    :class:`~anatid_core.store.Store`."""

    # -------------------------------------------------------------------------------- purge

    @in_turn
    def purge_nodes(self, ids: Iterable[str]) -> int:
        """Erase every version of these nodes and of their edges, with postings and embeddings
        (pending until compaction; see :meth:`erase_nodes`). Returns the current nodes purged."""
        wanted = [check_id(i) for i in listed(ids, "ids")]
        if not wanted:
            return 0
        return self._purge(wanted, [])[1]

    @in_turn
    def purge_edges(self, ids: Iterable[str]) -> int:
        wanted = [check_id(i) for i in listed(ids, "ids")]
        if not wanted:
            return 0
        return self._purge([], wanted)[2]

    @in_turn
    def purge(self, *, nodes: Iterable[str] = (), edges: Iterable[str] = ()) -> Erasure:
        """Purge nodes (with their edges) and edges in one transaction and return the pending
        receipt (id 0, nothing recorded, when both lists are empty). :meth:`compact` completes
        it; unlike :meth:`erase` this may run inside a transaction."""
        node_ids = [check_id(i) for i in listed(nodes, "nodes")]
        edge_ids = [check_id(i) for i in listed(edges, "edges")]
        if not (node_ids or edge_ids):
            return _nothing_erased(pending=True)
        return self._purge(node_ids, edge_ids)[0]

    @in_turn
    def purge_where(
        self,
        kind: Kind,
        *,
        groups: Iterable[str] | None = None,
        labels: Iterable[str] | None = None,
        rels: Iterable[str] | None = None,
        where: Where | None = None,
    ) -> int:
        """Erase every record (all versions) that has any version matching the filters."""
        filters = {"groups": groups, "labels": labels, "rels": rels, "where": where}
        with self.connection.transaction():
            ids = self._ids_matching(kind, filters, current_only=False)
            return self.purge_nodes(ids) if kind == "node" else self.purge_edges(ids)

    @in_turn
    def purge_all(self) -> None:
        """Erase everything: every node, edge, posting, embedding and vector space."""
        self._purge_everything()

    # -------------------------------------------------------------------------------- erase

    def erase_nodes(self, ids: Iterable[str]) -> Erasure:
        """Erase every version of these nodes and their edges so that no byte of them remains
        in the store's files (purge, then compact); returns the completed receipt."""
        wanted = [check_id(i) for i in listed(ids, "ids")]
        return self._erase(lambda: self._purge(wanted, [])[0], bool(wanted))

    def erase_edges(self, ids: Iterable[str]) -> Erasure:
        wanted = [check_id(i) for i in listed(ids, "ids")]
        return self._erase(lambda: self._purge([], wanted)[0], bool(wanted))

    def erase(self, *, nodes: Iterable[str] = (), edges: Iterable[str] = ()) -> Erasure:
        """Erase nodes (with their edges) and edges in one purge and one compaction."""
        node_ids = [check_id(i) for i in listed(nodes, "nodes")]
        edge_ids = [check_id(i) for i in listed(edges, "edges")]
        return self._erase(lambda: self._purge(node_ids, edge_ids)[0], bool(node_ids or edge_ids))

    def erase_where(
        self,
        kind: Kind,
        *,
        groups: Iterable[str] | None = None,
        labels: Iterable[str] | None = None,
        rels: Iterable[str] | None = None,
        where: Where | None = None,
    ) -> Erasure:
        """:meth:`purge_where`, then compaction: every record that ever matched is erased."""
        filters = {"groups": groups, "labels": labels, "rels": rels, "where": where}

        def purge() -> tuple[Erasure, int, int]:
            with self.connection.transaction():
                ids = self._ids_matching(kind, filters, current_only=False)
                return self._purge(ids, []) if kind == "node" else self._purge([], ids)

        return self._erase(lambda: purge()[0], True)

    def erase_all(self) -> Erasure:
        """:meth:`purge_all`, then compaction: the file keeps nothing but the receipts."""
        return self._erase(self._purge_everything, True)

    def compact(self) -> Compaction:
        """Rewrite the file without the bytes of purged records; every pending receipt becomes
        complete. Needs free space about the file's size (``StorageError`` otherwise, nothing
        written); survives SIGKILL at any point (the old file, or the new one)."""
        db = self.connection
        if db.read_only:
            raise ReadOnlyError(f"{db.path} was opened read-only; open it for writing to compact")
        if db.in_own_transaction():
            raise UnsupportedOperation(
                "compact() replaces the file and cannot run inside a transaction; call it after "
                "the commit"
            )
        now_us = max(time.time_ns() // 1000, 1)
        with db.turn():
            pending = [e.id for e in receipts.receipts(db.cursor(), pending_only=True)]
        if db.path == ":memory:":
            with db.exclusive() as con:
                receipts.mark_gone(con, now_us)  # freed memory is not a file anybody can copy
            before = after = 0
        else:
            before, after = compaction.compact_file(db, now_us)
        with db.turn():
            done = [receipts.receipt(db.cursor(), eid) for eid in pending]
        return Compaction(before, after, tuple(e for e in done if e is not None))

    def check_compaction_space(self) -> None:
        """Refuse (``StorageError``, naming the space needed; nothing is written) when a
        compaction's copy of the file might not fit on its disk: the check ``erase_*`` makes
        first, for a caller that purges now and compacts later (a driver's erasure). An
        in-memory store always passes."""
        path = self.connection.path
        if path != ":memory:":
            compaction.check_space(path)

    # ------------------------------------------------------------------------------ receipts

    @in_turn
    def erasures(self, *, pending_only: bool = False) -> list[Erasure]:
        """Every erasure receipt, oldest first (only the pending ones with ``pending_only``)."""
        return receipts.receipts(self.connection.cursor(), pending_only=pending_only)

    @in_turn
    def erasure(self, erasure_id: int) -> Erasure:
        found = receipts.receipt(self.connection.cursor(), int(erasure_id))
        if found is None:
            raise NotFound(f"no erasure receipt {erasure_id!r} in {self.connection.path}")
        return found

    # ------------------------------------------------------------------------------ internals

    def _erase(self, purge: Any, requested: bool) -> Erasure:
        db = self.connection
        if db.read_only:
            raise ReadOnlyError(f"{db.path} was opened read-only; open it for writing to erase")
        if db.in_own_transaction():
            raise UnsupportedOperation(
                "erase_*() compacts the file and cannot run inside a transaction; purge_*() "
                "inside it, then call compact() after the commit"
            )
        if not requested:
            return _nothing_erased()
        self.check_compaction_space()  # before anything is written
        receipt: Erasure = purge()
        self.compact()
        return self.erasure(receipt.id)

    def _purge(self, node_ids: list[str], edge_ids: list[str]) -> tuple[Erasure, int, int]:
        """One transaction: every version of the nodes (with their edges) and edges goes, and a
        pending receipt is recorded. Returns it and the current nodes and edges purged."""
        with self.connection.transaction() as tx:
            cur = tx.cursor
            if node_ids:
                edge_ids = sorted(set(edge_ids) | set(_edges_touching(cur, node_ids)))
            nodes = _versions(cur, "node", node_ids)
            edges = _versions(cur, "edge", edge_ids)
            erased_nodes = sorted({v[1] for v in nodes})
            erased_edges = sorted({v[1] for v in edges})
            kept = receipts.kept_neighbours(cur, erased_edges, erased_nodes)
            digest = receipts.content_digest(
                cur, {"node": [v[0] for v in nodes], "edge": [v[0] for v in edges]}
            )
            self._delete_versions(tx, "edge", edges)
            self._delete_versions(tx, "node", nodes)
            idempotency.forget_records(cur, erased_nodes + erased_edges)
            count_purge(cur)
            eid = receipts.record(
                cur,
                time_us=tx.time_us,
                node_ids=erased_nodes,
                edge_ids=erased_edges,
                versions=len(nodes) + len(edges),
                digest=digest,
                kept_neighbour_ids=kept,
            )
            found = receipts.receipt(cur, eid)
            assert found is not None
            return found, sum(v[2] for v in nodes), sum(v[2] for v in edges)

    def _delete_versions(self, tx: Tx, kind: Kind, versions: _Versions) -> None:
        if not versions:
            return
        cur = tx.cursor
        vids = [v[0] for v in versions]
        self.indexes.purging(cur, kind, np.asarray(vids, dtype=np.int64))
        run(cur, "DELETE FROM postings WHERE vid IN (SELECT unnest(?::BIGINT[]))", [vids])
        for k, _, _, tbl in all_spaces(cur):
            if k == kind:
                run(cur, f"DELETE FROM {tbl} WHERE vid IN (SELECT unnest(?::BIGINT[]))", [vids])
        run(cur, f"DELETE FROM {table_of(kind)} WHERE vid IN (SELECT unnest(?::BIGINT[]))", [vids])
        tx.changes.remove(kind, vids)

    def _purge_everything(self) -> Erasure:
        with self.connection.transaction() as tx:
            cur = tx.cursor
            digest = receipts.content_digest(cur, {"node": None, "edge": None})
            row = one(cur, "SELECT (SELECT count(*) FROM nodes) + (SELECT count(*) FROM edges)")
            self.indexes.purging_all()
            for _, _, _, tbl in all_spaces(cur):
                run(cur, f"DROP TABLE {tbl}")
            for table in ("spaces", "postings", "edges", "nodes"):
                run(cur, f"DELETE FROM {table}")
            idempotency.forget_all(cur)
            count_purge(cur)
            eid = receipts.record(
                cur,
                time_us=tx.time_us,
                node_ids=[],
                edge_ids=[],
                versions=int(row[0]) if row else 0,
                digest=digest,
                everything=True,
            )
            tx.changes.empty()
            found = receipts.receipt(cur, eid)
            assert found is not None
            return found


def _versions(cur: duckdb.DuckDBPyConnection, kind: Kind, ids: list[str]) -> _Versions:
    if not ids:
        return []
    rows = cur.execute(
        f"SELECT vid, id, tx_to IS NULL FROM {table_of(kind)} "
        "WHERE id IN (SELECT unnest(?::VARCHAR[])) ORDER BY vid",
        [ids],
    ).fetchall()
    return [(int(r[0]), str(r[1]), bool(r[2])) for r in rows]


def _edges_touching(cur: duckdb.DuckDBPyConnection, node_ids: list[str]) -> list[str]:
    return [
        r[0]
        for r in cur.execute(
            "SELECT DISTINCT id FROM edges WHERE src IN (SELECT unnest(?::VARCHAR[])) "
            "OR dst IN (SELECT unnest(?::VARCHAR[]))",
            [node_ids, node_ids],
        ).fetchall()
    ]


def _nothing_erased(*, pending: bool = False) -> Erasure:
    """The receipt of an empty request: nothing recorded (id 0), nothing to remove (gone at
    once, or, for :meth:`Eraser.purge`, pending like any purge's receipt)."""
    now = from_micros(time.time_ns() // 1000) or datetime.now(timezone.utc)
    gone = None if pending else now
    return Erasure(0, now, (), (), 0, hashlib.sha256().hexdigest(), gone_at=gone)


__all__ = ["Eraser"]
