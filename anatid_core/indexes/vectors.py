"""The in-memory vector index: per vector space, a normalised float32 matrix of the current
versions' embeddings, for exact cosine search on current reads (:mod:`anatid_core.vector_search`).

Derived from the space's table (:mod:`anatid_core.storage.embeddings`): built on first search of
the space, under the write lock, then kept in step by each commit of this process and caught up
after other processes' commits; dropped after a purge of everything or another process's purge.
Memory: ``dim`` float32 per current embedding (400 MB for 100k x 1024), plus a version id, an id
and group and label codes per row; ended versions stay as dead rows until the space is built
again.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

import numpy as np

from ..base.model import Kind
from ..storage.arrow_arrays import arrow_numbers
from ..storage.changes import Changes
from ..storage.connection import Connection
from ..storage.embeddings import fetch_matrix, space_table
from ..storage.prepare import tags_of
from ..storage.rows import table_of
from ..storage.sql import arrow_table
from .base import BuiltOnce, Index
from .tags import Tags


@dataclass
class Matrix:
    """Normalised rows of one space's current versions, in increasing vid order."""

    kind: Kind
    space: str
    dim: int
    vids: np.ndarray
    mat: np.ndarray
    alive: np.ndarray
    groups: np.ndarray
    n: int
    labels: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.uint64))
    ids: list[str] = field(default_factory=list)  # record id per row: hits are fetched by id
    tags: Tags = field(default_factory=Tags)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def append(
        self,
        vids: np.ndarray,
        mat: np.ndarray,
        groups: list[str],
        ids: list[str],
        labels: list[tuple[str, ...]],
    ) -> None:
        with self.lock:
            need = self.n + len(vids)
            if need > len(self.vids):
                cap = max(need, 2 * len(self.vids), 1024)
                self.vids = _grow(self.vids, cap)
                self.mat = _grow(self.mat, cap)
                self.alive = _grow(self.alive, cap)
                self.groups = _grow(self.groups, cap)
                self.labels = _grow(self.labels, cap)
            sl = slice(self.n, need)
            self.vids[sl] = vids
            self.mat[sl] = _normalise(mat)
            self.alive[sl] = True
            self.groups[sl], self.labels[sl] = self.tags.encode(groups, labels)
            del self.ids[self.n :]
            self.ids.extend(ids)
            self.n = need

    def remove(self, vids: np.ndarray) -> None:
        with self.lock:
            if self.n == 0 or len(vids) == 0:
                return
            pos = np.searchsorted(self.vids[: self.n], vids)
            ok = pos < self.n
            pos = pos[ok]
            pos = pos[self.vids[pos] == vids[ok]]
            self.alive[pos] = False

    def scores(
        self, qn: np.ndarray, groups: Iterable[str] | None, labels: Iterable[str] | None
    ) -> tuple[np.ndarray, np.ndarray, list[str], np.ndarray, bool] | None:
        """Cosine of every row with the unit vector ``qn``: (scores, version ids, record ids,
        the mask of rows alive and passing ``groups``/``labels``, whether the mask applied the
        label filter), all by row; None if the matrix is empty."""
        with self.lock:
            n = self.n
            if n == 0:
                return None
            scores = self.mat[:n] @ qn
            vids = self.vids[:n].copy()
            ids = self.ids[:n]
            mask = self.alive[:n].copy()
            tagged = self.tags.mask(self.groups[:n], self.labels[:n], groups, labels)
            if tagged is not None:
                mask &= tagged
            return scores, vids, ids, mask, labels is None or self.tags.can_filter_labels()


def _grow(arr: np.ndarray, cap: int) -> np.ndarray:
    out = np.zeros((cap, *arr.shape[1:]), dtype=arr.dtype)
    out[: len(arr)] = arr
    return out


def _normalise(mat: np.ndarray, *, in_place: bool = False) -> np.ndarray:
    """The rows of ``mat`` scaled to unit length (a zero row stays zero), as float32; ``in_place``
    (a float32 array of the caller's own) scales ``mat`` itself. The squared norms come from
    einsum: ``np.linalg.norm`` and a divide into a new array took 5x as long (52 against 10 ms
    a 16,384 x 512 batch), most of a matrix load's arithmetic."""
    mat = mat if in_place else np.array(mat, dtype=np.float32)
    norms = np.sqrt(np.einsum("ij,ij->i", mat, mat))[:, None]
    norms[norms == 0] = 1.0
    mat /= norms
    return mat


#: Rows of embeddings read per Arrow batch while a matrix loads (64 MB at 1024 dims).
LOAD_BATCH_ROWS = 16_384


