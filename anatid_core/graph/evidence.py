"""Evidence, explanations and provenance: why two records are connected (issue 17).

Evidence is what a record was learned from. Memory systems keep it in one of two ways, and
:class:`Evidence` names both, so that the core needs to know neither host:

* edges of chosen rel types that point *at* the record: their source is the evidence
  (Graphiti: an episode ``-MENTIONS->`` an entity; Cognee: a chunk ``-contains->`` an entity);
* properties that hold the id, or a list of ids, of the evidence (Graphiti: a fact's
  ``episodes``; Cognee: a chunk's document id).

A store's default is ``store.evidence`` (views inherit it); ``explain`` and ``provenance`` take
an ``evidence=`` argument too. Evidence is read through the same view as everything else: as of
the view's instant and inside its scope, so a hidden episode is never shown as evidence.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import pairwise
from typing import Protocol

from ..base.codec import check_id
from ..base.errors import InvalidInput, NotFound
from ..base.model import Direction, Edge, Item, Kind, Node
from ..storage.turns import verbs_take_turns
from .shortest_paths import Path, PathReads, check_depth

#: Most paths ``explain`` walks (and returns) before it stops looking for more.
EXPLAIN: dict[str, int] = {"max_depth": 3, "limit": 100}


@dataclass(frozen=True)
class Evidence:
    """Where a record's evidence is kept: the ``rels`` of edges pointing at it (their sources
    are the evidence) and the ``props`` holding evidence ids (a str or a list of str)."""

    rels: tuple[str, ...] = ()
    props: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        for what in ("rels", "props"):
            value = getattr(self, what)
            if isinstance(value, str):
                raise InvalidInput(f"Evidence {what} must be a list of names, not {value!r:.80}")
            names = tuple(value)
            if any(not isinstance(v, str) or not v.strip() for v in names):
                raise InvalidInput(f"Evidence {what} must hold non-blank names, got {names!r:.80}")
            for name in names:
                check_id(name, what=f"a name in Evidence {what}")
            object.__setattr__(self, what, names)


@dataclass(frozen=True)
class Fact:
    """An edge that links the two records explained, with the records it was learned from."""

    edge: Edge
    evidence: tuple[Item, ...]


@dataclass(frozen=True)
class Explanation:
    """The result of :meth:`EvidenceReads.explain`: every fact on a chain of at most
    ``max_depth`` edges between ``a`` and ``b`` (no node twice on a chain), by edge id, and
    those chains, shortest first. Empty when they are not connected within that depth."""

    a: Node
    b: Node
    facts: tuple[Fact, ...]
    paths: tuple[Path, ...]

    @property
    def connected(self) -> bool:
        return bool(self.paths)


@dataclass(frozen=True)
class Provenance:
    """A record's versions (oldest first, whatever the view's instant) and the evidence of the
    version this view sees (the latest one if it sees none)."""

    id: str
    kind: Kind
    versions: tuple[Item, ...]
    evidence: tuple[Item, ...]


class _Records(Protocol):
    """What these verbs need from the reader they are mixed into."""

    def history(self, id: str, *, kind: Kind | None = None) -> list[Item]: ...
    def edges_of(
        self,
        node_ids: Iterable[str],
        *,
        direction: Direction = "both",
        rels: Iterable[str] | None = None,
    ) -> list[Edge]: ...


@verbs_take_turns
class EvidenceReads(PathReads, _Records):
    """``explain`` and ``provenance`` (mixed into :class:`~anatid_core.reads.Reader`)."""

    #: The store's evidence convention (a driver sets it); views share their store's.
    evidence: Evidence = Evidence()

    def explain(
        self,
        a: str,
        b: str,
        *,
        max_depth: int = EXPLAIN["max_depth"],
        rels: Iterable[str] | None = None,
        directed: bool = False,
        evidence: Evidence | None = None,
        limit: int = EXPLAIN["limit"],
    ) -> Explanation:
        """The facts linking ``a`` and ``b``: the edges on chains of at most ``max_depth`` edges
        between them (``directed``: from a to b), each with its evidence. Evidence rels are not
        walked unless named in ``rels`` (an episode mentioning both is evidence, not a link).
        At most ``limit`` chains are walked. Unknown or invisible ids are ``NotFound``."""
        check_depth(max_depth)
        if not isinstance(limit, int) or isinstance(limit, bool) or limit < 1:
            raise InvalidInput(f"limit must be an int >= 1, got {limit!r:.40}")
        ev = self._evidence(evidence)
        rels = None if rels is None or isinstance(rels, str) else list(rels)
        self._check_visible(a, b)
        out, out_edges = self._distances(a, True, directed, rels, ev, max_depth)
        back, _ = self._distances(b, False, directed, rels, ev, max_depth)
        chains = _chains(a, b, out_edges, back, max_depth, limit)
        paths = self._paths([(ns, [e.id for e in es]) for ns, es in chains])
        wanted = {e.id for _, es in chains for e in es}
        # Every parallel edge between two consecutive nodes of a chain links them as well.
        steps = {frozenset((n1, n2)) for ns, _ in chains for n1, n2 in pairwise(ns)}
        for refs in out_edges.values():
            for e in refs:
                if frozenset((e.src, e.dst)) in steps and (
                    not directed or any(_forward(ns, e.src, e.dst) for ns, _ in chains)
                ):
                    wanted.add(e.id)
        edges = self.get_edges(sorted(wanted))
        found = self._evidence_of(edges, ev)
        nodes = {n.id: n for n in self.get_nodes([a, b])}
        return Explanation(
            a=nodes[a],
            b=nodes[b],
            facts=tuple(Fact(e, found.get(e.id, ())) for e in sorted(edges, key=lambda e: e.id)),
            paths=tuple(paths),
        )

    def provenance(
        self, id: str, *, kind: Kind | None = None, evidence: Evidence | None = None
    ) -> Provenance:
        """The versions of record ``id`` and its evidence (:class:`Evidence`), as this view
        sees them. An id with no version in this view's scope is ``NotFound``."""
        check_id(id)
        ev = self._evidence(evidence)
        versions = self.history(id, kind=kind)
        if not versions:
            raise NotFound(f"no record {id!r} in this store (or this view's scope)", id=id)
        kinds = {"node" if isinstance(v, Node) else "edge" for v in versions}
        if len(kinds) > 1:
            raise InvalidInput(f"{id!r} names a node and an edge; pass kind='node' or 'edge'")
        record_kind: Kind = "node" if kinds == {"node"} else "edge"
        seen = self.get_nodes([id]) if record_kind == "node" else self.get_edges([id])
        record: Item = seen[0] if seen else versions[-1]
        found = self._evidence_of([record], ev)
        return Provenance(id, record_kind, tuple(versions), found.get(id, ()))

    # ------------------------------------------------------------------------- helpers

    def _evidence(self, given: Evidence | None) -> Evidence:
        if given is None:
            return self.evidence
        if not isinstance(given, Evidence):
            raise InvalidInput(f"evidence must be an Evidence, got {type(given).__name__}")
        return given

    def _distances(
        self,
        root: str,
        outward: bool,
        directed: bool,
        rels: list[str] | None,
        ev: Evidence,
        max_depth: int,
    ) -> tuple[dict[str, int], dict[str, list]]:
        """Hop counts from ``root`` (up to ``max_depth``) and the edges at every node expanded."""
        dist = {root: 0}
        at: dict[str, list] = {}
        frontier = [root]
        skip = set() if rels is not None else set(ev.rels)
        for depth in range(1, max_depth + 1):
            if not frontier:
                break
            hops = [
                h
                for h in self.hops(frontier, outward, directed, rels, None, None, dist.keys())
                if h[2].rel not in skip
            ]
            fresh = []
            for near, far, e in hops:
                at.setdefault(near, []).append(e)
                if far not in dist:
                    dist[far] = depth
                    fresh.append(far)
            frontier = sorted(set(fresh))
        return dist, at

    def _evidence_of(self, items: Sequence[Item], ev: Evidence) -> dict[str, tuple[Item, ...]]:
        """The visible evidence of each record, by its id: sources of evidence-rel edges
        pointing at it, then records named by its evidence props (by id, each once)."""
        named: dict[str, list[str]] = {}
        for item in items:
            for prop in ev.props:
                value = item.props.get(prop)
                ids = [value] if isinstance(value, str) else value
                if isinstance(ids, (list, tuple)):
                    named.setdefault(item.id, []).extend(i for i in ids if isinstance(i, str) and i)
        node_ids = [i.id for i in items if isinstance(i, Node)]
        if ev.rels and node_ids:
            for e in self.edges_of(node_ids, direction="in", rels=list(ev.rels)):
                named.setdefault(e.dst, []).insert(0, e.src)
        wanted = sorted({i for ids in named.values() for i in ids})
        records: dict[str, Item] = {n.id: n for n in self.get_nodes(wanted)}
        records.update((e.id, e) for e in self.get_edges([i for i in wanted if i not in records]))
        return {
            rid: tuple(records[i] for i in dict.fromkeys(ids) if i in records)
            for rid, ids in named.items()
        }


