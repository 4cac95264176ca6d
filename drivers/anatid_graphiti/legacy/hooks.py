"""What the graph hook classes share: the operations bundle, and hooks written once per kind.

Graphiti names the same handful of hooks once for every node and edge kind
(``episodic_node_get_by_uuid``, ``saga_node_get_by_uuid`` ...), each the same call on that kind's
operations object. A *hook table* writes such a family once, for the operations object a bundle
field names; :func:`with_hooks` puts a table's functions on a class under Graphiti's names, with
Graphiti's parameters (tests/graphiti/test_storage.py checks names and parameters against
Graphiti's interface). A hook written out in the class body wins over a table's: that is where
Graphiti's behaviour for one kind differs (e.g. raising on an empty result).
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any, TypeVar

from graphiti_core.driver.graph_operations.graph_operations import GraphOperationsInterface
from graphiti_core.driver.query_executor import QueryExecutor
from pydantic import PrivateAttr

from ..operations import Operations

#: Hook functions by their name without the kind prefix (``"get_by_uuid"``).
HookTable = dict[str, Callable[..., Any]]

C = TypeVar("C", bound=type)


class GraphHooks(GraphOperationsInterface):
    """A ``GraphOperationsInterface`` (a pydantic model) over one driver's operations bundle,
    which the concrete class's constructor sets."""

    _ops: Operations = PrivateAttr()

    @property
    def ops(self) -> Operations:
        """The driver's operations objects, which every hook delegates to."""
        return self._ops


def table(*hooks: Callable[..., Any]) -> HookTable:
    return {hook.__name__: hook for hook in hooks}


def getter_hooks(field: str) -> HookTable:
    """The three getters Graphiti names alike for every node and edge kind, over ``ops.<field>``."""

    def kind(hooks: GraphHooks) -> Any:
        return getattr(hooks.ops, field)

    async def get_by_uuid(self: GraphHooks, _cls: Any, driver: QueryExecutor, uuid: str) -> Any:
        return await kind(self).get_by_uuid(driver, uuid)

    async def get_by_uuids(
        self: GraphHooks, _cls: Any, driver: QueryExecutor, uuids: list[str]
    ) -> list[Any]:
        return await kind(self).get_by_uuids(driver, uuids)

    async def get_by_group_ids(
        self: GraphHooks,
        _cls: Any,
        driver: QueryExecutor,
        group_ids: list[str],
        limit: int | None = None,
        uuid_cursor: str | None = None,
    ) -> list[Any]:
        return await kind(self).get_by_group_ids(driver, group_ids, limit, uuid_cursor)

    return table(get_by_uuid, get_by_uuids, get_by_group_ids)


def with_hooks(**tables: HookTable) -> Callable[[C], C]:
    """A class decorator: each ``prefix=table`` adds the table's hooks as ``<prefix>_<name>``,
    except those the class body writes out itself. Each must be a hook the class inherits from
    Graphiti's interface: a misspelt prefix fails at import, not silently."""

    def install(cls: C) -> C:
        for prefix, hooks in tables.items():
            for name, hook in hooks.items():
                full = f"{prefix}_{name}"
                if not hasattr(cls, full):
                    raise TypeError(f"{cls.__name__} has no Graphiti hook {full!r} to implement")
                if full in vars(cls):
                    continue
                hook.__name__ = full
                hook.__qualname__ = f"{cls.__qualname__}.{full}"
                setattr(cls, full, hook)
        return cls

    return install


__all__ = ["GraphHooks", "HookTable", "getter_hooks", "table", "with_hooks"]


def caller_asked_embeddings() -> bool:
    """Whether the model method that called this hook was given ``with_embeddings=True``.

    ``EntityNode.get_by_group_ids`` and ``EntityEdge.get_by_group_ids`` take ``with_embeddings``
    but do not pass it to the hook (graphiti-core 0.31.2), while their Cypher fallback, which Kuzu
    and FalkorDB run, returns the embeddings. Without them a caller that fetches, edits and saves
    would store the model without its embedding. The flag is read from the calling method's frame:
    call this first thing in the hook, before any ``await``, while that frame is the caller.
    """
    frame = sys._getframe(2)  # 0: here, 1: the hook, 2: Graphiti's model method
    return (
        frame.f_code.co_name == "get_by_group_ids" and frame.f_locals.get("with_embeddings") is True
    )
