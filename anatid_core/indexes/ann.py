"""The persistent vector index (issue 34): per vector space, an HNSW graph of every version's
normalised embedding (usearch), saved beside the file (:mod:`anatid_core.storage.index_files`)
and memory-mapped by every process that searches the space, plus what it does not hold yet.

A search of a space that has an index file never loads the space's matrix
(:mod:`anatid_core.indexes.vectors`). It combines:

* the **mapped index**: every version with an embedding up to the index's ``high`` version id,
  current and ended alike (an ``as_of`` search needs the ended ones); opening it costs a
  mapping, its pages are shared through the page cache, and it is never written in place;
* the **delta**: the embeddings of versions after ``high`` (written since the last build, by
  this process or others), read once when the space is opened and then appended by each commit
  and catch-up, scanned exactly (a merge, :mod:`anatid_core.indexes.ann_build`, moves them into
  the index off the write path);
* the **visible set** of the read: the current versions (a bitmap over version ids, kept in
  step like the delta) or, for an ``as_of`` read or a filter, the version ids SQL finds
  passing it.

The index is searched with over-fetch: ``k / f`` candidates and some margin, where ``f`` is the
fraction of its vectors the read can see (known exactly: the visible set is), filtered by
visibility, fetched again with four times as many while too few pass. Where the visible part is
small (``ANN["exact_rows"]``) or the over-fetch would reach a quarter of it, those vectors are
scored exactly instead: a selective filter is never left to the luck of the graph.

Memory per opened space: the delta (``dim`` float32 per version written since the build), the
current bitmap (one byte per version id) and the mapped file (shared, in the page cache).
"""

from __future__ import annotations

import math
import os
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import duckdb
import numpy as np

from ..base.model import Kind
from ..storage import index_files, index_ties
from ..storage.arrow_arrays import arrow_numbers
from ..storage.changes import Changes
from ..storage.connection import Connection
from ..storage.embeddings import space_table
from ..storage.flat_file import FlatFile
from ..storage.index_files import Manifest
from ..storage.rows import table_of
from ..storage.sql import one, vid_column
from . import lifecycle
from .base import BuiltOnce, Index
from .flat import FlatView

#: Tunables of the persistent index. ``auto``, ``merge_rows``, ``merge_fraction``: when a
#: writing process builds or merges in the background (:mod:`~.ann_merger`); ``ef``: the HNSW beam width of a search (at least the
#: candidates fetched); ``exact_rows``: at most this many visible indexed vectors are scored
#: exactly rather than through the graph; ``margin``: the over-fetch factor beyond ``k / f``;
#: ``connectivity``/``expansion_add``: the graph's degree and build beam, ``build_threads``: threads
#: adding to it (0: every core; 1 makes the graph, and so recall, reproducible) (read by builds).
ANN: dict[str, Any] = {
    "auto": True,
    "merge_rows": 20_000,
    "merge_fraction": 0.05,
    "ef": 256,
    "exact_rows": 10_000,
    "margin": 2.0,
    "connectivity": 16,
    "expansion_add": 128,
    "build_threads": 0,
    "recheck_seconds": 1.0,
    # A space's first build publishes a flat index (its vectors in one mapped matrix, searched
    # exactly) before the graph: searchable by every process in seconds, not minutes.
    "flat_first": True,
    # Builds run in a builder process of their own (:mod:`~.builder`), which outlives a writer
    # that exits; False: in a thread of the writer (a frozen application always does).
    "builder_process": True,
    # While a build is under way, a process searches a space or kind it has not loaded by SQL
    # this many times (the build publishes the text and flat indexes within seconds), then
    # loads it: a long-lived writer beside a long build must not scan by SQL for minutes.
    "sql_while_building": 8,
    # How often a builder looks again for what writers wrote while it built, before it exits.
    "builder_rounds": 3,
    # DuckDB's memory while a build reads a batch, for a store opened without a memory_limit
    # (issue 41: DuckDB's default, 80% of RAM, kept every block read, 9.4 GB at 1M x 1024).
    "build_memory_limit": "1GB",
    # Whether a build sleeps while other processes are busy (:mod:`~.give_way`): set by the
    # builder process; a build someone waits for (``anatid index``) runs at full speed.
    "give_way": False,
}

