"""The current records of each kind, held in memory beside the file (issue 16).

Reads by id and single-record saves are the operations an agent does most, and each was one or
more SQL round trips (a point query costs far more than a dict lookup, and much more again on a
loaded machine). So the connection keeps, per kind, every current version as the row SQL would
return (plus its content hash): by id, by version id, newest first by valid_from (sorted on the
first such query: Graphiti's ``retrieve_episodes``), for nodes by label and by name (filtered
reads) and, for edges, by endpoint (expansions).

The file stays the truth; this view is derived and is only used where it cannot differ from what
SQL would answer:

* it is built from the tables on first use, under the write lock (no commit lands in between);
* each commit applies its own changes right after COMMIT, under the publish lock (readers see
  the view before a transaction or after it, never half of it): new versions are added, closed
  or purged ones removed (by version id, so purges that only know version ids are covered);
* it is dropped whenever that is not possible: after another process had the file, around
  compaction, after a purge of everything, and when it would grow past ``SETTINGS
  ['current_records_limit']`` records of one kind (then SQL answers, as before);
* reads use it only for the current state outside the reader's own transaction (inside one,
  SQL sees the uncommitted writes; ``as_of`` views always read SQL).

Memory: one tuple per current record holding its columns (id, name, text, props JSON, ...), plus
the adjacency of each edge: measured with tracemalloc on Graphiti-shaped records, 95 MB per 100k
entity nodes and 145 MB per 100k facts (edges), plus 8-21 MB per 100k nodes for the label and
name index (:class:`NodeTags`), the rows of the last 64 label, group, name or rel scans
(references to the rows, dropped at the next change), and the ids of each group (scans by group; estimated at 4-6 MB
per 100k records, not measured). Bulk reads of plain props (Cognee's ``get_graph_data``) keep
what they parsed per current version (:meth:`CurrentRecords.plain_props`): measured on Cognee's
records, nothing beyond the rows for nodes (untagged props keep the row's own text) and 850 bytes
per edge (scalar props kept parsed), 85 MB per 100k edges (measured: 186 MB more resident for
the 125k edges of 100k Graphiti facts, 410 MB for the 300k edges of Cognee's 100k nodes). The
default limit is sized by the machine: both kinds at the limit take a quarter of its memory at
most (:func:`~anatid_core.base.settings.records_limit`; 2.2M a kind on 24 GiB, where 1M nodes
and 2M edges took 2.7 GB), never under 500,000 a kind; ``SETTINGS['current_records_limit'] =
0`` turns it off. A kind past ``LOADED_AT_ONCE`` records loads beside its readers, SQL
answering them until it is built.
"""

from __future__ import annotations

import bisect
import math
import operator
import threading
import time
from collections.abc import Iterable, Iterator, Mapping, Sequence
from concurrent.futures import Future, wait
from concurrent.futures import TimeoutError as FutureTimeout
from contextlib import AbstractContextManager
from typing import Any, Protocol

import numpy as np

from ..base.codec import decode_props_plain, gc_paused, loads_plain_json, plain_json
from ..base.deadlines import Deadline, current_deadline
from ..base.model import Kind
from ..base.settings import SETTINGS
from ..storage.changes import Changes
from ..storage.prepare import Prepared
from ..storage.rows import EDGE_AT, NODE_AT, cols_of, table_of
from ..storage.turns import WouldWait
from .base import Index
from .neighbour_tallies import NeighbourCounts, NeighbourTallies


class _Connection(Protocol):
    """What the records need of :class:`~anatid_core.storage.connection.Connection`."""

    @property
    def write_lock(self) -> AbstractContextManager[Any]: ...

    def sees_committed_only(self) -> bool: ...

    def refuses_waiting(self) -> bool: ...

    def turn(self) -> AbstractContextManager[None]: ...

    def query(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]: ...

    def query_chunks(
        self, sql: str, params: Sequence[Any] = (), size: int = 4096
    ) -> Iterator[list[tuple[Any, ...]]]: ...


#: What the view keeps of a version's props for plain reads: its props parsed when every value
#: is a scalar (a dict copy is a whole copy), else its plain JSON text
#: (:func:`~anatid_core.base.codec.plain_json`), or None: only the full decoder reads them.
Plain = dict[str, Any] | str | None

#: A version whose plain props are not kept yet.
_UNSEEN: Any = object()
#: The edges at a node that has none.
_NO_EDGES: dict[str, Any] = {}

#: The types of JSON scalars, immutable: props holding only these are kept parsed.
_SCALARS = frozenset({str, int, float, bool, type(None)})


def _first_plain(text: str) -> tuple[dict[str, Any], Plain]:
    """The plain props of a stored props text, and what the view keeps of them."""
    plain = plain_json(text)
    if plain is None:
        return decode_props_plain(text), None
    props = loads_plain_json(plain)
    if _SCALARS.issuperset(map(type, props.values())):
        return props, dict(props)
    return props, plain


#: A current version as ``SELECT {cols_of(kind)}, r.chash`` returns it.
Row = tuple[Any, ...]

