"""The visible graph as ids only: the adjacency every graph algorithm walks (issue 17).

Shortest paths, explanations, hub counts, PageRank and communities all need the same thing: which
edges join which nodes *for this reader* — the current state or an ``as_of`` instant, inside a
scope's wall (:mod:`anatid_core.storage.scope`) — without decoding props or building records. Two
ways in:

* :meth:`AdjacencyReads.adjacency` gives the whole visible graph (an :class:`Adjacency`);
* :meth:`AdjacencyReads.edge_refs` gives the edges at some nodes (one hop), for walks that stop
  early (bidirectional BFS).

An edge is in the adjacency only if both its endpoints are visible nodes (with a scope that is
already the edge's visibility; without one it also drops edges left pointing at nodes that are
not visible at the instant, so that no walk passes through a node it could not show). The current,
unscoped state is answered from the in-memory records (:mod:`anatid_core.indexes.current_records`)
when they are loaded; anything else by SQL through the reader's visibility predicate.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, NamedTuple, Protocol

from ..base.errors import InvalidInput
from ..base.identifiers import group_list, name_list
from ..base.model import Direction
from ..indexes.current_records import CurrentRecords
from ..indexes.registry import Indexes
from ..storage.connection import Connection
from ..storage.filters import record_filter
from ..storage.rows import Visibility, id_list
from ..storage.sql import rows_in
from ..storage.turns import verbs_take_turns


class EdgeRef(NamedTuple):
    """One visible edge, ids only."""

    id: str
    src: str
    dst: str
    rel: str


@dataclass(frozen=True)
class Adjacency:
    """The visible graph: node ids (sorted) and the edges between them (sorted by id)."""

    nodes: tuple[str, ...]
    edges: tuple[EdgeRef, ...]
    _out: dict[str, list[EdgeRef]] = field(default_factory=dict, repr=False, compare=False)
    _in: dict[str, list[EdgeRef]] = field(default_factory=dict, repr=False, compare=False)

    def __post_init__(self) -> None:
        for e in self.edges:
            self._out.setdefault(e.src, []).append(e)
            self._in.setdefault(e.dst, []).append(e)

    def out_edges(self, node: str) -> list[EdgeRef]:
        return self._out.get(node, [])

    def in_edges(self, node: str) -> list[EdgeRef]:
        return self._in.get(node, [])


class _Reader(Protocol):
    connection: Connection
    indexes: Indexes
    visibility: Visibility

    def _query(self, sql: str, params: Any = ()) -> list[tuple[Any, ...]]: ...


SIDES: dict[str, tuple[str, ...]] = {"out": ("src",), "in": ("dst",), "both": ("src", "dst")}


def sides_of(direction: Direction) -> tuple[str, ...]:
    sides = SIDES.get(direction)
    if sides is None:
        raise InvalidInput(f"direction must be 'out', 'in' or 'both', got {direction!r}")
    return sides


@verbs_take_turns
class AdjacencyReads(_Reader):
    """Ids-only reads of the visible graph (mixed into :class:`~anatid_core.reads.Reader`)."""

    def adjacency(
        self,
        *,
        rels: Iterable[str] | None = None,
        groups: Iterable[str] | None = None,
        labels: Iterable[str] | None = None,
    ) -> Adjacency:
        """Every visible node (in ``groups``, carrying one of ``labels``) and every visible edge
        (of ``rels``) between two of them."""
        rels, groups, labels = _listed(rels), _listed(groups), _listed(labels)
        nf = record_filter(
            "node", visible=self.visibility.sql(kind="node"), groups=groups, labels=labels
        )
        ef = record_filter("edge", visible=self.visibility.sql(kind="edge"), rels=rels)
        memory = self._current_memory()
        if memory is not None and groups is None and labels is None:
            with self.indexes.consistent():
                nodes_view, edges_view = memory.loaded("node"), memory.loaded("edge")
                if nodes_view is not None and edges_view is not None:
                    wanted = None if rels is None else set(rels)
                    node_ids = set(nodes_view.by_id)
                    edges = [
                        EdgeRef(r[1], r[2], r[3], r[4])
                        for r in edges_view.by_id.values()
                        if (wanted is None or r[4] in wanted)
                        and r[2] in node_ids
                        and r[3] in node_ids
                    ]
                    return Adjacency(tuple(sorted(node_ids)), tuple(sorted(edges)))
        node_ids = {
            r[0] for r in self._query(f"SELECT r.id FROM nodes r WHERE {nf.sql()}", nf.params)
        }
        rows = self._query(
            f"SELECT r.id, r.src, r.dst, r.rel FROM edges r WHERE {ef.sql()}", ef.params
        )
        edges = [EdgeRef(*r) for r in rows if r[1] in node_ids and r[2] in node_ids]
        return Adjacency(tuple(sorted(node_ids)), tuple(sorted(edges)))

    def edge_refs(
        self,
        node_ids: Iterable[str],
        *,
        direction: Direction = "both",
        rels: Iterable[str] | None = None,
        check_ends: bool = True,
    ) -> list[EdgeRef]:
        """The visible edges (of ``rels``) leaving (``out``), entering (``in``) or touching
        (``both``) ``node_ids``, ids only, sorted by id. ``check_ends=False`` leaves out the
        test that both ends are visible, for a walk that tests the nodes it reaches itself
        (with :meth:`visible_node_ids`) and starts from visible ones."""
        ids = id_list(node_ids, "node_ids")
        sides = sides_of(direction)
        rels = _listed(rels)
        vis = self.visibility
        visible = vis.sql(kind="edge") if check_ends else vis.edge_sql_unchecked_ends()
        f = record_filter("edge", visible=visible, rels=rels)
        if not ids:
            return []
        memory = self._current_memory()
        if memory is not None:
            with self.indexes.consistent():
                view = memory.loaded("edge")
                if view is not None and view.ends is not None:
                    wanted = None if rels is None else set(rels)
                    found: dict[str, EdgeRef] = {}
                    for side in sides:
                        index = view.ends[2 if side == "src" else 3]
                        for node in ids:
                            for eid, r in index.get(node, {}).items():
                                if wanted is None or r[4] in wanted:
                                    found[eid] = EdgeRef(r[1], r[2], r[3], r[4])
                    return [found[k] for k in sorted(found)]
        parts, params = [], []
        for side in sides:
            source, condition, lookup = rows_in("edges", side, ids)
            parts.append(
                f"SELECT r.id, r.src, r.dst, r.rel FROM {source} WHERE {condition} AND {f.sql()}"
            )
            params += [*lookup, *f.params]
        return [EdgeRef(*r) for r in self._query(" UNION ".join(parts) + " ORDER BY 1", params)]

    def visible_node_ids(
        self,
        node_ids: Iterable[str],
        *,
        groups: Iterable[str] | None = None,
        labels: Iterable[str] | None = None,
    ) -> set[str]:
        """Which of ``node_ids`` are visible nodes (in ``groups``, carrying one of ``labels``)."""
        ids = list(dict.fromkeys(id_list(node_ids, "node_ids")))
        if not ids:
            return set()
        groups, labels = group_list(groups), name_list(labels, "labels")  # memory may answer
        memory = self._current_memory()
        if memory is not None:
            with self.indexes.consistent():
                if memory.loaded("node") is not None:
                    rows = memory.rows_passing("node", ids, groups, labels)
                    if rows is not None:
                        return {r[1] for r in rows}
        f = record_filter(
            "node", visible=self.visibility.sql(kind="node"), ids=ids, groups=groups, labels=labels
        )
        return {r[0] for r in self._query(f"SELECT r.id FROM nodes r WHERE {f.sql()}", f.params)}

    def _current_memory(self) -> CurrentRecords | None:
        """The in-memory current records, where they may answer for this reader (the plain
        current state, outside this thread's transaction); None where SQL must."""
        current = self.indexes.current
        if self.connection.closed or not self.visibility.is_current or not current.usable():
            return None
        current.view("node")  # built outside the publish lock (building takes the write lock)
        current.view("edge")
        return current


def _listed(values: Iterable[str] | None) -> list[str] | None:
    if values is None or isinstance(values, str):
        return values  # type: ignore[return-value]  # a single string is refused by the filter
    return list(values)


__all__ = ["Adjacency", "AdjacencyReads", "EdgeRef", "sides_of"]
