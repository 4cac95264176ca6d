"""The write verbs. Each is one transaction (joining the caller's, if one is open).

An upsert compares each record's content hash with its current version: unchanged records write
nothing; changed ones close the current version (``tx_to`` = the transaction's time) and insert a
new version, its postings and its embedding, all through Arrow in bulk. Each change is noted
on the transaction's :class:`~anatid_core.storage.changes.Changes`, which the in-memory indexes
apply after COMMIT.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace
from datetime import datetime
from typing import Any, Literal

import numpy as np

from .base.codec import check_id, to_micros
from .base.errors import InvalidInput, NotFound
from .base.model import Edge, Item, Kind, Node, Where, WriteResult
from .indexes.registry import Indexes
from .reads import Reader
from .storage import idempotency
from .storage.connection import Connection, Tx
from .storage.embeddings import ensure_space, insert_vectors
from .storage.filters import record_filter
from .storage.prepare import Prepared, dedupe, listed, prepare_all
from .storage.rows import Visibility, table_of
from .storage.sql import SMALL_BATCH, current_by_id, edges_touching, run
from .storage.turns import verbs_take_turns
from .storage.version_rows import insert_postings, insert_versions


@verbs_take_turns
class Writer:
    """The write verbs, mixed into :class:`~anatid_core.store.Store`, which sets the connection
    and the indexes (whose current records answer a transaction that has written nothing yet)."""

    connection: Connection
    indexes: Indexes

    # ------------------------------------------------------------------------------ upsert

    def upsert_node(self, node: Node, *, idempotency_key: str | None = None) -> WriteResult:
        return self.upsert_nodes([node], idempotency_key=idempotency_key)

    def upsert_edge(
        self,
        edge: Edge,
        *,
        missing_endpoints: Literal["error", "skip"] = "error",
        idempotency_key: str | None = None,
    ) -> WriteResult:
        return self.upsert_edges(
            [edge], missing_endpoints=missing_endpoints, idempotency_key=idempotency_key
        )

    def upsert_nodes(
        self, nodes: Iterable[Node], *, idempotency_key: str | None = None
    ) -> WriteResult:
        """Insert or update nodes in bulk; an unchanged node writes no new version.

        With ``idempotency_key``, a retry of the same payload writes nothing and returns the
        first call's result; the key with another payload is ``IdempotencyConflict``
        (:mod:`anatid_core.storage.idempotency`)."""
        given = prepare_all(nodes, "node")
        key = None if idempotency_key is None else idempotency.check_key(idempotency_key)
        prepared = dedupe(given)
        if not prepared:
            return WriteResult()
        fresh = self.connection.sees_committed_only()
        with self.connection.transaction() as tx:
            digest = "" if key is None else idempotency.payload_digest("upsert_nodes", given, ())
            done = None if key is None else idempotency.replay(tx.cursor, key, "node", digest)
            if done is not None:
                return done
            result = self._write_versions(tx, "node", prepared, skipped=0, fresh=fresh)
            self._remember(tx, key, "node", digest, prepared, result)
            return result

    def upsert_edges(
        self,
        edges: Iterable[Edge],
        *,
        missing_endpoints: Literal["error", "skip"] = "error",
        idempotency_key: str | None = None,
    ) -> WriteResult:
        """Insert or update edges in bulk. Endpoints must be current nodes (or are skipped).
        ``idempotency_key`` as on :meth:`upsert_nodes`."""
        if missing_endpoints not in ("error", "skip"):
            raise InvalidInput("missing_endpoints must be 'error' or 'skip'")
        given = prepare_all(edges, "edge")
        key = None if idempotency_key is None else idempotency.check_key(idempotency_key)
        prepared = dedupe(given)
        if not prepared:
            return WriteResult()
        fresh = self.connection.sees_committed_only()
        with self.connection.transaction() as tx:
            digest = (
                ""
                if key is None
                else idempotency.payload_digest("upsert_edges", given, (missing_endpoints,))
            )
            done = None if key is None else idempotency.replay(tx.cursor, key, "edge", digest)
            if done is not None:
                return done
            result = self._write_edges(tx, prepared, missing_endpoints, fresh)
            self._remember(tx, key, "edge", digest, prepared, result)
            return result

    def _write_edges(
        self, tx: Tx, prepared: list[Prepared], missing_endpoints: str, fresh: bool
    ) -> WriteResult:
        ends = {p.item.src for p in prepared} | {p.item.dst for p in prepared}  # type: ignore[union-attr]
        present = self._current_nodes(tx, ends, fresh)
        kept = [p for p in prepared if p.item.src in present and p.item.dst in present]  # type: ignore[union-attr]
        if len(kept) != len(prepared) and missing_endpoints == "error":
            bad = next(p.item for p in prepared if p not in kept)
            missing = [x for x in (bad.src, bad.dst) if x not in present]  # type: ignore[union-attr]
            raise InvalidInput(
                f"edge {bad.id!r} points at missing node(s) {missing}; write the nodes first, "
                "or pass missing_endpoints='skip'"
            )
        return self._write_versions(
            tx, "edge", kept, skipped=len(prepared) - len(kept), fresh=fresh
        )

    @staticmethod
    def _remember(
        tx: Tx,
        key: str | None,
        verb: str,
        digest: str,
        prepared: list[Prepared],
        result: WriteResult,
    ) -> None:
        if key is not None:
            ids = [p.item.id for p in prepared]
            idempotency.record(
                tx.cursor,
                key=key,
                verb=verb,
                digest=digest,
                ids=ids,
                result=result,
                time_us=tx.time_us,
            )

    def _current_nodes(self, tx: Tx, ids: set[str], fresh: bool) -> set[str]:
        """Which of ``ids`` are current nodes. A transaction that has written nothing yet sees
        what was committed, which the in-memory view holds; otherwise SQL answers."""
        view = self.indexes.current.view("node") if fresh else None
        if view is not None:
            return {i for i in ids if i in view.by_id}
        return {
            r[0] for r in tx.cursor.execute(*current_by_id("nodes", "id", sorted(ids))).fetchall()
        }

    def _current_versions(
        self, tx: Tx, kind: Kind, ids: list[str], fresh: bool
    ) -> dict[str, tuple[int, int]]:
        """(version id, content hash) of the current version of each of ``ids`` that has one
        (from the in-memory view when the transaction has written nothing yet)."""
        view = self.indexes.current.view(kind) if fresh else None
        if view is not None:
            rows = [view.by_id.get(i) for i in ids]
            return {r[1]: (int(r[0]), int(r[-1])) for r in rows if r is not None}
        sql, params = current_by_id(table_of(kind), "id, vid, chash", ids)
        return {r[0]: (int(r[1]), int(r[2])) for r in tx.cursor.execute(sql, params).fetchall()}

    def _write_versions(
        self, tx: Tx, kind: Kind, prepared: list[Prepared], *, skipped: int, fresh: bool = False
    ) -> WriteResult:
        cur = tx.cursor
        current = self._current_versions(tx, kind, [p.item.id for p in prepared], fresh)
        changed = [
            p for p in prepared if p.item.id not in current or current[p.item.id][1] != p.chash
        ]
        if not changed:
            return WriteResult(written=0, unchanged=len(prepared), skipped=skipped)
        closed = [current[p.item.id] for p in changed if p.item.id in current]
        if closed:
            self._close_versions(tx, kind, [c[0] for c in closed])
        first = self.connection.allocate_vids(len(changed))
        vids = np.arange(first, first + len(changed), dtype=np.int64)
        stamps = [tx.time_us] * len(changed)
        insert_versions(cur, kind, changed, vids, stamps, [None] * len(changed))
        postings = insert_postings(cur, changed, vids)
        added = tx.changes.add(kind, vids, changed, postings)
        self._insert_embeddings(tx, kind, changed, vids, fresh, added.embeddings)
        return WriteResult(
            written=len(changed), unchanged=len(prepared) - len(changed), skipped=skipped
        )

    def _insert_embeddings(
        self,
        tx: Tx,
        kind: Kind,
        rows: list[Prepared],
        vids: np.ndarray,
        fresh: bool,
        noted: dict[str, tuple[np.ndarray, np.ndarray]],
    ) -> None:
        """Insert the embeddings of ``rows`` by space, noting each space's (positions, matrix)
        in ``noted`` (the transaction's changes)."""
        by_space: dict[str, list[int]] = {}
        for i, p in enumerate(rows):
            if p.vector is not None:
                by_space.setdefault(p.item.space, []).append(i)
        for space, idx in by_space.items():
            dims = {rows[i].vector.shape[0] for i in idx}  # type: ignore[union-attr]
            if len(dims) > 1:
                raise InvalidInput(
                    f"one write holds {kind} embeddings of dimensions {sorted(dims)} for space "
                    f"{space!r}; a vector space has one dimension"
                )
            dim = dims.pop()
            tbl = self._space_table(tx, kind, space, dim, fresh)
            mat = np.stack([rows[i].vector for i in idx])  # type: ignore[misc]
            insert_vectors(tx.cursor, tbl, vids[idx], mat)
            noted[space] = (np.asarray(idx, dtype=np.int64), mat)

    def _space_table(self, tx: Tx, kind: Kind, space: str, dim: int, fresh: bool) -> str:
        """The table of a vector space: known from an earlier commit when the transaction has
        written nothing yet (so cannot have dropped it), else looked up or created."""
        current = self.indexes.current
        known = current.spaces.get((kind, space)) if fresh and current.enabled() else None
        if known is not None and known[1] == dim:
            return known[0]
        tbl = ensure_space(tx.cursor, kind, space, dim)
        tx.changes.use_space(kind, space, tbl, dim)
        return tbl

    def _close_versions(self, tx: Tx, kind: Kind, vids: list[int]) -> None:
        """End these versions in transaction time at the transaction's instant."""
        if len(vids) <= SMALL_BATCH:
            # A literal list lets the scan skip row groups by their vid ranges (a join with an
            # unnested list reads the whole column): a single-record save's biggest statement.
            marks = ", ".join("?" * len(vids))
            sql = f"UPDATE {table_of(kind)} SET tx_to = ? WHERE vid IN ({marks})"
            run(tx.cursor, sql, [tx.time_us, *vids])
        else:
            run(
                tx.cursor,
                f"UPDATE {table_of(kind)} SET tx_to = ? WHERE vid IN (SELECT unnest(?::BIGINT[]))",
                [tx.time_us, vids],
            )
        tx.changes.remove(kind, vids)

    # ---------------------------------------------------------------------------- supersede

    def close_nodes(self, ids: Iterable[str], valid_to: datetime) -> int:
        """End the validity of current nodes at ``valid_to``, keeping them (a new version)."""
        return self._close_validity("node", ids, valid_to)

    def close_edges(self, ids: Iterable[str], valid_to: datetime) -> int:
        return self._close_validity("edge", ids, valid_to)

    def _close_validity(self, kind: Kind, ids: Iterable[str], valid_to: datetime) -> int:
        to_micros(valid_to, what="valid_to")
        wanted = [check_id(i) for i in listed(ids, "ids")]
        with self.connection.transaction():
            # Inside the transaction the current reads see its own writes.
            reads = Reader(self.connection, self.indexes, Visibility())
            items: list[Item] = list(
                reads.get_nodes(wanted) if kind == "node" else reads.get_edges(wanted)
            )
            missing = set(wanted) - {i.id for i in items}
            if missing:
                first = sorted(missing)[0]
                raise NotFound(f"no current {kind} with id {first!r} to close", id=first)
            vectors = reads.get_embeddings(wanted, kind=kind)
            updated = [replace(i, valid_to=valid_to, embedding=vectors.get(i.id)) for i in items]
            if kind == "node":
                result = self.upsert_nodes(updated)  # type: ignore[arg-type]
            else:
                result = self.upsert_edges(updated)  # type: ignore[arg-type]
            return result.written

    # ------------------------------------------------------------------------------- delete

    def delete_nodes(self, ids: Iterable[str], *, detach: bool = True) -> int:
        """End the current version of each node in transaction time; history is kept.

        With ``detach`` (the default) their current edges are deleted too; without it, a node that
        still has edges is refused. Missing ids are ignored. Returns the number of nodes deleted.
        """
        wanted = [check_id(i) for i in listed(ids, "ids")]
        if not wanted:
            return 0
        with self.connection.transaction() as tx:
            cur = tx.cursor
            edge_rows = cur.execute(*edges_touching(wanted)).fetchall()
            if edge_rows and not detach:
                raise InvalidInput(
                    f"node(s) still have {len(edge_rows)} edge(s) (e.g. {edge_rows[0][1]!r}); "
                    "delete the edges first or pass detach=True"
                )
            if edge_rows:
                self._close_versions(tx, "edge", [int(r[0]) for r in edge_rows])
            node_vids = [
                int(r[0]) for r in cur.execute(*current_by_id("nodes", "vid", wanted)).fetchall()
            ]
            if node_vids:
                self._close_versions(tx, "node", node_vids)
            return len(node_vids)

    def delete_edges(self, ids: Iterable[str]) -> int:
        wanted = [check_id(i) for i in listed(ids, "ids")]
        if not wanted:
            return 0
        with self.connection.transaction() as tx:
            vids = [
                int(r[0])
                for r in tx.cursor.execute(*current_by_id("edges", "vid", wanted)).fetchall()
            ]
            if vids:
                self._close_versions(tx, "edge", vids)
            return len(vids)

    def delete_where(
        self,
        kind: Kind,
        *,
        groups: Iterable[str] | None = None,
        labels: Iterable[str] | None = None,
        rels: Iterable[str] | None = None,
        where: Where | None = None,
    ) -> int:
        """Delete every current record matching the filters (node deletes detach)."""
        filters = {"groups": groups, "labels": labels, "rels": rels, "where": where}
        with self.connection.transaction():
            ids = self._ids_matching(kind, filters, current_only=True)
            return self.delete_nodes(ids) if kind == "node" else self.delete_edges(ids)

    def _ids_matching(
        self, kind: Kind, filters: dict[str, Any], *, current_only: bool
    ) -> list[str]:
        visible = Visibility().sql() if current_only else None
        f = record_filter(kind, visible=visible, **filters)
        rows = self.connection.query(
            f"SELECT DISTINCT r.id FROM {table_of(kind)} r WHERE {f.sql()} ORDER BY r.id",
            f.params,
        )
        return [r[0] for r in rows]
