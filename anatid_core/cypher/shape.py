"""How the store's records look from Cypher: labels, properties, relationship types.

The core's own shape (:class:`RecordShape`) shows a record as it is: a node's labels, its
``props`` with ``id``, ``name``, ``group`` and ``text`` beside them; a relationship's type is its
``rel``. A driver passes its own shape so that a host's Cypher sees the property names its
reference backend stores (Graphiti's ``uuid``, ``group_id``, ``summary``; Cognee's LadybugDB
columns), and may add procedures (a host's full-text index call). The shape also tells the
engine which property equalities it may hand to the store's indexed reads (``field_of``): the
engine checks every condition again on the records it gets, so a shape may only narrow a read
to a superset of the answer.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, Protocol, runtime_checkable

from ..base.model import Edge, Item, Kind, Node
from .target import ReadTarget

#: A procedure: the store or view read, the shape, the evaluated arguments -> rows (maps from
#: output name to value; a core Node or Edge in a row is a node or relationship to the query).
ProcedureFn = Callable[[ReadTarget, "Shape", list[Any]], list[dict[str, Any]]]


class Procedure:
    """A procedure ``CALL name(args) YIELD outputs`` runs."""

    def __init__(
        self, outputs: Sequence[str], run: ProcedureFn, arity: tuple[int, int] | None = None
    ) -> None:
        self.outputs = tuple(outputs)
        self.run = run
        #: The least and most arguments it takes (None: ``run`` checks them).
        self.arity = arity


class Shape(Protocol):
    """How records look as nodes and relationships. ``node_labels`` and ``rel_type`` depend on
    the record's labels and rel alone: the engine types a relationship by its rel, and the
    schema procedures ask a record holding only its labels."""

    def node_labels(self, node: Node) -> list[str]: ...

    def node_properties(self, node: Node) -> dict[str, Any]: ...

    def rel_type(self, edge: Edge) -> str: ...

    def rel_properties(self, edge: Edge) -> dict[str, Any]: ...

    def embedding_key(self, item: Item) -> str | None:
        """The property under which the record's embedding shows, if it shows."""
        ...

    def field_of(self, kind: Kind, key: str) -> str | None:
        """The core field (``id``, ``name``, ``group``, ``text``) whose string equals property
        ``key``, for reads narrowed by the store; None if there is none."""
        ...

    def store_labels(self, labels: Sequence[str]) -> list[str] | None:
        """The core labels of which a node with any of these Cypher labels has one; None when
        the store cannot narrow by them."""
        ...

    def store_rels(self, types: Sequence[str]) -> list[str] | None:
        """The core rels of relationships of these types; None when the store cannot narrow."""
        ...

    def node_value(self, node: Node, props: Mapping[str, Any]) -> Any:
        """What a node returned by RETURN is."""
        ...

    def rel_value(self, edge: Edge, props: Mapping[str, Any]) -> Any: ...

    @property
    def procedures(self) -> Mapping[str, Procedure]: ...


#: What :meth:`QuickProperties.quick_property` gives when only the whole map has the answer.
WHOLE_MAP: Any = object()


def labels_of_stored(shape: Shape, stored: Sequence[str]) -> list[str]:
    """The labels ``shape`` shows on a node whose stored labels are ``stored``: it labels a
    node by them alone (:class:`Shape`), so a stand-in record holding only them is asked."""
    return shape.node_labels(Node(id="", labels=tuple(stored)))


def type_of_stored(shape: Shape, rel: str) -> str:
    """The type ``shape`` shows on a relationship of the store ``rel`` (by its rel alone)."""
    return shape.rel_type(Edge(id="", src="", dst="", rel=rel))


@runtime_checkable
class QuickProperties(Protocol):
    """A shape that can read some properties straight from a record's columns (optional)."""

    def quick_property(self, item: Item, key: str) -> Any:
        """Property ``key`` of the record, equal to ``node_properties(item).get(key)`` (or
        ``rel_properties``), read without building the map (nor decoding the props, often: a
        filter on ``n.group_id`` or a ``RETURN n.uuid`` then reads no JSON; issue 42); or
        :data:`WHOLE_MAP` when only the map can say (then the engine builds it)."""
        ...


@runtime_checkable
class ExactFields(Protocol):
    """A shape that says where a read narrowed by a field is exact (optional): ``field_of``
    promises only a superset, so without it the engine checks every narrowing equality again
    on every record read."""

    def exact_field(self, kind: Kind, key: str, among: Sequence[str] | None) -> bool:
        """Whether property ``key`` of every record of ``kind`` carrying one of the store
        labels (a node) or rels (a relationship) ``among`` (any record: None) is exactly its
        ``field_of`` field's value where that is a string: then a string equality the store
        narrowed by holds on every record the read gives (issue 42: a group's 3,000 entities
        checked ``n.group_id = $g`` again, a quarter of the query)."""
        ...


@runtime_checkable
class NullFields(Protocol):
    """A shape that says which properties are null where a column is (optional): a
    relationship scan then reads that column, not the record, for the records where it is
    null (Graphiti's ``r.invalid_at IS NULL`` is its fact's ``valid_to`` being null)."""

    def null_field(self, kind: Kind, key: str, among: Sequence[str] | None) -> str | None:
        """The core field (``valid_from``, ``valid_to``) such that property ``key`` is null on
        every record of ``kind`` carrying one of the store labels or rels ``among`` (any
        record: None) whose field is null; None if there is none. Where the field is not
        null the engine reads the property from the record."""
        ...


_FIELDS = ("id", "name", "group", "text")


class RecordShape:
    """The core's own view: records as they are (see the module docstring)."""

    procedures: Mapping[str, Procedure] = {}

    def node_labels(self, node: Node) -> list[str]:
        return list(node.labels)

    def node_properties(self, node: Node) -> dict[str, Any]:
        props = dict(node.props)
        props.update(id=node.id, name=node.name, group=node.group, text=node.text)
        return props

    def rel_type(self, edge: Edge) -> str:
        return edge.rel

    def rel_properties(self, edge: Edge) -> dict[str, Any]:
        props = dict(edge.props)
        props.update(id=edge.id, name=edge.name, group=edge.group, text=edge.text)
        return props

    def embedding_key(self, item: Item) -> str | None:
        return None

    def field_of(self, kind: Kind, key: str) -> str | None:
        return key if key in _FIELDS else None

    def exact_field(self, kind: Kind, key: str, among: Sequence[str] | None) -> bool:
        return key in _FIELDS  # the fields are set over the props' keys of the same name

    def store_labels(self, labels: Sequence[str]) -> list[str] | None:
        return list(labels)

    def store_rels(self, types: Sequence[str]) -> list[str] | None:
        return list(types)

    def node_value(self, node: Node, props: Mapping[str, Any]) -> Any:
        return node

    def rel_value(self, edge: Edge, props: Mapping[str, Any]) -> Any:
        return edge
