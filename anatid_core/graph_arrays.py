"""The visible graph as integer arrays, for the whole-graph algorithms (issue 17).

PageRank and communities run over every visible node at once, which Python objects per record
would make slow. So the graph a reader sees (its visibility: current or ``as_of``; and the
``groups``/``labels``/``rels`` filters) is loaded once, ids only: the visible nodes in id order,
and each visible edge whose *both* endpoints are visible nodes as a pair of node indexes. An
edge to a node the reader cannot see is not in the graph, so nothing is reached through it.

Loads are cached per connection against ``Connection.commits`` (bumped after every commit of
this process and whenever another process had the file), the visibility and the filters: a
write invalidates them. Nothing here is written to the file. Inside the caller's own
transaction (uncommitted writes visible) nothing is cached.
"""

from __future__ import annotations

import threading
import weakref
from collections import OrderedDict
from collections.abc import Hashable, Iterable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .connection import Connection
from .filters import record_filter
from .rows import Visibility

#: Tunables: how many loaded graphs (different views or filters) a connection keeps.
GRAPH_ARRAYS: dict[str, int] = {"cached_graphs": 4}


@dataclass(frozen=True)
class GraphArrays:
    """Visible nodes ``ids`` (sorted) and edges ``src[i] -> dst[i]`` as indexes into ``ids``
    (one pair per visible edge: parallel edges repeat, self-loops are kept)."""

    ids: list[str]
    src: np.ndarray
    dst: np.ndarray
    #: Results derived from this graph (e.g. its communities), dropped with it.
    derived: dict[Hashable, Any] = field(default_factory=dict, compare=False)
    _index: dict[str, int] = field(default_factory=dict, compare=False, repr=False)

    @property
    def size(self) -> int:
        return len(self.ids)

    def index(self) -> dict[str, int]:
        """id -> position, built on first use."""
        if not self._index and self.ids:
            self._index.update(zip(self.ids, range(len(self.ids)), strict=True))
        return self._index


def _frozen(values: Iterable[str] | None) -> frozenset[str] | None:
    return None if values is None else frozenset(values)


class _Cache:
    def __init__(self) -> None:
        self.lock = threading.Lock()
        #: (commits, visibility, groups, labels, rels) -> the graph loaded then.
        self.graphs: OrderedDict[tuple[Any, ...], GraphArrays] = OrderedDict()


_CACHES: weakref.WeakKeyDictionary[Connection, _Cache] = weakref.WeakKeyDictionary()
_CACHES_LOCK = threading.Lock()


def _cache_of(connection: Connection) -> _Cache:
    with _CACHES_LOCK:
        cache = _CACHES.get(connection)
        if cache is None:
            cache = _CACHES[connection] = _Cache()
        return cache


def visible_graph(
    connection: Connection,
    visibility: Visibility,
    *,
    groups: Iterable[str] | None = None,
    labels: Iterable[str] | None = None,
    rels: Iterable[str] | None = None,
) -> GraphArrays:
    """The graph ``visibility`` lets through, filtered; from the cache when nothing changed."""
    groups, labels, rels = _frozen(groups), _frozen(labels), _frozen(rels)
    if connection.in_own_transaction():  # its uncommitted writes are visible to it alone
        return _load(connection, visibility, groups, labels, rels)
    version = connection.commits  # read before loading: a commit meanwhile only makes it miss
    key = (version, visibility, groups, labels, rels)
    cache = _cache_of(connection)
    with cache.lock:
        found = cache.graphs.get(key)
        if found is not None:
            cache.graphs.move_to_end(key)
            return found
    loaded = _load(connection, visibility, groups, labels, rels)
    with cache.lock:
        for old in [k for k in cache.graphs if k[0] != connection.commits]:
            del cache.graphs[old]  # stale: a later commit
        cache.graphs[key] = loaded
        while len(cache.graphs) > GRAPH_ARRAYS["cached_graphs"]:
            cache.graphs.popitem(last=False)
    return loaded


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
    ids = cur.execute(
        f"SELECT r.id FROM nodes r WHERE {nf.sql()} ORDER BY r.id", nf.params
    ).fetchnumpy()["id"]
    # Positions are given in SQL (the join runs in DuckDB, not over Python dicts); edges to a
    # node outside the visible set fall out of the inner joins.
    sql = (
        f"WITH n AS (SELECT r.id, CAST(row_number() OVER (ORDER BY r.id) - 1 AS INTEGER) AS i "
        f"FROM nodes r WHERE {nf.sql()}) "
        f"SELECT s.i AS s, d.i AS d FROM edges r JOIN n s ON s.id = r.src JOIN n d ON d.id = r.dst "
        f"WHERE {ef.sql()} ORDER BY d.i, s.i"
    )
    pairs = cur.execute(sql, [*nf.params, *ef.params]).fetchnumpy()
    return GraphArrays(
        ids=[str(i) for i in ids.tolist()],
        src=np.asarray(pairs["s"], dtype=np.int32),
        dst=np.asarray(pairs["d"], dtype=np.int32),
    )


def _sorted(values: frozenset[str] | None) -> list[str] | None:
    return None if values is None else sorted(values)


__all__ = ["GRAPH_ARRAYS", "GraphArrays", "visible_graph"]
