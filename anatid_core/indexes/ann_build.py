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
import logging
import os
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any, NamedTuple

import duckdb
import numpy as np
import pyarrow as pa

from ..base.errors import ReadOnlyError
from ..base.model import IndexBuild, Kind
from ..storage import index_files, index_ties
from ..storage.arrow_arrays import strings
from ..storage.connection import Connection
from ..storage.embeddings import space_table
from ..storage.flat_file import write_flat
from ..storage.index_files import Manifest
from ..storage.sql import one
from .ann import ANN, valid_manifest
from .ann_feed import Adder, batches, vids_to_read
from .build_progress import Progress, Reporter

LOG = logging.getLogger("anatid_core.ann")


def build_space(
    connection: Connection,
    kind: Kind,
    space: str,
    *,
    min_rows: int,
    stop: threading.Event | None = None,
    wait: bool = True,
    progress: Progress | None = None,
    graph: bool = True,
) -> IndexBuild | None:
    """Build or merge the index of one space; None when the space is too small for one (and
    has none), ``stop`` was set (checked between batches), or another build of this store's
    indexes is under way and ``wait`` is False (else this one waits for it, then merges what
    that one left). ``progress`` is called on this thread (:mod:`~.build_progress`); what it
    raises ends the build unpublished and propagates. ``graph`` False: only a space with no
    usable index gets one, flat (the builder publishes every space's flat index before it
    spends minutes on any graph); None for any other."""
    report_progress = Reporter(progress, kind, space)
    path = connection.path
    with connection.turn():  # one turn: each one of a builder process stalls the writer
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
    with build_lock(path, wait) as held:
        if not held:
            return None
        return _build_held(connection, kind, space, tbl, dim, start, stop, report_progress, graph)


def _build_held(
    connection: Connection,
    kind: Kind,
    space: str,
    tbl: str,
    dim: int,
    start: Start,
    stop: threading.Event | None,
    report_progress: Reporter,
    graph: bool,
) -> IndexBuild | None:
    """The build, once this process holds the store's build lock."""
    path = connection.path
    with connection.turn():  # another build may have finished meanwhile
        manifest = valid_manifest(connection.cursor(), path, kind, space)
    if manifest is None:
        index_files.remove_space(path, kind, space)  # a stale one: never merged into
        if ANN["flat_first"] or not graph:  # searchable in seconds; the graph follows
            flat = _flat(connection, kind, space, tbl, dim, start, stop, report_progress)
            if flat is None:
                return None
            if not graph:
                return report(kind, space, flat.count, flat, report_progress.started, path)
    elif not graph:
        return None
    elif manifest.high >= start.top and not is_flat(manifest):
        return report(kind, space, 0, manifest, report_progress.started, path)
    # A flat index is never merged into: the graph is built from the first version.
    base = manifest if manifest is not None and not is_flat(manifest) else None
    index = _start(base, path, dim)
    vids = vids_to_read(connection, tbl, base.high if base is not None else 0, start.top)
    added = _add(connection, kind, tbl, dim, vids, index, stop, report_progress)
    if added is None:
        return None
    got_vids, got_ids = added
    old_vids, old_ids = _old_keys(base, path)
    report_progress("saving", 0, 1)
    written = index_files.temp_path(path, kind, space)
    keys = index_files.temp_path(path, kind, space)
    with index_files.writing(path):
        index.save(written)
        index_files.write_keys(
            keys, np.concatenate([old_vids, *got_vids]), _joined(old_ids, got_ids)
        )
    index_files.sync_file(written)
    count = len(index)
    del index
    new = built_manifest(
        start,
        kind,
        space,
        dim,
        count,
        written,
        keys,
        file=index_files.index_file_name(kind, space, start.top),
        keys_name=index_files.keys_file_name(kind, space, start.top),
    )
    if not publish_built(connection, tbl, written, keys, new):
        return None
    report_progress("saving", 1, 1, final=True)
    added_rows = sum(len(v) for v in got_vids)
    return report(kind, space, added_rows, new, report_progress.started, path)


def _add(
    connection: Connection,
    kind: Kind,
    tbl: str,
    dim: int,
    vids: np.ndarray,
    index: Any,
    stop: threading.Event | None,
    report_progress: Reporter,
) -> tuple[list[np.ndarray], list[pa.Array]] | None:
    """Add the embeddings ``vids`` lists to ``index``, reading batch k+1 while batch k is
    added (:mod:`~.ann_feed`); their version and record ids, or None if stopped."""
    total = len(vids)
    all_vids: list[np.ndarray] = []
    all_ids: list[pa.Array] = []
    adder = Adder(index, stop)
    report_progress("adding", 0, total)
    try:
        for got, ids, mat in batches(connection, kind, tbl, dim, vids):
            adder.put(got, mat, report_progress, total)
            report_progress("adding", adder.added, total)
            del mat
            all_vids.append(got)
            all_ids.append(ids)
            if adder.stopped():
                break
        adder.finish(report_progress, total)
    except BaseException:
        adder.abandon()
        raise
    if adder.give_way.slept:
        LOG.info("%s %s: gave way to other processes for %.1f s", kind, tbl, adder.give_way.slept)
    if adder.stopped():
        return None
    report_progress("adding", adder.added, total, final=True)
    return all_vids, all_ids