def _forward(nodes: list[str], src: str, dst: str) -> bool:
    return any(x == src and y == dst for x, y in pairwise(nodes))


def _chains(
    a: str,
    b: str,
    out_edges: dict[str, list],
    back: dict[str, int],
    max_depth: int,
    limit: int,
) -> list[tuple[list[str], list]]:
    """Simple chains a -> b of at most ``max_depth`` edges, by depth-first search pruned by the
    distance to ``b`` (a node from which b is farther than the edges left is never entered);
    the smallest-id edge stands for parallel ones. At most ``limit``, shortest first."""
    found: list[tuple[list[str], list]] = []
    nodes, edges = [a], []

    def walk(node: str) -> None:
        if len(found) >= limit:
            return
        if node == b:
            found.append((list(nodes), list(edges)))
            return
        left = max_depth - len(edges)
        best: dict[str, object] = {}
        for e in out_edges.get(node, ()):
            far = e.dst if e.src == node else e.src
            if far in nodes or back.get(far, max_depth + 1) > left - 1:
                continue
            if far not in best or e.id < best[far].id:  # type: ignore[attr-defined]
                best[far] = e
        for far in sorted(best):
            nodes.append(far)
            edges.append(best[far])
            walk(far)
            nodes.pop()
            edges.pop()

    if a == b:
        return [([a], [])]
    walk(a)
    return sorted(found, key=lambda c: (len(c[0]), c[0]))


__all__ = ["EXPLAIN", "Evidence", "EvidenceReads", "Explanation", "Fact", "Provenance"]
