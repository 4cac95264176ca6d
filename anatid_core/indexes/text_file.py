"""The persistent text index of each kind (issue 34): BM25 on current reads from a mapped postings
file (:mod:`anatid_core.storage.postings_file`, built by :mod:`~.text_build`) plus the current
versions written after it, so that a fresh process's first text search maps a file instead of
loading every posting of the store (:mod:`~.text`).

Per kind, once opened: the mapped postings and keys files (every version up to ``high``,
current or not), a bitmap of which of those are current with the sum of their lengths (for N
and the average length, over every current version as BM25 here always counts), and the
current versions after ``high`` in a small in-memory :class:`~.text.KindPostings` (the delta),
all kept in step by commits and catch-ups. Scores equal the in-memory index's.

Filters (groups, labels) are applied when the winners' rows are read (the ranking is walked
best-first, :func:`anatid_core.text_search`), as for any filter the in-memory index cannot
apply. Past views still score by SQL.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import NamedTuple

import duckdb
import numpy as np

from ..base.model import Kind
from ..storage import index_files
from ..storage.changes import Changes
from ..storage.connection import Connection
from ..storage.index_files import Manifest
from ..storage.keys_file import KeysFile
from ..storage.postings_file import PostingsFile
from ..storage.prepare import tags_of
from ..storage.rows import table_of
from ..storage.sql import vid_column
from .ann import ANN, Bitmap
from .base import BuiltOnce, Index
from .text import BM25, KindPostings, Scored, bm25, idf, read_current, summed
from .text_build import valid_text_manifest


class IdsByVid:
    """``ids[vids]`` for the versions a persistent text index knows: its keys file, then its
    delta."""

    def __init__(self, keys: KeysFile, delta: KindPostings) -> None:
        self._keys, self._delta = keys, delta

    def __getitem__(self, vids: np.ndarray) -> np.ndarray:
        held = self._keys.ids_of(vids)
        out = np.empty(len(held), dtype=object)
        for i, (vid, found) in enumerate(zip(vids.tolist(), held, strict=True)):
            out[i] = found if found is not None else self._delta.ids[vid]
        return out


@dataclass
class KindText:
    """One kind's mapped postings, its current versions and its delta."""

    kind: Kind
    manifest: Manifest
    postings: PostingsFile
    keys: KeysFile
    stamp: tuple[index_files.Stamp | None, ...]
    current: Bitmap
    current_len: float
    delta: KindPostings = field(default_factory=KindPostings)
    lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def high(self) -> int:
        return self.manifest.high

    def scored(self, terms: list[str], filtered: bool, best: int | None = None) -> Scored:
        """Every current match; ``filtered``: the caller has filters this cannot apply.
        ``best``: the caller wants only the ``best`` top matches (and every match tied with
        the last of them), which may then be found without scoring every posting of the
        query's common terms (:func:`_pruned`)."""
        with self.lock:
            ids = IdsByVid(self.keys, self.delta)
            n = float(self.current.count + self.delta.docs)
            found = [t for t in (self._term_postings(term) for term in terms) if t.df]
            if n == 0 or not found:
                empty = np.zeros(0, dtype=np.int64)
                return Scored(empty, np.zeros(0), ids, not filtered)
            avgdl = (self.current_len + self.delta.total_len) / n
            if best is not None and not filtered:
                pruned = _pruned(found, best, n, avgdl)
                if pruned is not None:
                    return Scored(*pruned, ids, True)
            parts_v: list[np.ndarray] = []
            parts_s: list[np.ndarray] = []
            for t in found:
                for vids, scores in _scored_postings(t, n, avgdl):
                    if len(vids):
                        parts_v.append(vids)
                        parts_s.append(scores)
            size = max(self.high + 1, len(self.delta.alive))
            # A term's postings in the file and in the delta hold different versions: the
            # parts add up in one accumulator.
            vids, scores = summed(parts_v, parts_s, size)
            return Scored(vids, scores, ids, not filtered)

    def _term_postings(self, term: str) -> _TermPostings:
        """A term's postings in the file (all, with which are current: None when every version
        the file holds still is, as in a store nobody re-saved in) and in the delta."""
        fv, ftf, fdl = self.postings.postings(term)
        dv, dtf, ddl = self.delta.matches(term)
        if self.current.count == self.manifest.count:
            return _TermPostings(fv, ftf, fdl, None, dv, dtf, ddl, len(fv) + len(dv))
        keep = self.current.mask(fv)
        df = int(np.count_nonzero(keep)) + len(dv)
        return _TermPostings(fv, ftf, fdl, keep, dv, dtf, ddl, df)

    def scored_among(self, terms: list[str], visible: np.ndarray) -> Scored | None:
        """Every match among ``visible`` (sorted version ids: a past view's), with N, the
        average length and each term's df over them, as BM25 counts for a past view; None
        when some visible version is newer than the file (the caller scores by SQL)."""
        if len(visible) and int(visible[-1]) > self.high:
            return None
        among = Bitmap()
        among.add(visible)
        n = float(len(visible))
        ids = IdsByVid(self.keys, self.delta)
        if n == 0:
            return Scored(np.zeros(0, dtype=np.int64), np.zeros(0), ids, False)
        avgdl = float(self.postings.length_of(visible).sum()) / n
        parts_v: list[np.ndarray] = []
        parts_s: list[np.ndarray] = []
        for term in terms:
            fv, ftf, fdl = self.postings.postings(term)
            keep = among.mask(fv)
            if not keep.any():
                continue
            fv, ftf, fdl = fv[keep], ftf[keep].astype(np.float64), fdl[keep].astype(np.float64)
            parts_v.append(fv)
            parts_s.append(bm25(ftf, fdl, float(len(fv)), n, avgdl))
        if not parts_v:
            return Scored(np.zeros(0, dtype=np.int64), np.zeros(0), ids, False)
        vids, scores = summed(parts_v, parts_s, self.high + 1)
        return Scored(vids, scores, ids, False)

    def remove(self, vids: np.ndarray) -> None:
        """Versions that stopped being current."""
        with self.lock:
            old = vids[vids <= self.high]
            was = old[self.current.mask(old)]
            self.current.remove(was)
            self.current_len -= float(self.postings.length_of(was).sum())
            self.delta.remove(vids[vids > self.high])


