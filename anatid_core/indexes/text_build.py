"""Building a kind's persistent text index (:mod:`anatid_core.indexes.text_file`): every posting
of the kind's versions up to the newest, sorted by term, in one mapped file, with the keys file
that names each version's record.

Unlike an HNSW graph, postings are cheap to write: a build writes the whole file again. A first
build reads every version's postings from the store, in batches of version ids, each batch in
its own turn on the file; a merge reads only the versions written since the index's ``high``
and takes the rest from the index's own files (every turn on the file makes a writer beside it
hand the file over: rereading 125k facts to merge 25k took two long turns and stalled its
searches). The versions a file holds never change (a version's words and length are written
once; ending it changes neither; a purge removes the index), so old and new postings join
without a conflict. It publishes as :func:`anatid_core.indexes.ann_build.build_space` does: only
if the file still holds every version it read (a purge meanwhile abandons it: the erased words
must not come back in a file).
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from typing import NamedTuple

import duckdb
import numpy as np
import pyarrow as pa

from ..base.model import IndexBuild, Kind
from ..storage import index_files, index_ties
from ..storage.arrow_arrays import arrow_numbers
from ..storage.connection import Connection
from ..storage.index_files import Manifest
from ..storage.postings_file import PostingsFile, write_postings
from ..storage.rows import table_of
from ..storage.sql import arrow_table
from . import lifecycle
from .ann import keys_structure
from .ann_build import build_lock, publish_built, report, starting
from .build_progress import Progress, Reporter

#: Versions whose postings are read per turn on the file. Each turn takes the file from the
#: writers beside the build: 65,536 facts held it ~130 ms, 8,192 hold it ~8 ms, and read
#: 100k facts in less time in all (110 against 255 ms).
TEXT_BATCH_ROWS = 8_192


def valid_text_manifest(
    cur: duckdb.DuckDBPyConnection, store_path: str, kind: Kind
) -> Manifest | None:
    """The kind's text manifest if its index may answer for the file now (see
    :func:`anatid_core.indexes.ann.valid_manifest`)."""
    return lifecycle.usable(cur, store_path, TEXT, kind, None)


def _structure(folder: str, m: Manifest) -> str | None:
    """What in the postings and keys files' layout disagrees with the manifest."""
    path = os.path.join(folder, m.file)
    try:
        postings = PostingsFile(path)
    except (OSError, ValueError) as e:
        return str(e)
    if postings.slots != m.high + 1:
        return f"{path} holds lengths of {postings.slots} versions, its manifest {m.high + 1}"
    return keys_structure(folder, m)


def _sample_problem(cur: duckdb.DuckDBPyConnection, path: str, m: Manifest) -> str | None:
    """Whether the files agree with the file on a sample of versions: their record ids,
    lengths and postings (a build that went wrong; damage is found by the seals first)."""
    folder = index_files.folder_of(path)
    try:
        postings = PostingsFile(os.path.join(folder, m.file))
        keys = index_files.KeysFile(os.path.join(folder, m.keys))
    except (OSError, ValueError) as e:
        return f"it cannot be opened ({e})"
    rows = cur.execute(
        f"SELECT vid, id, doc_len FROM {table_of(m.kind)} WHERE vid <= ? USING SAMPLE 32 ROWS",
        [m.high],
    ).fetchall()
    if not rows:
        return None
    vids = np.asarray([r[0] for r in rows], dtype=np.int64)
    if keys.ids_of(vids) != [r[1] for r in rows]:
        return "its record ids differ from the file's"
    if not np.array_equal(postings.length_of(vids), [float(r[2]) for r in rows]):
        return "its document lengths differ from the file's"
    terms = cur.execute(
        "SELECT term, vid, tf FROM postings WHERE vid IN (SELECT unnest(?::BIGINT[]))",
        [vids.tolist()],
    ).fetchall()
    for term, vid, tf in terms:
        pv, ptf, _ = postings.postings(term)
        at = np.searchsorted(pv, vid)
        if at >= len(pv) or int(pv[at]) != vid or float(ptf[at]) != float(tf):
            return "its postings differ from the file's"
    return None


#: The text format in the lifecycle of persistent indexes.
TEXT = lifecycle.Format(
    noun="text index",
    table=lambda cur, m: (table_of(m.kind), 0),
    fingerprint=index_ties.text_fingerprint,
    structure=_structure,
    sample=_sample_problem,
)


