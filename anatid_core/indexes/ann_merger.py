"""The policy that keeps the persistent indexes close to the file without a writer ever waiting
for them (issue 34): a writing process builds or merges a space's index in a background thread
when

* a search of a space without an index loaded it whole for an exact scan and it holds at least
  ``SETTINGS["ann_min_rows"]`` embeddings (the first build), or
* the embeddings written since the index's build (its delta, scanned exactly by every search)
  reach ``ANN["merge_rows"]`` or ``ANN["merge_fraction"]`` of the index, whichever is larger.

One build at a time per store (across processes: :func:`~.ann_build.build_space` takes a lock
file). Closing the store stops a build between two batches; a process that dies mid-build
leaves temporary files the next build removes. Each finished build is logged on the
``anatid_core.ann`` logger with its cost and kept in :attr:`Merger.reports`. ``ANN["auto"]``
False turns the policy off (``Store.build_indexes`` and ``anatid index`` still work).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable

from ..base.errors import AnatidError
from ..base.model import IndexBuild, Kind

LOG = logging.getLogger("anatid_core.ann")

#: Builds one index (a vector space's, or with space None a kind's text index), or has a builder
#: process build what the store needs: what was built.
Build = Callable[[Kind, "str | None", threading.Event], "list[IndexBuild]"]


class Merger:
    """Runs requested builds one after another on a daemon thread."""

    def __init__(self, build: Build) -> None:
        self._build = build
        self._lock = threading.Lock()
        self._queue: list[tuple[Kind, str | None]] = []
        self._thread: threading.Thread | None = None
        self._stop = threading.Event()
        self.reports: list[IndexBuild] = []
        self._said: set[str] = set()

    def request(self, kind: Kind, space: str | None) -> None:
        """Build or merge the space's index soon (once, however often it is asked)."""
        with self._lock:
            if self._stop.is_set() or (kind, space) in self._queue:
                return
            self._queue.append((kind, space))
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(
                    target=self._run, name="anatid-index-merge", daemon=True
                )
                self._thread.start()

    def _say_once(self, message: str) -> None:
        if message not in self._said:
            self._said.add(message)
            LOG.warning("%s", message)

    def busy(self) -> bool:
        with self._lock:
            return bool(self._queue)

    def _run(self) -> None:
        while True:
            with self._lock:
                if not self._queue or self._stop.is_set():
                    self._queue.clear()
                    return
                kind, space = self._queue[0]
            try:
                built = self._build(kind, space, self._stop)
            except AnatidError as e:  # said once, in a line: the folder, say, is read-only
                self._say_once(f"building the index of {kind} {space or 'text'!r} failed: {e}")
                built = []
            except Exception:  # a background build must never take the process down
                LOG.exception("building the index of %s %r failed", kind, space or "text")
                built = []
            for done in built:
                self.reports.append(done)
                LOG.info(
                    "index of %s %r: %d added, %d indexed, %.2f s, %d bytes",
                    done.kind,
                    done.space or "text",
                    done.rows_added,
                    done.rows_total,
                    done.seconds,
                    done.bytes,
                )
            with self._lock:
                if self._queue and self._queue[0] == (kind, space):
                    self._queue.pop(0)

    def close(self, timeout: float | None = None) -> None:
        """Stop: the running build ends at its next batch; no new one starts."""
        self._stop.set()
        thread = self._thread
        if thread is not None and thread is not threading.current_thread():
            thread.join(timeout)


__all__ = ["LOG", "Merger"]
