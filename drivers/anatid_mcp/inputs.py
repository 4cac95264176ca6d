"""Checking tool arguments before anything is queued or written.

Every check raises :class:`BadInput` with a message saying which argument was wrong and what is
accepted; the server turns it into an MCP tool error (the server itself keeps running).
Text is never interpreted: an episode body, a query or a name that looks like Cypher or SQL is
stored and searched as the text it is.
"""

from __future__ import annotations

import json
from datetime import datetime, timezone
from typing import Any

import pydantic
from graphiti_core.errors import GroupIdValidationError
from graphiti_core.helpers import validate_group_id
from graphiti_core.nodes import EpisodeType
from graphiti_core.search.search_filters import SearchFilters

from anatid_core import InvalidInput, check_names

from .defaults import MAX_BODY_CHARS

#: The most results one search or listing returns.
MAX_RESULTS = 1_000


class BadInput(ValueError):
    """A tool argument is unusable; the message says which and why."""


def parse_time(arg: str, value: str | None) -> datetime | None:
    """An ISO 8601 date-time as an aware UTC datetime (naive means UTC; a trailing Z works)."""
    if value is None:
        return None
    text = value.strip()
    if text[-1:] in ("Z", "z"):
        text = text[:-1] + "+00:00"
    try:
        parsed = datetime.fromisoformat(text)
    except ValueError:
        raise BadInput(
            f"{arg}: {value[:60]!r} is not an ISO 8601 date-time "
            "(for example 2025-01-15T10:30:00Z or 2025-01-15)"
        ) from None
    if parsed.tzinfo is None:
        return parsed.replace(tzinfo=timezone.utc)
    return parsed.astimezone(timezone.utc)


def group_list(group_ids: str | list[str] | None) -> list[str] | None:
    """A scalar or a list of group ids as a list (a blank string means none given)."""
    if isinstance(group_ids, str):
        group_ids = [group_ids] if group_ids else None
    for g in group_ids or []:
        group_name(g)
    return group_ids


def group_name(group_id: str) -> str:
    try:
        validate_group_id(group_id)
    except GroupIdValidationError as exc:
        raise BadInput(
            f"group_id {group_id[:60]!r} is not a valid group id: use only letters, digits, "
            "dashes and underscores"
        ) from exc
    return group_id


def positive(arg: str, value: int, *, limit: int = MAX_RESULTS) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 < value <= limit:
        raise BadInput(f"{arg} must be an integer from 1 to {limit}, got {value!r}")
    return value


def episode_source(source: str, body: str) -> EpisodeType:
    """``text``, ``json`` or ``message``; a ``json`` body must parse as JSON."""
    try:
        kind = EpisodeType[(source or "text").lower()]
    except KeyError:
        raise BadInput(f"source must be one of text, json, message; got {source[:40]!r}") from None
    if kind is EpisodeType.json:
        try:
            json.loads(body)
        except ValueError as exc:
            raise BadInput(f"source is 'json' but episode_body is not valid JSON: {exc}") from None
    return kind


def episode_body(body: str, *, limit: int) -> str:
    if not body.strip():
        raise BadInput("episode_body is empty: there is nothing to remember")
    if len(body) > limit:
        raise BadInput(
            f"episode_body has {len(body):,} characters, more than the limit of {limit:,} "
            "(anatid-mcp --max-body); split it into several episodes"
        )
    return body


def search_filters(arg: str, **fields: Any) -> SearchFilters:
    """Graphiti's ``SearchFilters`` of the names in tool argument ``arg``: a name Graphiti's
    validators refuse (``node_labels`` must look like identifiers) or anatid's (a label of more
    than 1,024 characters, issue 32) is BadInput naming ``arg``."""
    try:
        filters = SearchFilters(**fields)
    except pydantic.ValidationError as exc:
        raise BadInput(f"{arg}: {exc.errors()[0]['msg']}") from None
    except UnicodeError:  # Graphiti's validator fails to quote a lone surrogate in its message
        raise BadInput(f"{arg} holds text that is not valid Unicode (a lone surrogate)") from None
    try:
        check_names(filters.node_labels, arg)
    except InvalidInput as exc:
        raise BadInput(str(exc)) from None
    return filters


def uuid_arg(arg: str, value: str) -> str:
    if not isinstance(value, str) or not value.strip() or len(value) > 200:
        raise BadInput(f"{arg} must be a non-empty uuid string, got {value!r:.60}")
    return value


__all__ = [
    "MAX_BODY_CHARS",
    "MAX_RESULTS",
    "BadInput",
    "episode_body",
    "episode_source",
    "group_list",
    "group_name",
    "parse_time",
    "positive",
    "search_filters",
    "uuid_arg",
]
