"""The registry: every structure derived from the file, and the one place that keeps them in step.

A store has one :class:`Indexes` (its ``as_of`` views share it). It holds:

==================  =============================================  ==============================
index               what it holds                                  built / bounded
==================  =============================================  ==============================
``current``         every current record of each kind, by id,      per kind on first read;
                    with label/name/endpoint/recency orders        ``SETTINGS["current_records
                    (:mod:`~.current_records`)                     _limit"]`` records per kind
``text``            the current postings of each kind, for BM25    per kind on first text search
                    (:mod:`~.text`)
``vectors``         a normalised matrix of each vector space's     per space on first vector
                    current embeddings (:mod:`~.vectors`)          search of it
``graphs``          the visible graph as integer arrays, per       on a whole-graph verb or the
                    view and filters, with what is derived from    second walk at one version;
                    it (walk index, record columns, communities)   ``GRAPH_ARRAYS``, ``WALKS``
                    (:mod:`~.graph_arrays`, :mod:`~.walk_index`)
``ann``             a space's persistent HNSW index file, mapped,  on first vector search of a
                    with the embeddings written since its build    space that has one; the
                    and its current versions (:mod:`~.ann`)        delta, a byte per version id
``text_files``      a kind's persistent postings file, mapped,     on first text search of a
                    with the current versions written since its    kind that has one; the delta,
                    build (:mod:`~.text_file`)                     a byte per version id
``filters``         the version ids that pass a filter (a group,   on a filtered or past search
                    an ``as_of`` instant), until the file changes  through an index;
                    (:mod:`~.filter_cache`)                        ``FILTER_CACHE["bytes"]``
==================  =============================================  ==============================

It listens to the connection (:class:`~anatid_core.storage.connection.Listener`) and hands each
change to every index (:class:`~anatid_core.indexes.base.Index`): a commit of this process, once,
with its :class:`~anatid_core.storage.changes.Changes`; the file taken back from other processes,
with the versions they ended (or, if they purged anything, as a drop of everything: a purged
version leaves no row to catch up from); compaction replacing the file. A new derived structure
is one :class:`Index` subclass registered in :meth:`Indexes.__init__`, nothing else.
"""

from __future__ import annotations

import os
import threading
from contextlib import AbstractContextManager
from typing import TypeVar, cast

import duckdb
import numpy as np

from ..base.model import IndexBuild, IndexState, Kind
from ..base.settings import SETTINGS
from ..storage.changes import Changes
from ..storage.connection import Connection
from ..storage.embeddings import all_spaces
from ..storage.rows import table_of
from . import builder, lifecycle
from .ann import ANN, VECTORS, AnnIndex
from .ann_build import build_space
from .ann_merger import Merger
from .base import Index
from .build_progress import Progress
from .current_records import CurrentRecords
from .filter_cache import FilterCache
from .graph_arrays import GraphCache
from .text import TextIndex
from .text_build import TEXT, build_text
from .text_file import TextFiles
from .vectors import VectorIndex

I = TypeVar("I", bound=Index)  # noqa: E741

KINDS: tuple[Kind, ...] = ("node", "edge")