def _joined(first: pa.Array, rest: list[pa.Array]) -> pa.Array:
    """Record id arrays as one (DuckDB's and a keys file's string types differ)."""
    return pa.concat_arrays([a.cast(pa.large_string()) for a in [first, *rest]])


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
    report_progress: Reporter,
) -> Manifest | None:
    """Write and publish the space's flat index (every embedding up to ``start.top``,
    normalised, in one mapped matrix): a fresh process searches it exactly, mapping it,
    while the graph is built (minutes at a million). None if stopped or purged meanwhile."""
    path = connection.path
    written = index_files.temp_path(path, kind, space)
    keys = index_files.temp_path(path, kind, space)
    all_vids: list[np.ndarray] = []
    all_ids: list[pa.Array] = []
    vids = vids_to_read(connection, tbl, 0, start.top)
    total = len(vids)
    report_progress("flat", 0, total)

    def rows() -> Iterator[np.ndarray]:
        done = 0
        for got, ids, mat in batches(connection, kind, tbl, dim, vids):
            if stop is not None and stop.is_set():
                return
            all_vids.append(got)
            all_ids.append(ids)
            done += len(got)
            yield mat
            report_progress("flat", done, total)

    with index_files.writing(path):
        try:
            count = write_flat(written, dim, rows())
        except BaseException:
            with contextlib.suppress(FileNotFoundError):
                os.remove(written)
            raise
        if stop is not None and stop.is_set():
            os.remove(written)
            return None
        got = np.concatenate(all_vids) if all_vids else np.zeros(0, dtype=np.int64)
        index_files.write_keys(keys, got, _joined(strings([]).cast(pa.large_string()), all_ids))
    new = built_manifest(
        start,
        kind,
        space,
        dim,
        count,
        written,
        keys,
        file=index_files.flat_file_name(kind, space, start.top),
        keys_name=index_files.keys_file_name(kind, space, start.top, flat=True),
    )
    if not publish_built(connection, tbl, written, keys, new):
        return None
    report_progress("flat", count, total, final=True)
    return new


def built_manifest(
    start: Start,
    kind: Kind,
    space: str,
    dim: int,
    count: int,
    written: str,
    keys: str,
    *,
    file: str,
    keys_name: str,
) -> Manifest:
    """The manifest of a vector or flat index just written to ``written`` (and its ``keys``),
    under the names it is published as."""
    return Manifest(
        store_id=start.store_id,
        kind=kind,
        space=space,
        dim=dim,
        high=start.top,
        count=count,
        fingerprint=start.ends,
        file=file,
        size=os.path.getsize(written),
        keys=keys_name,
        keys_size=os.path.getsize(keys),
        token=start.token,
    )


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
    rows: int = 0  # the table's rows up to ``top``: what progress reports count towards


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
    cannot be written, before anything is read). One turn on the file: a builder process's
    every turn makes a writer hand the file over and take it back."""
    with connection.turn():
        cur = connection.cursor()
        row = one(cur, f"SELECT count(*) FROM {table}")
        if (row is None or int(row[0]) < min_rows) and valid(cur) is None:
            return None
        refuse_read_only(connection)
        index_files.make_folder(connection.path)
        with connection.transaction() as tx:
            cur = tx.cursor
            row = one(cur, f"SELECT coalesce(max(vid), 0), count(*) FROM {table}")
            top, rows = (int(row[0]), int(row[1])) if row else (0, 0)
            manifest = valid(cur)
            sid = index_ties.make_store_id(cur)
            ends = fingerprint(cur, table, top)
            token = index_ties.new_token(cur, stem)
    return Start(top, manifest, sid, ends, token, rows)


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


def _old_keys(manifest: Manifest | None, path: str) -> tuple[np.ndarray, pa.Array]:
    """The version and record ids the index being merged into holds."""
    if manifest is None:
        return np.zeros(0, dtype=np.int64), strings([]).cast(pa.large_string())
    old = index_files.KeysFile(os.path.join(index_files.folder_of(path), manifest.keys))
    return np.array(old.vids, dtype=np.int64), old.id_array()


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
    "build_lock",
    "build_space",
    "forget_older_builds",
    "is_flat",
    "publish_built",
    "refuse_read_only",
    "report",
    "starting",
]
