"""The feed of a vector index build (issue 41): the embeddings read from the file in batches,
and a pipeline that adds batch k to the HNSW graph on a thread while batch k+1 is read.

Reading: the version ids to read are listed first (8 bytes each), then each batch is read by a
range of them in its own short turn on the file (other processes write in between), with
DuckDB's memory capped meanwhile (``ANN["build_memory_limit"]``: left at DuckDB's default, 80%
of RAM, it kept every block it had read beside the index). A batch is one float32 matrix,
normalised in place, and its record ids as an Arrow array: no Python object per vector.

Adding: usearch's ``add`` releases the GIL, so a thread adds while the caller's thread reads
the next batch; at most two batches wait beside the one being added. The caller's thread also
makes the progress reports, so a callback that raises stops the adder and propagates.
"""

from __future__ import annotations

import contextlib
import queue
import threading
from collections.abc import Iterator
from typing import Any

import duckdb
import numpy as np
import pyarrow as pa

from ..base.model import Kind
from ..storage.arrow_arrays import arrow_numbers
from ..storage.connection import Connection
from ..storage.rows import table_of
from ..storage.sql import arrow_table, sorted_vids
from .ann import ANN, normalise
from .build_progress import Reporter
from .give_way import GiveWay

#: Embeddings read per turn on the file while building.
BUILD_BATCH_ROWS = 16_384
#: Embeddings added to the graph at a time (a stop request is seen between two).
ADD_BATCH_ROWS = 2_048
#: Embeddings read per turn by a build that gives way (:mod:`.give_way`): each turn takes the
#: file from the writers beside it, and at 16,384 x 512 a turn held it ~380 ms (a writer's
#: search waited that long); 2,048 hold it ~25 ms at the same rows/s.
GIVE_WAY_BATCH_ROWS = 2_048
#: Batches read ahead of the one being added.
AHEAD = 1

Batch = tuple[np.ndarray, pa.Array, np.ndarray]


def vids_to_read(connection: Connection, tbl: str, low: int, top: int) -> np.ndarray:
    """The version ids of the embeddings with ``low < vid <= top``, in order."""
    with connection.turn():
        return sorted_vids(
            connection.cursor(),
            f"SELECT vid FROM {tbl} WHERE vid > ? AND vid <= ?",
            [low, top],
        )


def batches(
    connection: Connection, kind: Kind, tbl: str, dim: int, vids: np.ndarray
) -> Iterator[Batch]:
    """(version ids, record ids, normalised float32 matrix) of the embeddings ``vids`` lists,
    a batch per turn. Each batch is read by a range of version ids: a ``LIMIT`` after
    ``ORDER BY`` read every remaining embedding for each batch (6 s and 8.5 GB for the first
    batch of a million at 1024 dims). A version purged meanwhile is missing from its batch
    (the build is then abandoned before it publishes)."""
    step = BUILD_BATCH_ROWS if not ANN["give_way"] else GIVE_WAY_BATCH_ROWS
    for start in range(0, len(vids), step):
        first = int(vids[start])
        last = int(vids[min(start + step, len(vids)) - 1])
        with connection.turn(), read_memory(connection) as cur:
            batch = arrow_table(
                cur.execute(
                    f"SELECT v.vid, r.id, v.embedding FROM {tbl} v "
                    f"JOIN {table_of(kind)} r ON r.vid = v.vid "
                    "WHERE v.vid BETWEEN ? AND ? AND r.vid BETWEEN ? AND ? ORDER BY v.vid",
                    [first, last, first, last],
                )
            )
        if batch.num_rows == 0:
            continue
        got = arrow_numbers(batch.column(0)).astype(np.int64)
        ids = batch.column(1).combine_chunks()
        flat = arrow_numbers(batch.column(2).combine_chunks().flatten())
        del batch
        mat = np.array(flat, dtype=np.float32).reshape(-1, dim)  # the one writable copy
        del flat
        yield got, ids, normalise(mat)


@contextlib.contextmanager
def read_memory(connection: Connection) -> Iterator[duckdb.DuckDBPyConnection]:
    """This thread's cursor, with DuckDB's memory capped at ``ANN["build_memory_limit"]``
    until the block ends (a store opened with its own ``memory_limit`` keeps it). The limit is
    the database's: a query of another thread meanwhile has as much."""
    cur = connection.cursor()
    limit = ANN["build_memory_limit"]
    if not limit or connection.memory_limit is not None or connection.path == ":memory:":
        yield cur
        return
    try:
        cur.execute(f"SET memory_limit = '{limit}'")
    except duckdb.Error:  # it could not evict enough now: read uncapped
        yield cur
        return
    try:
        yield cur
    finally:
        cur.execute("RESET memory_limit")


class Adder:
    """A thread that adds the batches it is given to a usearch index, in order."""

    def __init__(self, index: Any, stop: threading.Event | None) -> None:
        self.index = index
        self.added = 0
        self._stop = stop
        self._quit = threading.Event()
        self._queue: queue.Queue[tuple[np.ndarray, np.ndarray] | None] = queue.Queue(AHEAD)
        self._error: BaseException | None = None
        self.give_way = GiveWay(bool(ANN["give_way"]))
        self._thread = threading.Thread(target=self._run, name="anatid-index-add", daemon=True)
        self._thread.start()

    def stopped(self) -> bool:
        return self._quit.is_set() or (self._stop is not None and self._stop.is_set())

    def put(self, vids: np.ndarray, mat: np.ndarray, report: Reporter, total: int) -> None:
        """Queue a batch, reporting progress while the queue is full."""
        item = (vids.astype(np.uint64), mat)
        while True:
            self._raise()
            if self.stopped():
                return
            try:
                self._queue.put(item, timeout=0.1)
                return
            except queue.Full:
                report("adding", self.added, total)

    def finish(self, report: Reporter, total: int) -> None:
        """Wait for every queued batch to be added (reporting meanwhile); re-raises an error
        of the thread."""
        self._put_end()
        while self._thread.is_alive():
            self._thread.join(0.1)
            report("adding", self.added, total)
        self._raise()

    def abandon(self) -> None:
        """Stop adding (at the next :data:`ADD_BATCH_ROWS`) and wait for the thread."""
        self._quit.set()
        with contextlib.suppress(queue.Empty):
            while True:
                self._queue.get_nowait()
        self._put_end()
        self._thread.join()

    def _put_end(self) -> None:
        while self._thread.is_alive():
            try:
                self._queue.put(None, timeout=0.1)
                return
            except queue.Full:
                continue

    def _raise(self) -> None:
        if self._error is not None:
            raise self._error

    def _run(self) -> None:
        threads = int(ANN["build_threads"])
        give_way = self.give_way
        rows = give_way.slice_rows(ADD_BATCH_ROWS)
        try:
            while (item := self._queue.get()) is not None:
                vids, mat = item
                for at in range(0, len(vids), rows):
                    if self.stopped():
                        break
                    part = slice(at, at + rows)
                    self.index.add(vids[part], mat[part], threads=threads)
                    self.added += len(vids[part])
                    give_way.after_slice()
        except BaseException as e:  # handed to the caller's thread
            self._error = e
            self._quit.set()


__all__ = [
    "ADD_BATCH_ROWS",
    "AHEAD",
    "BUILD_BATCH_ROWS",
    "GIVE_WAY_BATCH_ROWS",
    "Adder",
    "batches",
    "read_memory",
    "vids_to_read",
]
