"""The read tools of Graphiti's MCP server, same names and arguments, plus ``as_of``.

(No ``from __future__ import annotations`` here: the MCP SDK reads the tools' annotations to
build their JSON schemas, and they must be real types.)
"""

from typing import Any

from graphiti_core.edges import EntityEdge
from graphiti_core.nodes import EpisodicNode
from graphiti_core.search.search_filters import SearchFilters
from mcp.server.fastmcp import FastMCP

from . import search
from .errors import answers
from .inputs import BadInput, group_list, parse_time, positive, uuid_arg
from .memory import Memory
from .responses import (
    EpisodeEntitiesResponse,
    EpisodeSearchResponse,
    ErrorResponse,
    FactSearchResponse,
    NodeSearchResponse,
    StatusResponse,
)
from .results import edge_result, episode_result, fact_result, node_result

AS_OF_DOC = (
    "as_of: Optional ISO-8601 instant: answer from what the memory knew then (facts added later "
    "are not seen, facts since invalidated or deleted are seen as they were)."
)


async def _groups(memory: Memory, group_ids: str | list[str] | None) -> list[str]:
    given = group_list(group_ids)
    if given:
        await memory.known_groups(given)
    return memory.groups_or_default(given)


def register(mcp: FastMCP, memory: Memory) -> None:  # noqa: C901 - one closure per tool
    @mcp.tool(description=search_nodes_doc)
    @answers("Error searching nodes")
    async def search_nodes(
        query: str,
        group_ids: str | list[str] | None = None,
        max_nodes: int = 10,
        entity_types: list[str] | None = None,
        center_node_uuid: str | None = None,
        as_of: str | None = None,
    ) -> NodeSearchResponse | ErrorResponse:
        limit = positive("max_nodes", max_nodes)
        when = parse_time("as_of", as_of)
        groups = await _groups(memory, group_ids)
        found = await search.nodes(
            memory, query, groups, limit, center_node_uuid, entity_types, when
        )
        if not found:
            return NodeSearchResponse(message="No relevant nodes found", nodes=[])
        return NodeSearchResponse(
            message="Nodes retrieved successfully", nodes=[node_result(n) for n in found]
        )

    @mcp.tool(description=search_facts_doc)
    @answers("Error searching facts")
    async def search_memory_facts(
        query: str,
        group_ids: str | list[str] | None = None,
        max_facts: int = 10,
        center_node_uuid: str | None = None,
        edge_types: list[str] | None = None,
        valid_at_after: str | None = None,
        valid_at_before: str | None = None,
        invalid_at_after: str | None = None,
        invalid_at_before: str | None = None,
        as_of: str | None = None,
    ) -> FactSearchResponse | ErrorResponse:
        limit = positive("max_facts", max_facts)
        when = parse_time("as_of", as_of)
        filters = SearchFilters(
            edge_types=edge_types or None,
            valid_at=search.date_range(
                parse_time("valid_at_after", valid_at_after),
                parse_time("valid_at_before", valid_at_before),
            ),
            invalid_at=search.date_range(
                parse_time("invalid_at_after", invalid_at_after),
                parse_time("invalid_at_before", invalid_at_before),
            ),
        )
        groups = await _groups(memory, group_ids)
        found = await search.facts(memory, query, groups, limit, center_node_uuid, filters, when)
        if not found:
            return FactSearchResponse(message="No relevant facts found", facts=[])
        return FactSearchResponse(
            message="Facts retrieved successfully", facts=[fact_result(e) for e in found]
        )

    @mcp.tool()
    @answers("Error getting episodes")
    async def get_episodes(
        group_ids: str | list[str] | None = None, max_episodes: int = 10
    ) -> EpisodeSearchResponse | ErrorResponse:
        """Get episodes of the given groups (default: the default group).

        Args:
            group_ids: Optional group ID, or list of group IDs (a single string is accepted)
            max_episodes: Maximum number of episodes to return (default: 10)
        """
        limit = positive("max_episodes", max_episodes)
        groups = await _groups(memory, group_ids)
        episodes = (
            await EpisodicNode.get_by_group_ids(memory.driver, groups, limit=limit)
            if groups
            else []
        )
        if not episodes:
            return EpisodeSearchResponse(message="No episodes found", episodes=[])
        return EpisodeSearchResponse(
            message="Episodes retrieved successfully",
            episodes=[episode_result(e) for e in episodes],
        )

    @mcp.tool()
    @answers("Error getting entity edge")
    async def get_entity_edge(uuid: str) -> dict[str, Any] | ErrorResponse:
        """Get one fact (entity edge) by its UUID, with every field it has.

        Args:
            uuid: UUID of the entity edge to retrieve
        """
        edge = await EntityEdge.get_by_uuid(memory.driver, uuid_arg("uuid", uuid))
        return fact_result(edge)

    @mcp.tool()
    @answers("Error getting episode entities")
    async def get_episode_entities(
        episode_uuids: list[str],
    ) -> EpisodeEntitiesResponse | ErrorResponse:
        """Get the entities (nodes) and facts (edges) that specific episodes produced.

        Args:
            episode_uuids: List of episode UUIDs to look up provenance for
        """
        if not episode_uuids:
            raise BadInput("episode_uuids must contain at least one UUID")
        wanted = [uuid_arg("episode_uuids", u) for u in episode_uuids]
        found = {e.uuid for e in await EpisodicNode.get_by_uuids(memory.driver, wanted)}
        missing = [u for u in wanted if u not in found]
        if missing:
            raise BadInput(f"no episode with uuid {', '.join(map(repr, missing))} in this memory")
        results = await memory.graphiti.get_nodes_and_edges_by_episode(wanted)
        return EpisodeEntitiesResponse(
            message=f"Retrieved provenance for {len(wanted)} episode(s)",
            nodes=[node_result(n) for n in results.nodes],
            edges=[edge_result(e) for e in results.edges],
        )

    @mcp.tool()
    @answers("Error getting status", wrapped=False)
    async def get_status() -> StatusResponse:
        """Get the status of the server and its memory file, and of the episode queue: episodes
        waiting or being processed, episodes that failed, and episodes acknowledged by an earlier
        server on this file that stopped before saving them (``interrupted``)."""
        try:
            await EpisodicNode.get_by_group_ids(memory.driver, [memory.default_group], limit=1)
        except Exception as exc:
            return StatusResponse(
                status="error",
                message=f"anatid-mcp is running but cannot read {memory.options.path}: {exc}",
                queue=memory.queue.report(),
            )
        mode = " (read-only)" if memory.options.read_only else ""
        missing = memory.clients.summary()
        return StatusResponse(
            status="ok",
            message=f"anatid-mcp is running on {memory.options.path}{mode}"
            + (f"; {missing}" if missing else ""),
            queue=memory.queue.report(),
        )


search_nodes_doc = f"""Search for nodes (entities) in the graph memory.

Args:
    query: The search query
    group_ids: Optional group ID, or list of group IDs, to filter results (a single string is
        accepted and treated as a one-element list)
    max_nodes: Maximum number of nodes to return (default: 10)
    entity_types: Optional list of entity type names (node labels) to filter by
    center_node_uuid: Optional UUID of a node to center the search around; results closer to
        it in the graph rank higher
    {AS_OF_DOC}
"""

search_facts_doc = f"""Search the graph memory for relevant facts (entity edges).

Args:
    query: The search query
    group_ids: Optional group ID, or list of group IDs, to filter results
    max_facts: Maximum number of facts to return (default: 10)
    center_node_uuid: Optional UUID of a node to center the search around
    edge_types: Optional list of edge (fact) type names to filter by
    valid_at_after: Optional ISO-8601 lower bound on a fact's valid_at (naive means UTC)
    valid_at_before: Optional ISO-8601 upper bound on a fact's valid_at
    invalid_at_after: Optional ISO-8601 lower bound on a fact's invalid_at
    invalid_at_before: Optional ISO-8601 upper bound on a fact's invalid_at
    {AS_OF_DOC}
"""

__all__ = ["register"]
