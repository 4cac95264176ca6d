"""From scores to hits: the best few of a ranking, and the rows of the versions it scored.

Both searches (:mod:`anatid_core.text_search`, :mod:`anatid_core.vector_search`) score in an
in-memory index and then read the winners' rows: from the in-memory current records where they
answer, else through the id index.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from .base.model import Kind
from .indexes.current_records import CurrentRecords
from .storage.connection import Connection
from .storage.filters import SqlFilter
from .storage.rows import cols_of, table_of
from .storage.sql import rows_in


class Ranked(NamedTuple):
    """A search arm's hit before its row is read: the record id, its score and rank (1-based).
    A fusion reads the rows of its own winners only (:meth:`anatid_core.reads.Reader.recall`)."""

    id: str
    score: float
    rank: int


def top_with_ties(scores: np.ndarray, take: int) -> np.ndarray:
    """Positions of the ``take`` best scores, plus every score tied with the worst of them, so
    that ordering by (score, id) afterwards matches a full sort."""
    if take >= len(scores):
        return np.arange(len(scores))
    part = np.argpartition(-scores, take - 1)[:take]
    return np.flatnonzero(scores >= scores[part].min())


def fetch_versions(
    db: Connection,
    current: CurrentRecords,
    kind: Kind,
    ids: list[str],
    score_of: dict[int, float],
    f: SqlFilter,
    tags: tuple[list[str] | None, list[str] | None] | None = None,
) -> list[tuple[Any, ...]]:
    """Rows of the scored versions that pass ``f``, best first, fetched through the id index,
    or from the in-memory ``current`` records when ``f`` is the current visibility and ``tags``
    (groups, labels or rels) and nothing else (the caller holds the publish lock).

    A row whose version is no longer the one scored (a commit landed meanwhile) is dropped.
    """
    rows = None if tags is None else current.rows_passing(kind, ids, *tags)
    if rows is None:
        source, condition, lookup = rows_in(table_of(kind), "id", ids)
        rows = db.query(
            f"SELECT {cols_of(kind)} FROM {source} WHERE {condition} AND {f.sql()}",
            [*lookup, *f.params],
        )
    rows = [r for r in rows if r[0] in score_of]
    rows.sort(key=lambda r: (-score_of[r[0]], r[1]))
    return rows


__all__ = ["Ranked", "fetch_versions", "top_with_ties"]