#: Where the group and valid_from sit in a row of each kind (see rows.NODE_COLS / EDGE_COLS).
GROUP_AT: dict[Kind, int] = {"node": NODE_AT["group"], "edge": EDGE_AT["group"]}
VALID_FROM_AT: dict[Kind, int] = {"node": NODE_AT["valid_from"], "edge": EDGE_AT["valid_from"]}

#: Where an edge row holds its relationship type (rows.EDGE_COLS).
_REL = EDGE_AT["rel"]

#: Where a node row holds its labels and its name (rows.NODE_COLS).
_LABELS, _NAME = NODE_AT["labels"], NODE_AT["name"]

#: Row positions of the columns a scan of the current rows filters by (rows.NODE_COLS /
#: EDGE_COLS): see :meth:`_KindView.scan`.
SCAN_COLUMNS: dict[Kind, dict[str, int]] = {
    "node": {c: NODE_AT[c] for c in ("id", "group", "name")},
    "edge": {c: EDGE_AT[c] for c in ("id", "src", "dst", "rel", "group", "name")},
}
#: Scans whose answers a view keeps until its next change (a query pages through one scan).
SCANS_KEPT = 64

#: A scan: (row position, the values allowed there) for each column filtered, all to hold.
ScanFilter = tuple[tuple[int, frozenset[str]], ...]

#: A commit changing more records than this drops the recency order instead of editing it (it
#: is sorted again on next use: cheaper than many list insertions).
RECENCY_EDITS = 64


#: A part with no rows (:meth:`_KindView.part_order`).
_NO_ROWS: list[Row] = []

#: A row's record id, as a C callable (a sort key called for each row).
_ID = operator.itemgetter(1)


def row_id(row: Row) -> str:
    """A row's record id (the sort key of reads by id)."""
    return row[1]


class NodeTags:
    """The ids of the current nodes by label and by name.

    A name is held by one node as a rule, so its entry is that node's id (the row's own string:
    no copy) until a second node takes the name; then a set. Measured with tracemalloc per 100k
    nodes: 8 MB with unique names and one label each, 21 MB when every name is held by two
    nodes and each node has two labels."""

    __slots__ = ("by_label", "by_name")

    def __init__(self) -> None:
        self.by_label: dict[str, set[str]] = {}
        self.by_name: dict[str, str | set[str]] = {}

    def add(self, row: Row) -> None:
        rid, name = row[1], row[_NAME]
        for label in row[_LABELS] or ():
            self.by_label.setdefault(label, set()).add(rid)
        held = self.by_name.get(name)
        if held is None:
            self.by_name[name] = rid
        elif isinstance(held, set):
            held.add(rid)
        elif held != rid:
            self.by_name[name] = {held, rid}

    def drop(self, row: Row) -> None:
        rid, name = row[1], row[_NAME]
        for label in row[_LABELS] or ():
            ids = self.by_label.get(label)
            if ids is not None:
                ids.discard(rid)
                if not ids:
                    del self.by_label[label]
        held = self.by_name.get(name)
        if held == rid:
            del self.by_name[name]
        elif isinstance(held, set):
            held.discard(rid)
            if len(held) == 1:
                self.by_name[name] = next(iter(held))

    def with_labels(self, labels: Iterable[str]) -> set[str]:
        """The ids of the nodes carrying one of ``labels`` at least."""
        found: set[str] = set()
        for label in labels:
            found.update(self.by_label.get(label, ()))
        return found

    def with_names(self, names: Iterable[str]) -> set[str]:
        """The ids of the nodes named one of ``names``."""
        found: set[str] = set()
        for name in names:
            held = self.by_name.get(name)
            if isinstance(held, set):
                found.update(held)
            elif held is not None:
                found.add(held)
        return found


