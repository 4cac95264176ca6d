"""BM25 full text over our own postings table, written in the same transaction as the rows.

DuckDB's ``fts`` extension is downloaded at run time and is not available offline, so anatid keeps
its own postings: one row per (version, term) with the term frequency, plus each version's
document length on the record row. Scores are Okapi BM25 with Lucene's idf,
``ln(1 + (N - df + 0.5) / (df + 0.5))``, where N, df and the average document length are taken
over every visible record of the kind (search filters do not change scores, as in Lucene).
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterable, Mapping
from contextlib import AbstractContextManager
from typing import Any, NamedTuple

import numpy as np

from .connection import Connection
from .derived import Derived
from .errors import InvalidInput
from .filters import SqlFilter
from .model import Hit, Kind
from .rows import Visibility, cols_of, item_from_row, table_of
from .tags import Tags

#: BM25 parameters and tokenizer limits, readable at a glance.
BM25: dict[str, float] = {"k1": 1.2, "b": 0.75}
MAX_TERM_LENGTH = 64

_WORD = re.compile(r"\w+", re.UNICODE)


def tokenize(text: str) -> list[str]:
    """Lower-cased Unicode word runs; overlong runs are cut (they are ids or noise, not words)."""
    return [t[:MAX_TERM_LENGTH] for t in _WORD.findall(text.lower())]


def document_terms(name: str, text: str) -> tuple[int, Counter[str]]:
    """The document length and term frequencies of a record's full-text fields."""
    terms = tokenize(name) + tokenize(text)
    return len(terms), Counter(terms)


def bm25_search(
    db: Connection,
    cache: TextCache,
    vis: Visibility,
    kind: Kind,
    query: str,
    k: int,
    f: SqlFilter,
    *,
    groups: Iterable[str] | None = None,
    labels: Iterable[str] | None = None,
    only_tags: bool = False,
) -> list[Hit]:
    """BM25 top-k. ``groups``/``labels`` (an edge's labels are its rel) are also applied in the
    in-memory index; ``only_tags`` says ``f`` filters on nothing else besides visibility."""
    if not isinstance(query, str):
        raise InvalidInput(f"query must be a str, got {type(query).__name__}")
    if k < 0:
        raise InvalidInput(f"k must be >= 0, got {k}")
    terms = list(dict.fromkeys(tokenize(query)))
    if not terms or k == 0:
        return []
    if vis.is_current and cache.usable():
        tags: tuple[list[str] | None, list[str] | None] | None = None
        if only_tags:
            tags = (_listed(groups), _listed(labels))
            groups, labels = tags
            db.current.view(kind)  # the winners' rows come from memory (built outside the lock)
        while True:
            cache.load(kind)  # outside the publish lock: loading waits for writers
            with cache.consistent():
                scored = cache.search_loaded(kind, terms, groups, labels)
                if scored is not None:  # else forgotten (purge_all) since: load it again
                    final = only_tags and scored.complete
                    return _materialise(db, kind, scored, k, f, final=final, tags=tags)
    return _sql_search(db, vis, kind, terms, k, f)


def _listed(values: Iterable[str] | None) -> list[str] | None:
    return None if values is None else list(values)


def _sql_search(
    db: Connection, visibility: Visibility, kind: Kind, terms: list[str], k: int, f: SqlFilter
) -> list[Hit]:
    table = table_of(kind)
    vis = visibility.sql("d", kind)
    k1, b = BM25["k1"], BM25["b"]
    sql = f"""
        WITH vis AS (SELECT d.vid, d.doc_len FROM {table} d WHERE {vis}),
        stats AS (SELECT count(*)::DOUBLE AS n, avg(doc_len)::DOUBLE AS avgdl FROM vis),
        p AS (
            SELECT p.vid, p.term, p.tf, vis.doc_len FROM postings p
            JOIN vis ON vis.vid = p.vid
            WHERE p.term IN (SELECT unnest(?::VARCHAR[]))
        ),
        df AS (SELECT term, count(*)::DOUBLE AS df FROM p GROUP BY term),
        scored AS (
            SELECT p.vid, sum(
                ln(1 + (stats.n - df.df + 0.5) / (df.df + 0.5))
                * p.tf * ({k1} + 1)
                / (p.tf + {k1} * (1 - {b} + {b} * p.doc_len / stats.avgdl))
            ) AS score
            FROM p JOIN df ON df.term = p.term CROSS JOIN stats
            GROUP BY p.vid
        )
        SELECT s.score, {cols_of(kind)} FROM scored s JOIN {table} r ON r.vid = s.vid
        WHERE {f.sql()}
        ORDER BY s.score DESC, r.id
        LIMIT ?
    """
    rows = db.query(sql, [terms, *f.params, k])
    return [
        Hit(id=row[2], score=float(row[0]), item=item_from_row(kind, row[1:]), rank=i + 1)
        for i, row in enumerate(rows)
    ]


