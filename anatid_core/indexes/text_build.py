"""Building a kind's persistent text index (:mod:`anatid_core.indexes.text_file`): every posting
of the kind's versions up to the newest, sorted by term, in one mapped file, with the keys file
that names each version's record.

Unlike an HNSW graph, postings are cheap to write: a build always writes the whole file again
(a merge is a rebuild), reading the postings in batches of version ids, each batch in its own
turn on the file. It publishes as :func:`anatid_core.indexes.ann_build.build_space` does: only
if the file still holds every version it read (a purge meanwhile abandons it: the erased words
must not come back in a file).
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable

import duckdb
import numpy as np
import pyarrow as pa

from ..base.model import IndexBuild, Kind
from ..storage import index_files, index_ties
from ..storage.connection import Connection
from ..storage.embeddings import arrow_numbers
from ..storage.index_files import Manifest
from ..storage.postings_file import PostingsFile, write_postings
from ..storage.rows import table_of
from ..storage.sql import arrow_table
from . import lifecycle
from .ann import keys_structure
from .ann_build import build_lock, publish_built, report, starting
from .build_progress import Progress, Reporter

#: Versions whose postings are read per turn on the file.
TEXT_BATCH_ROWS = 65_536


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
        read = _read_all(
            connection, kind, top, stop, lambda done: report_progress("reading", done, rows)
        )
        if read is None:
            return None
        vids, ids, lens, words, codes, post_vids, tfs = read
        report_progress("reading", len(vids), len(vids), final=True)
        report_progress("writing", 0, 1)
        order = np.lexsort((post_vids, codes))
        codes, post_vids, tfs = codes[order], post_vids[order], tfs[order]
        if len(codes):
            starts = np.flatnonzero(np.r_[True, codes[1:] != codes[:-1], True])
            words = [words[c] for c in codes[starts[:-1]].tolist()]
        else:
            starts, words = np.zeros(1, dtype=np.int64), []
        doc_len = np.zeros(top + 1, dtype=np.float32)
        doc_len[vids] = lens
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
        return report(kind, None, len(vids), new, started, path)


def _read_all(
    connection: Connection,
    kind: Kind,
    top: int,
    stop: threading.Event | None,
    read: Callable[[int], None],
) -> tuple[np.ndarray, list[str], np.ndarray, list[str], np.ndarray, np.ndarray, np.ndarray] | None:
    """Every version of ``kind`` up to ``top`` (vid, id, length) and its postings: the terms,
    sorted by their UTF-8 bytes (as the file's binary search compares), each posting's term
    as a position among them, its version id and frequency; a batch of versions per turn,
    ``read`` told the versions read so far after each."""
    table = table_of(kind)
    vids: list[np.ndarray] = []
    ids: list[str] = []
    lens: list[np.ndarray] = []
    terms: list[pa.Array] = []
    post_vids: list[np.ndarray] = []
    tfs: list[np.ndarray] = []
    low = 0
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
            batch = arrow_numbers(docs.column(0).combine_chunks()).astype(np.int64)
            high = int(batch[-1])
            posts = arrow_table(
                cur.execute(
                    f"SELECT p.term, p.vid, p.tf FROM postings p JOIN {table} r ON r.vid = p.vid "
                    "WHERE p.vid > ? AND p.vid <= ? AND r.vid > ? AND r.vid <= ?",
                    [low, high, low, high],
                )
            )
        vids.append(batch)
        ids.extend(docs.column(1).to_pylist())
        lens.append(arrow_numbers(docs.column(2).combine_chunks()).astype(np.float32))
        terms.extend(posts.column(0).chunks)
        post_vids.append(arrow_numbers(posts.column(1).combine_chunks()).astype(np.int64))
        tfs.append(arrow_numbers(posts.column(2).combine_chunks()).astype(np.float32))
        low = high
        read(sum(len(v) for v in vids))
    encoded = pa.chunked_array(terms, type=pa.string()).combine_chunks().dictionary_encode()
    words = encoded.dictionary.to_pylist()
    rank = np.empty(len(words), dtype=np.int64)
    ordered = sorted(range(len(words)), key=lambda i: words[i].encode("utf-8", "surrogatepass"))
    rank[ordered] = np.arange(len(words))
    codes = rank[arrow_numbers(encoded.indices).astype(np.int64)]
    return (
        np.concatenate(vids) if vids else np.zeros(0, dtype=np.int64),
        ids,
        np.concatenate(lens) if lens else np.zeros(0, dtype=np.float32),
        [words[i] for i in ordered],
        codes,
        np.concatenate(post_vids) if post_vids else np.zeros(0, dtype=np.int64),
        np.concatenate(tfs) if tfs else np.zeros(0, dtype=np.float32),
    )


__all__ = ["TEXT", "TEXT_BATCH_ROWS", "build_text", "valid_text_manifest"]