class _KindView:
    """The current rows of one kind: by id, the id of each version, and (built on first use)
    the records with a valid_from, newest first: ``(-valid_from, id)`` ascending, the order
    ``ORDER BY valid_from DESC, id`` gives."""

    __slots__ = (
        "by_id",
        "by_vid",
        "recency",
        "ends",
        "tallies",
        "tags",
        "plain",
        "by_group",
        "_by_id_order",
        "_part_orders",
        "_scans",
        "_vf",
        "_label_sets",
        "_group_at",
    )

    def __init__(self, kind: Kind) -> None:
        self.by_id: dict[str, Row] = {}
        self.by_vid: dict[int, str] = {}
        self.recency: list[tuple[int, str]] | None = None
        #: Edges only: the current edges at each node (id -> row), by row position of the end
        #: (2: src, 3: dst), for expansions without SQL (the rows at hand: a lookup by id per
        #: edge was a third of counting 22,500 relationship ends).
        self.ends: dict[int, dict[str, dict[str, Row]]] | None = (
            {2: {}, 3: {}} if kind == "edge" else None
        )
        #: Edges only: each node's edges counted by side, type and far labels (pattern counts).
        self.tallies: NeighbourTallies | None = NeighbourTallies() if kind == "edge" else None
        #: Nodes only: the ids of the current nodes by label and by name, for reads filtered on
        #: them (Cognee's ``get_filtered_graph_data``, ``get_nodeset_subgraph``).
        self.tags: NodeTags | None = NodeTags() if kind == "node" else None
        #: What is kept of a version's props for plain reads (:data:`Plain`), by version id,
        #: from the first bulk read of plain props that met the version: see
        #: :meth:`CurrentRecords.plain_props`.
        self.plain: dict[int, Plain] = {}
        #: Every current row by id, built on the first read of them all, dropped at any change.
        #: The ids of the current records of each group, for scans by group (a pass over
        #: every row of 125k edges took 40-65 ms; issue 42).
        self.by_group: dict[str, set[str]] = {}
        self._group_at = GROUP_AT[kind]
        self._by_id_order: list[Row] | None = None
        #: The current rows of each part by id, for scans by group: a part is a group (nodes)
        #: or a group and a relationship type (edges: a query names both, as a rule). Built
        #: for every part at once on the first such scan (a pass over :meth:`in_id_order`);
        #: then a part's order is dropped only when one of its rows changes (None: sorted
        #: again on its next scan; a part with no rows has no key). A group's first scan
        #: sorted and filtered its rows: at 10k facts, a third of the calls of a query
        #: rotating over ten groups (issue 42); after a write, every group's (issue 43).
        self._part_orders: dict[Any, list[Row] | None] | None = None
        #: The answers of recent scans (:meth:`scan`), dropped at any change.
        self._scans: dict[tuple[ScanFilter, frozenset[str] | None], list[Row]] = {}
        self._vf = VALID_FROM_AT[kind]
        #: Nodes only: each label set once, as a tuple, every row holding it holding the same
        #: one (SQL gives a list per row: a scan by labels made a tuple of it per row, a third
        #: of reading a group's columns; issue 42).
        self._label_sets: dict[tuple[str, ...], tuple[str, ...]] | None = (
            {} if kind == "node" else None
        )

    def add(self, row: Row) -> None:
        if self._label_sets is not None:
            labels = tuple(row[_LABELS] or ())
            shared = self._label_sets.setdefault(labels, labels)
            if row[_LABELS] is not shared:
                row = (*row[:_LABELS], shared, *row[_LABELS + 1 :])
        old = self.by_id.get(row[1])
        if old is not None:
            self._drop(old)
        self.by_id[row[1]] = row
        self.by_vid[row[0]] = row[1]
        self._by_id_order = None
        self._scans = {}
        if self.recency is not None and row[self._vf] is not None:
            bisect.insort(self.recency, (-row[self._vf], row[1]))
        if self.ends is not None:
            for at, index in self.ends.items():
                index.setdefault(row[at], {})[row[1]] = row
        if self.tallies is not None:
            self.tallies.stale((row[2], row[3]))
        if self.tags is not None:
            self.tags.add(row)
        self.by_group.setdefault(row[self._group_at], set()).add(row[1])
        if self._part_orders is not None:
            self._part_orders[self._part(row)] = None  # sorted again on its next scan

    def remove_vids(self, vids: Iterable[int]) -> None:
        for vid in vids:
            rid = self.by_vid.get(vid)
            if rid is not None:
                row = self.by_id.pop(rid, None)
                if row is not None:
                    self._drop(row)
                self.by_vid.pop(vid, None)

    def _drop(self, row: Row) -> None:
        """Take ``row`` out of the secondary structures (the caller updates by_id)."""
        self.by_vid.pop(row[0], None)
        self.plain.pop(row[0], None)
        self._by_id_order = None
        self._scans = {}
        self._unorder(row)
        if self.ends is not None:
            for at, index in self.ends.items():
                at_node = index.get(row[at])
                if at_node is not None:
                    at_node.pop(row[1], None)
                    if not at_node:
                        del index[row[at]]
        if self.tallies is not None:
            self.tallies.stale((row[2], row[3]))
        if self.tags is not None:
            self.tags.drop(row)
        if self._part_orders is not None:
            self._part_orders[self._part(row)] = None  # sorted again on its next scan
        in_group = self.by_group.get(row[self._group_at])
        if in_group is not None:
            in_group.discard(row[1])
            if not in_group:
                del self.by_group[row[self._group_at]]

    def walk(
        self, seeds: list[str], depth: int, sides: list[tuple[int, int]], rels: set[str] | None
    ) -> list[tuple[int, Row]]:
        """``(hop, edge row)`` for every edge met at each hop up to ``depth``, as
        ``NeighbourhoodReads._expand_in_one_query`` reads them by SQL: hop k takes the edges whose
        ``near`` end is a ``far`` end of an edge of hop k-1 (the seeds for hop 1). The rows are
        the view's own (not copied: a copy per edge was a tenth of a one-hop expansion)."""
        assert self.ends is not None
        out: list[tuple[int, Row]] = []
        frontier = set(seeds)
        for hop in range(1, depth + 1):
            reached: set[str] = set()
            for near, far in sides:
                index = self.ends[near]
                for node in frontier:
                    for row in index.get(node, _NO_EDGES).values():
                        if rels is None or row[4] in rels:
                            out.append((hop, row))
                            reached.add(row[far])
            if not reached:
                break
            frontier = reached
        return out

    def ends_at(
        self, ids: list[str], sides: list[int], rels: set[str] | None
    ) -> list[tuple[str, str, str, str]]:
        """``(id, src, dst, rel)`` of the edges whose end at row position ``sides`` (2: src, 3: dst)
        is one of ``ids``, of ``rels``; each edge once, by id."""
        assert self.ends is not None
        found: set[str] = set()
        for side in sides:
            index = self.ends[side]
            for node in ids:
                found.update(index.get(node, ()))
        rows = [self.by_id[eid] for eid in sorted(found)]
        return [(r[1], r[2], r[3], r[4]) for r in rows if rels is None or r[4] in rels]

    def neighbour_counts(
        self, nodes: _KindView, ids: list[str], sides: list[int], rels: set[str] | None
    ) -> NeighbourCounts:
        """:meth:`~anatid_core.graph.neighbourhood.NeighbourhoodReads.neighbour_counts` from
        this edge view and the node view ``nodes``: each node's tally of its edges
        (:mod:`.neighbour_tallies`), no edge walked once they are counted."""
        assert self.ends is not None and self.tallies is not None
        return self.tallies.counts(self.ends, nodes.by_id, ids, sides, rels)

    def far_nodes_changed(self, node_ids: Iterable[str]) -> None:
        """Nodes were added, changed or dropped: the tallies of the nodes at the far end of
        their edges are counted again (they count by the far node's labels)."""
        if self.ends is None or self.tallies is None:
            return
        stale = self.tallies.stale
        for node in node_ids:
            stale(row[3] for row in self.ends[2].get(node, {}).values())
            stale(row[2] for row in self.ends[3].get(node, {}).values())

    def scan(self, columns: ScanFilter, labels: frozenset[str] | None) -> list[Row]:
        """The current rows whose columns hold one of the values ``columns`` allows, and (nodes)
        carrying one of ``labels``, by id: what ``SELECT ... WHERE ... ORDER BY id`` gives.
        The answer is kept until the next change (a query reads it a page at a time)."""
        key = (columns, labels)
        found = self._scans.get(key)
        if found is not None:
            return found
        allowed = dict(columns)
        rows, held, in_order = self._candidates(allowed, labels)
        shared = in_order  # an order the view keeps: copied if no pass below made a new list
        for at, values in columns:  # a pass per column: no generator per row (2 us a row)
            if at not in held:  # (the index the candidates came from holds its column)
                rows = [row for row in rows if row[at] in values]
                shared = False
        if labels is not None:
            rows = [row for row in rows if not labels.isdisjoint(row[3] or ())]
            shared = False
        found = list(rows) if shared else rows
        if not in_order:
            found.sort(key=_ID)
        # a read by ids or by an edge's ends is answered from an index already, and its key
        # (a set of ids) would hold the memory of the rows it found: kept are label, group,
        # name and rel scans, the ones a query pages through
        by_index = {1} if self.ends is None else {1, 2, 3}  # ids; an edge's ends
        if allowed.keys().isdisjoint(by_index):
            if len(self._scans) >= SCANS_KEPT:
                self._scans.clear()
            self._scans[key] = found
        return found

    def _candidates(
        self, allowed: dict[int, frozenset[str]], labels: frozenset[str] | None
    ) -> tuple[list[Row], tuple[int, ...], bool]:
        """The rows a scan need look at, from the narrowest index at hand (ids, a name, an
        end of an edge, a group, a label); the row positions whose allowed values all of them
        hold; and whether they are in id order already (a part's order, or all rows). A
        group's first scan at 100k facts filtered its 10,000 rows by their group again: a
        third of the scan."""
        by_id = self.by_id
        if 1 in allowed:
            return [by_id[i] for i in allowed[1] if i in by_id], (1,), False
        if self.tags is not None and 4 in allowed:
            return [by_id[i] for i in self.tags.with_names(allowed[4])], (4,), False
        if self.ends is not None:
            for at in (2, 3):
                if at in allowed:  # an edge is at one end of each side: no row twice
                    ends = self.ends[at]
                    rows = [r for end in allowed[at] for r in ends.get(end, {}).values()]
                    return rows, (at,), False
        if self._group_at in allowed:
            return self._in_parts(allowed)
        if self.tags is not None and labels is not None:
            return [by_id[i] for i in self.tags.with_labels(labels)], (), False
        return self.in_id_order(), (), True

    def _part(self, row: Row) -> Any:
        """The part of the rows ``row`` is in: its group, and an edge's relationship type."""
        return row[self._group_at] if self.ends is None else (row[self._group_at], row[_REL])

    def _in_parts(
        self, allowed: dict[int, frozenset[str]]
    ) -> tuple[list[Row], tuple[int, ...], bool]:
        """The rows of the groups ``allowed`` names, as :meth:`_candidates` gives them: an
        edge scan naming relationship types reads those types' parts alone."""
        groups = allowed[self._group_at]
        if self.ends is None:
            parts: list[Any] = list(groups)
            held: tuple[int, ...] = (self._group_at,)
        elif _REL in allowed:
            parts = [(g, r) for g in groups for r in allowed[_REL]]
            held = (self._group_at, _REL)
        else:  # every type's part of each group
            parts = [p for p in list(self._orders()) if p[0] in groups]  # (a copy: see pop)
            held = (self._group_at,)
        if len(parts) == 1:
            return self.part_order(parts[0]), held, True
        return [r for p in parts for r in self.part_order(p)], held, False

    def _orders(self) -> dict[Any, list[Row] | None]:
        """Every part's order, built at once from the rows in id order when missing."""
        orders = self._part_orders
        if orders is None:
            orders, part = {}, self._part
            for row in self.in_id_order():
                held = orders.get(part(row))
                if held is None:
                    orders[part(row)] = [row]
                else:
                    held.append(row)
            self._part_orders = orders  # whole: another reader may be scanning meanwhile
        return orders

    def part_order(self, part: Any) -> list[Row]:
        """The current rows of ``part`` (see :meth:`_part`) by id (kept: do not change it)."""
        orders = self._orders()
        found = orders.get(part, _NO_ROWS)
        if found is None:
            group = part if self.ends is None else part[0]
            rows = (self.by_id[i] for i in self.by_group.get(group, ()))
            found = sorted(
                (r for r in rows if self._part(r) == part) if self.ends is not None else rows,
                key=_ID,
            )
            if found:
                orders[part] = found
            else:  # (pop: two readers may sort it at once)
                orders.pop(part, None)
        return found

    def in_id_order(self) -> list[Row]:
        """Every current row, by id (sorted on first use after a change: a repeated read of
        the whole graph sorts nothing). Read it under the publish lock, as the rows."""
        if self._by_id_order is None:
            self._by_id_order = sorted(self.by_id.values(), key=row_id)
        return self._by_id_order

    def _unorder(self, row: Row) -> None:
        if self.recency is None or row[self._vf] is None:
            return
        key = (-row[self._vf], row[1])
        at = bisect.bisect_left(self.recency, key)
        if at < len(self.recency) and self.recency[at] == key:
            del self.recency[at]

    def newest(self) -> list[tuple[int, str]]:
        """The recency order, sorted now if it is not built."""
        if self.recency is None:
            vf = self._vf
            self.recency = sorted((-r[vf], r[1]) for r in self.by_id.values() if r[vf] is not None)
        return self.recency