@dataclass(frozen=True)
class _Absent:
    stamp: index_files.Stamp | None


class TextFiles(Index):
    """The persistent text indexes of the kinds that have one, opened on first text search."""

    def __init__(self, connection: Connection, merge: Callable[[Kind, None], None] | None) -> None:
        self._connection = connection
        self._kinds: BuiltOnce[Kind, KindText | _Absent] = BuiltOnce(connection)
        self._checked: dict[Kind, float] = {}
        self._merge = merge
        self._asked: dict[Kind, float] = {}

    def usable(self) -> bool:
        return (
            not self._connection.in_own_transaction()
            and self._connection.path != ":memory:"
            and os.path.isdir(index_files.folder_of(self._connection.path))
        )

    def kind(self, kind: Kind) -> KindText | None:
        """The kind's opened text index, opened now if its files are valid; None if it has
        none (the in-memory index answers)."""
        found = self._kinds.get(kind)
        path = self._connection.path
        if isinstance(found, KindText):
            # Every search: a file written in place since it was verified is verified again.
            if found.stamp != index_files.files_stamp(path, found.manifest):
                self._kinds.discard(kind)
        elif found is not None and self._recheck_due(kind):
            if index_files.manifest_stamp(path, kind, None) != found.stamp:
                self._kinds.discard(kind)
        got = self._kinds.get_or_build(kind, lambda: self._open(kind))
        return got if isinstance(got, KindText) else None

    def noticed(self, kind: Kind, docs: int, min_rows: int) -> None:
        """The in-memory index of ``kind`` was loaded whole: ``docs`` current versions. Build
        the persistent one in the background if that is large (asked at most once a minute)."""
        if docs < min_rows or self._merge is None or not ANN["auto"]:
            return
        now = time.monotonic()
        if now - self._asked.get(kind, -1e9) < 60.0:
            return
        self._asked[kind] = now
        self._merge(kind, None)

    def discard(self, kind: Kind) -> None:
        """Open the kind's files again on its next text search (a build just published them)."""
        self._kinds.discard(kind)
        self._checked.pop(kind, None)

    def _recheck_due(self, kind: Kind) -> bool:
        now = time.monotonic()
        if now - self._checked.get(kind, 0.0) < ANN["recheck_seconds"]:
            return False
        self._checked[kind] = now
        return True

    def _open(self, kind: Kind) -> KindText | _Absent:
        path = self._connection.path
        stamp = index_files.manifest_stamp(path, kind, None)
        if stamp is None or not index_files.usable_folder(path):
            return _Absent(stamp)
        cur = self._connection.cursor()
        manifest = valid_text_manifest(cur, path, kind)
        if manifest is None:
            return _Absent(stamp)
        folder = index_files.folder_of(path)
        files = index_files.files_stamp(path, manifest)
        try:  # verified and their layout checked: reading through them is safe
            postings = PostingsFile(os.path.join(folder, manifest.file))
            keys = KeysFile(os.path.join(folder, manifest.keys))
        except (OSError, ValueError) as e:
            index_files.log_unused(path, manifest, f"it cannot be opened ({e})")
            return _Absent(stamp)
        current = Bitmap()
        vids = _current_upto(cur, kind, manifest.high)
        current.add(vids)
        opened = KindText(
            kind=kind,
            manifest=manifest,
            postings=postings,
            keys=keys,
            stamp=files,
            current=current,
            current_len=float(postings.length_of(vids).sum()),
        )
        read_current(self._connection, opened.delta, kind, f" AND vid > {int(manifest.high)}")
        return opened

    def opened(self) -> list[KindText]:
        return [t for _, t in self._kinds.items() if isinstance(t, KindText)]

    # ------------------------------------------------------------------ kept in step (Index)

    def applied(self, changes: Changes) -> None:
        for t in self.opened():
            with t.lock:
                for added in changes.added(t.kind):
                    records = added.records
                    t.delta.add_docs(
                        added.vids,
                        np.asarray([p.doc_len for p in records], dtype=np.float64),
                        [p.item.id for p in records],
                        [p.item.group for p in records],
                        [tags_of(p.item) for p in records],
                    )
                    t.delta.add_postings(*added.postings)
            t.remove(changes.removed(t.kind))
            wanted = max(int(ANN["merge_rows"]), int(ANN["merge_fraction"] * t.manifest.count))
            if t.delta.docs >= wanted and self._merge is not None and ANN["auto"]:
                self._merge(t.kind, None)

    def caught_up(self, since_us: int, removed: Mapping[Kind, np.ndarray]) -> None:
        for t in self.opened():
            t.remove(removed[t.kind])
            with t.lock:
                read_current(self._connection, t.delta, t.kind, f" AND tx_from > {int(since_us)}")

    def forget(self) -> None:
        self._kinds.clear()
        self._checked.clear()

    def purging(self, cur: duckdb.DuckDBPyConnection, kind: Kind, vids: np.ndarray) -> None:
        """Remove the kind's text index if it holds one of ``vids`` (its words are in it)."""
        path = self._connection.path
        if path == ":memory:" or not len(vids):
            return
        found = index_files.read_manifest(path, kind, None)
        if found is not None and int(vids.min()) <= found.high:
            index_files.remove_space(path, kind, None)
            self._kinds.discard(kind)