def _materialise(
    db: Connection,
    kind: Kind,
    scored: Scored,
    k: int,
    f: SqlFilter,
    *,
    final: bool,
    tags: tuple[list[str] | None, list[str] | None] | None = None,
) -> list[Hit]:
    """Walk the cache's ranking best-first, keeping candidates that pass the filters in SQL.

    When the index applied every filter (``final``) its k best are the answer: fetch just those,
    since each fetched row costs an index probe; otherwise fetch more per round.
    """
    vids, scores, ids = scored.vids, scored.scores, scored.ids
    if len(vids) == 0:
        return []
    hits: list[Hit] = []
    batch = k if final else max(4 * k, 64)
    remaining = np.arange(len(vids))
    while len(remaining) and len(hits) < k:
        top = top_with_ties(scores[remaining], batch)
        chunk = remaining[top]
        mask = np.ones(len(remaining), dtype=bool)
        mask[top] = False
        remaining = remaining[mask]
        score_of = {int(v): float(sc) for v, sc in zip(vids[chunk], scores[chunk], strict=True)}
        for row in fetch_versions(db, kind, [str(i) for i in ids[vids[chunk]]], score_of, f, tags):
            if len(hits) == k:
                break
            hits.append(
                Hit(
                    id=row[1],
                    score=score_of[row[0]],
                    item=item_from_row(kind, row),
                    rank=len(hits) + 1,
                )
            )
        batch *= 4
    return hits


def top_with_ties(scores: np.ndarray, take: int) -> np.ndarray:
    """Positions of the ``take`` best scores, plus every score tied with the worst of them, so
    that ordering by (score, id) afterwards matches a full sort."""
    if take >= len(scores):
        return np.arange(len(scores))
    part = np.argpartition(-scores, take - 1)[:take]
    return np.flatnonzero(scores >= scores[part].min())


def fetch_versions(
    db: Connection,
    kind: Kind,
    ids: list[str],
    score_of: dict[int, float],
    f: SqlFilter,
    tags: tuple[list[str] | None, list[str] | None] | None = None,
) -> list[tuple[Any, ...]]:
    """Rows of the scored versions that pass ``f``, best first, fetched through the id index,
    or from the in-memory current records when ``f`` is the current visibility and ``tags``
    (groups, labels or rels) and nothing else (the caller holds the publish lock).

    A row whose version is no longer the one scored (a commit landed meanwhile) is dropped.
    """
    rows = None if tags is None else db.current.rows_passing(kind, ids, *tags)
    if rows is None:
        rows = db.query(
            f"SELECT {cols_of(kind)} FROM {table_of(kind)} r "
            f"WHERE r.id IN (SELECT unnest(?::VARCHAR[])) AND {f.sql()}",
            [ids, *f.params],
        )
    rows = [r for r in rows if r[0] in score_of]
    rows.sort(key=lambda r: (-score_of[r[0]], r[1]))
    return rows


class Scored(NamedTuple):
    """Matches from the in-memory index: version ids, scores, the record id of every version
    (``ids[vid]``: the index's own array, read only for the few versions fetched; a version's id
    never changes, and a grown index gets a new array), and whether the index applied every
    group/label filter it was asked for."""

    vids: np.ndarray
    scores: np.ndarray
    ids: np.ndarray
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


