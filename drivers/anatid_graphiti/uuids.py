"""The uuids a Graphiti read names, as far as the store could hold them.

Neo4j finds no node for a uuid that is empty, over-long or holds a NUL character, so Graphiti
raises ``NodeNotFoundError`` (``get_by_uuid``) or leaves it out (``get_by_uuids``); the core
refuses such an id with ``InvalidInput``, a ValueError a Graphiti caller does not expect.
(Text that is not Unicode stays InvalidInput, see :func:`storable`.)
"""

from __future__ import annotations

from collections.abc import Iterable

from anatid_core import InvalidInput, check_id


def storable(uuid: object) -> bool:
    """Whether the store could hold a record of this uuid. Text that is not Unicode (a lone
    surrogate) stays InvalidInput: Neo4j's driver cannot send it either (it raises on encoding),
    so no Graphiti caller meets NodeNotFoundError for it."""
    try:
        check_id(uuid)
    except InvalidInput:
        if isinstance(uuid, str) and not _encodable(uuid):
            raise
        return False
    return True


def _encodable(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def storable_uuids(uuids: Iterable[object]) -> list[str]:
    """The uuids the store could hold, in order (the others name nothing)."""
    return [u for u in uuids if isinstance(u, str) and storable(u)]


__all__ = ["storable", "storable_uuids"]