#: ``common``: the share of the current versions above which a query term's postings are looked
#: up for the rare terms' candidates rather than scored in full (:func:`_pruned`).
PRUNE: dict[str, float] = {"common": 1 / 16}


class _TermPostings(NamedTuple):
    """One query term's postings: in the file (every one, sorted by version id, and which are
    current), in the delta (current only), and its document frequency among current versions."""

    fv: np.ndarray
    ftf: np.ndarray
    fdl: np.ndarray
    keep: np.ndarray | None
    dv: np.ndarray
    dtf: np.ndarray
    ddl: np.ndarray
    df: int


def _scored_postings(
    t: _TermPostings, n: float, avgdl: float
) -> tuple[tuple[np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray]]:
    """(version ids, BM25 scores) of a term's current postings in the file, then in the delta."""
    fv, ftf, fdl = (
        (t.fv, t.ftf, t.fdl) if t.keep is None else (t.fv[t.keep], t.ftf[t.keep], t.fdl[t.keep])
    )
    in_file = bm25(ftf.astype(np.float64), fdl.astype(np.float64), t.df, n, avgdl)
    return (fv, in_file), (t.dv, bm25(t.dtf, t.ddl, t.df, n, avgdl))


def _pruned(
    found: list[_TermPostings], k: int, n: float, avgdl: float
) -> tuple[np.ndarray, np.ndarray] | None:
    """(version ids, scores) of current matches that hold the ``k`` best and every match tied
    with the k-th, or None when that cannot be proved.

    MaxScore, as Lucene prunes a top-k: a term in more than ``PRUNE["common"]`` of the versions
    scores at most ``idf * (k1 + 1)`` (its idf is small), so a version matching only such terms
    scores at most the sum of their bounds. The rare terms' postings are scored in full, the
    common ones looked up for those candidates alone (binary searches in their sorted
    postings); if the k-th best candidate beats the bound strictly, no other version reaches
    the k best. A common word of a million facts has a million postings: scoring each is most of
    a search. (A query of common words only is scored in full.)"""
    rare = [t for t in found if t.df <= PRUNE["common"] * n]
    common = [t for t in found if t.df > PRUNE["common"] * n]
    if not rare or not common:
        return None
    vids: list[np.ndarray] = []
    scores: list[np.ndarray] = []
    for t in rare:
        for v, sc in _scored_postings(t, n, avgdl):
            vids.append(v)
            scores.append(sc)
    cand_v, where = np.unique(np.concatenate(vids), return_inverse=True)
    cand_s = np.bincount(where, weights=np.concatenate(scores), minlength=len(cand_v))
    if len(cand_v) <= k:
        return None
    for t in common:
        _add_lookups(t, cand_v, cand_s, n, avgdl)
    kth = float(np.partition(cand_s, len(cand_s) - k)[len(cand_s) - k])
    bound = sum(idf(t.df, n) for t in common) * (BM25["k1"] + 1)
    return (cand_v, cand_s) if kth > bound else None


def _add_lookups(
    t: _TermPostings, cand_v: np.ndarray, cand_s: np.ndarray, n: float, avgdl: float
) -> None:
    """Add a common term's score to the candidates it matches (binary searches in its postings).
    The candidates are current versions, so a posting of one is current: no mask to apply."""
    for vids, tfs, dls in ((t.fv, t.ftf, t.fdl), (t.dv, t.dtf, t.ddl)):
        if not len(vids):
            continue
        at = np.minimum(np.searchsorted(vids, cand_v), len(vids) - 1)
        hit = vids[at] == cand_v
        if hit.any():
            pos = at[hit]
            cand_s[hit] += bm25(
                tfs[pos].astype(np.float64), dls[pos].astype(np.float64), t.df, n, avgdl
            )


def _current_upto(cur: duckdb.DuckDBPyConnection, kind: Kind, high: int) -> np.ndarray:
    return vid_column(
        cur, f"SELECT vid FROM {table_of(kind)} WHERE tx_to IS NULL AND vid <= ?", [int(high)]
    )


__all__ = ["IdsByVid", "KindText", "TextFiles"]