class _KindIndex:
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

    def score(self, terms: list[str]) -> tuple[np.ndarray, np.ndarray]:
        k1, b = BM25["k1"], BM25["b"]
        if self.docs == 0:
            return np.zeros(0, dtype=np.int64), np.zeros(0)
        n = float(self.docs)
        avgdl = self.total_len / n
        parts_v: list[np.ndarray] = []
        parts_s: list[np.ndarray] = []
        for term in terms:
            plist = self.terms.get(term)
            if plist is None or plist.n == 0:
                continue
            vids = plist.vids[: plist.n]
            keep = self.alive[vids]
            vids = vids[keep]
            if len(vids) == 0:
                continue
            tfs = plist.tfs[: plist.n][keep]
            dls = plist.dls[: plist.n][keep]
            df = float(len(vids))
            idf = math.log(1 + (n - df + 0.5) / (df + 0.5))
            norm = k1 * (1 - b + b * dls / avgdl) if avgdl > 0 else k1 * (1 - b)
            parts_v.append(vids)
            parts_s.append(idf * tfs * (k1 + 1) / (tfs + norm))
        if not parts_v:
            return np.zeros(0, dtype=np.int64), np.zeros(0)
        if len(parts_v) == 1:
            return parts_v[0], parts_s[0]
        # Each term's postings hold a version once, so a dense accumulator needs no np.add.at.
        acc = np.zeros(len(self.alive), dtype=np.float64)
        for vids, scores in zip(parts_v, parts_s, strict=True):
            acc[vids] += scores
        touched = np.flatnonzero(acc)
        return touched, acc[touched]


class TextCache:
    """An in-memory copy of the current postings, for fast BM25 on current reads.

    Derived data: built from the postings table on first use (under the write lock, so no commit
    lands in between), updated after each commit, and never the source of truth. Historical reads
    and reads inside the writer's own transaction use SQL instead.
    """

    def __init__(self, connection: Connection) -> None:
        self._connection = connection
        self._kinds: Derived[Kind, _KindIndex] = Derived(connection)

    def usable(self) -> bool:
        # Inside this thread's own transaction the index lacks its uncommitted rows: use SQL.
        return not self._connection.in_own_transaction()

    def _load(self, kind: Kind) -> _KindIndex:
        idx = _KindIndex()
        self._read_into(idx, kind, since=None)
        return idx

    def _read_into(self, idx: _KindIndex, kind: Kind, *, since: int | None) -> None:
        """Add the current versions of ``kind`` to ``idx``: all of them, or (``since``) those
        written after that transaction time."""
        table = table_of(kind)
        tags = "labels" if kind == "node" else "[rel]"
        newer = "" if since is None else f" AND tx_from > {int(since)}"
        docs = self._connection.query(
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
            self._connection.cursor()
            .execute(
                f"SELECT p.term, p.vid, p.tf FROM postings p JOIN {table} r ON r.vid = p.vid "
                f"WHERE r.tx_to IS NULL{newer.replace('tx_from', 'r.tx_from')} "
                "ORDER BY p.term, p.vid"
            )
            .fetchnumpy()
        )
        idx.add_postings(
            [str(t) for t in rows["term"]],
            np.asarray(rows["vid"], dtype=np.int64),
            np.asarray(rows["tf"], dtype=np.float64),
        )

    def catch_up(self, since: int, closed: Mapping[Kind, np.ndarray]) -> None:
        """Apply what other processes committed after ``since`` (issue 11): drop the versions
        they ``closed`` (by kind), add the ones they wrote."""
        for kind, idx in self._kinds.items():
            with self._kinds.lock:
                idx.remove(closed[kind])
                self._read_into(idx, kind, since=since)

    def load(self, kind: Kind) -> None:
        """Build the index of ``kind`` now if it is not built yet."""
        self._kinds.get_or_build(kind, lambda: self._load(kind))

    def consistent(self) -> AbstractContextManager[None]:
        """Hold while scoring and fetching: no commit is published in between."""
        return self._connection.published.reading()

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

    def after_commit(
        self,
        kind: Kind,
        removed: np.ndarray,
        added: np.ndarray,
        lens: np.ndarray,
        ids: list[str],
        groups: list[str],
        labels: list[tuple[str, ...]],
        postings: tuple[list[str], np.ndarray, np.ndarray],
    ) -> None:
        """Apply one commit's changes to the index of ``kind``: drop the ``removed`` versions,
        add the ``added`` ones with their postings (sorted by term). An index not built yet is
        left alone: it is read from the tables, commit included, when first used."""
        with self._kinds.lock:
            idx = self._kinds.get(kind)
            if idx is None:
                return
            idx.remove(removed)
            idx.add_docs(added, lens, ids, groups, labels)
            idx.add_postings(*postings)

    def forget(self) -> None:
        """Drop every cached structure (it is rebuilt on next use)."""
        self._kinds.clear()