#: Rows of embeddings read per batch while the delta loads.
LOAD_BATCH_ROWS = 16_384


def normalised(mat: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(mat, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    return (mat / norms).astype(np.float32)


def normalise(mat: np.ndarray) -> np.ndarray:
    """``mat`` (float32, writable) with each row scaled to unit length in place; returns it.
    A build's batches are normalised so: no second copy of each batch (issue 41)."""
    norms = np.linalg.norm(mat, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    np.divide(mat, norms, out=mat)
    return mat


def open_vectors(folder: str, m: Manifest) -> Any:
    """The index's vectors opened for search: a mapped usearch view, or a flat file's matrix
    (searched exactly) until the graph replaces it."""
    path = os.path.join(folder, m.file)
    if m.file.endswith(".flat"):
        return FlatView(path, index_files.KeysFile(os.path.join(folder, m.keys)))
    return open_view(path)


def open_view(path: str) -> Any:
    """The usearch index at ``path``, memory-mapped read-only (never add to it: a view
    cannot take writes and usearch does not refuse them)."""
    from usearch.index import Index as Usearch

    view = Usearch.restore(path, view=True)
    if view is None:
        raise OSError(f"{path}: not a usearch index")
    return view


def valid_manifest(
    cur: duckdb.DuckDBPyConnection, store_path: str, kind: Kind, space: str
) -> Manifest | None:
    """The space's manifest if its index may answer for the file now
    (:func:`anatid_core.indexes.lifecycle.usable`: same store and build, same versions, files
    whole and laid out as the manifest says); else None, the reason logged once."""
    return lifecycle.usable(cur, store_path, VECTORS, kind, space)


def _structure(folder: str, m: Manifest) -> str | None:
    """What in the index and keys files' layout disagrees with the manifest, read from their
    headers before anything is mapped."""
    from usearch.index import Index as Usearch

    path = os.path.join(folder, m.file)
    if m.file.endswith(".flat"):
        try:
            flat = FlatFile(path)
        except OSError as e:
            return str(e)
        if (flat.rows, flat.dim) != (m.count, m.dim):
            return f"{path} holds {flat.rows} vectors of {flat.dim} dimensions, its manifest {m.count} of {m.dim}"
        return keys_structure(folder, m)
    try:
        head = Usearch.metadata(path)
    except (OSError, RuntimeError, ValueError) as e:
        return f"{path} is not a usearch index ({e})"
    if not head or not head.get("matrix_included"):
        return f"{path} is not a usearch index with its vectors"
    dims, present = head.get("dimensions"), head.get("count_present")
    if dims != m.dim or present != m.count or head.get("count_deleted"):
        return f"{path} holds {present} vectors of {dims} dimensions, its manifest {m.count} of {m.dim}"
    if str(head.get("kind_scalar")).rsplit(".", 1)[-1].split(":")[0] != "F32":
        return f"{path} holds {head.get('kind_scalar')} vectors, not float32"
    return keys_structure(folder, m)


def keys_structure(folder: str, m: Manifest) -> str | None:
    """What in the keys file disagrees with the manifest (its layout is checked on opening)."""
    path = os.path.join(folder, m.keys)
    try:
        keys = index_files.KeysFile(path)
    except (OSError, ValueError) as e:
        return str(e)
    if len(keys) != m.count:
        return f"{path} names {len(keys)} versions, its manifest {m.count}"
    if len(keys) and int(keys.vids[-1]) > m.high:
        return f"{path} names versions after the index's last ({m.high})"
    return None


@dataclass
class Delta:
    """The normalised embeddings of the versions after the index's ``high``, in vid order."""

    dim: int
    vids: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    mat: np.ndarray = field(default_factory=lambda: np.zeros((0, 0), dtype=np.float32))
    ids: list[str] = field(default_factory=list)
    n: int = 0

    def __post_init__(self) -> None:
        if self.mat.shape[1:] != (self.dim,):
            self.mat = np.zeros((0, self.dim), dtype=np.float32)

    @property
    def last(self) -> int:
        return int(self.vids[self.n - 1]) if self.n else -1

    def append(self, vids: np.ndarray, mat: np.ndarray, ids: list[str]) -> None:
        keep = vids > self.last  # a catch-up may read again what a commit appended
        if not keep.all():
            ids = [i for i, k in zip(ids, keep.tolist(), strict=True) if k]
        vids, mat = vids[keep], mat[keep]
        if not len(vids):
            return
        need = self.n + len(vids)
        if need > len(self.vids):
            cap = max(need, 2 * len(self.vids), 256)
            self.vids = _grow(self.vids, cap)
            self.mat = _grow(self.mat, cap)
        self.vids[self.n : need] = vids
        self.mat[self.n : need] = normalised(mat)
        del self.ids[self.n :]
        self.ids.extend(ids)
        self.n = need

    def ids_of(self, vids: np.ndarray) -> list[str | None]:
        pos = np.searchsorted(self.vids[: self.n], vids)
        return [
            self.ids[p] if p < self.n and int(self.vids[p]) == v else None
            for p, v in zip(pos.tolist(), vids.tolist(), strict=True)
        ]


@dataclass
class Bitmap:
    """A set of version ids as one byte per id (current versions of a space)."""

    bits: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=bool))
    count: int = 0

    def add(self, vids: np.ndarray) -> None:
        if not len(vids):
            return
        top = int(vids.max()) + 1
        if top > len(self.bits):
            self.bits = _grow(self.bits, max(top, 2 * len(self.bits)))
        fresh = ~self.bits[vids]
        self.bits[vids] = True
        self.count += int(np.count_nonzero(fresh))

    def remove(self, vids: np.ndarray) -> None:
        vids = vids[vids < len(self.bits)]
        if not len(vids):
            return
        was = self.bits[vids]
        self.bits[vids] = False
        self.count -= int(np.count_nonzero(was))

    def mask(self, vids: np.ndarray) -> np.ndarray:
        inside = vids < len(self.bits)
        out = np.zeros(len(vids), dtype=bool)
        out[inside] = self.bits[vids[inside]]
        return out

    def members(self) -> np.ndarray:
        return np.flatnonzero(self.bits).astype(np.int64)


def _grow(arr: np.ndarray, cap: int) -> np.ndarray:
    out = np.zeros((cap, *arr.shape[1:]), dtype=arr.dtype)
    out[: len(arr)] = arr
    return out


@dataclass(frozen=True)
class Visible:
    """The versions a search may return: ``members`` (sorted vids) or a bitmap."""

    members: np.ndarray | None = None
    bitmap: Bitmap | None = None

    def mask(self, vids: np.ndarray) -> np.ndarray:
        if self.bitmap is not None:
            return self.bitmap.mask(vids)
        assert self.members is not None
        members = self.members
        pos = np.searchsorted(members, vids)
        inside = pos < len(members)
        out = np.zeros(len(vids), dtype=bool)
        out[inside] = members[pos[inside]] == vids[inside]
        return out

    def upto(self, high: int) -> np.ndarray:
        """The visible vids up to ``high`` (those the index may hold)."""
        members = self.members if self.members is not None else self.bitmap_members()
        return members[: np.searchsorted(members, high, side="right")]

    def bitmap_members(self) -> np.ndarray:
        assert self.bitmap is not None
        return self.bitmap.members()

    def count_upto(self, high: int) -> int:
        if self.members is not None:
            return int(np.searchsorted(self.members, high, side="right"))
        assert self.bitmap is not None
        return int(np.count_nonzero(self.bitmap.bits[: high + 1]))


@dataclass
class SpaceIndex:
    """One space's mapped index, its delta and its current versions."""

    kind: Kind
    space: str
    table: str
    manifest: Manifest
    view: Any
    keys: index_files.KeysFile
    delta: Delta
    current: Bitmap
    stamp: tuple[index_files.Stamp | None, ...]
    lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def high(self) -> int:
        return self.manifest.high

    def scores(self, qn: np.ndarray, k: int, visible: Visible) -> tuple[np.ndarray, np.ndarray]:
        """(vids, cosine scores) of at least the ``k`` best visible versions (more when the
        graph returned more that pass), unordered; exact scores."""
        d_vids, d_scores = self._delta_scores(qn, visible)
        i_vids, i_scores = self._index_scores(qn, k, visible)
        return np.concatenate([i_vids, d_vids]), np.concatenate([i_scores, d_scores])

    def _delta_scores(self, qn: np.ndarray, visible: Visible) -> tuple[np.ndarray, np.ndarray]:
        with self.lock:
            n = self.delta.n
            vids, mat = self.delta.vids[:n], self.delta.mat[:n]
        if not n:
            return vids, np.zeros(0, dtype=np.float32)
        keep = np.flatnonzero(visible.mask(vids))
        if len(keep) * 4 < n:  # few visible: score those alone
            return vids[keep], mat[keep] @ qn.astype(np.float32)
        # Score the whole delta in place and keep the visible scores: selecting the rows first
        # copied the matrix (100 MB a search for 25k x 1024, 47 ms of the writer's 71 ms).
        return vids[keep], (mat @ qn.astype(np.float32))[keep]

    def _index_scores(
        self, qn: np.ndarray, k: int, visible: Visible
    ) -> tuple[np.ndarray, np.ndarray]:
        total = self.manifest.count
        seen = visible.count_upto(self.high)
        if seen == 0 or total == 0:
            return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.float32)
        if isinstance(self.view, FlatView):  # no graph yet: every vector, exactly
            vids, scores = self.view.all_scores(qn)
            keep = visible.mask(vids)
            return vids[keep], scores[keep]
        fetch = min(total, math.ceil(k * total / seen * ANN["margin"]) + k)
        while True:
            if seen <= ANN["exact_rows"] or fetch * 4 > seen and fetch < total:
                return self._exact(qn, visible.upto(self.high))
            with self.lock:  # the beam width is the view's, shared by every thread
                self.view.expansion_search = max(int(ANN["ef"]), fetch)
                found = self.view.search(qn, fetch, threads=1)
            keys = np.asarray(found.keys, dtype=np.int64)
            passing = keys[visible.mask(keys)]
            if len(passing) >= k or fetch >= total:
                return passing, self._rescored(qn, passing)
            fetch = min(total, fetch * 4)

    def _exact(self, qn: np.ndarray, vids: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        if not len(vids):
            return vids, np.zeros(0, dtype=np.float32)
        got = self.view.get(vids.astype(np.uint64))
        held = np.asarray([g is not None for g in got], dtype=bool)
        vids = vids[held]
        if not len(vids):
            return vids, np.zeros(0, dtype=np.float32)
        mat = np.stack([g for g in got if g is not None]).astype(np.float32, copy=False)
        return vids, mat @ qn

    def _rescored(self, qn: np.ndarray, vids: np.ndarray) -> np.ndarray:
        # The stored vectors scored as the exact path scores them (one dot product each).
        if not len(vids):
            return np.zeros(0, dtype=np.float32)
        got = self.view.get(vids.astype(np.uint64))
        return np.stack(got).astype(np.float32, copy=False) @ qn

    def ids_of(self, vids: np.ndarray) -> list[str | None]:
        """The record id of each version id (None for one neither the index nor the delta
        holds)."""
        held = self.keys.ids_of(vids)
        if all(i is not None for i in held):
            return held
        with self.lock:
            newer = self.delta.ids_of(vids)
        return [a if a is not None else b for a, b in zip(held, newer, strict=True)]


class AnnIndex(Index):
    """The persistent indexes of the spaces that have one, opened on first search."""

    def __init__(
        self, connection: Connection, merge: Callable[[Kind, str | None], None] | None = None
    ) -> None:
        self._connection = connection
        self._spaces: BuiltOnce[tuple[Kind, str], SpaceIndex | _Absent] = BuiltOnce(connection)
        self._checked: dict[tuple[Kind, str], float] = {}
        self._merge = merge
        self._asked: dict[tuple[Kind, str], float] = {}

    def noticed(self, kind: Kind, space: str, rows: int, min_rows: int) -> None:
        """A search loaded the space whole for an exact scan: ``rows`` embeddings. Build its
        index in the background if it is that large (asked again at most once a minute)."""
        if rows < min_rows or self._merge is None or not ANN["auto"]:
            return
        now = time.monotonic()
        if now - self._asked.get((kind, space), -1e9) < 60.0:
            return
        self._asked[(kind, space)] = now
        self._merge(kind, space)

    def usable(self) -> bool:
        return (
            not self._connection.in_own_transaction()
            and self._connection.path != ":memory:"
            and os.path.isdir(index_files.folder_of(self._connection.path))
        )

    def space(self, kind: Kind, space: str) -> SpaceIndex | None:
        """The space's opened index, opened now if its files are valid; None if it has none
        (it is then searched exactly)."""
        key = (kind, space)
        found = self._spaces.get(key)  # opened or absent, as of its files' stamps
        if isinstance(found, SpaceIndex):
            # Every search: a file written in place since it was verified is verified again
            # before it is read (three stat calls, a few microseconds).
            if found.stamp != index_files.files_stamp(self._connection.path, found.manifest):
                self._drop(key)
        elif found is not None and self._recheck_due(key):
            if found.stamp != index_files.manifest_stamp(self._connection.path, kind, space):
                self._drop(key)  # a build published another index since, or removed it
        got = self._spaces.get_or_build(key, lambda: self._open(kind, space))
        return got if isinstance(got, SpaceIndex) else None

    def _recheck_due(self, key: tuple[Kind, str]) -> bool:
        now = time.monotonic()
        if now - self._checked.get(key, 0.0) < ANN["recheck_seconds"]:
            return False
        self._checked[key] = now
        return True

    def _drop(self, key: tuple[Kind, str]) -> None:
        self._spaces.discard(key)

    def discard(self, kind: Kind, space: str) -> None:
        """Open the space's files again on its next search (a build just published them)."""
        self._drop_quietly((kind, space))

    def _open(self, kind: Kind, space: str) -> SpaceIndex | _Absent:
        path = self._connection.path
        stamp = index_files.manifest_stamp(path, kind, space)
        if stamp is None or not index_files.usable_folder(path):
            return _Absent(stamp)
        cur = self._connection.cursor()
        manifest = valid_manifest(cur, path, kind, space)
        table = space_table(cur, kind, space)
        if manifest is None or table is None:
            return _Absent(stamp)
        folder = index_files.folder_of(path)
        files = index_files.files_stamp(path, manifest)
        try:  # verified and their layout checked: mapping them is safe
            view = open_vectors(folder, manifest)
            keys = index_files.KeysFile(os.path.join(folder, manifest.keys))
        except (OSError, RuntimeError, ValueError) as e:
            index_files.log_unused(path, manifest, f"it cannot be opened ({e})")
            return _Absent(stamp)
        opened = SpaceIndex(
            kind=kind,
            space=space,
            table=table[0],
            manifest=manifest,
            view=view,
            keys=keys,
            delta=Delta(manifest.dim),
            current=Bitmap(),
            stamp=files,
        )
        self._read_delta(cur, opened, after=manifest.high)
        opened.current.add(_current_vids(cur, kind, space, since=None))
        return opened

    def _read_delta(self, cur: duckdb.DuckDBPyConnection, s: SpaceIndex, *, after: int) -> None:
        reader = cur.sql(
            f"SELECT v.vid, v.embedding, r.id FROM {s.table} v "
            f"JOIN {table_of(s.kind)} r ON r.vid = v.vid WHERE v.vid > ? ORDER BY v.vid",
            params=[after],
        ).to_arrow_reader(LOAD_BATCH_ROWS)
        for batch in reader:
            vids = arrow_numbers(batch.column(0)).astype(np.int64)
            mat = arrow_numbers(batch.column(1).flatten()).astype(np.float32)
            with s.lock:
                s.delta.append(vids, mat.reshape(-1, s.delta.dim), batch.column(2).to_pylist())

    def opened(self) -> list[SpaceIndex]:
        return [s for _, s in self._spaces.items() if isinstance(s, SpaceIndex)]

    # ------------------------------------------------------------------ kept in step (Index)

    def applied(self, changes: Changes) -> None:
        for s in self.opened():
            for vids, mat, records in changes.embedded(s.kind, s.space):
                with s.lock:
                    s.delta.append(vids, mat, [p.item.id for p in records])
                s.current.add(vids)
            s.current.remove(changes.removed(s.kind))
            wanted = max(int(ANN["merge_rows"]), int(ANN["merge_fraction"] * s.manifest.count))
            if s.delta.n >= wanted and self._merge is not None and ANN["auto"]:
                self._merge(s.kind, s.space)  # queued once however often it is asked

    def caught_up(self, since_us: int, removed: Mapping[Kind, np.ndarray]) -> None:
        cur = self._connection.cursor()
        for s in self.opened():
            self._read_delta(cur, s, after=max(s.high, s.delta.last))
            s.current.remove(removed[s.kind])
            s.current.add(_current_vids(cur, s.kind, s.space, since=since_us))

    def forget(self) -> None:
        self._spaces.clear()
        self._checked.clear()

    def purging(self, cur: duckdb.DuckDBPyConnection, kind: Kind, vids: np.ndarray) -> None:
        """Remove the index of every space of ``kind`` that holds one of ``vids`` (about to be
        purged): no file of the store may keep an erased vector's bytes. Done before the
        purge commits; rebuilt by the next ``build_indexes``."""
        path = self._connection.path
        if path == ":memory:" or not len(vids):
            return
        for m in index_files.manifests(path):
            if m.space is None or m.kind != kind or int(vids.min()) > m.high:
                continue
            space = m.space
            table = space_table(cur, kind, space)
            held = (
                one(
                    cur,
                    f"SELECT count(*) FROM {table[0]} WHERE vid <= ? AND vid IN "
                    "(SELECT unnest(?::BIGINT[]))",
                    [m.high, vids.tolist()],
                )
                if table is not None
                else (1,)
            )
            if held is None or int(held[0]):
                index_files.remove_space(path, kind, space)
                self._drop_quietly((kind, space))

    def purging_all(self) -> None:
        if self._connection.path != ":memory:":
            index_files.remove_all(self._connection.path)
        self.forget()

    def _drop_quietly(self, key: tuple[Kind, str]) -> None:
        self._spaces.discard(key)
        self._checked.pop(key, None)


def _sample_problem(cur: duckdb.DuckDBPyConnection, path: str, m: Manifest) -> str | None:
    """Whether the index file holds, for a sample of version ids, the file's vectors (a build
    that went wrong; damage is found by the seals first)."""
    assert m.space is not None
    table = space_table(cur, m.kind, m.space)
    if table is None:
        return "its space is gone"
    try:
        view = open_vectors(index_files.folder_of(path), m)
    except (OSError, RuntimeError, ValueError) as e:
        return f"it cannot be opened ({e})"
    rows = cur.execute(
        f"SELECT vid, embedding FROM {table[0]} WHERE vid <= ? USING SAMPLE 64 ROWS",
        [m.high],
    ).fetchall()
    if not rows:
        return None
    vids = np.asarray([r[0] for r in rows], dtype=np.uint64)
    want = normalised(np.asarray([r[1] for r in rows], dtype=np.float32))
    got = view.get(vids)
    if any(g is None for g in got):
        return "it lacks vectors the file holds"
    if not np.allclose(np.stack(got), want, atol=1e-5):
        return "its vectors differ from the file's"
    return None


@dataclass(frozen=True)
class _Absent:
    """A space without a valid index, as of its manifest's ``stamp``."""

    stamp: index_files.Stamp | None


def _table(cur: duckdb.DuckDBPyConnection, m: Manifest) -> tuple[str, int] | None:
    return space_table(cur, m.kind, m.space or "")


#: The vector format in the lifecycle of persistent indexes.
VECTORS = lifecycle.Format(
    noun="vector index",
    table=_table,
    fingerprint=index_ties.fingerprint,
    structure=_structure,
    sample=_sample_problem,
)


def _current_vids(
    cur: duckdb.DuckDBPyConnection, kind: Kind, space: str, *, since: int | None
) -> np.ndarray:
    newer = "" if since is None else f" AND tx_from > {int(since)}"
    return vid_column(
        cur, f"SELECT vid FROM {table_of(kind)} WHERE tx_to IS NULL AND space = ?{newer}", [space]
    )


__all__ = [
    "ANN",
    "AnnIndex",
    "Bitmap",
    "Delta",
    "SpaceIndex",
    "Visible",
    "VECTORS",
    "keys_structure",
    "normalise",
    "normalised",
]
