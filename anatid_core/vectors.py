"""Vector spaces and exact cosine search.

Each (kind, space) has a fixed dimension and its own table ``vec_<n>(vid, embedding FLOAT[dim])``
keyed by the version id of the node or edge that carries the embedding. The tables are the source
of truth. For current reads, :class:`VectorCache` keeps a normalised float32 matrix of the current
versions (built on first use, updated after each commit): a matrix-vector product over 100k x 1024
takes ~23 ms where DuckDB's ``array_cosine_similarity`` scan takes ~150 ms. Historical reads and
reads inside a writer's own transaction use the SQL scan.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Mapping, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from typing import Any

import duckdb
import numpy as np
import pyarrow as pa

from .connection import Connection
from .derived import Derived
from .errors import InvalidInput
from .filters import SqlFilter
from .identifiers import check_space
from .model import Hit, Kind
from .rows import Visibility, cols_of, item_from_row, table_of
from .sql import SMALL_BATCH, arrow_table, one, run
from .tags import Tags
from .textindex import fetch_versions, top_with_ties


def as_vector(values: Sequence[float], *, what: str) -> np.ndarray:
    """Validate an embedding: a flat, non-empty sequence of finite numbers (float32 range)."""
    try:
        arr = np.asarray(values, dtype=np.float32)
    except (TypeError, ValueError) as exc:
        raise InvalidInput(f"{what} must be a sequence of numbers ({exc})") from None
    if arr.ndim != 1 or arr.size == 0:
        raise InvalidInput(
            f"{what} must be a flat, non-empty list of numbers, got shape {arr.shape}"
        )
    # A value beyond the float32 range becomes inf in the cast, so one check covers both.
    if not np.isfinite(arr.sum()) and not np.isfinite(arr).all():
        raise InvalidInput(
            f"{what} contains NaN or infinity (or a value beyond the float32 range); "
            "embeddings must be finite numbers"
        )
    return arr


# ------------------------------------------------------------------------------------ spaces


def space_table(cur: duckdb.DuckDBPyConnection, kind: Kind, space: str) -> tuple[str, int] | None:
    row = one(cur, "SELECT tbl, dim FROM spaces WHERE kind = ? AND name = ?", [kind, space])
    return (row[0], int(row[1])) if row else None


def ensure_space(cur: duckdb.DuckDBPyConnection, kind: Kind, space: str, dim: int) -> str:
    """The table of a space, created with ``dim`` if new; a different ``dim`` is an error."""
    found = space_table(cur, kind, space)
    if found is not None:
        tbl, have = found
        if have != dim:
            raise InvalidInput(
                f"embedding has dimension {dim}, but the {kind} vector space {space!r} holds "
                f"dimension {have}; use the same embedding model, or another space name"
            )
        return tbl
    row = one(cur, "SELECT count(*) FROM spaces")
    n = int(row[0]) if row else 0
    tbl = f"vec_{n + 1}"
    while one(
        cur,
        "SELECT count(*) FROM information_schema.tables WHERE table_name = ? "
        "AND table_catalog = current_database()",
        [tbl],
    )[0]:  # type: ignore[index]
        n += 1
        tbl = f"vec_{n + 1}"
    run(cur, f"CREATE TABLE {tbl} (vid BIGINT NOT NULL, embedding FLOAT[{int(dim)}] NOT NULL)")
    run(cur, "INSERT INTO spaces VALUES (?, ?, ?, ?)", [kind, space, int(dim), tbl])
    return tbl


def all_spaces(cur: duckdb.DuckDBPyConnection) -> list[tuple[Kind, str, int, str]]:
    return [
        (r[0], r[1], int(r[2]), r[3])
        for r in cur.execute("SELECT kind, name, dim, tbl FROM spaces ORDER BY tbl").fetchall()
    ]


def insert_vectors(
    cur: duckdb.DuckDBPyConnection, tbl: str, vids: np.ndarray, mat: np.ndarray
) -> None:
    dim = mat.shape[1]
    if len(vids) <= SMALL_BATCH:
        # Bound parameters: registering an Arrow table costs more than a few rows. A numpy row
        # binds as DOUBLE[], which holds every float32 exactly.
        values = ", ".join([f"(?, ?::FLOAT[{int(dim)}])"] * len(vids))
        params: list[Any] = []
        for vid, row in zip(vids.tolist(), mat, strict=True):
            params.extend([int(vid), row])
        run(cur, f"INSERT INTO {tbl} VALUES {values}", params)
        return
    column = pa.FixedSizeListArray.from_arrays(pa.array(mat.reshape(-1), type=pa.float32()), dim)
    table = pa.table({"vid": pa.array(vids, type=pa.int64()), "embedding": column})
    cur.register("_anatid_vectors", table)
    try:
        run(cur, f"INSERT INTO {tbl} SELECT vid, embedding FROM _anatid_vectors")
    finally:
        cur.unregister("_anatid_vectors")


def fetch_matrix(
    cur: duckdb.DuckDBPyConnection, sql: str, params: list[Any], dim: int
) -> tuple[np.ndarray, np.ndarray, list[list[Any]]]:
    """Run a query returning (vid, embedding, extra...) and give (vids, matrix, extra columns)."""
    table = arrow_table(cur.execute(sql, params))
    vids = _numbers(table.column(0).combine_chunks()).astype(np.int64)
    emb = table.column(1).combine_chunks()
    if len(emb) == 0:
        mat = np.zeros((0, dim), dtype=np.float32)
    else:
        mat = _numbers(emb.flatten()).astype(np.float32).reshape(-1, dim)
    extras = [table.column(i).to_pylist() for i in range(2, table.num_columns)]
    return vids, mat, extras


#: Arrow types whose values are read straight from the data buffer.
_BUFFER_DTYPES = {"int64": np.int64, "float": np.float32, "double": np.float64}


def _numbers(arr: Any) -> np.ndarray:
    """A numeric Arrow array without nulls as numpy, read from its buffer: pyarrow's
    ``to_numpy`` imports pandas when it is installed (up to 2 s on a loaded machine), which a
    process that only searches or erases would otherwise pay on its first call."""
    dtype = _BUFFER_DTYPES.get(str(arr.type))
    if dtype is None or arr.null_count:
        return arr.to_numpy(zero_copy_only=False)
    return np.frombuffer(arr.buffers()[1], dtype=dtype)[arr.offset : arr.offset + len(arr)]


def embeddings_of(
    db: Connection, vis: Visibility, kind: Kind, ids: list[str]
) -> dict[str, list[float]]:
    return {i: row.tolist() for i, row in embedding_arrays_of(db, vis, kind, ids).items()}


def embedding_arrays_of(
    db: Connection, vis: Visibility, kind: Kind, ids: list[str]
) -> dict[str, np.ndarray]:
    """The visible embeddings of ``ids``, whatever their space, as float32 rows."""
    if not ids:
        return {}
    out: dict[str, np.ndarray] = {}
    for k, space, dim, tbl in all_spaces(db.cursor()):
        if k != kind:
            continue
        _vids, mat, (rids,) = fetch_matrix(
            db.cursor(),
            f"SELECT r.vid, v.embedding, r.id FROM {table_of(kind)} r JOIN {tbl} v "
            f"ON v.vid = r.vid WHERE r.space = ? AND r.id IN (SELECT unnest(?::VARCHAR[])) "
            f"AND {vis.sql('r', kind)}",
            [space, ids],
            dim,
        )
        out.update(zip(rids, mat, strict=True))
    return out


# ------------------------------------------------------------------------------------ search


def cosine_search(
    db: Connection,
    cache: VectorCache,
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
    """Exact cosine top-k. ``groups``/``labels`` (an edge's labels are its rel) are applied in
    the in-memory matrix; ``only_tags`` says ``f`` filters on nothing else besides visibility."""
    if k < 0:
        raise InvalidInput(f"k must be >= 0, got {k}")
    check_space(space)  # before the lookups: a bad name must not reach DuckDB's own errors
    q = as_vector(vector, what="query vector")
    current = db.current
    # A space a commit of this process has used is known (outside this thread's transaction).
    found = current.spaces.get((kind, space)) if current.usable() and current.enabled() else None
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
    if vis.is_current and cache.usable():
        current.view(kind)  # the winners' rows come from memory (built outside the lock)
        while True:
            matrix = cache.matrix(kind, space, tbl, dim)  # outside the lock: loading waits
            with cache.consistent():
                if cache.current(kind, space) is matrix:  # else forgotten since: load again
                    return _cached_search(
                        db, vis, kind, matrix, q / norm, k, f, min_score, groups, labels, only_tags
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


def _cached_search(
    db: Connection,
    vis: Visibility,
    kind: Kind,
    m: _Matrix,
    qn: np.ndarray,
    k: int,
    f: SqlFilter,
    min_score: float | None,
    groups: Iterable[str] | None,
    labels: Iterable[str] | None,
    only_tags: bool,
) -> list[Hit]:
    with m.lock:
        n = m.n
        if n == 0:
            return []
        scores = m.mat[:n] @ qn
        vids = m.vids[:n].copy()
        ids = m.ids[:n]
        mask = m.alive[:n].copy()
        tagged = m.tags.mask(m.groups[:n], m.labels[:n], groups, labels)
        if tagged is not None:
            mask &= tagged
        in_memory = only_tags and (labels is None or m.tags.can_filter_labels())
    if not in_memory:
        mask &= _passing(db, kind, m.space, f, vids)
    if min_score is not None:
        mask &= scores >= min_score
    candidates = np.flatnonzero(mask)
    if len(candidates) == 0:
        return []
    ordered = candidates[top_with_ties(scores[candidates], k)]
    score_of = {int(vids[i]): float(scores[i]) for i in ordered}

    visible = SqlFilter(kind)
    visible.add(vis.sql(kind=kind))
    rows = fetch_versions(db, kind, [ids[i] for i in ordered], score_of, visible, (None, None))[:k]
    return [
        Hit(id=row[1], score=score_of[row[0]], item=item_from_row(kind, row), rank=i + 1)
        for i, row in enumerate(rows)
    ]


def _passing(db: Connection, kind: Kind, space: str, f: SqlFilter, vids: np.ndarray) -> np.ndarray:
    """Which of the (sorted) ``vids`` pass ``f`` in SQL, as a mask over them."""
    allowed = (
        db.cursor()
        .execute(
            f"SELECT r.vid FROM {table_of(kind)} r WHERE r.space = ? AND {f.sql()} ORDER BY r.vid",
            [space, *f.params],
        )
        .fetchnumpy()["vid"]
    )
    pos = np.searchsorted(vids, allowed)
    inside = pos < len(vids)
    pos = pos[inside]
    pos = pos[vids[pos] == allowed[inside]]
    keep = np.zeros(len(vids), dtype=bool)
    keep[pos] = True
    return keep


# ------------------------------------------------------------------------------------- cache


@dataclass
class _Matrix:
    """Normalised rows of one space's current versions, in increasing vid order."""

    kind: Kind
    space: str
    dim: int
    vids: np.ndarray
    mat: np.ndarray
    alive: np.ndarray
    groups: np.ndarray
    n: int
    labels: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.uint64))
    ids: list[str] = field(default_factory=list)  # record id per row: hits are fetched by id
    tags: Tags = field(default_factory=Tags)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def append(
        self,
        vids: np.ndarray,
        mat: np.ndarray,
        groups: list[str],
        ids: list[str],
        labels: list[tuple[str, ...]],
    ) -> None:
        with self.lock:
            need = self.n + len(vids)
            if need > len(self.vids):
                cap = max(need, 2 * len(self.vids), 1024)
                self.vids = _grow(self.vids, cap)
                self.mat = _grow(self.mat, cap)
                self.alive = _grow(self.alive, cap)
                self.groups = _grow(self.groups, cap)
                self.labels = _grow(self.labels, cap)
            sl = slice(self.n, need)
            self.vids[sl] = vids
            self.mat[sl] = _normalise(mat)
            self.alive[sl] = True
            self.groups[sl], self.labels[sl] = self.tags.encode(groups, labels)
            del self.ids[self.n :]
            self.ids.extend(ids)
            self.n = need

    def remove(self, vids: np.ndarray) -> None:
        with self.lock:
            if self.n == 0 or len(vids) == 0:
                return
            pos = np.searchsorted(self.vids[: self.n], vids)
            ok = pos < self.n
            pos = pos[ok]
            pos = pos[self.vids[pos] == vids[ok]]
            self.alive[pos] = False


