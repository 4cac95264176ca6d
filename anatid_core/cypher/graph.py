"""The engine's reads of the store: node scans, relationship expansions, records in batches.

Every read goes through the store's (or a view's) public read verbs (``find_nodes``,
``find_edges``, ``get_nodes``, ``expand``, ``get_embedding_arrays``), so a query sees exactly
what the target sees, an ``as_of`` view included. Records are fetched in batches: a node reached by an
expansion is a :class:`NodeRef` whose record comes with the next batch the query needs;
embeddings likewise, only when a query reads the property that shows one.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Iterator, Sequence
from operator import itemgetter
from typing import Any, Protocol, TypeVar, cast

from ..base.lazy import lazy_props
from ..base.model import Cond, Direction, Edge, Kind, Node
from .shape import (
    WHOLE_MAP,
    ExactFields,
    NullFields,
    QuickProperties,
    Shape,
    labels_of_stored,
    type_of_stored,
)
from .target import ReadTarget
from .values import NodeRef, RelRef


class _HasId(Protocol):
    """A record a scan pages through by its id."""

    @property
    def id(self) -> str: ...


_Paged = TypeVar("_Paged")


def _record_id(record: Any) -> str:
    return cast(_HasId, record).id


#: Ids per read of records, expansions or embeddings.
BATCH = 2_000
#: Page sizes of a scan: small first (a LIMIT is often met early), then larger, by 4 (by 10,
#: a LIMIT 10 that 200 rows did not meet matched 2,000 more; issue 42). Pages from the
#: in-memory current records cost a slice; from SQL (``as_of``) a statement each.
SCAN_PAGES = (25, 50, 100, 200, 400, 1_600, 6_400, 25_600, 100_000)
#: Page sizes of a scan of columns alone (``scan_*_columns``): a tuple costs a fraction of a
#: record, and a page's read its own cost (a tenth of the filtered LIMIT 10's time went on
#: three reads of pages of 25, 50 and 100 tuples at 10k facts; issue 42). Doubled first, as
#: the tuples of a page are built whole: a second page of 400 for the ~20 wanted after the
#: first 100 was a seventh of the query.
COLUMN_PAGES = (100, 200, 400, 1_600, 6_400, 25_600, 100_000)
#: Property keys the store's ``where`` accepts as ``props.<key>``.
_SIMPLE_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


#: Whether a shape's class implements an optional protocol: an ``isinstance`` of a runtime
#: protocol walks its members, a twentieth of a one-row query's time; asked once per class.
_IMPLEMENTS: dict[tuple[type, type], bool] = {}


def _implements(shape: Shape, protocol: type) -> bool:
    key = (type(shape), protocol)
    found = _IMPLEMENTS.get(key)
    if found is None:
        found = _IMPLEMENTS[key] = isinstance(shape, protocol)
    return found


def _reads_quickly(shape: Shape) -> bool:
    return _implements(shape, QuickProperties)


def prop_field(shape: Shape, kind: Kind, key: str) -> str | None:
    """The store field a string equality on property ``key`` narrows by, if any."""
    field = shape.field_of(kind, key)
    if field is not None:
        return field
    return None if not _SIMPLE_KEY.match(key) else f"props.{key}"


def exact_field(shape: Shape, kind: Kind, key: str, among: Sequence[str] | None) -> bool:
    """Whether a read narrowed by ``key``'s field gives only records whose ``key`` equals the
    value narrowed by (:class:`~anatid_core.cypher.shape.ExactFields`; a shape that does not
    say: no)."""
    return _implements(shape, ExactFields) and cast(ExactFields, shape).exact_field(
        kind, key, among
    )


def null_field(shape: Shape, kind: Kind, key: str, among: Sequence[str] | None) -> str | None:
    """The field whose null says property ``key`` is null on records of ``among``
    (:class:`~anatid_core.cypher.shape.NullFields`; a shape that does not say: none)."""
    if not _implements(shape, NullFields):
        return None
    return cast(NullFields, shape).null_field(kind, key, among)


class Graph:
    def __init__(self, target: ReadTarget, shape: Shape) -> None:
        self.target = target
        self.shape = shape
        self._nodes: dict[str, Node | None] = {}
        #: One reference per node, so its property map is built once however many rows
        #: hold it (a 2-hop read reaches a node by many paths).
        self._refs: dict[str, NodeRef] = {}
        self._pending: dict[str, NodeRef] = {}
        self._rels: dict[str, RelRef] = {}
        self._adjacency: dict[tuple[Any, ...], list[tuple[RelRef, str]]] = {}
        #: Records whose properties were read (each once: ``noted``), their embeddings not
        #: read yet, read with the next one asked for; the embeddings read, by id.
        self._noted: list[NodeRef | RelRef] = []
        self._embedded: dict[Kind, dict[str, list[float] | None]] = {"node": {}, "edge": {}}
        #: The rows being evaluated now (set by WHERE and projections): an embedding read for
        #: one of them reads those of the records they hold too, in one batch.
        self.rows_at_hand: list[dict[str, Any]] | None = None
        self._rel_types: dict[str, str] = {}
        self._stored_labels: dict[tuple[str, ...], frozenset[str]] = {}
        self._quick = cast(QuickProperties, shape).quick_property if _reads_quickly(shape) else None

    # ------------------------------------------------------------------------------ nodes

    def node(self, id: str) -> NodeRef:
        """The reference to node ``id``; its record is read with the next batch."""
        ref = self._refs.get(id)
        if ref is None:
            ref = self._refs[id] = NodeRef(id)
            if id in self._nodes:
                ref.record = self._nodes[id]
            else:
                self._pending[id] = ref
        return ref

    def _node_record(self, node: Node) -> NodeRef:
        self._nodes[node.id] = node
        self._pending.pop(node.id, None)
        ref = self._refs.get(node.id)
        if ref is None:
            ref = self._refs[node.id] = NodeRef(node.id, node)
        elif ref.record is None:
            ref.record = node
        return ref

    def load(self) -> None:
        """Read the records of every node referenced but not yet read."""
        while self._pending:
            ids = list(self._pending)[:BATCH]
            with lazy_props():
                found = {n.id: n for n in self.target.get_nodes(ids)}
            for id in ids:
                record = found.get(id)
                self._nodes[id] = record
                self._pending.pop(id).record = record

    def record(self, ref: NodeRef) -> Node | None:
        if ref.record is None and ref.id in self._pending:
            self.load()
        return ref.record

    def labels(self, ref: NodeRef) -> list[str]:
        record = self.record(ref)
        return [] if record is None else self.shape.node_labels(record)

    def label_set(self, ref: NodeRef) -> frozenset[str]:
        """The node's labels as a set, made once per node (patterns test them per row)."""
        labels = ref.labels
        if labels is None:
            record = self.record(ref)
            labels = ref.labels = (
                frozenset() if record is None else self.labels_of_stored(record.labels)
            )
        return labels

    # ------------------------------------------------------------------------- properties

    def properties(self, ref: NodeRef | RelRef) -> dict[str, Any]:
        """The whole property map, the embedding included where the shape shows one."""
        props = self._props(ref)
        key = self._embedding_key(ref)
        if key is not None and key not in props:
            self._load_embeddings(ref)
        return props

    def property(self, ref: NodeRef | RelRef, key: str) -> Any:
        if ref.props is None and self._quick is not None:
            # a column the shape reads without the map (and without decoding the props)
            record = ref.record
            if record is None and isinstance(ref, NodeRef):  # not read yet, or not stored
                record = self.record(ref)
            if record is None:
                return None
            value = self._quick(record, key)
            if value is not WHOLE_MAP:
                if not ref.noted:  # _read_one, inline: this runs for every row a WHERE reads
                    ref.noted = True
                    self._noted.append(ref)
                return value
        props = self._props(ref)
        if key in props:
            return props[key]
        if key == self._embedding_key(ref):
            self._load_embeddings(ref)
            return props.get(key)
        return None

    def _props(self, ref: NodeRef | RelRef) -> dict[str, Any]:
        if ref.props is None:
            if isinstance(ref, RelRef):
                ref.props = self.shape.rel_properties(ref.record)
            else:
                record = self.record(ref)
                ref.props = {} if record is None else self.shape.node_properties(record)
            key = self._embedding_key(ref)
            if key is not None:
                loaded = self._embedded["edge" if isinstance(ref, RelRef) else "node"]
                if ref.id in loaded:
                    ref.props[key] = loaded[ref.id]
                else:
                    self._read_one(ref)
        return ref.props

    def will_read(self, value: Any) -> None:
        """Note the records in ``value`` (walking lists and maps) as about to be read whole,
        so their embeddings come in one batch (``RETURN n`` of 300 entities made 300 reads of
        one embedding each, 0.7 s; issue 42)."""
        stack = [value]
        while stack:
            item = stack.pop()
            if isinstance(item, (NodeRef, RelRef)):
                self._read_one(item)
            elif isinstance(item, list):
                stack.extend(item)
            elif isinstance(item, dict):
                stack.extend(item.values())

    def _read_one(self, ref: NodeRef | RelRef) -> None:
        """Note that a property of ``ref`` was read: if its shape shows an embedding, the next
        read of one reads this one's too, in the same batch (a WHERE on ``n.group_id`` then
        ``RETURN n`` read 300 embeddings in one call, not one call a row). Whether it shows
        one is asked then, not here: this runs for every row a WHERE reads."""
        if not ref.noted:
            ref.noted = True
            self._noted.append(ref)

    def _embedding_key(self, ref: NodeRef | RelRef) -> str | None:
        record = ref.record if isinstance(ref, RelRef) else self.record(ref)
        return None if record is None else self.shape.embedding_key(record)

    def _load_embeddings(self, ref: NodeRef | RelRef) -> None:
        """Read the embeddings of every record read so far whose embedding is not read yet."""
        kind: Kind = "edge" if isinstance(ref, RelRef) else "node"
        if self.rows_at_hand is not None:
            rows, self.rows_at_hand = self.rows_at_hand, None
            for row in rows:
                self.will_read(list(row.values()))
        loaded = self._embedded[kind]
        of_kind = RelRef if kind == "edge" else NodeRef
        waiting = [r for r in self._noted if isinstance(r, of_kind)]
        self._noted = [r for r in self._noted if not isinstance(r, of_kind)]
        waiting = [r for r in waiting if r.id not in loaded and self._embedding_key(r) is not None]
        if ref.id not in loaded and ref not in waiting:
            waiting.append(ref)
        for start in range(0, len(waiting), BATCH):
            chunk = waiting[start : start + BATCH]
            ids = list(dict.fromkeys(r.id for r in chunk))
            arrays = self.target.get_embedding_arrays(ids, kind=kind)
            for r in chunk:
                array = arrays.get(r.id)
                value = None if array is None else [float(x) for x in array.tolist()]
                loaded[r.id] = value
                key = self._embedding_key(r)
                if key is not None and r.props is not None:
                    r.props[key] = value

    # ------------------------------------------------------------------------------ reads

    def scan_nodes(self, labels: list[str] | None, conds: list[Cond]) -> Iterator[list[NodeRef]]:
        """Pages of the nodes with any of the store ``labels`` passing ``conds``, by id."""
        ids = _only_ids(conds)
        if ids is not None:
            # a lookup by id: ``get_nodes`` answers from the in-memory current records where
            # they serve (~0.01 ms), ``find_nodes`` by SQL (1-5 ms at 10k facts; issue 35's bench)
            wanted = None if labels is None else set(labels)
            for start in range(0, len(ids), BATCH):
                with lazy_props():
                    found = self.target.get_nodes(ids[start : start + BATCH])
                if wanted is not None:
                    found = [n for n in found if wanted.intersection(n.labels)]
                if found:
                    yield [self._node_record(n) for n in found]
            return

        def read(limit: int, after: str | None) -> list[Node]:
            with lazy_props():
                return self.target.find_nodes(
                    labels=labels, where=after_id(after, conds), order_by=None, limit=limit
                )

        for found in paged(read):
            yield [self._node_record(n) for n in found]

    def scan_node_columns(
        self, labels: list[str] | None, conds: list[Cond], columns: list[str]
    ) -> Iterator[Sequence[tuple[Any, ...]]]:
        """Pages of the tuples of ``columns`` (``id`` first) of the nodes :meth:`scan_nodes`
        pages through, in the same order, no record read (``find_node_columns``; a lookup by
        id, as :meth:`scan_nodes`' is, ``get_node_columns``: the filters of a scan cost more
        than the read of one start node of ``*1..3``)."""
        ids = _only_ids(conds)
        if ids is not None and (labels is None or "labels" in columns):
            at = columns.index("labels") if labels is not None else 0
            wanted = None if labels is None else set(labels)
            for start in range(0, len(ids), BATCH):
                found = self.target.get_node_columns(ids[start : start + BATCH], columns)
                if wanted is not None:
                    found = [t for t in found if wanted.intersection(t[at])]
                if found:
                    yield found
            return

        def read(limit: int, after: str | None) -> list[tuple[Any, ...]]:
            return self.target.find_node_columns(
                columns, labels=labels, where=after_id(after, conds), limit=limit
            )

        yield from paged(read, itemgetter(0), COLUMN_PAGES)

    def scan_rels(self, rels: list[str] | None, conds: list[Cond]) -> Iterator[list[RelRef]]:
        def read(limit: int, after: str | None) -> list[Edge]:
            with lazy_props():
                return self.target.find_edges(
                    rels=rels, where=after_id(after, conds), order_by=None, limit=limit
                )

        for found in paged(read):
            yield [self._rel(e) for e in found]

    def scan_rel_columns(
        self, rels: list[str] | None, conds: list[Cond], columns: list[str]
    ) -> Iterator[Sequence[tuple[Any, ...]]]:
        """Pages of the tuples of ``columns`` (``id`` first) of the relationships
        :meth:`scan_rels` pages through, in the same order, no record read
        (``find_edge_columns``)."""

        def read(limit: int, after: str | None) -> Sequence[tuple[Any, ...]]:
            # built as read: the plan reads a page in chunks and stops at its LIMIT
            return self.target.find_edge_columns_lazily(
                columns, rels=rels, where=after_id(after, conds), limit=limit
            )

        yield from paged(read, itemgetter(0), COLUMN_PAGES)

    def node_columns(self, ids: Collection[str], columns: list[str]) -> dict[str, tuple[Any, ...]]:
        """The tuple of ``columns`` (``id`` first) of each node of ``ids`` there is, by id, no
        record read (``get_node_columns``)."""
        if not ids:
            return {}
        return {t[0]: t for t in self.target.get_node_columns(ids, columns)}

    def rels(self, ids: Collection[str]) -> dict[str, RelRef]:
        """The references to the relationships of ``ids`` there are, by id, their records read
        in one batch."""
        if not ids:
            return {}
        with lazy_props():
            found = self.target.find_edges(ids=list(ids), order_by=None, limit=None)
        return {e.id: self._rel(e) for e in found}

    def wrap(self, value: Any) -> Any:
        """A procedure's value with its records as references (lists and maps walked)."""
        if isinstance(value, Node):
            return self._node_record(value)
        if isinstance(value, Edge):
            return self._rel(value)
        if isinstance(value, list):
            return [self.wrap(v) for v in value]
        if isinstance(value, dict):
            return {k: self.wrap(v) for k, v in value.items()}
        return value

    def _rel(self, edge: Edge) -> RelRef:
        ref = self._rels.get(edge.id)
        if ref is None:
            ref = self._rels[edge.id] = RelRef(edge)
        return ref

    def expand(
        self, ids: Sequence[str], direction: str, rels: list[str] | None, conds: list[Cond]
    ) -> dict[str, list[tuple[RelRef, str]]]:
        """For each node id, its relationships (of the store ``rels``, passing ``conds``) in
        ``direction`` ("out", "in", "both") and the node at their other end."""
        key = (direction, None if rels is None else tuple(rels), tuple(map(repr, conds)))
        wanted = [i for i in dict.fromkeys(ids) if (i, *key) not in self._adjacency]
        for start in range(0, len(wanted), BATCH):
            chunk = wanted[start : start + BATCH]
            found: dict[str, list[tuple[RelRef, str]]] = {i: [] for i in chunk}
            with lazy_props():
                edges = self._edges_at(chunk, direction, rels, conds)
            if direction in ("out", "both"):
                for e in edges["out"]:
                    found[e.src].append((self._rel(e), e.dst))
            if direction in ("in", "both"):
                for e in edges["in"]:
                    if direction == "both" and e.src == e.dst:
                        continue  # a self loop is one relationship, already seen outgoing
                    found[e.dst].append((self._rel(e), e.src))
            for i, pairs in found.items():
                self._adjacency[(i, *key)] = pairs
        return {i: self._adjacency[(i, *key)] for i in ids}

    def ends(
        self, ids: Sequence[str], direction: str, rels: list[str] | None
    ) -> dict[str, list[tuple[str, str, str]]]:
        """For each node id, ``(relationship id, store rel, other end's id)`` of its
        relationships (of the store ``rels``) in ``direction``, no record read: a walk for
        the nodes reached needs no more (:meth:`~.matching.Matcher._reach`)."""
        found: dict[str, list[tuple[str, str, str]]] = {i: [] for i in ids}
        out, into = direction in ("out", "both"), direction in ("in", "both")
        wanted = list(found)
        for start in range(0, len(wanted), BATCH):
            chunk = wanted[start : start + BATCH]
            at = set(chunk)  # (an edge between two chunks comes with each: once per chunk end)
            ends = self.target.edge_ends(chunk, direction=cast(Direction, direction), rels=rels)
            for edge, src, dst, rel in ends:
                if out and src in at:
                    found[src].append((edge, rel, dst))
                if into and dst in at and not (out and src == dst):
                    found[dst].append((edge, rel, src))  # (a self loop once, leaving)
        return found

    def neighbour_counts(
        self, ids: Sequence[str], direction: str, rels: list[str] | None
    ) -> dict[str, dict[tuple[str, tuple[str, ...]], int]]:
        """Per node of ``ids``, its relationships (of the store ``rels``) to visible nodes
        counted by (store rel, stored labels of the far node), no record read (:mod:`.counting`)."""
        found: dict[str, dict[tuple[str, tuple[str, ...]], int]] = {}
        for start in range(0, len(ids), BATCH):
            chunk = ids[start : start + BATCH]
            found.update(
                self.target.neighbour_counts(chunk, direction=cast(Direction, direction), rels=rels)
            )
        return found

    def label_set_counts(
        self, labels: list[str] | None, conds: list[Cond]
    ) -> dict[tuple[str, ...], int]:
        """How many of the nodes ``scan_nodes(labels, conds)`` pages through carry each stored
        label set (no record read), in the order of their first node's id."""
        return self.target.count_label_sets(labels=labels, where=after_id(None, conds))

    def labels_of_stored(self, stored: tuple[str, ...]) -> frozenset[str]:
        """The labels of a node whose stored labels are ``stored`` (a shape labels a node by
        them alone: :class:`~.shape.Shape`), made once per set."""
        if stored.__class__ is not tuple:  # a record made by hand may hold a list
            stored = tuple(stored)
        labels = self._stored_labels.get(stored)
        if labels is None:
            labels = self._stored_labels[stored] = frozenset(labels_of_stored(self.shape, stored))
        return labels

    def rel_type_of(self, rel: str) -> str:
        """The type of relationships of the store ``rel`` (a shape types a relationship by its
        rel alone: every shape does)."""
        kind = self._rel_types.get(rel)
        if kind is None:
            kind = self._rel_types[rel] = type_of_stored(self.shape, rel)
        return kind

    def _edges_at(
        self, ids: list[str], direction: str, rels: list[str] | None, conds: list[Cond]
    ) -> dict[str, list[Edge]]:
        """The edges leaving (``out``) and entering (``in``) the nodes ``ids``, as ``direction``
        asks. Without conditions, one ``expand`` of depth 1: it walks the in-memory current
        edges or graph index where they serve (``find_edges`` by src/dst is SQL, 1-5 ms a
        call at 10k facts; issue 35's bench), and the nodes it reads come with it."""
        out, into = direction in ("out", "both"), direction in ("in", "both")
        if conds:
            where, find = [conds], self.target.find_edges
            return {
                "out": find(src=ids, rels=rels, where=where, order_by=None) if out else [],
                "in": find(dst=ids, rels=rels, where=where, order_by=None) if into else [],
            }
        sub = self.target.expand(ids, depth=1, direction=cast(Direction, direction), rels=rels)
        for node in sub.nodes:
            if node.id not in self._nodes:
                self._nodes[node.id] = node
                waiting = self._pending.pop(node.id, None)
                if waiting is not None:
                    waiting.record = node
        at = set(ids)
        return {
            "out": [e for e in sub.edges if e.src in at] if out else [],
            "in": [e for e in sub.edges if e.dst in at] if into else [],
        }


