"""BM25 full text over our own postings table, written in the same transaction as the rows.

DuckDB's ``fts`` extension is downloaded at run time and is not available offline, so anatid keeps
its own postings: one row per (version, term) with the term frequency, plus each version's
document length on the record row (:mod:`anatid_core.storage.terms`). Scores are Okapi BM25
with Lucene's idf, ``ln(1 + (N - df + 0.5) / (df + 0.5))``, where N, df and the average document
length are taken over every visible record of the kind (search filters do not change scores, as
in Lucene). The current state is scored in the in-memory text index
(:mod:`anatid_core.indexes.text`), or, where the kind has one, in its persistent postings file
(:mod:`anatid_core.indexes.text_file`), which also scores a past view whose versions it all
holds; other past views, and a reader inside its own transaction, score by SQL.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from .base.errors import InvalidInput
from .base.model import Hit, Kind
from .base.settings import SETTINGS
from .hits import Ranked, fetch_versions, top_with_ties
from .indexes.current_records import CurrentRecords
from .indexes.registry import Indexes
from .indexes.text import BM25, Scored
from .storage.connection import Connection
from .storage.filters import SqlFilter
from .storage.rows import Visibility, cols_of, item_from_row, table_of
from .storage.terms import tokenize


def bm25_search(
    db: Connection,
    indexes: Indexes,
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
    found = _bm25(db, indexes, vis, kind, query, k, f, groups, labels, only_tags, rows=True)
    return [h for h in found if isinstance(h, Hit)]


def bm25_ranking(
    db: Connection,
    indexes: Indexes,
    vis: Visibility,
    kind: Kind,
    query: str,
    k: int,
    f: SqlFilter,
    *,
    groups: Iterable[str] | None = None,
    labels: Iterable[str] | None = None,
    only_tags: bool = False,
) -> list[Hit] | list[Ranked]:
    """What :func:`bm25_search` finds, for a fusion that reads the rows of its own winners
    only: the ranking without rows where the persistent text index applied every filter,
    else the hits."""
    return _bm25(db, indexes, vis, kind, query, k, f, groups, labels, only_tags, rows=False)


def _bm25(
    db: Connection,
    indexes: Indexes,
    vis: Visibility,
    kind: Kind,
    query: str,
    k: int,
    f: SqlFilter,
    groups: Iterable[str] | None,
    labels: Iterable[str] | None,
    only_tags: bool,
    *,
    rows: bool,
) -> list[Hit] | list[Ranked]:
    if not isinstance(query, str):
        raise InvalidInput(f"query must be a str, got {type(query).__name__}")
    if k < 0:
        raise InvalidInput(f"k must be >= 0, got {k}")
    terms = list(dict.fromkeys(tokenize(query)))
    if not terms or k == 0:
        return []
    text = indexes.text
    files = indexes.text_files
    opened = files.kind(kind) if files.usable() else None
    if opened is not None and not vis.is_current:  # a past view, from the postings file
        visible = _visible_vids(db, indexes, vis, kind)
        # The visible set is applied: with no other filter the k best are the answer, and
        # their rows are read by id alone (the scored version ids pick the visible ones; the
        # past view's condition beside an id lookup made DuckDB scan: ~50 ms at 1M).
        final = only_tags and groups is None and labels is None
        with indexes.consistent():
            among = opened.scored_among(terms, visible)
            if among is not None:
                rows_of = SqlFilter(kind) if final else f
                return _materialise(db, indexes.current, kind, among, k, rows_of, final=final)
        opened = None  # versions newer than the file are visible: SQL scores them
    if opened is not None:  # the mapped postings answer (issue 34)
        tags = (_listed(groups), _listed(labels)) if only_tags else None
        filtered = groups is not None or labels is not None
        with indexes.consistent():
            # With no filter left to apply, the k best are the answer: prune (MaxScore). A few
            # more than k, in case rows of the best were replaced before they are read.
            scored = opened.scored(terms, filtered, best=4 * k if only_tags else None)
            final = only_tags and scored.complete
            if final and not rows:
                return _ranking(scored, k)
            return _materialise(db, indexes.current, kind, scored, k, f, final=final, tags=tags)
    if vis.is_current and text.usable() and not _index_coming(indexes, kind):
        tags: tuple[list[str] | None, list[str] | None] | None = None
        if only_tags:
            tags = (_listed(groups), _listed(labels))
            groups, labels = tags
            # The winners' rows come from memory (built here, outside the publish lock).
            indexes.current.view(kind)
        while True:
            docs = text.load(kind)  # outside the publish lock: loading waits for writers
            files.noticed(kind, docs, SETTINGS["ann_min_rows"])
            with indexes.consistent():
                scored = text.search_loaded(kind, terms, groups, labels)
                if scored is not None:  # else forgotten (purge_all) since: load it again
                    final = only_tags and scored.complete
                    return _materialise(
                        db, indexes.current, kind, scored, k, f, final=final, tags=tags
                    )
    return _sql_search(db, vis, kind, terms, k, f)


def _index_coming(indexes: Indexes, kind: Kind) -> bool:
    """Whether the kind's postings are not in memory and a build is under way: SQL answers
    until its index is published (:meth:`~.indexes.registry.Indexes.sql_meanwhile`)."""
    return not indexes.text.loaded(kind) and indexes.sql_meanwhile(kind, None)


def _ranking(scored: Scored, k: int) -> list[Ranked]:
    """The best ``k`` of a complete ranking, ordered as its rows would be (score, then id)."""
    if len(scored.vids) == 0:
        return []
    top = top_with_ties(scored.scores, k)
    ids = scored.ids[scored.vids[top]]
    best = sorted((-float(scored.scores[i]), str(n)) for i, n in zip(top, ids, strict=True))[:k]
    return [Ranked(i, -neg, r + 1) for r, (neg, i) in enumerate(best)]


def _visible_vids(db: Connection, indexes: Indexes, vis: Visibility, kind: Kind) -> np.ndarray:
    """The version ids a past view sees, sorted (BM25's N, df and lengths count over them;
    kept until the file changes: :mod:`anatid_core.indexes.filter_cache`)."""
    sql = f"SELECT d.vid FROM {table_of(kind)} d WHERE {vis.sql('d', kind)}"
    return indexes.filters.vids_where(db, sql)


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
    current: CurrentRecords,
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
    chunk = top_with_ties(scores, batch)
    remaining: np.ndarray | None = None  # positions not fetched yet, made if a round needs them
    while True:
        score_of = {int(v): float(sc) for v, sc in zip(vids[chunk], scores[chunk], strict=True)}
        for row in fetch_versions(
            db, current, kind, [str(i) for i in ids[vids[chunk]]], score_of, f, tags
        ):
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
        if len(hits) >= k:
            return hits
        if remaining is None:  # only past the first round: ~3 ms for every match of 1M facts
            remaining = np.delete(np.arange(len(vids)), chunk)
        if not len(remaining):
            return hits
        batch *= 4
        top = top_with_ties(scores[remaining], batch)
        chunk = remaining[top]
        remaining = np.delete(remaining, top)


__all__ = ["bm25_ranking", "bm25_search"]
