"""Building and merging a space's persistent index (:mod:`anatid_core.indexes.ann`), off the
write path.

A build reads the space's embeddings after the index's ``high`` (all of them the first time) in
batches of version ids, each batch in its own short turn on the file, so other processes keep
writing meanwhile; adds them to the index in memory (the old index loaded, not mapped: a
mapped usearch index takes no writes); saves it under a temporary name and syncs it; then, in
one more turn, checks that the file still holds every embedding it read (a purge meanwhile
abandons the build: the erased vectors must not come back in a file) and publishes it
(:func:`anatid_core.storage.index_files.publish`). Versions written during the build stay in
the readers' delta until the next merge. One build at a time per store: a second process's
build of the same store returns at once.

Cost: the build holds the whole index in memory (``dim`` float32 per vector plus the graph);
adding to an HNSW graph is the slow part (measured in ``tests/benchmarks/bench_ann.py``).
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any, NamedTuple

import duckdb
import numpy as np

from ..base.errors import ReadOnlyError
from ..base.model import IndexBuild, Kind
from ..storage import index_files, index_ties
from ..storage.connection import Connection
from ..storage.embeddings import arrow_numbers, space_table
from ..storage.flat_file import write_flat
from ..storage.index_files import Manifest
from ..storage.rows import table_of
from ..storage.sql import arrow_table, one, vid_column
from .ann import ANN, normalised, valid_manifest

#: Embeddings read per turn on the file while building.
BUILD_BATCH_ROWS = 16_384
#: Embeddings added to the graph at a time (a stop request is seen between two).
ADD_BATCH_ROWS = 2_048


def build_space(
    connection: Connection,
    kind: Kind,
    space: str,
    *,
    min_rows: int,
    stop: threading.Event | None = None,
    wait: bool = True,
) -> IndexBuild | None:
    """Build or merge the index of one space; None when the space is too small for one (and
    has none), ``stop`` was set (checked between batches), or another build of this store's
    indexes is under way and ``wait`` is False (else this one waits for it, then merges what
    that one left)."""
    started = time.perf_counter()
    path = connection.path
    with connection.turn():
        table = space_table(connection.cursor(), kind, space)
    if table is None:
        return None
    tbl, dim = table
    start = starting(
        connection,
        tbl,
        min_rows,
        lambda cur: valid_manifest(cur, path, kind, space),
        index_ties.fingerprint,
        index_files.stem(kind, space),
    )
    if start is None:
        return None
    top, manifest, sid, ends, token = start
    with build_lock(path, wait) as held:
        if not held:
            return None
        if wait:  # another build may have finished meanwhile
            with connection.turn():
                manifest = valid_manifest(connection.cursor(), path, kind, space)
        if manifest is None:
            index_files.remove_space(path, kind, space)  # a stale one: never merged into
            if ANN["flat_first"]:  # searchable in seconds; the graph follows
                flat = _flat(connection, kind, space, tbl, dim, start, stop)
                if flat is None:
                    return None
        elif manifest.high >= top and not is_flat(manifest):
            return report(kind, space, 0, manifest, started, path)
        # A flat index is never merged into: the graph is built from the first version.
        base = manifest if manifest is not None and not is_flat(manifest) else None
        index = _start(base, path, dim)
        low = base.high if base is not None else 0
        all_vids, all_ids = _old_keys(base, path)
        added = 0
        for vids, mat, ids in _batches(connection, kind, tbl, dim, low, top):
            for at in range(0, len(vids), ADD_BATCH_ROWS):
                if stop is not None and stop.is_set():
                    return None
                part = slice(at, at + ADD_BATCH_ROWS)
                index.add(
                    vids[part].astype(np.uint64),
                    normalised(mat[part]),
                    threads=int(ANN["build_threads"]),
                )
            all_vids.append(vids)
            all_ids.extend(ids)
            added += len(vids)
        if stop is not None and stop.is_set():
            return None
        written = index_files.temp_path(path, kind, space)
        keys = index_files.temp_path(path, kind, space)
        with index_files.writing(path):
            index.save(written)
            index_files.write_keys(keys, np.concatenate(all_vids), all_ids)
        index_files.sync_file(written)
        count = len(index)
        del index
        new = Manifest(
            store_id=sid,
            kind=kind,
            space=space,
            dim=dim,
            high=top,
            count=count,
            fingerprint=ends,
            file=index_files.index_file_name(kind, space, top),
            size=os.path.getsize(written),
            keys=index_files.keys_file_name(kind, space, top),
            keys_size=os.path.getsize(keys),
            token=token,
        )
        if not publish_built(connection, tbl, written, keys, new):
            return None
        return report(kind, space, added, new, started, path)


def is_flat(m: Manifest) -> bool:
    """Whether the index is a flat one (searched exactly, until its graph replaces it)."""
    return m.file.endswith(".flat")


def _flat(
    connection: Connection,
    kind: Kind,
    space: str,
    tbl: str,
    dim: int,
    start: Start,
    stop: threading.Event | None,
) -> Manifest | None:
    """Write and publish the space's flat index (every embedding up to ``start.top``,
    normalised, in one mapped matrix): a fresh process searches it exactly, mapping it,
    while the graph is built (minutes at a million). None if stopped or purged meanwhile."""
    path = connection.path
    written = index_files.temp_path(path, kind, space)
    keys = index_files.temp_path(path, kind, space)
    all_vids: list[np.ndarray] = []
    all_ids: list[str] = []

    def rows() -> Iterator[np.ndarray]:
        for vids, mat, ids in _batches(connection, kind, tbl, dim, 0, start.top):
            if stop is not None and stop.is_set():
                return
            all_vids.append(vids)
            all_ids.extend(ids)
            yield normalised(mat)

    with index_files.writing(path):
        count = write_flat(written, dim, rows())
        if stop is not None and stop.is_set():
            os.remove(written)
            return None
        vids = np.concatenate(all_vids) if all_vids else np.zeros(0, dtype=np.int64)
        index_files.write_keys(keys, vids, all_ids)
    new = Manifest(
        store_id=start.store_id,
        kind=kind,
        space=space,
        dim=dim,
        high=start.top,
        count=count,
        fingerprint=start.ends,
        file=index_files.flat_file_name(kind, space, start.top),
        size=os.path.getsize(written),
        keys=index_files.keys_file_name(kind, space, start.top, flat=True),
        keys_size=os.path.getsize(keys),
        token=start.token,
    )
    return new if publish_built(connection, tbl, written, keys, new) else None


def publish_built(
    connection: Connection,
    tbl: str,
    written: str,
    keys: str,
    new: Manifest,
    fingerprint: index_ties.Fingerprint = index_ties.fingerprint,
) -> bool:
    """Seal the written files and publish them as ``new``, if the file still holds what they
    were built from (a purge meanwhile abandons them: start again later)."""
    path = connection.path
    new = index_files.sealed(new, written, keys)
    with connection.turn():
        if index_ties.stale_reason(connection.cursor(), new, tbl, fingerprint) is not None:
            for name in (written, keys):
                with contextlib.suppress(FileNotFoundError):
                    os.remove(name)
            return False
        index_files.publish(path, written, keys, new)
        forget_older_builds(connection, new)
    index_files.remove_orphans(path)
    return True


class Start(NamedTuple):
    """Where a build starts: the newest version id, the index it brings up to date (if any),
    the store's identity, the fingerprint of the versions it will hold and the build's token
    (written into the store with them: :mod:`anatid_core.storage.index_ties`)."""

    top: int
    manifest: Manifest | None
    store_id: str
    ends: str
    token: str


def starting(
    connection: Connection,
    table: str,
    min_rows: int,
    valid: Callable[[duckdb.DuckDBPyConnection], Manifest | None],
    fingerprint: index_ties.Fingerprint,
    stem: str,
) -> Start | None:
    """Read where a build of an index over ``table`` starts, and write its token, in one
    transaction; None if there is no valid index and fewer than ``min_rows`` rows. Makes the
    store's identity and the index folder if needed (:class:`StorageError` if the folder
    cannot be written, before anything is read)."""
    with connection.turn():
        cur = connection.cursor()
        row = one(cur, f"SELECT count(*) FROM {table}")
        if (row is None or int(row[0]) < min_rows) and valid(cur) is None:
            return None
    refuse_read_only(connection)
    index_files.make_folder(connection.path)
    with connection.transaction() as tx:
        cur = tx.cursor
        row = one(cur, f"SELECT coalesce(max(vid), 0) FROM {table}")
        top = int(row[0]) if row else 0
        manifest = valid(cur)
        sid = index_ties.make_store_id(cur)
        ends = fingerprint(cur, table, top)
        token = index_ties.new_token(cur, stem)
    return Start(top, manifest, sid, ends, token)


def report(
    kind: Kind, space: str | None, added: int, m: Manifest, started: float, path: str
) -> IndexBuild:
    file = os.path.join(index_files.folder_of(path), m.file)
    return IndexBuild(
        kind=kind,
        space=space,
        rows_added=added,
        rows_total=m.count,
        seconds=time.perf_counter() - started,
        bytes=m.size,
        file=file,
    )


def refuse_read_only(connection: Connection) -> None:
    if connection.read_only:
        raise ReadOnlyError(
            f"{connection.path}: the store is opened read-only, and an index build writes "
            "into it (the build's token); build its indexes from a writer (anatid index FILE)"
        )


def _start(manifest: Manifest | None, path: str, dim: int) -> Any:
    from usearch.index import Index as Usearch

    if manifest is not None:
        loaded = Usearch.restore(os.path.join(index_files.folder_of(path), manifest.file))
        if loaded is not None:
            return loaded
    return Usearch(
        ndim=dim,
        metric="cos",
        dtype="f32",
        connectivity=int(ANN["connectivity"]),
        expansion_add=int(ANN["expansion_add"]),
        expansion_search=int(ANN["ef"]),
    )


def _old_keys(manifest: Manifest | None, path: str) -> tuple[list[np.ndarray], list[str]]:
    """The version and record ids the index being merged into holds."""
    if manifest is None:
        return [], []
    old = index_files.KeysFile(os.path.join(index_files.folder_of(path), manifest.keys))
    vids, ids = old.all_ids()
    return [np.array(vids, dtype=np.int64)], [str(i) for i in ids]


def _batches(
    connection: Connection, kind: Kind, tbl: str, dim: int, low: int, top: int
) -> Iterator[tuple[np.ndarray, np.ndarray, list[str]]]:
    """The embeddings with ``low < vid <= top`` and their record ids, a batch per turn.

    The version ids are read first (8 bytes each), then each batch by a range of them: a
    ``LIMIT`` after ``ORDER BY`` read every remaining embedding for each batch (6 s and 8.5 GB
    for the first batch of a million at 1024 dims)."""
    with connection.turn():
        vids_all = vid_column(
            connection.cursor(),
            f"SELECT vid FROM {tbl} WHERE vid > ? AND vid <= ? ORDER BY vid",
            [low, top],
        )
    for start in range(0, len(vids_all), BUILD_BATCH_ROWS):
        first = int(vids_all[start])
        last = int(vids_all[min(start + BUILD_BATCH_ROWS, len(vids_all)) - 1])
        with connection.turn():
            batch = arrow_table(
                connection.cursor().execute(
                    f"SELECT v.vid, v.embedding, r.id FROM {tbl} v "
                    f"JOIN {table_of(kind)} r ON r.vid = v.vid "
                    "WHERE v.vid BETWEEN ? AND ? AND r.vid BETWEEN ? AND ? ORDER BY v.vid",
                    [first, last, first, last],
                )
            )
        if batch.num_rows == 0:
            continue  # purged meanwhile: the build is abandoned before it publishes
        vids = arrow_numbers(batch.column(0).combine_chunks()).astype(np.int64)
        mat = arrow_numbers(batch.column(1).combine_chunks().flatten()).astype(np.float32)
        yield vids, mat.reshape(-1, dim), batch.column(2).to_pylist()


def forget_older_builds(connection: Connection, m: Manifest) -> None:
    """Drop the tokens of the builds before ``m`` (published): their indexes are gone."""
    with connection.transaction() as tx:
        index_ties.prune_tokens(tx.cursor, index_files.stem(m.kind, m.space), m.token)


@contextlib.contextmanager
def build_lock(path: str, wait: bool) -> Iterator[bool]:
    lock = os.path.join(index_files.folder_of(path), ".build.lock")
    with index_files.writing(path):
        fd = os.open(lock, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | (0 if wait else fcntl.LOCK_NB))
        except BlockingIOError:
            yield False
            return
        yield True
    finally:
        os.close(fd)


__all__ = [
    "ADD_BATCH_ROWS",
    "BUILD_BATCH_ROWS",
    "build_lock",
    "build_space",
    "forget_older_builds",
    "is_flat",
    "publish_built",
    "refuse_read_only",
    "report",
    "starting",
]
