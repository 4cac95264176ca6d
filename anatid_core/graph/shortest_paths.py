"""Shortest paths between two nodes, by bidirectional breadth-first search (issue 17).

Both ends grow one hop at a time over the visible adjacency (:mod:`anatid_core.graph.adjacency`),
the smaller frontier first, so a path of length d costs about two searches of depth d/2 instead of
one of depth d: at 1M nodes and 2.3M edges, endpoints 4 hops apart meet after two small hops from
each side. Whatever the reader cannot see (a past instant, a scope's wall) is never entered.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Collection, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any, Protocol

from ..base.codec import check_id
from ..base.errors import InvalidInput, NotFound
from ..base.identifiers import group_list, name_list
from ..base.model import Edge, Node
from ..indexes.walk_index import IdHop, Walk, index_for_walk, walked_items
from ..storage.rows import Kind
from ..storage.turns import verbs_take_turns
from .adjacency import AdjacencyReads, EdgeRef

#: ``shortest_path``'s default deepest search and most paths returned.
PATHS: dict[str, int] = {"max_depth": 6, "limit": 10}


@dataclass(frozen=True)
class Path:
    """A chain of nodes and the edges between them: ``edges[i]`` joins ``nodes[i]`` and
    ``nodes[i + 1]`` (in either direction unless the search was directed)."""

    nodes: tuple[Node, ...]
    edges: tuple[Edge, ...]

    @property
    def length(self) -> int:
        return len(self.edges)

    @property
    def ids(self) -> tuple[str, ...]:
        return tuple(n.id for n in self.nodes)


#: One hop found by a search: (from, to, edge).
Hop = tuple[str, str, EdgeRef]
#: Hops from a frontier: (frontier, outward, nodes already checked) -> (from, to, edge id).
HopsFn = Callable[[list[str], bool, Collection[str]], list[IdHop]]


@dataclass
class _Side:
    """One end of a bidirectional search: its distances, the parents of each node (nearer this
    end, with the smallest-id edge standing for parallel ones) and the current frontier."""

    root: str
    outward: bool  # follows edges src -> dst (the source's end of a directed search)
    dist: dict[str, int] = field(default_factory=dict)
    parents: dict[str, dict[str, str]] = field(default_factory=dict)
    frontier: list[str] = field(default_factory=list)
    depth: int = 0

    def __post_init__(self) -> None:
        self.dist[self.root] = 0
        self.frontier = [self.root]

    def grow(self, hops: list[IdHop]) -> None:
        """Take one hop's worth of edges from the frontier."""
        self.depth += 1
        fresh: list[str] = []
        for near, far, e in hops:
            d = self.dist.get(far)
            if d is None:
                self.dist[far] = d = self.depth
                fresh.append(far)
            if d == self.depth:
                best = self.parents.setdefault(far, {})
                if near not in best or e < best[near]:
                    best[near] = e
        self.frontier = sorted(fresh)

    def walks(self, node: str) -> Iterator[tuple[list[str], list[str]]]:
        """Every shortest walk from the root to ``node``: (nodes, edges), root first."""
        parents = self.parents.get(node)
        if not parents:
            yield [node], []
            return
        for near in sorted(parents):
            for nodes, edges in self.walks(near):
                yield [*nodes, node], [*edges, parents[near]]


def check_depth(value: object, what: str = "max_depth") -> int:
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise InvalidInput(f"{what} must be an int >= 0, got {value!r:.40}")
    return value


class _Records(Protocol):
    """What the path verbs need from the reader they are mixed into."""

    def get_nodes(self, ids: Iterable[str]) -> list[Node]: ...
    def get_edges(self, ids: Iterable[str]) -> list[Edge]: ...
    def _from_memory(self, kind: Kind, ids: list[str]) -> list[Any] | None: ...