def _grow(arr: np.ndarray, cap: int) -> np.ndarray:
    out = np.zeros((cap, *arr.shape[1:]), dtype=arr.dtype)
    out[: len(arr)] = arr
    return out


def _normalise(mat: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(mat, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    return (mat / norms).astype(np.float32)


class VectorCache:
    """Per-space matrices of current versions; derived data, rebuilt on open, never authoritative."""

    def __init__(self, connection: Connection) -> None:
        self._connection = connection
        self._spaces: Derived[tuple[Kind, str], _Matrix] = Derived(connection)

    def usable(self) -> bool:
        # Inside this thread's own transaction the cache lacks its uncommitted rows: use SQL.
        return not self._connection.in_own_transaction()

    def consistent(self) -> AbstractContextManager[None]:
        """Hold while scoring and fetching: no commit is published in between."""
        return self._connection.published.reading()

    def current(self, kind: Kind, space: str) -> _Matrix | None:
        """The matrix of a space if it is built (never loads it)."""
        return self._spaces.get((kind, space))

    def matrix(self, kind: Kind, space: str, tbl: str, dim: int) -> _Matrix:
        return self._spaces.get_or_build((kind, space), lambda: self._load(kind, space, tbl, dim))

    def _load(self, kind: Kind, space: str, tbl: str, dim: int) -> _Matrix:
        m = _Matrix(
            kind=kind,
            space=space,
            dim=dim,
            vids=np.zeros(0, dtype=np.int64),
            mat=np.zeros((0, dim), dtype=np.float32),
            alive=np.zeros(0, dtype=bool),
            groups=np.zeros(0, dtype=np.int32),
            n=0,
        )
        self._read_into(m, tbl, since=None)
        return m

    def _read_into(self, m: _Matrix, tbl: str, *, since: int | None) -> None:
        """Append the current versions of the matrix's space: all, or those after ``since``."""
        tags = "r.labels" if m.kind == "node" else "[r.rel]"
        newer = "" if since is None else f" AND r.tx_from > {int(since)}"
        vids, mat, (groups, ids, labels) = fetch_matrix(
            self._connection.cursor(),
            f"SELECT r.vid, v.embedding, r.grp, r.id, {tags} FROM {table_of(m.kind)} r "
            f"JOIN {tbl} v ON v.vid = r.vid WHERE r.tx_to IS NULL AND r.space = ?{newer} "
            "ORDER BY r.vid",
            [m.space],
            m.dim,
        )
        if len(vids):
            m.append(vids, mat, groups, ids, [tuple(ls) for ls in labels])

    def catch_up(self, since: int, closed: Mapping[Kind, np.ndarray]) -> None:
        """Apply what other processes committed after ``since`` (see TextCache.catch_up)."""
        for (kind, space), m in self._spaces.items():
            found = space_table(self._connection.cursor(), kind, space)
            if found is None:
                continue
            m.remove(closed[kind])
            self._read_into(m, found[0], since=since)

    def after_commit(
        self,
        kind: Kind,
        space: str,
        removed: np.ndarray,
        added_vids: np.ndarray,
        added_mat: np.ndarray | None,
        added_groups: list[str],
        added_ids: list[str],
        added_labels: list[tuple[str, ...]],
    ) -> None:
        """Apply one commit's changes to a space's matrix (one not built yet is left alone: it
        is read from the tables, commit included, when first used)."""
        m = self._spaces.get((kind, space))
        if m is None:
            return
        m.remove(removed)
        if added_mat is not None and len(added_vids):
            m.append(added_vids, added_mat, added_groups, added_ids, added_labels)

    def remove_everywhere(self, kind: Kind, removed: np.ndarray) -> None:
        """Apply one commit's removals of ``kind`` versions to every space."""
        for (k, _), m in self._spaces.items():
            if k == kind:
                m.remove(removed)

    def forget(self) -> None:
        """Drop every matrix (after a purge of everything, or of records another process
        purged): the in-memory current records go with them, for the same reason."""
        self._spaces.clear()
        self._connection.current.forget()
