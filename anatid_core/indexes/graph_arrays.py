"""The visible graph as integer arrays, for the whole-graph algorithms (issue 17).

PageRank and communities run over every visible node at once, which Python objects per record
would make slow. So the graph a reader sees (its visibility: current or ``as_of``; and the
``groups``/``labels``/``rels`` filters) is loaded once, ids only: the visible nodes in id order,
and each visible edge whose *both* endpoints are visible nodes as a pair of node indexes. An
edge to a node the reader cannot see is not in the graph, so nothing is reached through it.

Loads are kept in the store's :class:`GraphCache` (an index of the registry) against its
generation (bumped after every commit of this process, whenever another process had the file,
and when the indexes are dropped), the visibility and the filters: a write invalidates them.
At most ``GRAPH_ARRAYS['cached_graphs']`` graphs are kept. Nothing here is written to the file.
Inside the caller's own transaction (uncommitted writes visible) nothing is cached.
"""

from __future__ import annotations

import bisect
import threading
from collections import OrderedDict
from collections.abc import Hashable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pyarrow as pa

from ..base.model import Kind
from ..storage.arrow_arrays import arrow_numbers, columns_table, int32s, int64s, strings
from ..storage.changes import Changes
from ..storage.connection import Connection
from ..storage.filters import record_filter
from ..storage.rows import Visibility
from ..storage.sql import arrow_table
from .base import Index

#: Tunables: how many loaded graphs (different views or filters) a connection keeps.
GRAPH_ARRAYS: dict[str, int] = {"cached_graphs": 4}


@dataclass(frozen=True)
class GraphArrays:
    """Visible nodes ``ids`` (sorted) and edges ``src[i] -> dst[i]`` as indexes into ``ids``
    (one pair per visible edge: parallel edges repeat, self-loops are kept), ordered by
    ``(dst, src)``; ``edge_ids[i]`` is the id of edge ``i`` (an Arrow string array:
    compact, and read only for the few edges a walk returns)."""

    ids: list[str]
    src: np.ndarray
    dst: np.ndarray
    edge_ids: pa.Array = field(default_factory=lambda: strings([]), compare=False)
    #: The row (``vid``) of each node's and each edge's visible version: a walk fetches the
    #: records it returns by row, which zone maps find without scanning the tables.
    node_vids: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64), compare=False)
    edge_vids: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64), compare=False)
    #: Results derived from this graph (e.g. its communities), dropped with it.
    derived: dict[Hashable, Any] = field(default_factory=dict, compare=False)
    _index: dict[str, int] = field(default_factory=dict, compare=False, repr=False)

    @property
    def size(self) -> int:
        return len(self.ids)

    def position(self, node_id: str) -> int | None:
        """The index of ``node_id``, or None if it is not a node here: a binary search of the
        sorted ids (DuckDB orders strings by their UTF-8 bytes, which is Python's code point
        order), so a walk or a seed needs no id -> position dict of the whole graph."""
        at = bisect.bisect_left(self.ids, node_id)
        return at if at < len(self.ids) and self.ids[at] == node_id else None

    def index(self) -> dict[str, int]:
        """id -> position, built on first use."""
        if not self._index and self.ids:
            self._index.update(zip(self.ids, range(len(self.ids)), strict=True))
        return self._index


def _frozen(values: Iterable[str] | None) -> frozenset[str] | None:
    return None if values is None else frozenset(values)


class GraphCache(Index):
    """The graphs loaded for this store's readers, and the walks run by SQL at this store
    version (:func:`anatid_core.indexes.walk_index.index_for_walk` counts them), each keyed by
    the generation it was made in: a commit or a catch-up starts the next generation, and the
    older entries are dropped at the next load (not under the publish lock)."""

    def __init__(self, connection: Connection) -> None:
        self.connection = connection
        self.lock = threading.Lock()
        #: Bumped by every change to the file: what the entries below are keyed by.
        self.generation = 0
        #: (generation, visibility, groups, labels, rels) -> the graph loaded then.
        self.graphs: OrderedDict[tuple[Any, ...], GraphArrays] = OrderedDict()
        #: (generation, visibility, rels) -> walks by SQL of that view (walk_index).
        self.walks_by_sql: dict[tuple[Any, ...], int] = {}

    def applied(self, changes: Changes) -> None:
        del changes  # any commit may change the visible graph
        self._next()

    def caught_up(self, since_us: int, removed: Mapping[Kind, np.ndarray]) -> None:
        del since_us, removed
        self._next()

    def forget(self) -> None:
        self._next()

    def _next(self) -> None:
        with self.lock:
            self.generation += 1


