"""The one place where anatid's errors become Graphiti's.

* a missing node or edge -> Graphiti's ``NodeNotFoundError`` / ``EdgeNotFoundError`` (what its model
  getters raise on Neo4j, and what ``add_triplet`` catches);
* a write through ``driver.as_of(...)`` (anatid ``ReadOnlyError``) -> :class:`ReadOnlyDriverError`,
  which is both a ``GraphitiError`` and the anatid ``ReadOnlyError``;
* every other anatid error passes through unchanged (``InvalidInput`` is a ``ValueError``,
  ``UnsupportedOperation`` quotes the Cypher Graphiti sent).
"""

from __future__ import annotations

from graphiti_core.errors import EdgeNotFoundError, GraphitiError, NodeNotFoundError

from anatid_core import AnatidError, NotFound, ReadOnlyError


class ReadOnlyDriverError(GraphitiError, ReadOnlyError):
    """A write was attempted through a read-only driver (``driver.as_of(...)`` or read_only=True)."""


def node_not_found(uuid: str) -> NodeNotFoundError:
    return NodeNotFoundError(uuid)


def edge_not_found(uuid: str) -> EdgeNotFoundError:
    return EdgeNotFoundError(uuid)


def translate(exc: AnatidError, *, kind: str | None = None) -> Exception:
    """The Graphiti-facing exception for an anatid one (raise it ``from exc``)."""
    if isinstance(exc, ReadOnlyError) and not isinstance(exc, ReadOnlyDriverError):
        return ReadOnlyDriverError(
            f"{exc} -- this Graphiti driver only reads (it is driver.as_of(...) or was opened "
            "read_only=True); write through the live GraphitiDriver instead"
        )
    if isinstance(exc, NotFound) and exc.id is not None:
        return edge_not_found(exc.id) if kind == "edge" else node_not_found(exc.id)
    return exc


__all__ = ["ReadOnlyDriverError", "edge_not_found", "node_not_found", "translate"]
