"""Each node's current edges counted by side, type and far node's labels, kept beside the
in-memory current records (:mod:`.current_records`).

A pattern count (Cypher's ``MATCH (n {group_id: $g})-[r:RELATES_TO]-(:Entity) RETURN n,
count(r)``) asks, for each node of a group, how many of its edges of a type lead to a node
with a label. Walking every edge at every node each time cost about a microsecond an edge end:
2,500 ends (2.5 ms) a call at 10k facts, 25,000 at 100k (issue 42). A node's tally holds a few
entries (its edges' sides, types and far labels, nearly always fewer than its edges), so a
call reads those instead.

The tallies are counted for every node on first use, then a node's is dropped when an edge at
it changes, or a node at the far end of one of its edges (its labels, or it appeared or went),
and counted again on its next use. The first count (0.4 s at 125k edges) stops at the deadline
of the operation that asked (:mod:`anatid_core.base.deadlines`): the nodes it reached keep
their tallies, the ones a call asks meanwhile are counted then, and the next call goes on.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Mapping
from typing import Any

from ..base.deadlines import current_deadline

Row = tuple[Any, ...]

#: (the node's side of the edge: 2 src, 3 dst; the edge's type; the far node's labels; whether
#: the edge is a self loop)
TallyKey = tuple[int, str, tuple[str, ...], bool]

#: A node's tally: ((key, count), ...), each pair shared by every node with the same one (a
#: tuple of shared pairs: ~100 bytes a node, where a dict of fresh keys took ~700).
Tally = tuple[tuple[TallyKey, int], ...]

#: ``{node: {(rel, far labels): count}}``, as
#: :meth:`~anatid_core.graph.neighbourhood.NeighbourhoodReads.neighbour_counts` gives it.
NeighbourCounts = dict[str, dict[tuple[str, tuple[str, ...]], int]]

#: Where a node row holds its labels (rows.NODE_COLS), and an edge row its ends and type.
_LABELS, _SRC, _DST, _REL = 3, 2, 3, 4

_UNCOUNTED = object()
#: Nodes counted between two looks at the deadline (~2 ms).
_CHUNK = 2048


class NeighbourTallies:
    """The tallies of the nodes at the edges of one edge view, against one node view."""

    __slots__ = ("_counting", "_lock", "_nodes", "_of", "_pairs", "_todo")

    def __init__(self) -> None:
        #: node id -> its tally; None: counted again on next use; no key: no edges once every
        #: node was counted (``_todo`` empty), not counted yet before
        self._of: dict[str, Tally | None] | None = None
        #: the nodes the first count has yet to reach (their edges' ends when it began), and
        #: how many chunks of them readers are counting now
        self._todo: list[str] = []
        self._counting = 0
        self._lock = threading.Lock()
        self._nodes: Mapping[str, Row] | None = None  # the node rows they were counted against
        self._pairs: dict[tuple[TallyKey, int], tuple[TallyKey, int]] = {}

    def uncounted(self) -> int:
        """How many nodes the first count has yet to reach (0 once it is done)."""
        with self._lock:
            return len(self._todo) + self._counting * _CHUNK

    def stale(self, node_ids: Iterable[str]) -> None:
        """These nodes' tallies are counted again on their next use."""
        of = self._of
        if of is not None:
            for node in node_ids:
                of[node] = None

    def counts(
        self,
        ends: Mapping[int, Mapping[str, Mapping[str, Row]]],
        nodes: Mapping[str, Row],
        ids: Iterable[str],
        sides: list[int],
        rels: set[str] | None,
    ) -> NeighbourCounts:
        """For each node of ``ids`` (each once), its edges at ``sides`` (2: leaving, 3:
        arriving) of ``rels`` (None: any) that lead to a node of ``nodes``, by type and that
        node's labels; a self loop seen from both sides counts once, as it leaves. ``ends``
        are the edge view's rows at each node by side."""
        with self._lock:  # (readers at once share one count)
            if self._of is None or nodes is not self._nodes:
                self._of = {}
                self._nodes = nodes
                self._todo = list(dict.fromkeys([*ends[_SRC], *ends[_DST]]))
            of = self._of
        if self._todo:
            self._count_more(ends, nodes, of)
        with self._lock:  # (a chunk another reader took and counts is not counted yet)
            partial = bool(self._todo) or self._counting > 0
        both = len(sides) == 2
        out: NeighbourCounts = {}
        for near in dict.fromkeys(ids):
            tally = of.get(near, _UNCOUNTED)
            if tally is None or (partial and tally is _UNCOUNTED):
                tally = self._count_one(ends, nodes, near)
                if tally or partial:
                    of[near] = tally  # (while partial, () says "none": counted; harmless after)
                else:  # (pop: two readers may count it at once)
                    of.pop(near, None)
            if not tally or tally is _UNCOUNTED:
                continue
            got: dict[tuple[str, tuple[str, ...]], int] = {}
            for (side, rel, labels, loop), n in tally:  # type: ignore[union-attr]
                if side not in sides or (rels is not None and rel not in rels):
                    continue
                if loop and both and side == _DST:
                    continue  # a self loop, counted leaving
                key = (rel, labels)
                got[key] = got.get(key, 0) + n
            if got:
                out[near] = got
        return out

    def _count_more(
        self,
        ends: Mapping[int, Mapping[str, Mapping[str, Row]]],
        nodes: Mapping[str, Row],
        of: dict[str, Tally | None],
    ) -> None:
        """Count the nodes the first count has yet to reach, a chunk at a time, until none is
        left or the asking operation's deadline has passed (a node with none left out).
        Readers count at once (they share the publish lock): each takes its own chunks."""
        deadline = current_deadline()
        while True:
            if deadline is not None and deadline.remaining() <= 0:
                return
            with self._lock:
                chunk = self._todo[-_CHUNK:]
                del self._todo[-_CHUNK:]
                if not chunk:
                    return
                self._counting += 1
            try:
                for near in chunk:
                    if near not in of:  # (one a call counted, or marked stale, is known)
                        tally = self._count_one(ends, nodes, near)
                        if tally:
                            of[near] = tally
            finally:
                with self._lock:
                    self._counting -= 1

    def _count_one(
        self,
        ends: Mapping[int, Mapping[str, Mapping[str, Row]]],
        nodes: Mapping[str, Row],
        near: str,
    ) -> Tally:
        tally: dict[TallyKey, int] = {}
        for side in (_SRC, _DST):
            far_at = _SRC + _DST - side
            for row in ends[side].get(near, {}).values():
                far = row[far_at]
                far_row = nodes.get(far)
                if far_row is not None:
                    key = (side, row[_REL], tuple(far_row[_LABELS] or ()), far == near)
                    tally[key] = tally.get(key, 0) + 1
        return self._shared(tally)

    def _shared(self, tally: dict[TallyKey, int]) -> Tally:
        pairs = self._pairs
        return tuple(pairs.setdefault(pair, pair) for pair in tally.items())
