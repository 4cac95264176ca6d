"""The procedures every shape has: the graph's labels, relationship types and property keys
(what a schema-reading client, such as Cognee's natural-language retriever, asks first)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ..base.model import Edge, Node
from .graph import after_id, paged
from .shape import Procedure, Shape, labels_of_stored, type_of_stored
from .target import ReadTarget


def _all_nodes(target: ReadTarget) -> Iterator[Node]:
    for page in paged(
        lambda limit, after: target.find_nodes(order_by=None, limit=limit, where=after_id(after))
    ):
        yield from page


def _all_edges(target: ReadTarget) -> Iterator[Edge]:
    for page in paged(
        lambda limit, after: target.find_edges(order_by=None, limit=limit, where=after_id(after))
    ):
        yield from page


def _labels(target: ReadTarget, shape: Shape, args: list[Any]) -> list[dict[str, Any]]:
    # a shape labels a node by its labels alone (the Shape protocol): one record per label set
    seen: set[str] = set()
    for labels in target.label_sets():
        seen.update(labels_of_stored(shape, labels))
    return [{"label": label} for label in sorted(seen)]


def _types(target: ReadTarget, shape: Shape, args: list[Any]) -> list[dict[str, Any]]:
    seen = {type_of_stored(shape, rel) for rel in target.rel_names()}
    return [{"relationshipType": kind} for kind in sorted(seen)]


def _property_keys(target: ReadTarget, shape: Shape, args: list[Any]) -> list[dict[str, Any]]:
    seen: set[str] = set()
    for node in _all_nodes(target):
        seen.update(k for k, v in shape.node_properties(node).items() if v is not None)
        key = shape.embedding_key(node)
        if key is not None:
            seen.add(key)
    for edge in _all_edges(target):
        seen.update(k for k, v in shape.rel_properties(edge).items() if v is not None)
        key = shape.embedding_key(edge)
        if key is not None:
            seen.add(key)
    return [{"propertyKey": key} for key in sorted(seen)]


CORE_PROCEDURES = {
    "db.labels": Procedure(["label"], _labels, arity=(0, 0)),
    "db.relationshiptypes": Procedure(["relationshipType"], _types, arity=(0, 0)),
    "db.propertykeys": Procedure(["propertyKey"], _property_keys, arity=(0, 0)),
}
