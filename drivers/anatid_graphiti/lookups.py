"""Records by uuid as Graphiti's reference backends find them.

On Neo4j or FalkorDB a uuid no record can have (empty, with a NUL, longer than the store
allows) matches nothing: ``get_by_uuid`` raises ``NodeNotFoundError`` and ``get_by_uuids``
leaves it out. The store refuses such an id with ``InvalidInput`` (a clear error for a write);
a lookup here reads it as what it is, an id no record has.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar

from anatid_core import InvalidInput

T = TypeVar("T")


def found_by_uuid(get_many: Callable[[list[str]], list[T]], uuids: Sequence[str]) -> list[T]:
    """What ``get_many`` (``get_nodes``, ``get_edges``) finds for ``uuids``, a uuid the store
    refuses found nowhere. The others are read together; one by one only past a refused one."""
    try:
        return get_many(list(uuids))
    except InvalidInput:
        found: list[T] = []
        for uuid in uuids:
            try:
                found.extend(get_many([uuid]))
            except InvalidInput:
                continue  # an id no record can have
        return found


__all__ = ["found_by_uuid"]