def visible_graph(
    cache: GraphCache,
    visibility: Visibility,
    *,
    groups: Iterable[str] | None = None,
    labels: Iterable[str] | None = None,
    rels: Iterable[str] | None = None,
) -> GraphArrays:
    """The graph ``visibility`` lets through, filtered; from the cache when nothing changed."""
    groups, labels, rels = _frozen(groups), _frozen(labels), _frozen(rels)
    connection = cache.connection
    if connection.in_own_transaction():  # its uncommitted writes are visible to it alone
        return _load(connection, visibility, groups, labels, rels)
    version = cache.generation  # read before loading: a commit meanwhile only makes it miss
    key = (version, visibility, groups, labels, rels)
    with cache.lock:
        found = cache.graphs.get(key)
        if found is not None:
            cache.graphs.move_to_end(key)
            return found
    loaded = _load(connection, visibility, groups, labels, rels)
    with cache.lock:
        for old in [k for k in cache.graphs if k[0] != cache.generation]:
            del cache.graphs[old]  # stale: a later commit
        cache.graphs[key] = loaded
        while len(cache.graphs) > GRAPH_ARRAYS["cached_graphs"]:
            cache.graphs.popitem(last=False)
    return loaded


def cached_graph(
    cache: GraphCache,
    visibility: Visibility,
    *,
    groups: Iterable[str] | None = None,
    labels: Iterable[str] | None = None,
    rels: Iterable[str] | None = None,
) -> GraphArrays | None:
    """The graph :func:`visible_graph` would give, if it is cached now (never loads)."""
    if cache.connection.in_own_transaction():
        return None
    key = (cache.generation, visibility, _frozen(groups), _frozen(labels), _frozen(rels))
    with cache.lock:
        return cache.graphs.get(key)


def _load(
    connection: Connection,
    visibility: Visibility,
    groups: frozenset[str] | None,
    labels: frozenset[str] | None,
    rels: frozenset[str] | None,
) -> GraphArrays:
    # A scope's wall is in the node predicate; an edge needs only its own instant and group,
    # since the joins below keep only edges between visible nodes.
    node_vis = visibility.sql("r", "node")
    edge_vis = visibility.edge_sql_unchecked_ends("r")
    nf = record_filter("node", visible=node_vis, groups=_sorted(groups), labels=_sorted(labels))
    ef = record_filter("edge", visible=edge_vis, groups=_sorted(groups), rels=_sorted(rels))
    cur = connection.cursor()
    nodes = arrow_table(
        cur.execute(f"SELECT r.id, r.vid FROM nodes r WHERE {nf.sql()} ORDER BY r.id", nf.params)
    )
    ids = nodes.column("id").combine_chunks()
    # The edges' ends as positions, by a join against the nodes just read (registered, not
    # numbered again in SQL); edges to a node outside the visible set fall out of the inner
    # joins. They are sorted here, not in SQL: numpy sorts the int pairs in a fraction of the
    # time DuckDB takes (at 1M nodes / 2.3M edges the ORDER BY was half the load).
    name = f"_anatid_graph_nodes_{threading.get_ident()}"
    cur.register(name, columns_table({"id": ids, "i": int32s(np.arange(len(ids), dtype=np.int32))}))
    try:
        pairs = arrow_table(
            cur.execute(
                f"SELECT s.i AS s, d.i AS d, r.id AS e, r.vid AS v FROM edges r "
                f"JOIN {name} s ON s.id = r.src JOIN {name} d ON d.id = r.dst WHERE {ef.sql()}",
                ef.params,
            )
        )
    finally:
        cur.unregister(name)
    src = arrow_numbers(pairs.column("s")).astype(np.int32)
    dst = arrow_numbers(pairs.column("d")).astype(np.int32)
    order = np.argsort((dst.astype(np.int64) << 32) | src, kind="stable")  # by (dst, src)
    return GraphArrays(
        ids=ids.to_pylist(),
        src=src[order],
        dst=dst[order],
        edge_ids=pairs.column("e").combine_chunks().take(int64s(order)),
        node_vids=arrow_numbers(nodes.column("vid")).astype(np.int64),
        edge_vids=arrow_numbers(pairs.column("v")).astype(np.int64)[order],
    )


def _sorted(values: frozenset[str] | None) -> list[str] | None:
    return None if values is None else sorted(values)


__all__ = [
    "GRAPH_ARRAYS",
    "GraphArrays",
    "GraphCache",
    "cached_graph",
    "visible_graph",
]