def build_text(
    connection: Connection,
    kind: Kind,
    *,
    min_rows: int,
    stop: threading.Event | None = None,
    wait: bool = True,
    progress: Progress | None = None,
) -> IndexBuild | None:
    """Build the kind's text index again if versions were written since (or first, if the kind
    has ``min_rows`` versions); None, and ``progress``, as for
    :func:`~.ann_build.build_space`."""
    report_progress = Reporter(progress, kind, None)
    started = report_progress.started
    path = connection.path
    table = table_of(kind)
    start = starting(
        connection,
        table,
        min_rows,
        lambda cur: valid_text_manifest(cur, path, kind),
        index_ties.text_fingerprint,
        index_files.stem(kind, None),
    )
    if start is None:
        return None
    top, _, sid, ends, token, rows = start
    with build_lock(path, wait) as held:
        if not held:
            return None
        with connection.turn():
            manifest = valid_text_manifest(connection.cursor(), path, kind)
        if manifest is not None and manifest.high >= top:
            return report(kind, None, 0, manifest, started, path)
        low = 0 if manifest is None else manifest.high
        read = _read_all(
            connection,
            kind,
            top,
            stop,
            lambda done: report_progress(
                "reading", done, rows - (manifest.count if manifest else 0)
            ),
            low=low,
        )
        if read is None:
            return None
        report_progress("reading", len(read.vids), len(read.vids), final=True)
        report_progress("writing", 0, 1)
        added = len(read.vids)
        if manifest is not None:
            read = _joined(_held(index_files.folder_of(path), manifest), read)
        vids, ids = read.vids, read.ids
        order = np.lexsort((read.post_vids, read.codes))
        codes, post_vids, tfs = read.codes[order], read.post_vids[order], read.tfs[order]
        if len(codes):
            starts = np.flatnonzero(np.r_[True, codes[1:] != codes[:-1], True])
            words = [read.words[c] for c in codes[starts[:-1]].tolist()]
        else:
            starts, words = np.zeros(1, dtype=np.int64), []
        doc_len = np.zeros(top + 1, dtype=np.float32)
        doc_len[vids] = read.lens
        written = index_files.temp_path(path, kind, None)
        keys = index_files.temp_path(path, kind, None)
        with index_files.writing(path):
            write_postings(written, words, starts, post_vids, tfs, doc_len)
            index_files.write_keys(keys, vids, ids)
        new = Manifest(
            store_id=sid,
            kind=kind,
            space=None,
            dim=0,
            high=top,
            count=len(vids),
            fingerprint=ends,
            file=index_files.index_file_name(kind, None, top),
            size=os.path.getsize(written),
            keys=index_files.keys_file_name(kind, None, top),
            keys_size=os.path.getsize(keys),
            token=token,
        )
        if not publish_built(connection, table, written, keys, new, index_ties.text_fingerprint):
            return None
        report_progress("writing", 1, 1, final=True)
        return report(kind, None, added, new, started, path)


class Postings(NamedTuple):
    """Versions (vid, record id, length) and their postings: the terms, sorted by their UTF-8
    bytes (as the file's binary search compares), each posting's term as a position among
    them, its version id and frequency."""

    vids: np.ndarray
    ids: pa.Array
    lens: np.ndarray
    words: list[str]
    codes: np.ndarray
    post_vids: np.ndarray
    tfs: np.ndarray


def _utf8(word: str) -> bytes:
    return word.encode("utf-8", "surrogatepass")


def _held(folder: str, m: Manifest) -> Postings:
    """What a published text index holds, read from its files (mapped; checked by their seals
    as a search checks them, by :func:`valid_text_manifest`)."""
    postings = PostingsFile(os.path.join(folder, m.file))
    keys = index_files.KeysFile(os.path.join(folder, m.keys))
    vids = np.asarray(keys.vids, dtype=np.int64)
    words = postings.all_terms()
    counts = np.diff(postings.post_offsets())
    return Postings(
        vids=vids,
        ids=keys.id_array(),
        lens=np.asarray(postings.doc_len[vids], dtype=np.float32),
        words=words,
        codes=np.repeat(np.arange(len(words), dtype=np.int64), counts),
        post_vids=np.asarray(postings.vids, dtype=np.int64),
        tfs=np.asarray(postings.tfs, dtype=np.float32),
    )


