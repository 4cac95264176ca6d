"""Whole-graph verbs of every reader: personalized PageRank and communities (issue 17), distances
and clustering (issue 35).

All run over the graph the reader sees (:func:`~anatid_core.indexes.graph_arrays.visible_graph`:
its visibility, current or ``as_of``, and the groups/labels/rels asked for), so a node it cannot see
is never reached, scored or grouped, and an edge counts only when both its ends are seen.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Protocol

from ..base.errors import InvalidInput
from ..base.model import Hit, Node
from ..indexes.graph_arrays import visible_graph
from ..indexes.registry import Indexes
from ..indexes.walk_index import graph_items
from ..storage.connection import Connection
from ..storage.rows import Kind, Visibility
from ..storage.turns import verbs_take_turns
from .clustering import average_clustering
from .communities import COMMUNITIES, check_resolution, partition
from .distances import Distances, distances
from .pagerank import (
    Direction,
    Method,
    check_method,
    check_options,
    personalized_pagerank,
    seed_vector,
    top,
)


class _Reads(Protocol):
    connection: Connection
    indexes: Indexes
    visibility: Visibility

    def get_nodes(self, ids: Iterable[str]) -> list[Node]: ...
    def _from_memory(self, kind: Kind, ids: list[str]) -> list[Any] | None: ...
    def _query(self, sql: str, params: Any = ()) -> list[tuple[Any, ...]]: ...


@verbs_take_turns
class GraphAlgorithms(_Reads):
    """PageRank, communities, distances and clustering, mixed into
    :class:`~anatid_core.reads.Reader`."""

    def pagerank(
        self,
        seeds: Iterable[str] | Mapping[str, float],
        *,
        damping: float = 0.85,
        iterations: int = 100,
        tolerance: float = 1e-6,
        direction: Direction = "both",
        k: int | None = 20,
        groups: Iterable[str] | None = None,
        labels: Iterable[str] | None = None,
        rels: Iterable[str] | None = None,
        method: Method = "iterate",
    ) -> list[Hit]:
        """Nodes by personalized PageRank from ``seeds`` (ids, or ids to restart weights), best
        first, the ``k`` best (every node with a score for ``k=None``); seeds included.

        The surfer walks ``direction`` ('both': edges as undirected) over the visible graph
        filtered by ``groups`` and ``labels`` (nodes) and ``rels`` (edges); a seed that is not a
        node of that graph is ``NotFound``. Scores sum to 1 over the whole graph.

        ``method="push"`` (``direction='both'`` only) spreads the seeds' mass outward only as
        far as it matters instead of iterating over the whole graph (forward push): each score
        is then at most ``tolerance`` x that node's degree below the exact one, and the scores
        sum to a little less than 1. Its cost does not grow with the graph: at 1M nodes /
        2.3M edges, tens of milliseconds at ``tolerance=1e-5`` where iterating takes seconds.
        """
        check_options(damping, iterations, tolerance)
        check_method(method, direction)
        if k is not None and (not isinstance(k, int) or isinstance(k, bool) or k < 0):
            raise _bad_k(k)
        graph = visible_graph(
            self.indexes.graphs, self.visibility, groups=groups, labels=labels, rels=rels
        )
        p = seed_vector(graph, seeds)
        scores = personalized_pagerank(
            graph,
            p,
            damping=damping,
            iterations=iterations,
            tolerance=tolerance,
            direction=direction,
            method=method,
        )
        best = top(scores, k)
        ids = [graph.ids[i] for i in best.tolist()]
        # From memory where the current records answer, else by row: the graph knows the row
        # of each node's visible version (a lookup by id would scan the node table).
        found = self._from_memory("node", ids)
        if found is None:
            found = graph_items(self.connection, graph, "node", graph.node_vids[best].tolist())
        nodes = {n.id: n for n in found}
        return [
            Hit(id=i, score=float(scores[at]), item=nodes[i], rank=r + 1)
            for r, (i, at) in enumerate(zip(ids, best.tolist(), strict=True))
            if i in nodes
        ]

    def communities(
        self,
        *,
        resolution: float = 1.0,
        groups: Iterable[str] | None = None,
        labels: Iterable[str] | None = None,
        rels: Iterable[str] | None = None,
    ) -> list[list[str]]:
        """A partition of the visible graph's nodes into communities by modularity (edges taken
        as undirected, parallel edges as weight): igraph's Leiden with the ``graph`` extra, a
        plain Louvain without. Each community's ids sorted, the communities largest first (ties
        by first id). Deterministic: the same graph gives the same partition (with the same
        backend). Cached until the next write; nothing of it is stored in the file."""
        check_resolution(resolution)
        graph = visible_graph(
            self.indexes.graphs, self.visibility, groups=groups, labels=labels, rels=rels
        )
        key = ("communities", float(resolution), COMMUNITIES["backend"])
        found = graph.derived.get(key)
        if found is None:
            labels_of = partition(graph.size, graph.src, graph.dst, resolution=float(resolution))
            found = _grouped(graph.ids, labels_of)
            graph.derived[key] = found
        return [list(c) for c in found]

    def distances(
        self,
        *,
        directed: bool = False,
        groups: Iterable[str] | None = None,
        labels: Iterable[str] | None = None,
        rels: Iterable[str] | None = None,
    ) -> Distances:
        """The shortest-path lengths between the visible graph's nodes (filtered as for
        :meth:`pagerank`): over every ordered pair of distinct nodes with a path, how many such
        pairs, the sum and the longest of their lengths (:class:`Distances`: ``diameter``,
        ``average``, ``connected``). Edges are undirected unless ``directed``; self-loops and
        parallel edges change nothing. On a connected graph ``diameter`` and ``average`` are
        networkx's ``diameter`` and ``average_shortest_path_length``; on a disconnected one
        they cover the pairs that are joined (networkx refuses). Exact: an all-pairs
        breadth-first search, O(nodes x edges), about a second at 10k nodes / 25k edges
        (:mod:`anatid_core.graph.distances`). Cached until the next write."""
        if not isinstance(directed, bool):
            raise InvalidInput(f"directed must be a bool, got {directed!r:.40}")
        graph = visible_graph(
            self.indexes.graphs, self.visibility, groups=groups, labels=labels, rels=rels
        )
        return distances(graph, directed=directed)

    def average_clustering(
        self,
        *,
        groups: Iterable[str] | None = None,
        labels: Iterable[str] | None = None,
        rels: Iterable[str] | None = None,
    ) -> float | None:
        """The visible graph's (filtered as for :meth:`pagerank`) mean clustering coefficient
        over every node, as networkx's ``average_clustering`` of the undirected simple graph
        (direction, self-loops and parallel edges ignored; a node with fewer than two
        neighbours counts 0); None for a graph without nodes. Cached until the next write."""
        graph = visible_graph(
            self.indexes.graphs, self.visibility, groups=groups, labels=labels, rels=rels
        )
        return average_clustering(graph)


def _grouped(ids: list[str], membership: list[int]) -> tuple[tuple[str, ...], ...]:
    by: dict[int, list[str]] = {}
    for node_id, c in zip(ids, membership, strict=True):
        by.setdefault(c, []).append(node_id)
    parts = [tuple(sorted(members)) for members in by.values()]
    parts.sort(key=lambda c: (-len(c), c[0]))
    return tuple(parts)


def _bad_k(k: object) -> Exception:
    return InvalidInput(f"k must be an int >= 0 or None, got {k!r}")


__all__ = ["GraphAlgorithms"]