@verbs_take_turns
class PathReads(AdjacencyReads, _Records):
    """``shortest_path`` (mixed into :class:`~anatid_core.reads.Reader`)."""

    def shortest_path(
        self,
        src: str,
        dst: str,
        *,
        max_depth: int = PATHS["max_depth"],
        rels: Iterable[str] | None = None,
        directed: bool = False,
        groups: Iterable[str] | None = None,
        labels: Iterable[str] | None = None,
        limit: int = PATHS["limit"],
    ) -> list[Path]:
        """The shortest paths from ``src`` to ``dst`` of at most ``max_depth`` edges (of
        ``rels``), up to ``limit`` of them, each a distinct chain of nodes; [] if there is none.

        ``directed`` follows edges from src to dst only. ``groups``/``labels`` restrict the
        nodes a path may pass through (the two ends are given, so they are not tested).
        Unknown (or, in this view, invisible) ids are ``NotFound``.
        """
        check_depth(max_depth)
        if not isinstance(limit, int) or isinstance(limit, bool) or limit < 1:
            raise InvalidInput(f"limit must be an int >= 1, got {limit!r:.40}")
        # Checked here: a walk over the in-memory index may answer without the SQL filter.
        rels, labels = name_list(rels, "rels"), name_list(labels, "labels")
        groups = group_list(groups)
        walk = self._walk(rels, groups, labels)
        self._check_visible(src, dst, walk=walk)
        hops: HopsFn
        if walk is not None:
            hops = lambda f, o, k: walk.hops(f, o, directed, k)  # noqa: E731
        else:
            hops = lambda f, o, k: [  # noqa: E731
                (a, b, e.id) for a, b, e in self.hops(f, o, directed, rels, groups, labels, k)
            ]
        fwd = _Side(src, outward=True)
        bwd = _Side(dst, outward=False)
        if src == dst:
            return self._paths([([src], [])], walk)
        while fwd.frontier and bwd.frontier and fwd.depth + bwd.depth < max_depth:
            side, other = (fwd, bwd) if len(fwd.frontier) <= len(bwd.frontier) else (bwd, fwd)
            side.grow(hops(side.frontier, side.outward, fwd.dist.keys() | bwd.dist.keys()))
            meet = [v for v in side.frontier if v in other.dist]
            if meet:
                best = min(side.dist[v] + other.dist[v] for v in meet)
                middles = [v for v in meet if side.dist[v] + other.dist[v] == best]
                return self._paths(itertools.islice(_joined(fwd, bwd, middles), limit), walk)
        return []

    def _walk(
        self, rels: list[str] | None, groups: list[str] | None, labels: list[str] | None
    ) -> Walk | None:
        """A walk over the in-memory index of the visible graph
        (:mod:`anatid_core.indexes.walk_index`) where it may answer: not with ``groups``/``labels``
        (they bound the inner nodes only, which the index does not know). ``rels`` are checked
        names."""
        if groups is not None or labels is not None:
            return None
        index = index_for_walk(self.indexes.graphs, self.visibility, rels)
        return None if index is None else Walk(index)

    def hops(
        self,
        frontier: list[str],
        outward: bool,
        directed: bool,
        rels: list[str] | None,
        groups: list[str] | None,
        labels: list[str] | None,
        known: Iterable[str] = (),
    ) -> list[Hop]:
        """The hops from ``frontier`` to visible nodes (in ``groups``/``labels``; ids in
        ``known`` are already checked): outward along edges (src -> dst), inward against them,
        or both ways unless ``directed``."""
        direction = "both" if not directed else ("out" if outward else "in")
        front = set(frontier)
        hops: list[Hop] = []
        # The frontier is visible and every far end is tested below: no endpoint join needed.
        for e in self.edge_refs(frontier, direction=direction, rels=rels, check_ends=False):
            if direction != "in" and e.src in front:
                hops.append((e.src, e.dst, e))
            if direction != "out" and e.dst in front:
                hops.append((e.dst, e.src, e))
        seen = set(known)
        unchecked = {far for _, far, _ in hops if far not in seen}
        ok = seen | self.visible_node_ids(unchecked, groups=groups, labels=labels)
        return [h for h in hops if h[1] in ok]

    def _check_visible(self, *ids: str, walk: Walk | None = None) -> None:
        for i in ids:
            check_id(i, what="node id")
        found = {i for i in ids if walk.has_node(i)} if walk else self.visible_node_ids(ids)
        for i in ids:
            if i not in found:
                raise NotFound(f"no node {i!r} in this view", id=i)

    def _paths(
        self, walks: Iterable[tuple[list[str], list[str]]], walk: Walk | None = None
    ) -> list[Path]:
        """Walks of ids as :class:`Path` records, shortest and then by node ids first."""
        chosen = sorted(walks, key=lambda w: (len(w[0]), w[0]))
        node_ids = {i for w in chosen for i in w[0]}
        edge_ids = {e for w in chosen for e in w[1]}
        if walk is None:
            nodes = {n.id: n for n in self.get_nodes(node_ids)}
            edges = {e.id: e for e in self.get_edges(edge_ids)}
        else:
            nodes = self._walked("node", sorted(node_ids), walk, walk.node_rows)
            edges = self._walked(
                "edge", sorted(edge_ids), walk, lambda ids: [walk.edge_rows[e] for e in ids]
            )
        return [Path(tuple(nodes[i] for i in ns), tuple(edges[e] for e in es)) for ns, es in chosen]

    def _walked(
        self, kind: Kind, ids: list[str], walk: Walk, rows: Callable[[list[str]], list[int]]
    ) -> dict[str, Any]:
        """The records a walk over the index went through, by id
        (:func:`~anatid_core.indexes.walk_index.walked_items`; ``rows(ids)``: their visible
        versions)."""
        if not ids:
            return {}
        found = walked_items(
            self._from_memory, self.connection, walk.graph, kind, ids, lambda: rows(ids)
        )
        return {r.id: r for r in found}


def _joined(fwd: _Side, bwd: _Side, middles: list[str]) -> Iterator[tuple[list[str], list[str]]]:
    """Every shortest path through the meeting nodes: src to the middle, then the middle to dst."""
    for middle in sorted(middles):
        for head_nodes, head_edges in fwd.walks(middle):
            for tail_nodes, tail_edges in bwd.walks(middle):
                yield head_nodes + tail_nodes[::-1][1:], head_edges + tail_edges[::-1]


__all__ = ["PATHS", "Hop", "Path", "PathReads", "check_depth"]