class Indexes:
    """The derived structures of one store, kept in step with its file."""

    def __init__(self, connection: Connection, *, records_in_memory: bool = True) -> None:
        self.connection = connection
        self._all: list[Index] = []
        bulk = connection.bulk_load  # a bulk load reads nothing back: no records in memory
        off = bulk or not records_in_memory  # nor does a process that reads a few and exits
        self.current = self.register(
            CurrentRecords(connection, lambda: 0 if off else SETTINGS["current_records_limit"])
        )
        self.text = self.register(TextIndex(connection))
        self.vectors = self.register(VectorIndex(connection))
        self.graphs = self.register(GraphCache(connection))
        self.filters = self.register(FilterCache())
        self.merger = Merger(self._build_behind) if _may_build(connection) else None
        merge = self.merger.request if self.merger is not None else None
        self._commits = 0  # by this process: a writer that wrote asks for a builder at exit
        self._rented: dict[tuple[Kind, str | None], int] = {}  # searches by SQL meanwhile
        self._rented_lock = threading.Lock()
        self._exit_hook = (
            builder.on_exit(self._builder_wanted) if _may_build(connection, bulk=True) else None
        )
        self.ann = self.register(AnnIndex(connection, merge))
        self.text_files = self.register(TextFiles(connection, merge))
        connection.listen(self)

    def register(self, index: I) -> I:
        """Keep ``index`` in step with the file from now on; returns it."""
        self._all.append(index)
        return index

    def consistent(self) -> AbstractContextManager[None]:
        """Hold while reading an index and the rows it points at: no commit is published in
        between (a commit and its index updates hold the publish lock for writing)."""
        return self.connection.published.reading()

    def forget(self) -> None:
        """Drop every structure; each is built again from the tables on next use."""
        for index in self._all:
            index.forget()

    def build(
        self,
        kind: Kind,
        space: str | None,
        stop: threading.Event | None = None,
        *,
        min_rows: int | None = None,
        wait: bool = True,
        progress: Progress | None = None,
        graph: bool = True,
    ) -> IndexBuild | None:
        """Build or merge one persistent index: a vector space's, or (``space`` None) the
        kind's text index, in this process (``progress``: :mod:`~.build_progress`; ``graph``
        False: a vector space with none gets its flat index only,
        :func:`~.ann_build.build_space`); then drop the in-memory structure it replaces."""
        rows = SETTINGS["ann_min_rows"] if min_rows is None else min_rows
        if space is None:
            built = build_text(
                self.connection, kind, min_rows=rows, stop=stop, wait=wait, progress=progress
            )
            if built is not None:  # searched through the file from now on
                self.text_files.discard(kind)
                self.text.discard(kind)
            return built
        built = build_space(
            self.connection,
            kind,
            space,
            min_rows=rows,
            stop=stop,
            wait=wait,
            progress=progress,
            graph=graph,
        )
        if built is not None:  # searched through the index from now on
            self.ann.discard(kind, space)
            self.vectors.discard(kind, space)
        return built

    def _build_behind(
        self, kind: Kind, space: str | None, stop: threading.Event
    ) -> list[IndexBuild]:
        if not (ANN["builder_process"] and builder.can_spawn()):
            done = self.build(kind, space, stop, wait=False)
            return [done] if done is not None else []
        # The builder process builds what the store needs (this one and any other); this
        # thread waits for its reports. A writer that exits meanwhile leaves it running.
        child = builder.start(self.connection.path, detached=False)
        if child is None:  # another builder runs: it looks again before it exits
            return []
        out, _ = child.communicate()
        reports = builder.reports_of(out)
        for done in reports:  # searched through the new files from now on
            if done.space is None:
                self.text_files.discard(done.kind)
                self.text.discard(done.kind)
            else:
                self.ann.discard(done.kind, done.space)
                self.vectors.discard(done.kind, done.space)
        return reports

    def sql_meanwhile(self, kind: Kind, space: str | None) -> bool:
        """Whether a search of ``space`` (None: the kind's text) that finds no usable index
        and nothing loaded should answer by SQL rather than load the store into memory: an
        index of this store is being built now (by a builder process, any process's, or this
        process's merge thread), and this process has searched it by SQL fewer than
        ``ANN["sql_while_building"]`` times. The build publishes the text index and a flat
        vector index within seconds, and loading costs more than several searches by SQL
        (100k facts x 512: 1.8 s for the matrix, 1.3 s for the postings, against 0.2-0.5 s
        and 0.05 s a search); past that count the store is loaded, as a long-lived process
        beside a long build would otherwise scan by SQL for minutes."""
        key = (kind, space)
        with self._rented_lock:
            if self._rented.get(key, 0) >= int(ANN["sql_while_building"]):
                return False
        busy = self.merger is not None and self.merger.busy()
        path = self.connection.path
        if not busy and (path == ":memory:" or not builder.running(path)):
            return False
        with self._rented_lock:
            self._rented[key] = self._rented.get(key, 0) + 1
        return True

    def _builder_wanted(self) -> str | None:
        """The store's path when this writer wrote and an index is needed (a builder is then
        started as it closes or exits: :mod:`~.builder`), else None."""
        path = self.connection.path
        if not ANN["auto"] or self._commits == 0 or self.connection.closed:
            return None
        if not os.path.exists(path) or builder.running(path):
            return None
        return path if builder.needed(self.states()) else None

    def file_problems(self, *, every_byte: bool = True) -> list[str]:
        """What is wrong with the persistent index files (:func:`~.lifecycle.problems`; with
        ``every_byte`` False their files are trusted by their stamps, as a search trusts them)."""
        path = self.connection.path
        if path == ":memory:":
            return []
        formats = {True: VECTORS, False: TEXT}
        with self.connection.turn():
            return lifecycle.problems(self.connection.cursor(), path, formats, every_byte)

    def states(self) -> list[IndexState]:
        """Every persistent index the store has or could have: each vector space's, then each
        kind's text index (:func:`~.lifecycle.state`)."""
        path = self.connection.path
        with self.connection.turn():
            cur = self.connection.cursor()
            wanted: list[tuple[Kind, str | None, str, lifecycle.Format]] = [
                (cast(Kind, kind), space, table, VECTORS)
                for kind, space, _, table in all_spaces(cur)
            ]
            texts: list[tuple[Kind, str | None, str, lifecycle.Format]] = [
                (kind, None, table_of(kind), TEXT) for kind in KINDS
            ]
            wanted += texts
            return [lifecycle.state(cur, path, fmt, k, s, t) for k, s, t, fmt in wanted]

    def close(self) -> None:
        """Stop background work: a build in a thread ends at its next batch; a builder process
        goes on. Start a builder if this writer leaves an index needed (:mod:`~.builder`)."""
        if self._exit_hook is not None:
            self._exit_hook.fire()
        self.current.stop()
        if self.merger is not None:
            self.merger.close(timeout=0 if ANN["builder_process"] else None)

    def purging(self, cur: duckdb.DuckDBPyConnection, kind: Kind, vids: np.ndarray) -> None:
        """Called by a purge before it commits (:meth:`Index.purging`)."""
        for index in self._all:
            index.purging(cur, kind, vids)

    def purging_all(self) -> None:
        for index in self._all:
            index.purging_all()

    # ------------------------------------------------------------- the connection's listener

    def committed(self, changes: Changes) -> None:
        self._commits += 1
        if changes.emptied:  # purge_all: nothing built before it holds
            self.forget()
        for index in self._all:
            index.applied(changes)

    def caught_up(self, since_us: int, purged: bool) -> None:
        if purged:
            self.forget()
            return
        removed: dict[Kind, np.ndarray] = {
            kind: np.asarray(
                [
                    r[0]
                    for r in self.connection.query(
                        f"SELECT vid FROM {table_of(kind)} WHERE tx_to > ? ORDER BY vid",
                        [since_us],
                    )
                ],
                dtype=np.int64,
            )
            for kind in KINDS
        }
        for index in self._all:
            index.caught_up(since_us, removed)

    def replaced(self) -> None:
        for index in self._all:
            index.replaced()


def _may_build(connection: Connection, *, bulk: bool = False) -> bool:
    """Whether this process builds indexes in the background: a writer of a file, not a bulk
    load (which reads nothing back) unless ``bulk``, and not the builder itself."""
    return (
        not connection.read_only
        and connection.path != ":memory:"
        and (bulk or not connection.bulk_load)
        and not os.environ.get(builder.IN_BUILDER)
    )


__all__ = ["Indexes"]
