"""Our tools, which no other memory server has: ``get_history`` and ``what_changed``.

Both read the store's transaction time: every save of a record is a version, kept when the record
is changed or deleted. ``get_history`` lists one record's versions; ``what_changed`` lists what
was added, changed, invalidated or deleted in a window of transaction time.
"""

import asyncio
from datetime import datetime, timezone
from typing import Any

from anatid_graphiti import mapping
from mcp.server.fastmcp import FastMCP

from anatid_core import Edge, Node

from .errors import answers
from .inputs import BadInput, group_list, parse_time, positive, uuid_arg
from .memory import Memory
from .responses import ChangeResult, ChangesResponse, ErrorResponse, HistoryResponse, VersionResult
from .results import iso, kind_of, record_result

#: Record kinds ``what_changed`` reports (links such as MENTIONS are bookkeeping).
_NODE_KINDS = {mapping.ENTITY: "entity", mapping.EPISODIC: "episode"}


def _valid(item: Any) -> tuple[str | None, str | None]:
    return iso(getattr(item, "valid_at", None)), iso(getattr(item, "invalid_at", None))


def _classify(prev: Node | Edge | None, item: Node | Edge) -> str:
    if prev is None:
        return "added"
    if isinstance(item, Edge):
        was = (prev.props or {}).get("expired_at"), prev.valid_to
        now = (item.props or {}).get("expired_at"), item.valid_to
        if not any(was) and any(now):
            return "invalidated"
    return "updated"


def _kind(item: Node | Edge) -> str | None:
    if isinstance(item, Edge):
        return "fact" if item.rel == mapping.RELATES_TO else None
    return next((k for label, k in _NODE_KINDS.items() if label in item.labels), None)


def changes_in(
    versions: list[Node | Edge], since: datetime, until: datetime
) -> list[tuple[str, datetime, str, Node | Edge]]:
    """``(change, when, kind, version)`` for every change in ``[since, until)``, oldest first."""
    by_id: dict[str, list[Node | Edge]] = {}
    for v in versions:
        by_id.setdefault(v.id, []).append(v)
    out = []
    for chain in by_id.values():
        kind = _kind(chain[-1])
        if kind is None:
            continue
        for i, v in enumerate(chain):
            if v.tx_from is not None and since <= v.tx_from < until:
                out.append((_classify(chain[i - 1] if i else None, v), v.tx_from, kind, v))
            nxt = chain[i + 1] if i + 1 < len(chain) else None
            end = v.tx_to
            if end is not None and since <= end < until and (nxt is None or nxt.tx_from != end):
                out.append(("deleted", end, kind, v))
    out.sort(key=lambda c: c[1])
    return out


def register(mcp: FastMCP, memory: Memory) -> None:
    @mcp.tool()
    @answers("Error getting history")
    async def get_history(uuid: str) -> HistoryResponse | ErrorResponse:
        """Every saved version of a fact, entity or episode, oldest first: what it said, when
        the memory knew it (known_from / known_until, transaction time) and when it held true
        (valid_at / invalid_at). Deleted records keep their history.

        Args:
            uuid: UUID of a fact (entity edge), entity (node) or episode
        """
        versions = await memory.driver.history(uuid_arg("uuid", uuid))
        if not versions:
            raise BadInput(f"no fact, entity or episode with uuid {uuid!r} was ever stored here")
        rows = []
        for v in versions:
            valid_at, invalid_at = _valid(v.item)
            rows.append(
                VersionResult(
                    version=v.version,
                    known_from=iso(v.tx_from),
                    known_until=iso(v.tx_to),
                    valid_at=valid_at,
                    invalid_at=invalid_at,
                    record=record_result(v.item),
                )
            )
        return HistoryResponse(
            message=f"{len(rows)} version(s) of {uuid}",
            uuid=uuid,
            kind=kind_of(versions[-1].item),
            versions=rows,
        )

    @mcp.tool()
    @answers("Error listing changes")
    async def what_changed(
        since: str,
        until: str | None = None,
        group_ids: str | list[str] | None = None,
        max_changes: int = 100,
    ) -> ChangesResponse | ErrorResponse:
        """What the memory learned in a window of time: facts, entities and episodes added,
        updated, invalidated (a fact superseded by a contradiction) or deleted, oldest first.

        Args:
            since: ISO-8601 start of the window (inclusive)
            until: Optional ISO-8601 end of the window (exclusive; default: now)
            group_ids: Optional group ID, or list of group IDs (default: every group)
            max_changes: Maximum number of changes to return (default: 100)
        """
        start = parse_time("since", since)
        end = parse_time("until", until) or datetime.now(timezone.utc)
        limit = positive("max_changes", max_changes, limit=10_000)
        if start is None or start >= end:
            raise BadInput(f"since ({since}) must be before until ({iso(end)})")
        groups = group_list(group_ids)
        if groups:
            await memory.known_groups(groups)
        store = memory.driver.store

        def read() -> list[Node | Edge]:
            return [*store.versions("node", groups=groups), *store.versions("edge", groups=groups)]

        found = changes_in(await asyncio.to_thread(read), start, end)
        rows = [
            ChangeResult(
                change=change, at=when.isoformat(), kind=kind, record=record_result(_graphiti(v))
            )
            for change, when, kind, v in found[:limit]
        ]
        more = f" (first {limit} of {len(found)})" if len(found) > limit else ""
        return ChangesResponse(
            message=f"{len(found)} change(s) between {start.isoformat()} and {end.isoformat()}{more}",
            since=start.isoformat(),
            until=end.isoformat(),
            changes=rows,
        )


def _graphiti(item: Node | Edge) -> Any:
    return mapping.from_edge(item) if isinstance(item, Edge) else mapping.from_node(item)


__all__ = ["changes_in", "register"]
