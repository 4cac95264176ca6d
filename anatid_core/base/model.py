"""The records the store reads and writes: nodes, edges, filter conditions and search hits.

Records are frozen dataclasses. The caller fills the content fields; the store fills the
bookkeeping fields (``tx_from``, ``tx_to``, ``version``) on everything it returns.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Literal

#: The vector space used when a record does not name one.
DEFAULT_SPACE = "default"
#: A record's ``props`` when none are given: each record gets a dict of its own.
_NO_PROPS: Any = object()

Direction = Literal["out", "in", "both"]
Kind = Literal["node", "edge"]


@dataclass(frozen=True, init=False)
class Node:
    """One version of a node.

    ``name`` and ``text`` are the full-text fields (BM25 indexes both). ``props`` holds any JSON-like
    value; dicts, lists, datetimes (naive or aware), dates, UUIDs, bytes and tuples round-trip
    exactly (tuples come back as tuples). ``valid_from``/``valid_to`` are valid time, given by the
    caller and timezone-aware; ``tx_from``/``tx_to`` are transaction time, set by the store.
    """

    id: str
    group: str = ""
    labels: tuple[str, ...] = ()
    name: str = ""
    text: str = ""
    props: Mapping[str, Any] = field(default_factory=dict)
    embedding: Sequence[float] | None = None
    space: str = DEFAULT_SPACE
    valid_from: datetime | None = None
    valid_to: datetime | None = None
    tx_from: datetime | None = None
    tx_to: datetime | None = None
    version: int | None = None

    def __init__(
        self,
        id: str,
        group: str = "",
        labels: tuple[str, ...] = (),
        name: str = "",
        text: str = "",
        props: Mapping[str, Any] = _NO_PROPS,
        embedding: Sequence[float] | None = None,
        space: str = DEFAULT_SPACE,
        valid_from: datetime | None = None,
        valid_to: datetime | None = None,
        tx_from: datetime | None = None,
        tx_to: datetime | None = None,
        version: int | None = None,
    ) -> None:
        _set_fields(self, locals())


@dataclass(frozen=True, init=False)
class Edge:
    """One version of a directed edge ``src -[rel]-> dst``; fields as on :class:`Node`."""

    id: str
    src: str
    dst: str
    rel: str
    group: str = ""
    name: str = ""
    text: str = ""
    props: Mapping[str, Any] = field(default_factory=dict)
    embedding: Sequence[float] | None = None
    space: str = DEFAULT_SPACE
    valid_from: datetime | None = None
    valid_to: datetime | None = None
    tx_from: datetime | None = None
    tx_to: datetime | None = None
    version: int | None = None

    def __init__(
        self,
        id: str,
        src: str,
        dst: str,
        rel: str,
        group: str = "",
        name: str = "",
        text: str = "",
        props: Mapping[str, Any] = _NO_PROPS,
        embedding: Sequence[float] | None = None,
        space: str = DEFAULT_SPACE,
        valid_from: datetime | None = None,
        valid_to: datetime | None = None,
        tx_from: datetime | None = None,
        tx_to: datetime | None = None,
        version: int | None = None,
    ) -> None:
        _set_fields(self, locals())


def _set_fields(record: Node | Edge, given: dict[str, Any]) -> None:
    """Set a record's fields at once from its ``__init__``'s arguments (``locals()``), each
    record a fresh props dict when none is given. The frozen dataclass's own ``__init__`` sets
    them one ``object.__setattr__`` at a time: 3.5 of the 4.8 us a record took, and a host's
    bulk write builds thousands. The class stays frozen: assignment after this is refused."""
    del given["self"]
    if given["props"] is _NO_PROPS:
        given["props"] = {}
    record.__dict__.update(given)


Item = Node | Edge

Op = Literal["=", "!=", "<", "<=", ">", ">=", "in", "not in", "is null", "is not null", "contains"]


@dataclass(frozen=True)
class Cond:
    """One comparison in a ``where`` filter.

    ``field`` is a column (``id``, ``group``, ``name``, ``text``, ``rel``, ``src``, ``dst``,
    ``valid_from``, ``valid_to``, ``tx_from``, ``tx_to``) or ``props.<key>[.<key>...]``. Values are
    compared by their Python type: str, int/float, bool or aware datetime; ``contains`` tests
    whether a list property holds a string. A ``where`` argument is a
    list of lists of conditions: the outer list is OR, each inner list is AND.
    """

    field: str
    op: Op
    value: Any = None


Where = Sequence[Sequence[Cond]]


@dataclass(frozen=True)
class Hit:
    """A search result: the record, its score in the arm that produced it, and its rank (1-based)."""

    id: str
    score: float
    item: Item
    rank: int = 0


@dataclass(frozen=True)
class RecallHit:
    """A fused result of :meth:`recall`: the RRF score and, per arm that found it, its rank."""

    id: str
    score: float
    item: Item
    arms: Mapping[str, int]


@dataclass(frozen=True)
class Subgraph:
    """The result of a k-hop expansion.

    ``distance`` maps each reached node id to its hop count (seeds are 0); ``edges`` are every
    edge traversed on a path of at most ``depth`` hops from a seed.
    """

    nodes: list[Node]
    edges: list[Edge]
    distance: Mapping[str, int]


@dataclass(frozen=True)
class WriteResult:
    """What a write verb did: new versions written, unchanged records skipped, records skipped."""

    written: int = 0
    unchanged: int = 0
    skipped: int = 0


@dataclass(frozen=True)
class Erasure:
    """The receipt of one erasure (issue 15): what was erased, never the content itself.

    ``node_ids``/``edge_ids`` are the records whose versions were erased (a node's edges are
    erased with it); ``versions`` counts every version row; ``digest`` is the SHA-256 of the
    erased rows and embeddings as they were stored (docs/erasure.md says how it is computed).
    ``everything`` marks ``purge_all``/``erase_all``, whose receipt lists no ids. ``gone_at`` is
    None while the erasure is pending (the rows are deleted, but their bytes may still be in the
    file's free blocks) and the instant the compaction that removed them ended otherwise.
    ``kept_neighbour_ids`` are the nodes that stay but were endpoints of erased edges: records
    whose derived text (a summary written from the erased facts) may mention what was erased.
    """

    id: int
    erased_at: datetime
    node_ids: tuple[str, ...]
    edge_ids: tuple[str, ...]
    versions: int
    digest: str
    everything: bool = False
    gone_at: datetime | None = None
    kept_neighbour_ids: tuple[str, ...] = ()

    @property
    def physically_gone(self) -> bool:
        """Whether no byte of the erased records remains in the store's files."""
        return self.gone_at is not None

    @property
    def state(self) -> Literal["pending", "gone"]:
        return "gone" if self.gone_at is not None else "pending"


@dataclass(frozen=True)
class Compaction:
    """What :meth:`Store.compact` did: file sizes before and after, and the erasures it
    completed (pending before, physically gone now)."""

    bytes_before: int
    bytes_after: int
    completed: tuple[Erasure, ...]


@dataclass(frozen=True)
class IndexState:
    """One persistent index as :meth:`Store.index_states` finds it (``space`` None: the kind's
    text index). ``state``: ``"ok"`` (searches use it), ``"unused"`` (it exists but may not
    answer: ``reason`` says why, searches scan exactly until the next build) or ``"none"`` (not
    built: the space or kind is searched from memory). ``rows``: the versions it holds;
    ``pending``: those written since it was built (all of them without one), searched exactly
    until the next build merges them; ``files``/``bytes``: its files and their size;
    ``built_at``: when it was built; ``format``: ``"hnsw"`` (a graph), ``"flat"`` (a space's
    vectors in one matrix searched exactly, while its graph is built) or ``"postings"``."""

    kind: Kind
    space: str | None
    state: str
    rows: int
    pending: int
    files: tuple[str, ...] = ()
    bytes: int = 0
    built_at: datetime | None = None
    reason: str | None = None
    format: str = ""


@dataclass(frozen=True)
class IndexBuild:
    """What :meth:`Store.build_indexes` did for one persistent index (a vector space's, or with
    ``space`` None a kind's text index): the versions it added (all of them for a first build,
    those written since for a merge), how many it holds now, the seconds it took and the index
    file's size in bytes."""

    kind: Kind
    space: str | None
    rows_added: int
    rows_total: int
    seconds: float
    bytes: int
    file: str


@dataclass(frozen=True)
class BuildProgress:
    """How far one persistent index build has got, as handed to the ``progress`` callback of
    :meth:`Store.build_indexes` (issue 41): the index (``space`` None: a kind's text index), the
    phase (a vector space: ``'flat'`` writes its exact index, ``'adding'`` reads and adds to the
    graph, ``'saving'``; a text index: ``'reading'``, ``'writing'``), the rows done and to do
    in that phase (``done`` never decreases within a phase and ends at ``total``) and the
    seconds since this index's build started."""

    kind: Kind
    space: str | None
    phase: str
    done: int
    total: int
    seconds: float


__all__ = [
    "DEFAULT_SPACE",
    "BuildProgress",
    "Compaction",
    "Cond",
    "Direction",
    "Edge",
    "Erasure",
    "Hit",
    "IndexBuild",
    "IndexState",
    "Item",
    "Kind",
    "Node",
    "Op",
    "RecallHit",
    "Subgraph",
    "Where",
    "WriteResult",
]