#: How long closing waits for a build running beside a reader (a build at the records limit
#: takes a few seconds; closing stops it at its next chunk).
SETTLE_SECONDS = 60.0
#: Most current records of a kind a read waits to load (a few seconds: the fixed records limit
#: before it was sized by the machine); a bigger kind loads on a thread of its own while SQL
#: answers its reads (1M nodes took 7.5 s, 2M edges 10.4 s: the read that asked waited).
LOADED_AT_ONCE = 500_000
#: Rows a build beside readers adds between two yields of the interpreter: reads by SQL meanwhile
#: took 30 ms where it never yielded, 2-3 ms yielding every 64 rows (1.5 ms alone).
YIELD_ROWS = 64
#: Version ids a load beside readers reads in one turn (at most as many rows: ~40 ms of
#: fetching, during which the file is not handed over and no other thread runs).
LOADED_VIDS = 16_384


class _Stopped(Exception):
    """The store closes: a build beside a reader ends at its next chunk."""


class CurrentRecords(Index):
    """Every current version of each kind, in step with the commits of this process."""

    def __init__(self, connection: _Connection, limit: Any) -> None:
        self._connection = connection
        self._limit = limit  # a callable giving the limit now (SETTINGS may change at run time)
        self._views: dict[Kind, _KindView] = {}
        self._too_big: set[Kind] = set()
        self._reads_by_sql: dict[Kind, int] = {}
        self._pending: dict[Kind, Future[_KindView | None]] = {}  # builds beside a reader
        self._loading_beside: dict[Kind, bool] = {}  # ... which no reader waits for
        #: The commits that land while a kind loads beside (:meth:`_loaded`): per kind, the
        #: rows each added and the versions each removed.
        self._catching: dict[Kind, list[tuple[list[Row], np.ndarray]]] = {}
        self._generation = 0  # one more each time every view is dropped
        self._stopping = False  # closing: builds beside readers end
        self._lock = threading.RLock()
        #: (kind, space) -> (table, dimension) of the vector spaces known to exist, so that a
        #: write with an embedding need not look its space up (set after the COMMIT that
        #: created or first used it; dropped with the views).
        self.spaces: dict[tuple[Kind, str], tuple[str, int]] = {}

    def enabled(self) -> bool:
        """Whether the in-memory state is on (``SETTINGS['current_records_limit']`` > 0)."""
        return int(self._limit()) > 0

    def usable(self) -> bool:
        """Whether this thread's reads may use the view (not inside its own transaction)."""
        return self._connection.sees_committed_only()

    def view(self, kind: Kind) -> _KindView | None:
        """The view of ``kind``, built now if needed; None if it is off or too big, or loads
        beside the readers (a kind of more than ``LOADED_AT_ONCE`` records: SQL answers until
        it is built). Call outside the publish lock (building takes the write lock); read it
        inside. Under an operation's deadline
        (:func:`~anatid_core.base.deadlines.current_deadline`) the build runs beside the
        operation, which waits for it only until its deadline."""
        with self._lock:
            found = self._views.get(kind)
            if found is not None or kind in self._too_big:
                return found
            if kind in self._pending and self._loading_beside.get(kind, False):
                return None
        limit = int(self._limit())
        if limit <= 0:
            return None
        if self._connection.refuses_waiting():  # building waits for the writer, reads SQL
            raise WouldWait("the in-memory records are not built yet")
        if kind not in self._pending:  # (one count decides: too big, loaded beside, or now)
            generation = self._generation
            count = self._count(kind)
            if count > limit:
                with self._lock:
                    if self._generation == generation:  # (no purge of everything since)
                        self._too_big.add(kind)
                return None
            if count > LOADED_AT_ONCE:
                self._building_beside(kind, limit, loading=True)
                return None
        deadline = current_deadline()
        if deadline is None or deadline.remaining() == math.inf:
            return self._built(kind, limit)
        return self._built_beside(kind, limit, deadline)

    def _loaded(self, kind: Kind, limit: int) -> _KindView | None:
        """The view of ``kind`` built beside the readers and writers of this process and of
        others, none waiting for it (1M nodes: seconds): it reads the tables a range of version
        ids at a time, each read in a turn of its own (another process may have the file in
        between), and the commits that land meanwhile, this process's and others', are kept
        and applied to it, in order, before it is used (one that a read saw already applies
        again to the same end). A drop of every view meanwhile (compaction, a purge of
        everything) drops it too: it is built again on next use."""
        with self._lock:
            found = self._views.get(kind)
            if found is not None or kind in self._too_big:
                return found
            generation = self._generation
            caught = self._catching[kind] = []  # (before the tables are read: see above)
        try:
            built = self._build_in_turns(kind, limit)
        finally:
            with self._lock:
                self._catching.pop(kind, None)
        with self._lock:
            if self._generation != generation:
                return None
            if kind in self._views:  # (built meanwhile by a reader that waited)
                return self._views[kind]
            if built is None:
                self._too_big.add(kind)
                return None
            self._views[kind] = built
            for added, removed in caught:
                self._take_in(kind, built, added, removed)  # (drops it if past the limit)
            return self._views.get(kind)

    def _built(self, kind: Kind, limit: int, stoppable: bool = False) -> _KindView | None:
        """The view of ``kind``, built now by this thread unless another built it first
        (``stoppable``: a build beside a reader, which a closing store stops)."""
        with self._connection.write_lock:
            with self._lock:
                found = self._views.get(kind)
                if found is not None or kind in self._too_big:
                    return found
            built = self._build(kind, limit, stoppable)
            with self._lock:
                if built is None:
                    self._too_big.add(kind)
                else:
                    self._views[kind] = built
            return built

    def _built_beside(self, kind: Kind, limit: int, deadline: Deadline) -> _KindView | None:
        """The view of ``kind`` built by a thread of its own, waited for until ``deadline``
        (then its error): a first query at 125k relationships with a deadline of 0.05 s was
        answered after 0.56 s, the build's. The build goes on past it, for the next read;
        one build a kind, whoever asks meanwhile waits for that one."""
        try:
            return self._building_beside(kind, limit).result(timeout=deadline.remaining())
        except FutureTimeout:
            deadline.expire()

    def _building_beside(
        self, kind: Kind, limit: int, loading: bool = False
    ) -> Future[_KindView | None]:
        """The build of ``kind`` on a thread of its own, started now unless one runs
        (``loading``: no reader waits for it, SQL answers them until it is built)."""
        with self._lock:
            pending = self._pending.get(kind)
            if pending is None:
                pending = self._pending[kind] = Future()
                self._loading_beside[kind] = loading
                threading.Thread(
                    target=self._run_build,
                    args=(kind, limit, pending, loading),
                    name=f"anatid-current-{kind}s",
                    daemon=True,  # (closing the store stops it and waits for it: stop)
                ).start()
        return pending

    def settle(self) -> None:
        """Wait for the builds running beside readers. Bounded: a build waiting for the write
        lock of a transaction the waiting thread holds would wait for ever."""
        with self._lock:
            pending = list(self._pending.values())
        wait(pending, timeout=SETTLE_SECONDS)

    def stop(self) -> None:
        """For the store to close: stop the builds running beside readers at their next rows
        and wait for them (their query must not meet a closed file)."""
        with self._lock:
            self._stopping = True
        self.settle()

    def _run_build(
        self, kind: Kind, limit: int, pending: Future[_KindView | None], loading: bool
    ) -> None:
        """The thread of a build beside a reader: its view, or its error, to ``pending``."""
        try:
            if loading:  # (a turn a chunk)
                built = self._loaded(kind, limit)
            else:
                with self._connection.turn():  # its own: the reader's may end first
                    built = self._built(kind, limit, stoppable=True)
        except _Stopped:  # the store closes: nothing built, nothing known too big
            with self._lock:
                self._pending.pop(kind, None)
            pending.set_result(None)
        except BaseException as exc:  # handed to whoever waits: raised there, as if built there
            with self._lock:
                self._pending.pop(kind, None)
            pending.set_exception(exc)
        else:
            with self._lock:
                self._pending.pop(kind, None)
            pending.set_result(built)

    def view_for_reads(self, kind: Kind) -> _KindView | None:
        """The view of ``kind`` for a read of a few records by id: built once this process has
        read ``SETTINGS["current_records_after_reads"]`` times by SQL, else None (SQL answers).
        As a ski rental: a read by SQL costs about a millisecond, the load a second at 100k
        records, so a process that reads a few and exits never pays for it. Reads that scan,
        walk or write use :meth:`view` at once."""
        with self._lock:
            found = self._views.get(kind)
            if found is not None or kind in self._too_big:
                return found
            reads = self._reads_by_sql.get(kind, 0)
            if reads < int(SETTINGS["current_records_after_reads"]):
                self._reads_by_sql[kind] = reads + 1
                return None
        return self.view(kind)

    def loaded(self, kind: Kind) -> _KindView | None:
        """The view of ``kind`` if it is built (never builds it)."""
        with self._lock:
            return self._views.get(kind)

    def rows_passing(
        self,
        kind: Kind,
        ids: list[str],
        groups: Iterable[str] | None,
        tags: Iterable[str] | None,
    ) -> list[Row] | None:
        """The current rows of ``ids`` in one of ``groups`` and carrying one of ``tags`` (a
        node's labels, an edge's rel), as the SQL filters select them; None if the view is not
        built (this never builds it: the caller may hold the publish lock)."""
        view = self.loaded(kind)
        if view is None:
            return None
        wanted_groups = None if groups is None else set(groups)
        wanted_tags = None if tags is None else set(tags)
        at_group = GROUP_AT[kind]
        out: list[Row] = []
        for i in ids:
            row = view.by_id.get(i)
            if row is None or (wanted_groups is not None and row[at_group] not in wanted_groups):
                continue
            if wanted_tags is not None:
                have = row[3] if kind == "node" else (row[4],)
                if wanted_tags.isdisjoint(have):
                    continue
            out.append(row)
        return out

    def plain_props(self, kind: Kind, rows: list[Row], at: int) -> list[dict[str, Any]]:
        """:func:`~anatid_core.base.codec.decode_props_plain` of the props (at row position ``at``)
        of these current rows of ``kind``. Each version's plain JSON text is kept from the first
        such read until the version is replaced or dropped, so a repeated read of the whole
        graph (Cognee's ``get_graph_data``) parses each record's props and does nothing else:
        no tag replacement, no scan for long integers. Props of scalar values only (Cognee's
        edges) are kept parsed, and each read gets a copy of the dict (a fifth of a parse);
        others keep their plain text, the row's own string where it holds no tags. Memory:
        see the module docstring."""
        view = self.loaded(kind)
        kept = view.plain if view is not None else {}
        out: list[dict[str, Any]] = []
        seen: dict[int, Plain] = {}
        for row in rows:
            plain = kept.get(row[0], _UNSEEN)
            if plain is _UNSEEN:
                props, seen[row[0]] = _first_plain(row[at])
                out.append(props)
            elif isinstance(plain, dict):
                out.append(dict(plain))  # scalars only: a shallow copy is a whole copy
            elif isinstance(plain, str):
                out.append(loads_plain_json(plain))
            else:
                out.append(decode_props_plain(row[at]))
        if seen and view is not None:
            with self._lock:  # applied() drops versions under it: keep only current ones
                current = view.by_vid
                kept.update((vid, text) for vid, text in seen.items() if vid in current)
        return out

    def _count(self, kind: Kind) -> int:
        """How many current records of ``kind`` the file holds."""
        found = self._connection.query(f"SELECT count(*) FROM {table_of(kind)} WHERE tx_to IS NULL")
        return int(found[0][0])

    def _build(self, kind: Kind, limit: int, stoppable: bool) -> _KindView | None:
        """The view of ``kind`` (:meth:`view` counted it within ``limit``; a commit that takes
        it past meanwhile drops it as it lands: :meth:`_take_in`)."""
        view = _KindView(kind)
        # by chunks: a reader waiting for this build beside it (its deadline) is let run.
        # The cycle collector is held off: its full passes over the growing heap were a third
        # of a build of 1M nodes (8.0 -> 4.7 s); the rows and their indexes form no cycles.
        with gc_paused():
            for rows in self._connection.query_chunks(
                f"SELECT {cols_of(kind)}, r.chash FROM {table_of(kind)} r WHERE r.tx_to IS NULL"
            ):
                self._add_rows(view, rows, stoppable)
        return view

    def _add_rows(self, view: _KindView, rows: list[Row], beside: bool) -> None:
        """Add ``rows`` to a view being built; ``beside`` readers, yielding to them every
        ``YIELD_ROWS`` rows and stopping when the store closes."""
        if not beside:
            for row in rows:
                view.add(row)
            return
        for at in range(0, len(rows), YIELD_ROWS):
            if self._stopping:
                raise _Stopped
            time.sleep(0)  # (the interpreter to a reader waiting for it)
            for row in rows[at : at + YIELD_ROWS]:
                view.add(row)

    def _build_in_turns(self, kind: Kind, limit: int) -> _KindView | None:
        """:meth:`_build` a range of ``LOADED_VIDS`` version ids at a time, each read in a turn
        of its own, up to the newest version at its start (later ones are the commits
        :meth:`_loaded` keeps); yielding to other threads as the build beside readers does."""
        table = table_of(kind)
        with self._connection.turn():
            found = self._connection.query(
                f"SELECT count(*), max(vid) FROM {table} WHERE tx_to IS NULL"
            )
        count, top = int(found[0][0]), found[0][1]
        if count > limit:
            return None
        view = _KindView(kind)
        low = 0
        with gc_paused():  # (as _build)
            while top is not None and low < top:
                with self._connection.turn():
                    rows = self._connection.query(
                        f"SELECT {cols_of(kind)}, r.chash FROM {table} r "
                        "WHERE r.tx_to IS NULL AND r.vid > ? AND r.vid <= ?",
                        [low, low + LOADED_VIDS],
                    )
                low += LOADED_VIDS
                self._add_rows(view, rows, beside=True)
        return view

    # --------------------------------------------------------------- kept in step by commits

    def applied(self, changes: Changes) -> None:
        """Add the rows the transaction inserted, then drop the versions it removed (a row
        replaces its id's older row as it is added). A view not built yet is left alone: it
        reads the tables, commit included, when used. The spaces it used become known."""
        with self._lock:
            self.spaces.update(changes.spaces)
            for kind in self._kinds_kept():
                removed = changes.removed(kind)
                batches = changes.added(kind)
                if not batches and not len(removed):
                    continue
                added = [
                    row
                    for batch in batches
                    for row in current_rows(kind, batch.records, batch.vids, changes.time_us)
                ]
                self._take_in_or_keep(kind, added, removed)

    def caught_up(self, since_us: int, removed: Mapping[Kind, np.ndarray]) -> None:
        """Other processes' commits: their current rows added, the versions they ended
        dropped, as :meth:`applied` does for this process's (rebuilding a view instead read
        every current record again: 0.36 s at 40k edges, each time another process wrote)."""
        with self._lock:
            for kind in self._kinds_kept():
                added = self._connection.query(
                    f"SELECT {cols_of(kind)}, r.chash FROM {table_of(kind)} r "
                    "WHERE r.tx_to IS NULL AND r.tx_from > ?",
                    [int(since_us)],
                )
                self._take_in_or_keep(kind, added, removed[kind])

    def _kinds_kept(self) -> list[Kind]:
        """The kinds whose views are built or loading beside. Under the lock."""
        return list(dict.fromkeys([*self._views, *self._catching]))

    def _take_in_or_keep(self, kind: Kind, added: list[Row], removed: np.ndarray) -> None:
        """A commit's rows and removed versions of ``kind``, taken into its view, or kept for
        it while it loads beside (applied once it is built). Under the lock."""
        view = self._views.get(kind)
        if view is not None:
            self._take_in(kind, view, added, removed)
        else:
            self._catching[kind].append((added, removed))

    def _take_in(self, kind: Kind, view: _KindView, added: list[Row], removed: np.ndarray) -> None:
        """Add the rows a commit inserted, then drop the versions it ended (a row replaces its
        id's older row as it is added); a view grown past the limit is dropped. Under the lock."""
        if len(removed) + len(added) > RECENCY_EDITS:
            view.recency = None
        gone = removed.tolist()
        edges = self._views.get("edge") if kind == "node" else None
        if edges is not None:  # the edges' tallies count by their far nodes' labels
            edges.far_nodes_changed(
                [*(row[1] for row in added), *(view.by_vid[v] for v in gone if v in view.by_vid)]
            )
        for row in added:
            view.add(row)
        view.remove_vids(gone)
        if len(view.by_id) > int(self._limit()):
            del self._views[kind]
            self._too_big.add(kind)

    def forget(self) -> None:
        """Drop every view (each is built again on next use)."""
        with self._lock:
            self._generation += 1
            self._views.clear()
            self._too_big.clear()
            self.spaces.clear()

    def replaced(self) -> None:
        """Compaction holds the file: the views are read again from the new file."""
        self.forget()


def current_rows(kind: Kind, rows: list[Prepared], vids: np.ndarray, tx_us: int) -> list[Row]:
    """The rows just inserted, as ``SELECT {cols_of(kind)}, r.chash`` reads them back."""
    out: list[Row] = []
    for vid, p in zip(vids.tolist(), rows, strict=True):
        i = p.item
        space = i.space if p.vector is not None else None
        if kind == "node":
            head: tuple[Any, ...] = (vid, i.id, i.group, tuple(i.labels))  # type: ignore[union-attr]
        else:
            head = (vid, i.id, i.src, i.dst, i.rel, i.group)  # type: ignore[union-attr]
        out.append(
            (*head, i.name, i.text, p.props, space, p.valid_from, p.valid_to, tx_us, None, p.chash)
        )
    return out


__all__ = [
    "SCAN_COLUMNS",
    "CurrentRecords",
    "NodeTags",
    "Row",
    "ScanFilter",
    "current_rows",
    "row_id",
]
