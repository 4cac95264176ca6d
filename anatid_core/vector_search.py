"""Cosine search over a vector space: through its persistent index where it has one, else exact.

A space with a persistent index (built by ``Store.build_indexes``; :mod:`anatid_core.indexes.ann`)
is searched through it for every read (current, ``as_of``, scoped, filtered), with exact
scores and an exact scan where the visible part is small. Otherwise:

The current state is scored in the space's in-memory matrix (:mod:`anatid_core.indexes.vectors`):
a matrix-vector product over 100k x 1024 takes ~23 ms where DuckDB's
``array_cosine_similarity`` scan takes ~150 ms. Historical reads and reads inside a writer's own
transaction use the SQL scan.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

from .base.errors import InvalidInput
from .base.identifiers import check_space
from .base.model import Hit, Kind
from .base.settings import SETTINGS
from .hits import Ranked, fetch_versions, top_with_ties
from .indexes.ann import SpaceIndex, Visible
from .indexes.registry import Indexes
from .indexes.vectors import Matrix
from .storage.connection import Connection
from .storage.embeddings import space_table
from .storage.filters import SqlFilter
from .storage.prepare import as_vector
from .storage.rows import Visibility, cols_of, item_from_row, table_of


def cosine_search(
    db: Connection,
    indexes: Indexes,
    vis: Visibility,
    kind: Kind,
    space: str,
    vector: Sequence[float],
    k: int,
    f: SqlFilter,
    *,
    min_score: float | None,
    groups: Iterable[str] | None,
    labels: Iterable[str] | None,
    only_tags: bool,
) -> list[Hit]:
    """Cosine top-k: through the space's persistent index if it has one, else exact.
    ``groups``/``labels`` (an edge's labels are its rel) are applied in the in-memory matrix;
    ``only_tags`` says ``f`` filters on nothing else besides visibility."""
    found = _cosine(
        db, indexes, vis, kind, space, vector, k, f, min_score, groups, labels, only_tags, True
    )
    return [h for h in found if isinstance(h, Hit)]


def cosine_ranking(
    db: Connection,
    indexes: Indexes,
    vis: Visibility,
    kind: Kind,
    space: str,
    vector: Sequence[float],
    k: int,
    f: SqlFilter,
    *,
    groups: Iterable[str] | None,
    labels: Iterable[str] | None,
    only_tags: bool,
) -> list[Hit] | list[Ranked]:
    """What :func:`cosine_search` finds, for a fusion that reads the rows of its own winners
    only: the ranking without rows where the persistent index answers (reading a version's
    row costs DuckDB about half a millisecond), else the hits."""
    return _cosine(
        db, indexes, vis, kind, space, vector, k, f, None, groups, labels, only_tags, False
    )


def _cosine(
    db: Connection,
    indexes: Indexes,
    vis: Visibility,
    kind: Kind,
    space: str,
    vector: Sequence[float],
    k: int,
    f: SqlFilter,
    min_score: float | None,
    groups: Iterable[str] | None,
    labels: Iterable[str] | None,
    only_tags: bool,
    rows: bool,
) -> list[Hit] | list[Ranked]:
    if k < 0:
        raise InvalidInput(f"k must be >= 0, got {k}")
    check_space(space)  # before the lookups: a bad name must not reach DuckDB's own errors
    q = as_vector(vector, what="query vector")
    current = indexes.current
    ann = indexes.ann
    opened = ann.space(kind, space) if ann.usable() else None
    # A space a commit of this process has used, or that has an index, is known (outside this
    # thread's transaction).
    found = current.spaces.get((kind, space)) if current.usable() and current.enabled() else None
    if opened is not None:
        found = (opened.table, opened.manifest.dim)
    if found is None:
        found = space_table(db.cursor(), kind, space)
    if found is None or k == 0:
        return []
    tbl, dim = found
    if q.shape[0] != dim:
        raise InvalidInput(
            f"query vector has dimension {q.shape[0]}, but the {kind} vector space {space!r} "
            f"holds dimension {dim}"
        )
    norm = float(np.linalg.norm(q))
    if norm == 0.0:
        return []  # cosine is undefined for a zero vector: nothing is similar to it
    qn = q / norm
    if opened is not None:
        plain = vis.is_current and only_tags and groups is None and labels is None
        return _ann_search(db, indexes, opened, vis, kind, qn, k, f, min_score, plain, rows)
    vectors = indexes.vectors
    if vis.is_current and vectors.usable():
        if vectors.built(kind, space) is None and indexes.sql_meanwhile(kind, space):
            return _sql_search(db, kind, space, tbl, dim, q, k, f, min_score)
        current.view(kind)  # the winners' rows come from memory (built outside the lock)
        while True:
            matrix = vectors.matrix(kind, space, tbl, dim)  # outside the lock: loading waits
            ann.noticed(kind, space, matrix.n, SETTINGS["ann_min_rows"])
            with indexes.consistent():
                if vectors.built(kind, space) is matrix:  # else forgotten since: load again
                    return _in_memory_search(
                        db,
                        indexes,
                        vis,
                        kind,
                        matrix,
                        qn,
                        k,
                        f,
                        min_score,
                        groups,
                        labels,
                        only_tags,
                    )
    return _sql_search(db, kind, space, tbl, dim, q, k, f, min_score)


def _sql_search(
    db: Connection,
    kind: Kind,
    space: str,
    tbl: str,
    dim: int,
    q: np.ndarray,
    k: int,
    f: SqlFilter,
    min_score: float | None,
) -> list[Hit]:
    score_floor = "" if min_score is None else "WHERE s.score >= ?"
    sql = f"""
        SELECT s.score, {cols_of(kind)} FROM (
            SELECT r.vid, array_cosine_similarity(v.embedding, ?::FLOAT[{dim}]) AS score
            FROM {table_of(kind)} r JOIN {tbl} v ON v.vid = r.vid
            WHERE r.space = ? AND {f.sql()}
        ) s JOIN {table_of(kind)} r ON r.vid = s.vid
        {score_floor}
        ORDER BY s.score DESC, r.id LIMIT ?
    """
    params: list[Any] = [q.tolist(), space, *f.params]
    if min_score is not None:
        params.append(float(min_score))
    params.append(k)
    rows = db.query(sql, params)
    return [
        Hit(id=row[2], score=float(row[0]), item=item_from_row(kind, row[1:]), rank=i + 1)
        for i, row in enumerate(rows)
        if row[0] is not None
    ]


def _in_memory_search(
    db: Connection,
    indexes: Indexes,
    vis: Visibility,
    kind: Kind,
    m: Matrix,
    qn: np.ndarray,
    k: int,
    f: SqlFilter,
    min_score: float | None,
    groups: Iterable[str] | None,
    labels: Iterable[str] | None,
    only_tags: bool,
) -> list[Hit]:
    found = m.scores(qn, groups, labels)
    if found is None:
        return []
    scores, vids, ids, mask, all_labels = found
    if not (only_tags and all_labels):  # the matrix did not apply every filter
        mask &= _passing(db, indexes, kind, m.space, f, vids)
    if min_score is not None:
        mask &= scores >= min_score
    candidates = np.flatnonzero(mask)
    if len(candidates) == 0:
        return []
    ordered = candidates[top_with_ties(scores[candidates], k)]
    score_of = {int(vids[i]): float(scores[i]) for i in ordered}

    visible = SqlFilter(kind)
    visible.add(vis.sql(kind=kind))
    picked = [ids[i] for i in ordered]
    rows = fetch_versions(db, indexes.current, kind, picked, score_of, visible, (None, None))[:k]
    return [
        Hit(id=row[1], score=score_of[row[0]], item=item_from_row(kind, row), rank=i + 1)
        for i, row in enumerate(rows)
    ]


def _ann_search(
    db: Connection,
    indexes: Indexes,
    s: SpaceIndex,
    vis: Visibility,
    kind: Kind,
    qn: np.ndarray,
    k: int,
    f: SqlFilter,
    min_score: float | None,
    plain: bool,
    rows: bool = True,
) -> list[Hit] | list[Ranked]:
    """Top-k through the space's persistent index (:mod:`anatid_core.indexes.ann`): the
    visible set is the current bitmap for a ``plain`` current search, else the version ids
    that pass ``f`` (visibility, scope and filters) in SQL. The winners' rows are read by
    record id (the index's keys file names them): from the in-memory current records if they
    are built (never built here: a fresh process's first search would pay for all of them),
    else through the id index."""
    with indexes.consistent():
        visible = (
            Visible(bitmap=s.current)
            if plain
            else Visible(members=_vids_passing(db, indexes, kind, s.space, f))
        )
        vids, scores = s.scores(qn, k, visible)
        if min_score is not None:
            keep = scores >= min_score
            vids, scores = vids[keep], scores[keep]
        if not len(vids):
            return []
        ordered = top_with_ties(scores, k)
        score_of = {int(vids[i]): float(scores[i]) for i in ordered}
        named = s.ids_of(vids[ordered])
        if not rows:  # the ranking alone, as the rows would order it
            ranked = sorted(
                (-float(scores[i]), name) for i, name in zip(ordered, named, strict=True) if name
            )[:k]
            return [Ranked(i, -neg, r + 1) for r, (neg, i) in enumerate(ranked)]
        ids = sorted({i for i in named if i is not None})
        # The scored version ids are visible ones: read the rows by id alone (a past view's
        # condition beside the id lookup made DuckDB scan), and keep the scored versions.
        visible = SqlFilter(kind)
        if vis.is_current:
            visible.add(vis.sql(kind=kind))
        tags = (None, None) if vis.is_current else None
        fetched = fetch_versions(db, indexes.current, kind, ids, score_of, visible, tags)
    return [
        Hit(id=row[1], score=score_of[row[0]], item=item_from_row(kind, row), rank=i + 1)
        for i, row in enumerate(fetched[:k])
    ]


def _vids_passing(
    db: Connection, indexes: Indexes, kind: Kind, space: str, f: SqlFilter
) -> np.ndarray:
    """The version ids of ``space`` that pass ``f``, sorted (kept until the file changes:
    :mod:`anatid_core.indexes.filter_cache`)."""
    sql = f"SELECT r.vid FROM {table_of(kind)} r WHERE r.space = ? AND {f.sql()}"
    return indexes.filters.vids_where(db, sql, [space, *f.params])


def _passing(
    db: Connection, indexes: Indexes, kind: Kind, space: str, f: SqlFilter, vids: np.ndarray
) -> np.ndarray:
    """Which of the (sorted) ``vids`` pass ``f`` in SQL, as a mask over them."""
    allowed = _vids_passing(db, indexes, kind, space, f)
    pos = np.searchsorted(vids, allowed)
    inside = pos < len(vids)
    pos = pos[inside]
    pos = pos[vids[pos] == allowed[inside]]
    keep = np.zeros(len(vids), dtype=bool)
    keep[pos] = True
    return keep


__all__ = ["cosine_ranking", "cosine_search"]
