"""The in-memory text index: the current postings of each kind, for BM25 on current reads.

Derived from the postings table (:mod:`anatid_core.text_search` scores with it): built from the
table on first use, per kind, under the write lock (no commit lands in between), then kept in
step by each commit of this process and caught up after other processes' commits; dropped after
a purge of everything or another process's purge. Memory: per current version a few numbers
(alive, length, group and label codes, its id) and per posting a version id, a frequency and a
length, in growable numpy arrays. Historical reads and reads inside the writer's own transaction
use SQL instead.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from typing import Any, NamedTuple

import numpy as np

from ..base.model import Kind
from ..storage.changes import Changes
from ..storage.connection import Connection
from ..storage.prepare import tags_of
from ..storage.rows import table_of
from .base import BuiltOnce, Index
from .tags import Tags

#: BM25 parameters, readable at a glance.
BM25: dict[str, float] = {"k1": 1.2, "b": 0.75}


class Scored(NamedTuple):
    """Matches from an index: version ids, scores, the record id of every version
    (``ids[vids]``: the index's own array, or what looks one up, read only for the few versions
    fetched; a version's id never changes, and a grown index gets a new array), and whether the
    index applied every group/label filter it was asked for."""

    vids: np.ndarray
    scores: np.ndarray
    ids: Any
    complete: bool


class _Postings:
    """Growable parallel arrays of one term's postings: version id, term frequency, doc length."""

    __slots__ = ("vids", "tfs", "dls", "n")

    def __init__(self) -> None:
        self.vids = np.zeros(4, dtype=np.int64)
        self.tfs = np.zeros(4, dtype=np.float64)
        self.dls = np.zeros(4, dtype=np.float64)
        self.n = 0

    def extend(self, vids: np.ndarray, tfs: np.ndarray, dls: np.ndarray) -> None:
        need = self.n + len(vids)
        if need > len(self.vids):
            cap = max(need, 2 * len(self.vids))
            for name in ("vids", "tfs", "dls"):
                old = getattr(self, name)
                new = np.zeros(cap, dtype=old.dtype)
                new[: self.n] = old[: self.n]
                setattr(self, name, new)
        self.vids[self.n : need] = vids
        self.tfs[self.n : need] = tfs
        self.dls[self.n : need] = dls
        self.n = need

    def compact(self, alive: np.ndarray) -> None:
        keep = alive[self.vids[: self.n]]
        if keep.all():
            return
        m = int(keep.sum())
        self.vids[:m] = self.vids[: self.n][keep]
        self.tfs[:m] = self.tfs[: self.n][keep]
        self.dls[:m] = self.dls[: self.n][keep]
        self.n = m


class KindPostings:
    """The current postings of one kind (nodes or edges), with corpus statistics."""

    def __init__(self) -> None:
        self.terms: dict[str, _Postings] = {}
        self.alive = np.zeros(1024, dtype=bool)  # indexed by version id
        self.doc_len = np.zeros(1024, dtype=np.float64)
        # Record id of each version: hits are fetched through the indexed id column.
        self.ids = np.empty(1024, dtype=object)
        self.tags = Tags()
        self.groups = np.zeros(1024, dtype=np.int32)
        self.labels = np.zeros(1024, dtype=np.uint64)
        self.docs = 0
        self.total_len = 0.0
        self.dead_postings = 0
        self.postings = 0

    def _ensure(self, max_vid: int) -> None:
        if max_vid < len(self.alive):
            return
        cap = max(max_vid + 1, 2 * len(self.alive))
        alive = np.zeros(cap, dtype=bool)
        alive[: len(self.alive)] = self.alive
        dl = np.zeros(cap, dtype=np.float64)
        dl[: len(self.doc_len)] = self.doc_len
        ids = np.empty(cap, dtype=object)
        ids[: len(self.ids)] = self.ids
        groups = np.zeros(cap, dtype=np.int32)
        groups[: len(self.groups)] = self.groups
        labels = np.zeros(cap, dtype=np.uint64)
        labels[: len(self.labels)] = self.labels
        self.alive, self.doc_len, self.ids = alive, dl, ids
        self.groups, self.labels = groups, labels

    def add_docs(
        self,
        vids: np.ndarray,
        lens: np.ndarray,
        ids: list[str],
        groups: list[str],
        labels: list[tuple[str, ...]],
    ) -> None:
        if len(vids) == 0:
            return
        self._ensure(int(vids.max()))
        fresh = ~self.alive[vids]
        self.alive[vids] = True
        self.doc_len[vids] = lens
        self.ids[vids] = ids
        self.groups[vids], self.labels[vids] = self.tags.encode(groups, labels)
        self.docs += int(fresh.sum())
        self.total_len += float(lens[fresh].sum())

    def add_postings(self, terms: list[str], vids: np.ndarray, tfs: np.ndarray) -> None:
        """Postings sorted by term (runs of one term are contiguous)."""
        if not terms:
            return
        dls = self.doc_len[vids]
        start = 0
        for i in range(1, len(terms) + 1):
            if i == len(terms) or terms[i] != terms[start]:
                plist = self.terms.get(terms[start])
                if plist is None:
                    plist = self.terms[terms[start]] = _Postings()
                plist.extend(vids[start:i], tfs[start:i], dls[start:i])
                start = i
        self.postings += len(terms)

    def remove(self, vids: np.ndarray) -> None:
        vids = vids[vids < len(self.alive)]
        gone = vids[self.alive[vids]]
        if len(gone) == 0:
            return
        self.alive[gone] = False
        self.docs -= len(gone)
        self.total_len -= float(self.doc_len[gone].sum())
        self.dead_postings += len(gone) * 8  # an estimate; exact counts are not worth a scan
        if self.dead_postings > self.postings:
            for plist in self.terms.values():
                plist.compact(self.alive)
            self.postings = sum(p.n for p in self.terms.values())
            self.dead_postings = 0

    def matches(self, term: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The current postings of ``term``: version ids, frequencies, document lengths."""
        plist = self.terms.get(term)
        if plist is None or plist.n == 0:
            empty = np.zeros(0)
            return np.zeros(0, dtype=np.int64), empty, empty
        vids = plist.vids[: plist.n]
        keep = self.alive[vids]
        return vids[keep], plist.tfs[: plist.n][keep], plist.dls[: plist.n][keep]

    def score(self, terms: list[str]) -> tuple[np.ndarray, np.ndarray]:
        if self.docs == 0:
            return np.zeros(0, dtype=np.int64), np.zeros(0)
        n = float(self.docs)
        avgdl = self.total_len / n
        parts_v: list[np.ndarray] = []
        parts_s: list[np.ndarray] = []
        for term in terms:
            vids, tfs, dls = self.matches(term)
            if len(vids) == 0:
                continue
            parts_v.append(vids)
            parts_s.append(bm25(tfs, dls, float(len(vids)), n, avgdl))
        if not parts_v:
            return np.zeros(0, dtype=np.int64), np.zeros(0)
        return summed(parts_v, parts_s, len(self.alive))


def bm25(tfs: np.ndarray, dls: np.ndarray, df: float, n: float, avgdl: float) -> np.ndarray:
    """Okapi BM25 of one term's postings, with Lucene's idf (see
    :mod:`anatid_core.text_search`)."""
    k1, b = BM25["k1"], BM25["b"]
    norm = k1 * (1 - b + b * dls / avgdl) if avgdl > 0 else k1 * (1 - b)
    return idf(df, n) * tfs * (k1 + 1) / (tfs + norm)


def idf(df: float, n: float) -> float:
    """Lucene's idf of a term in ``df`` of ``n`` documents (never negative)."""
    return math.log(1 + (n - df + 0.5) / (df + 0.5))


def summed(
    parts_v: list[np.ndarray], parts_s: list[np.ndarray], size: int
) -> tuple[np.ndarray, np.ndarray]:
    """Per version, the sum of its terms' scores (each term's postings hold a version once,
    so a dense accumulator needs no np.add.at)."""
    if len(parts_v) == 1:
        return parts_v[0], parts_s[0]
    acc = np.zeros(size, dtype=np.float64)
    for vids, scores in zip(parts_v, parts_s, strict=True):
        acc[vids] += scores
    touched = np.flatnonzero(acc)
    return touched, acc[touched]


class TextIndex(Index):
    """An in-memory copy of the current postings of each kind, for BM25 on current reads."""

    def __init__(self, connection: Connection) -> None:
        self._connection = connection
        self._kinds: BuiltOnce[Kind, KindPostings] = BuiltOnce(connection)

    def usable(self) -> bool:
        # Inside this thread's own transaction the index lacks its uncommitted rows: use SQL.
        return not self._connection.in_own_transaction()

    def _load(self, kind: Kind) -> KindPostings:
        idx = KindPostings()
        self._read_into(idx, kind, since=None)
        return idx

    def _read_into(self, idx: KindPostings, kind: Kind, *, since: int | None) -> None:
        newer = "" if since is None else f" AND tx_from > {int(since)}"
        read_current(self._connection, idx, kind, newer)

    def load(self, kind: Kind) -> int:
        """Build the index of ``kind`` now if it is not built yet; returns its current
        versions."""
        return self._kinds.get_or_build(kind, lambda: self._load(kind)).docs

    def loaded(self, kind: Kind) -> bool:
        """Whether the postings of ``kind`` are in memory (this never loads them)."""
        return self._kinds.get(kind) is not None

    def discard(self, kind: Kind) -> None:
        """Drop one kind's postings (its persistent text index answers from now on)."""
        self._kinds.discard(kind)

    def search_loaded(
        self,
        kind: Kind,
        terms: list[str],
        groups: Iterable[str] | None = None,
        labels: Iterable[str] | None = None,
    ) -> Scored | None:
        """Every current match, restricted to ``groups``/``labels``; None if the index is not
        built (this never loads it)."""
        with self._kinds.lock:
            idx = self._kinds.get(kind)
            if idx is None:
                return None
            vids, scores = idx.score(terms)
            if groups is not None or labels is not None:  # a common word matches most rows
                keep = idx.tags.mask(idx.groups[vids], idx.labels[vids], groups, labels)
                if keep is not None:
                    vids, scores = vids[keep], scores[keep]
            complete = labels is None or idx.tags.can_filter_labels()
            return Scored(vids, scores, idx.ids, complete)

    # ------------------------------------------------------------------ kept in step (Index)

    def applied(self, changes: Changes) -> None:
        """Add the versions the transaction inserted, with their postings, then drop the ones
        it removed (among them any it inserted and removed again)."""
        for kind, idx in self._kinds.items():
            removed = changes.removed(kind)
            with self._kinds.lock:
                for added in changes.added(kind):
                    records = added.records
                    idx.add_docs(
                        added.vids,
                        np.asarray([p.doc_len for p in records], dtype=np.float64),
                        [p.item.id for p in records],
                        [p.item.group for p in records],
                        [tags_of(p.item) for p in records],
                    )
                    idx.add_postings(*added.postings)
                idx.remove(removed)

    def caught_up(self, since_us: int, removed: Mapping[Kind, np.ndarray]) -> None:
        """Drop the versions other processes ended, add the ones they wrote (issue 11)."""
        for kind, idx in self._kinds.items():
            with self._kinds.lock:
                idx.remove(removed[kind])
                self._read_into(idx, kind, since=since_us)

    def forget(self) -> None:
        self._kinds.clear()


def read_current(connection: Connection, idx: KindPostings, kind: Kind, newer: str) -> None:
    """Add the current versions of ``kind`` that pass ``newer`` (an SQL condition on the
    version's columns, starting with AND; empty for all) to ``idx``, with their postings."""
    table = table_of(kind)
    tags = "labels" if kind == "node" else "[rel]"
    docs = connection.query(
        f"SELECT vid, doc_len, id, grp, {tags} AS tags FROM {table} WHERE tx_to IS NULL{newer}"
    )
    idx.add_docs(
        np.asarray([d[0] for d in docs], dtype=np.int64),
        np.asarray([d[1] for d in docs], dtype=np.float64),
        [d[2] for d in docs],
        [d[3] for d in docs],
        [tuple(d[4]) for d in docs],
    )
    rows = (
        connection.cursor()
        .execute(
            f"SELECT p.term, p.vid, p.tf FROM postings p JOIN {table} r ON r.vid = p.vid "
            f"WHERE r.tx_to IS NULL{_on_r(newer)} ORDER BY p.term, p.vid"
        )
        .fetchnumpy()
    )
    idx.add_postings(
        [str(t) for t in rows["term"]],
        np.asarray(rows["vid"], dtype=np.int64),
        np.asarray(rows["tf"], dtype=np.float64),
    )


def _on_r(condition: str) -> str:
    return condition.replace("tx_from", "r.tx_from").replace(" vid ", " r.vid ")


__all__ = ["BM25", "KindPostings", "Scored", "TextIndex", "bm25", "idf", "read_current", "summed"]