def _only_ids(conds: list[Cond]) -> list[str] | None:
    """The ids of a narrowing by id alone (``[Cond("id", "in", ids)]``), else None."""
    if len(conds) == 1 and conds[0].field == "id" and conds[0].op == "in":
        return list(conds[0].value)
    return None


def paged(
    read: Callable[[int, str | None], Sequence[_Paged]],
    id_of: Callable[[_Paged], str] = _record_id,
    sizes: tuple[int, ...] = SCAN_PAGES,
) -> Iterator[Sequence[_Paged]]:
    """The non-empty pages ``read(limit, after)`` gives, by ``sizes`` (the last repeated),
    until one comes back short. The reads are in id order (``id_of`` says an
    item's: a record's own by default) and each starts after the last id of the one before
    (not at an offset: a commit between two pages would shift the offsets, and a record be
    skipped or read twice)."""
    after: str | None = None
    for size in _page_sizes(sizes):
        found = read(size, after)
        if found:
            yield found
        if len(found) < size:
            return
        after = id_of(found[-1])


def after_id(after: str | None, conds: Sequence[Cond] = ()) -> list[list[Cond]] | None:
    """A scan's ``where``: its conditions, and ids after ``after`` when it pages on."""
    where = [*conds] if after is None else [*conds, Cond("id", ">", after)]
    return [where] if where else None


def _page_sizes(sizes: tuple[int, ...]) -> Iterator[int]:
    yield from sizes
    while True:
        yield sizes[-1]