class VectorIndex(Index):
    """Per-space matrices of the current versions' embeddings."""

    def __init__(self, connection: Connection) -> None:
        self._connection = connection
        self._spaces: BuiltOnce[tuple[Kind, str], Matrix] = BuiltOnce(connection)

    def usable(self) -> bool:
        # Inside this thread's own transaction the index lacks its uncommitted rows: use SQL.
        return not self._connection.in_own_transaction()

    def built(self, kind: Kind, space: str) -> Matrix | None:
        """The matrix of a space if it is built (never loads it)."""
        return self._spaces.get((kind, space))

    def matrix(self, kind: Kind, space: str, tbl: str, dim: int) -> Matrix:
        """The matrix of a space, built now from its table ``tbl`` if needed."""
        return self._spaces.get_or_build((kind, space), lambda: self._load(kind, space, tbl, dim))

    def _load(self, kind: Kind, space: str, tbl: str, dim: int) -> Matrix:
        """The whole matrix, read once into its final place (issue 34): the records first
        (without vectors), then the embeddings streamed batch by batch into a matrix of the
        final size and normalised there. One query joining and sorting the vectors, then
        Arrow's and numpy's copies, peaked at 8.7x the matrix (3.6 GB for 100k x 1024)."""
        tags = "r.labels" if kind == "node" else "[r.rel]"
        cur = self._connection.cursor()
        rows = arrow_table(
            cur.execute(
                f"SELECT r.vid, r.grp, r.id, {tags} FROM {table_of(kind)} r "
                f"WHERE r.tx_to IS NULL AND r.space = ? AND r.vid IN (SELECT vid FROM {tbl}) "
                "ORDER BY r.vid",
                [space],
            )
        )
        vids = arrow_numbers(rows.column(0)).astype(np.int64)
        mat = np.zeros((len(vids), dim), dtype=np.float32)
        if len(vids):
            # A relation streams its batches (a DB-API result would be copied whole first).
            reader = cur.sql(
                f"SELECT v.vid, v.embedding FROM {tbl} v WHERE v.vid IN "
                f"(SELECT r.vid FROM {table_of(kind)} r WHERE r.tx_to IS NULL AND r.space = ?)",
                params=[space],
            ).to_arrow_reader(LOAD_BATCH_ROWS)
            for batch in reader:
                where = np.searchsorted(vids, arrow_numbers(batch.column(0)).astype(np.int64))
                block = arrow_numbers(batch.column(1).flatten()).astype(np.float32)
                block = block.reshape(-1, dim)
                mat[where] = _normalise(block, in_place=True)  # astype made it a copy
        tags = Tags()
        groups, labels = tags.encode(
            rows.column(1).to_pylist(), [tuple(ls) for ls in rows.column(3).to_pylist()]
        )
        return Matrix(
            kind=kind,
            space=space,
            dim=dim,
            vids=vids,
            mat=mat,
            alive=np.ones(len(vids), dtype=bool),
            groups=groups,
            n=len(vids),
            labels=labels,
            ids=rows.column(2).to_pylist(),
            tags=tags,
        )

    def _read_into(self, m: Matrix, tbl: str, *, since: int | None) -> None:
        """Append the current versions of the matrix's space: all, or those after ``since``."""
        tags = "r.labels" if m.kind == "node" else "[r.rel]"
        newer = "" if since is None else f" AND r.tx_from > {int(since)}"
        vids, mat, (groups, ids, labels) = fetch_matrix(
            self._connection.cursor(),
            f"SELECT r.vid, v.embedding, r.grp, r.id, {tags} FROM {table_of(m.kind)} r "
            f"JOIN {tbl} v ON v.vid = r.vid WHERE r.tx_to IS NULL AND r.space = ?{newer} "
            "ORDER BY r.vid",
            [m.space],
            m.dim,
        )
        if len(vids):
            m.append(vids, mat, groups, ids, [tuple(ls) for ls in labels])

    # ------------------------------------------------------------------ kept in step (Index)

    def applied(self, changes: Changes) -> None:
        """Append the embeddings the transaction inserted to their spaces' matrices, then
        drop the versions it removed from every space of their kind."""
        for (kind, space), m in self._spaces.items():
            for vids, mat, records in changes.embedded(kind, space):
                m.append(
                    vids,
                    mat,
                    [p.item.group for p in records],
                    [p.item.id for p in records],
                    [tags_of(p.item) for p in records],
                )
            m.remove(changes.removed(kind))

    def caught_up(self, since_us: int, removed: Mapping[Kind, np.ndarray]) -> None:
        """Drop the versions other processes ended, append the embeddings they wrote."""
        for (kind, space), m in self._spaces.items():
            found = space_table(self._connection.cursor(), kind, space)
            if found is None:
                continue
            m.remove(removed[kind])
            self._read_into(m, found[0], since=since_us)

    def discard(self, kind: Kind, space: str) -> None:
        """Drop one space's matrix (its persistent index answers from now on)."""
        self._spaces.discard((kind, space))

    def forget(self) -> None:
        self._spaces.clear()


__all__ = ["Matrix", "VectorIndex"]
