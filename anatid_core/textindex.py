"""BM25 full text over our own postings table, written in the same transaction as the rows.

DuckDB's ``fts`` extension is downloaded at run time and is not available offline, so anatid keeps
its own postings: one row per (version, term) with the term frequency, plus each version's
document length on the record row. Scores are Okapi BM25 with Lucene's idf,
``ln(1 + (N - df + 0.5) / (df + 0.5))``, where N, df and the average document length are taken
over every visible record of the kind (search filters do not change scores, as in Lucene).
"""

from __future__ import annotations

import re
import threading
from collections import Counter
from typing import TYPE_CHECKING

import numpy as np

from .errors import InvalidInput
from .filters import SqlFilter
from .model import Hit, Kind

if TYPE_CHECKING:
    from .reads import Reader
    from .store import Store

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


def bm25_search(reader: Reader, kind: Kind, query: str, k: int, f: SqlFilter) -> list[Hit]:
    if not isinstance(query, str):
        raise InvalidInput(f"query must be a str, got {type(query).__name__}")
    if k < 0:
        raise InvalidInput(f"k must be >= 0, got {k}")
    terms = list(dict.fromkeys(tokenize(query)))
    if not terms or k == 0:
        return []
    cache = reader.text_cache if reader._visibility().is_current else None
    if cache is not None and cache.usable():
        scored = cache.search(kind, terms)
        return _materialise(reader, kind, scored, k, f)
    return _sql_search(reader, kind, terms, k, f)


def _sql_search(reader: Reader, kind: Kind, terms: list[str], k: int, f: SqlFilter) -> list[Hit]:
    from .reads import cols_of, item_from_row, table_of

    table = table_of(kind)
    vis = reader._visibility().sql("d")
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
    rows = reader._query(sql, [terms, *f.params, k])
    return [
        Hit(id=row[2], score=float(row[0]), item=item_from_row(kind, row[1:]), rank=i + 1)
        for i, row in enumerate(rows)
    ]


def _materialise(
    reader: Reader, kind: Kind, scored: tuple[np.ndarray, np.ndarray], k: int, f: SqlFilter
) -> list[Hit]:
    """Walk the cache's ranking best-first, keeping candidates that pass the filters in SQL."""
    from .reads import cols_of, item_from_row, table_of

    vids, scores = scored
    if len(vids) == 0:
        return []
    order = np.argsort(-scores, kind="stable")
    hits: list[Hit] = []
    start, batch = 0, max(4 * k, 64)
    while start < len(order) and len(hits) < k:
        chunk = order[start : start + batch]
        start += batch
        chunk_vids = [int(v) for v in vids[chunk]]
        score_of = {int(v): float(s) for v, s in zip(vids[chunk], scores[chunk], strict=False)}
        rows = reader._query(
            f"SELECT {cols_of(kind)} FROM {table_of(kind)} r "
            f"WHERE r.vid IN (SELECT unnest(?::BIGINT[])) AND {f.sql()}",
            [chunk_vids, *f.params],
        )
        found = sorted(rows, key=lambda r: (-score_of[r[0]], r[1]))
        for row in found:
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


class TextCache:
    """An in-memory copy of the current postings, for fast BM25 on current reads.

    Built lazily from the table, updated after each commit, never the source of truth. Off by
    default until a benchmark shows it is needed (see docs/benchmarks.md).
    """

    enabled = False

    def __init__(self, store: Store) -> None:
        self._store = store
        self._lock = threading.Lock()

    def usable(self) -> bool:
        return False

    def search(self, kind: Kind, terms: list[str]) -> tuple[np.ndarray, np.ndarray]:
        raise NotImplementedError  # pragma: no cover - usable() is False

    def forget(self) -> None:
        """Drop every cached structure (after purges)."""
