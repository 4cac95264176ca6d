"""The result shapes of the tools.

The shapes Graphiti's MCP server returns (its ``models/response_types.py``) are kept key for key,
so that a client moving from that server to this one reads the same fields. The server wraps
them the same way too: a tool annotated ``X | ErrorResponse`` sends ``{"result": {...}}`` as its
structured content. Our own tools (``get_history``, ``what_changed``) add shapes of their own at
the end of this module; ``StatusResponse`` gains a ``queue`` report.
"""

from __future__ import annotations

from typing import Any

from typing_extensions import TypedDict  # pydantic needs this one on Python < 3.12


class ErrorResponse(TypedDict):
    error: str


class SuccessResponse(TypedDict):
    message: str


class NodeResult(TypedDict):
    uuid: str
    name: str
    labels: list[str]
    created_at: str | None
    summary: str | None
    group_id: str
    attributes: dict[str, Any]


class EdgeResult(TypedDict):
    uuid: str
    name: str
    fact: str
    source_node_uuid: str
    target_node_uuid: str
    group_id: str
    created_at: str | None
    valid_at: str | None
    invalid_at: str | None


class NodeSearchResponse(TypedDict):
    message: str
    nodes: list[NodeResult]


class FactSearchResponse(TypedDict):
    message: str
    facts: list[dict[str, Any]]


class EpisodeSearchResponse(TypedDict):
    message: str
    episodes: list[dict[str, Any]]


class QueueReport(TypedDict):
    """What the background queue holds: counts per group, and the episodes not (yet) saved."""

    queued: dict[str, int]
    processing: list[dict[str, Any]]
    waiting: list[dict[str, Any]]
    failed: list[dict[str, Any]]
    interrupted: list[dict[str, Any]]


class StatusResponse(TypedDict):
    status: str
    message: str
    queue: QueueReport


class SagaSummaryResponse(TypedDict):
    message: str
    uuid: str
    name: str
    summary: str


class CommunityResult(TypedDict):
    uuid: str
    name: str
    group_id: str
    summary: str | None


class BuildCommunitiesResponse(TypedDict):
    message: str
    community_count: int
    edge_count: int
    communities: list[CommunityResult]


class TripletResponse(TypedDict):
    message: str
    nodes: list[NodeResult]
    edges: list[EdgeResult]


class EpisodeEntitiesResponse(TypedDict):
    message: str
    nodes: list[NodeResult]
    edges: list[EdgeResult]


# ------------------------------------------------------------------------- our own tools


class VersionResult(TypedDict):
    """One saved version: the record as it was, and when the memory knew it (transaction
    time) and held it true (valid time)."""

    version: int | None
    known_from: str | None
    known_until: str | None
    valid_at: str | None
    invalid_at: str | None
    record: dict[str, Any]


class HistoryResponse(TypedDict):
    message: str
    uuid: str
    kind: str
    versions: list[VersionResult]


class ChangeResult(TypedDict):
    change: str
    at: str
    kind: str
    record: dict[str, Any]


class ChangesResponse(TypedDict):
    message: str
    since: str
    until: str
    changes: list[ChangeResult]


class PathResult(TypedDict):
    """A chain: ``edges[i]`` joins ``nodes[i]`` and ``nodes[i + 1]``."""

    nodes: list[NodeResult]
    edges: list[EdgeResult]


class PathsResponse(TypedDict):
    message: str
    paths: list[PathResult]


class LinkingFactResult(TypedDict):
    """A fact on a chain between the two entities explained, with the episodes it came from."""

    fact: EdgeResult
    episodes: list[dict[str, Any]]


class ExplainResponse(TypedDict):
    message: str
    facts: list[LinkingFactResult]
    paths: list[PathResult]


class QueryGraphResponse(TypedDict):
    """``query_graph``: the query's columns, its rows (column to value; nodes and
    relationships as their property maps, instants as ISO-8601 text), and whether rows were
    left out by ``max_rows``."""

    message: str
    columns: list[str]
    rows: list[dict[str, Any]]
    truncated: bool
