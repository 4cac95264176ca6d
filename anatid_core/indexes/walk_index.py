"""The visible graph as compressed adjacency (CSR), for walks that stop early (issue 17).

``shortest_path`` grows a few small frontiers. Read through SQL, each hop is a query (on duckdb
2.0 a scan of the edge table: ~150 ms a path at 100k edges); read from the visible graph's arrays
(:mod:`anatid_core.indexes.graph_arrays`) it is a few slices of two sorted arrays (out-edges and
in-edges of every node). The index is derived from a :class:`GraphArrays` and kept in its
``derived`` results, so it has the same cache key (visibility, scope, rels) and goes with it at
the next write.

When a walk uses it: whenever that graph is cached (a PageRank or communities call, or earlier
walks, loaded it). Otherwise the walk runs by SQL and is counted; the
``WALKS['load_after']``-th walk by SQL at the same store version loads the graph, since a load
costs a few walks by SQL and every later walk then takes milliseconds.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Collection, Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np
import pyarrow as pa

from ..base.model import Item, Kind
from ..storage.arrow_arrays import arrow_numbers, columns_table, int64s
from ..storage.connection import Connection
from ..storage.rows import Visibility, cols_of, item_from_row, items_by_vid, table_of
from ..storage.sql import arrow_table
from .graph_arrays import GraphArrays, GraphCache, cached_graph, visible_graph

#: Tunables: after how many walks by SQL at one store version (and view) the graph is loaded;
#: the most records of one kind (nodes, edges) of a loaded graph whose columns a walk keeps
#: in memory (:class:`RecordColumns`; 0: never, the path's records are read by SQL).
WALKS: dict[str, int] = {"load_after": 2, "record_rows": 5_000_000}

#: One hop: (from id, to id, edge id).
IdHop = tuple[str, str, str]


@dataclass(frozen=True)
class WalkIndex:
    """Out- and in-edges of every node of ``graph``: the neighbours of node ``v`` along its
    out-edges are ``out_far[out_ptr[v]:out_ptr[v + 1]]``, by edges ``out_edge[...]`` (positions
    in ``graph``'s edge arrays); the same for in-edges."""

    graph: GraphArrays
    out_ptr: np.ndarray
    out_far: np.ndarray
    out_edge: np.ndarray
    in_ptr: np.ndarray
    in_far: np.ndarray
    in_edge: np.ndarray


class Walk:
    """One walk over a :class:`WalkIndex`: its hops, and the rows of what it went through."""

    def __init__(self, index: WalkIndex) -> None:
        self.index = index
        self.graph = index.graph
        #: edge id -> row of its visible version, for every edge a hop went along.
        self.edge_rows: dict[str, int] = {}

    def hops(
        self, frontier: list[str], outward: bool, directed: bool, known: Collection[str]
    ) -> list[IdHop]:
        """The hops from ``frontier`` (ids of nodes of the graph): outward along edges, inward
        against them, or both ways unless ``directed``; every far end is a node of the graph
        (so ``known``, the SQL walk's nodes already checked, is not needed)."""
        del known
        ix, graph = self.index, self.graph
        at = np.fromiter(map(graph.position, frontier), dtype=np.int64, count=len(frontier))
        parts = []
        if outward or not directed:
            parts.append(_gather(ix.out_ptr, ix.out_far, ix.out_edge, at))
        if not outward or not directed:
            parts.append(_gather(ix.in_ptr, ix.in_far, ix.in_edge, at))
        near = np.concatenate([p[0] for p in parts]).tolist()
        far = np.concatenate([p[1] for p in parts]).tolist()
        edges = np.concatenate([p[2] for p in parts])
        edge_ids = graph.edge_ids.take(int64s(edges)).to_pylist()
        self.edge_rows.update(zip(edge_ids, graph.edge_vids[edges].tolist(), strict=True))
        ids = graph.ids
        return [(ids[a], ids[b], e) for a, b, e in zip(near, far, edge_ids, strict=True)]

    def node_rows(self, ids: Iterable[str]) -> list[int]:
        """The rows of the visible versions of the nodes ``ids`` (each a node of the graph)."""
        return [int(self.graph.node_vids[self.graph.position(i)]) for i in ids]  # type: ignore[index]

    def has_node(self, node_id: str) -> bool:
        return self.graph.position(node_id) is not None


@dataclass(frozen=True)
class RecordColumns:
    """The visible versions of one kind of a graph's records, as Arrow columns in ``vid``
    order (``vids``): a walk's few records by row without a query. At 1M nodes / 2.3M edges a
    lookup by id or by scattered rows costs DuckDB a scan, ~20 ms each way, where the walk
    itself takes about 1 ms (issue 17); the columns cost the bytes of the records (no Python
    object per record) and go with the graph at the next write."""

    vids: np.ndarray
    table: pa.Table

    def rows(self, vids: list[int]) -> list[tuple[Any, ...]] | None:
        """The rows of ``vids`` in that order; None if one of them is not here."""
        wanted = np.asarray(vids, dtype=np.int64)
        at = np.searchsorted(self.vids, wanted)
        if len(self.vids) == 0 or (at >= len(self.vids)).any():
            return None
        if not np.array_equal(self.vids[at], wanted):
            return None
        picked = self.table.take(int64s(at))
        return list(zip(*(column.to_pylist() for column in picked.columns), strict=True))


def graph_items(
    connection: Connection, graph: GraphArrays, kind: Kind, vids: list[int]
) -> list[Item]:
    """The records of versions ``vids`` (visible versions of ``graph``'s nodes or edges), in
    that order: from the graph's :class:`RecordColumns` (loaded on first use), or by row
    (:func:`~anatid_core.storage.rows.items_by_vid`) past ``WALKS['record_rows']``."""
    columns = record_columns(connection, graph, kind)
    rows = None if columns is None else columns.rows(vids)
    if rows is None:
        return items_by_vid(connection.query, kind, vids)
    return [item_from_row(kind, row) for row in rows]


def expansion(
    index: WalkIndex, seeds: list[str], depth: int, direction: str
) -> list[tuple[int, int]]:
    """``(hop, edge)`` (edge: a position in the graph's edge arrays) of every edge an
    unfiltered expansion from ``seeds`` meets within ``depth`` hops, each once, at the first
    hop that meets it: hop k takes the edges at the nodes first reached at hop k-1 (the seeds,
    those that are nodes of the graph, for hop 1), out along them, in against them, or both.
    The edges of the nodes reached again are met at an earlier hop, so these are the
    ``(hop, edge)`` the SQL expansion finds, keeping each edge's smallest hop."""
    graph = index.graph
    csrs = []
    if direction in ("out", "both"):
        csrs.append((index.out_ptr, index.out_far, index.out_edge))
    if direction in ("in", "both"):
        csrs.append((index.in_ptr, index.in_far, index.in_edge))
    start = [p for p in map(graph.position, seeds) if p is not None]
    reached = set(start)
    met: dict[int, int] = {}
    frontier = np.asarray(start, dtype=np.int64)
    for hop in range(1, depth + 1):
        if not len(frontier):
            break
        parts = [_gather(ptr, far, edge, frontier) for ptr, far, edge in csrs]
        for e in np.concatenate([p[2] for p in parts]).tolist():
            met.setdefault(e, hop)
        fars = dict.fromkeys(np.concatenate([p[1] for p in parts]).tolist())
        fresh = [v for v in fars if v not in reached]
        reached.update(fresh)
        frontier = np.asarray(fresh, dtype=np.int64)
    return [(hop, e) for e, hop in met.items()]


def walked_items(
    in_memory: Callable[[Kind, list[str]], list[Any] | None],
    connection: Connection,
    graph: GraphArrays,
    kind: Kind,
    ids: list[str],
    vids: Callable[[], list[int]],
) -> list[Item]:
    """The records ``ids`` (nodes or edges of ``graph``) a walk went through, in that order:
    from the in-memory current records (``in_memory``, a reader's ``_from_memory``) where they
    answer, else by row (``vids()``, the visible versions in the same order) from the graph's
    :class:`RecordColumns` (:func:`graph_items`)."""
    found = in_memory(kind, ids)
    if found is None or len(found) != len(ids):
        found = graph_items(connection, graph, kind, vids())
    return found


def record_columns(connection: Connection, graph: GraphArrays, kind: Kind) -> RecordColumns | None:
    """The :class:`RecordColumns` of ``graph``'s nodes or edges, loaded on first use and kept
    with the graph; None past ``WALKS['record_rows']``."""
    key = ("records", kind)
    if key in graph.derived:
        return graph.derived[key]
    vids = graph.node_vids if kind == "node" else graph.edge_vids
    found = None
    if len(vids) <= WALKS["record_rows"]:
        found = _load_columns(connection, kind, np.sort(vids))
    graph.derived[key] = found
    return found


def _load_columns(connection: Connection, kind: Kind, vids: np.ndarray) -> RecordColumns:
    cur = connection.cursor()
    name = f"_anatid_walk_rows_{threading.get_ident()}"
    cur.register(name, columns_table({"vid": int64s(vids)}))
    try:
        table = arrow_table(
            cur.execute(
                f"SELECT {cols_of(kind)} FROM {table_of(kind)} r "
                f"SEMI JOIN {name} w ON w.vid = r.vid"
            )
        )
    finally:
        cur.unregister(name)
    got = arrow_numbers(table.column("vid")).astype(np.int64)
    order = np.argsort(got, kind="stable")
    return RecordColumns(vids=got[order], table=table.take(int64s(order)))


def _gather(
    ptr: np.ndarray, far: np.ndarray, edge: np.ndarray, nodes: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(near, far, edge) of every slot of ``nodes``'s rows of a CSR, in one vectorised pass."""
    starts = ptr[nodes]
    lens = ptr[nodes + 1] - starts
    slots = np.repeat(starts - (np.cumsum(lens) - lens), lens) + np.arange(int(lens.sum()))
    return np.repeat(nodes, lens), far[slots], edge[slots]


def walk_index(graph: GraphArrays) -> WalkIndex:
    """The index of ``graph``, built on first use and kept with it."""
    found = graph.derived.get("walk_index")
    if found is None:
        found = graph.derived["walk_index"] = _built(graph)
    return found


def _built(graph: GraphArrays) -> WalkIndex:
    n = graph.size
    # The edges are ordered by (dst, src): in-edges are already rows of a CSR; a stable sort
    # by src gives the out-edges' rows. (Parallel edges come in any order: a walk compares
    # their ids.)
    by_src = np.argsort(graph.src, kind="stable")
    return WalkIndex(
        graph=graph,
        out_ptr=_pointers(graph.src, n),
        out_far=graph.dst[by_src],
        out_edge=by_src,
        in_ptr=_pointers(graph.dst, n),
        in_far=graph.src,
        in_edge=np.arange(len(graph.dst), dtype=np.int64),
    )


def _pointers(ends: np.ndarray, n: int) -> np.ndarray:
    ptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(ends, minlength=n), out=ptr[1:])
    return ptr


def index_for_walk(
    cache: GraphCache, visibility: Visibility, rels: Iterable[str] | None
) -> WalkIndex | None:
    """The index a walk of ``visibility`` over ``rels`` may use now, or None (walk by SQL):
    never inside the caller's own transaction (its uncommitted writes are not in any cache)."""
    if cache.connection.in_own_transaction():
        return None
    graph = cached_graph(cache, visibility, rels=rels)
    if graph is None:
        version = cache.generation
        key = (version, visibility, None if rels is None else frozenset(rels))
        with cache.lock:
            counts = cache.walks_by_sql
            for old in [k for k in counts if k[0] != version]:
                del counts[old]
            counts[key] = count = counts.get(key, 0) + 1
        if count < WALKS["load_after"]:
            return None
        graph = visible_graph(cache, visibility, rels=rels)
    return walk_index(graph)


__all__ = [
    "WALKS",
    "IdHop",
    "RecordColumns",
    "Walk",
    "WalkIndex",
    "expansion",
    "graph_items",
    "index_for_walk",
    "record_columns",
    "walked_items",
    "walk_index",
]
