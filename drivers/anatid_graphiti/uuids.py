"""The uuids a Graphiti read names, as far as the store could hold them.

Neo4j finds no node for a uuid that is empty, over-long or holds a NUL character, so Graphiti
raises ``NodeNotFoundError`` (``get_by_uuid``) or leaves it out (``get_by_uuids``); the core
refuses such an id with ``InvalidInput``, a ValueError a Graphiti caller does not expect.
"""

from __future__ import annotations

from collections.abc import Iterable

from anatid_core import InvalidInput, check_id


def storable(uuid: object) -> bool:
    """Whether the store could hold a record of this uuid."""
    try:
        check_id(uuid)
    except InvalidInput:
        return False
    return True


def storable_uuids(uuids: Iterable[object]) -> list[str]:
    """The uuids the store could hold, in order (the others name nothing)."""
    return [u for u in uuids if isinstance(u, str) and storable(u)]


__all__ = ["storable", "storable_uuids"]