def _joined(old: Postings, new: Postings) -> Postings:
    """The versions of both (``new``'s all after ``old``'s), their terms in one sorted list."""
    known = set(old.words)
    fresh = [w for w in new.words if w not in known]
    if fresh:
        words = sorted(old.words + fresh, key=_utf8)
        position = _positions(words)
        old_codes = _recoded(old, position)
    else:  # the usual merge: no word the index has not seen
        words, position, old_codes = old.words, _positions(old.words), old.codes
    return Postings(
        vids=np.concatenate([old.vids, new.vids]),
        ids=pa.concat_arrays([old.ids.cast(pa.large_string()), new.ids.cast(pa.large_string())]),
        lens=np.concatenate([old.lens, new.lens]),
        words=words,
        codes=np.concatenate([old_codes, _recoded(new, position)]),
        post_vids=np.concatenate([old.post_vids, new.post_vids]),
        tfs=np.concatenate([old.tfs, new.tfs]),
    )


def _positions(words: list[str]) -> dict[str, int]:
    return {w: i for i, w in enumerate(words)}


def _recoded(p: Postings, position: dict[str, int]) -> np.ndarray:
    """The terms of ``p``'s postings as positions in another sorted term list."""
    table = np.asarray([position[w] for w in p.words], dtype=np.int64)
    return table[p.codes] if len(p.codes) else p.codes


def _read_all(
    connection: Connection,
    kind: Kind,
    top: int,
    stop: threading.Event | None,
    read: Callable[[int], None],
    *,
    low: int = 0,
) -> Postings | None:
    """Every version of ``kind`` after ``low`` up to ``top`` and its postings; a batch of
    versions per turn, ``read`` told the versions read so far after each."""
    table = table_of(kind)
    vids: list[np.ndarray] = []
    ids: list[pa.Array] = []
    lens: list[np.ndarray] = []
    terms: list[pa.Array] = []
    post_vids: list[np.ndarray] = []
    tfs: list[np.ndarray] = []
    while low < top:
        if stop is not None and stop.is_set():
            return None
        with connection.turn():
            cur = connection.cursor()
            docs = arrow_table(
                cur.execute(
                    f"SELECT vid, id, doc_len FROM {table} WHERE vid > ? AND vid <= ? "
                    "ORDER BY vid LIMIT ?",
                    [low, top, TEXT_BATCH_ROWS],
                )
            )
            if docs.num_rows == 0:
                break
            batch = arrow_numbers(docs.column(0)).astype(np.int64)
            high = int(batch[-1])
            posts = arrow_table(
                cur.execute(
                    f"SELECT p.term, p.vid, p.tf FROM postings p JOIN {table} r ON r.vid = p.vid "
                    "WHERE p.vid > ? AND p.vid <= ? AND r.vid > ? AND r.vid <= ?",
                    [low, high, low, high],
                )
            )
        vids.append(batch)
        ids.extend(docs.column(1).chunks)
        lens.append(arrow_numbers(docs.column(2)).astype(np.float32))
        terms.extend(posts.column(0).chunks)
        post_vids.append(arrow_numbers(posts.column(1)).astype(np.int64))
        tfs.append(arrow_numbers(posts.column(2)).astype(np.float32))
        low = high
        read(sum(len(v) for v in vids))
    encoded = pa.chunked_array(terms, type=pa.string()).combine_chunks().dictionary_encode()
    words = encoded.dictionary.to_pylist()
    rank = np.empty(len(words), dtype=np.int64)
    ordered = sorted(range(len(words)), key=lambda i: _utf8(words[i]))
    rank[ordered] = np.arange(len(words))
    codes = rank[arrow_numbers(encoded.indices).astype(np.int64)]
    return Postings(
        vids=np.concatenate(vids) if vids else np.zeros(0, dtype=np.int64),
        ids=pa.chunked_array(ids, type=pa.string()).combine_chunks(),
        lens=np.concatenate(lens) if lens else np.zeros(0, dtype=np.float32),
        words=[words[i] for i in ordered],
        codes=codes,
        post_vids=np.concatenate(post_vids) if post_vids else np.zeros(0, dtype=np.int64),
        tfs=np.concatenate(tfs) if tfs else np.zeros(0, dtype=np.float32),
    )


__all__ = ["TEXT", "TEXT_BATCH_ROWS", "build_text", "valid_text_manifest"]
