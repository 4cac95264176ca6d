"""Records whose ``props`` are decoded when first read, for readers that mostly never read them.

The Cypher engine reads records by the thousand and, for most queries, looks only at their
columns (id, labels, group, name, ends) or a few properties of a few of them: decoding every
record's props JSON (tags, datetimes) was 3-6 us a record, most of a label scan or an
expansion at 10k facts (issue 42). Inside :func:`lazy_props` the store's row decoders build
:class:`LazyNode` / :class:`LazyEdge`, which keep their row and decode the props (and the
fields a query rarely reads) on first access.
Only the engine's own reads run inside it, and what it hands back is :func:`solid` (a plain
record), so no lazy record reaches a caller: a lazy record is not ``==`` to the plain one and
cannot go through ``dataclasses.replace``.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import fields
from typing import TypeVar, cast

from .model import Edge, Node

T = TypeVar("T", Node, Edge)

_LAZY: ContextVar[bool] = ContextVar("anatid_lazy_props", default=False)


@contextmanager
def lazy_props() -> Iterator[None]:
    """Records read by this thread (context) meanwhile decode their props when first read."""
    token = _LAZY.set(True)
    try:
        yield
    finally:
        _LAZY.reset(token)


def props_are_lazy() -> bool:
    return _LAZY.get()


class LazyNode(Node):
    """A :class:`Node` whose props and rarely read fields are read from its stored row when
    first asked (made by :func:`anatid_core.storage.rows.node_from_row` inside :func:`lazy_props`)."""


class LazyEdge(Edge):
    """An :class:`Edge` read from its row when first asked, as :class:`LazyNode`."""


def solid(item: T) -> T:
    """The plain record of a lazy one (props decoded); any other record as it is."""
    if isinstance(item, LazyNode):
        return cast(T, Node(**{f.name: getattr(item, f.name) for f in fields(Node)}))
    if isinstance(item, LazyEdge):
        return cast(T, Edge(**{f.name: getattr(item, f.name) for f in fields(Edge)}))
    return item
