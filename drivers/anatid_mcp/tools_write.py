"""The write tools of Graphiti's MCP server, same names and arguments (not registered with
``--read-only``). Arguments are checked before anything is queued, so a bad episode is refused
at once instead of failing later in the background.
"""

from datetime import datetime, timezone
from uuid import uuid4

from graphiti_core.edges import EntityEdge
from graphiti_core.nodes import EntityNode, EpisodicNode, SagaNode
from graphiti_core.utils.maintenance.graph_data_operations import clear_data
from mcp.server.fastmcp import FastMCP

from .errors import answers
from .inputs import (
    BadInput,
    episode_source,
    group_list,
    group_name,
    parse_time,
    uuid_arg,
)
from .inputs import (
    episode_body as checked_body,
)
from .memory import Memory
from .responses import (
    BuildCommunitiesResponse,
    CommunityResult,
    ErrorResponse,
    SagaSummaryResponse,
    SuccessResponse,
    TripletResponse,
)
from .results import edge_result, node_result


async def _episodes_exist(memory: Memory, arg: str, uuids: list[str]) -> None:
    found = {e.uuid for e in await EpisodicNode.get_by_uuids(memory.driver, uuids)}
    missing = [u for u in uuids if u not in found]
    if missing:
        which = f"{arg}: no" if arg != "uuid" else "no"
        raise BadInput(f"{which} episode with uuid {', '.join(map(repr, missing))} in this memory")


def _check_types(memory: Memory, excluded: list[str] | None) -> None:
    known = {"Entity", *(memory.entity_types or {})}
    unknown = sorted(set(excluded or []) - known)
    if unknown:
        raise BadInput(
            f"excluded_entity_types: unknown type(s) {unknown}; configured: {sorted(known)}"
        )


async def _check_episode_refs(
    memory: Memory, uuid: str | None, previous: list[str] | None, saga_previous: str | None
) -> None:
    if uuid is not None:  # Graphiti reprocesses an existing episode given its uuid
        await _episodes_exist(memory, "uuid", [uuid_arg("uuid", uuid)])
    if previous:
        await _episodes_exist(memory, "previous_episode_uuids", previous)
    if saga_previous is not None:
        await _episodes_exist(memory, "saga_previous_episode_uuid", [saga_previous])


def register(mcp: FastMCP, memory: Memory) -> None:  # noqa: C901 - one closure per tool
    @mcp.tool(description=add_memory_doc.format(limit=memory.options.max_body))
    @answers("Error queuing episode")
    async def add_memory(
        name: str,
        episode_body: str,
        group_id: str | None = None,
        source: str = "text",
        source_description: str = "",
        uuid: str | None = None,
        reference_time: str | None = None,
        excluded_entity_types: list[str] | None = None,
        custom_extraction_instructions: str | None = None,
        previous_episode_uuids: list[str] | None = None,
        update_communities: bool = False,
        saga: str | None = None,
        saga_previous_episode_uuid: str | None = None,
    ) -> SuccessResponse | ErrorResponse:
        memory.clients.require("add_memory")
        body = checked_body(episode_body, limit=memory.options.max_body)
        kind = episode_source(source, body)
        when = parse_time("reference_time", reference_time) or datetime.now(timezone.utc)
        group = group_name(group_id or memory.default_group)
        _check_types(memory, excluded_entity_types)
        if update_communities:
            raise BadInput(
                "update_communities=True fails in graphiti-core 0.31 for every database "
                "(getzep/graphiti#836); add the episode, then call build_communities"
            )
        await _check_episode_refs(memory, uuid, previous_episode_uuids, saga_previous_episode_uuid)

        async def job() -> str:
            result = await memory.graphiti.add_episode(
                name=name,
                episode_body=body,
                source_description=source_description,
                reference_time=when,
                source=kind,
                group_id=group,
                uuid=uuid,
                excluded_entity_types=excluded_entity_types,
                previous_episode_uuids=previous_episode_uuids,
                custom_extraction_instructions=custom_extraction_instructions,
                saga=saga,
                saga_previous_episode_uuid=saga_previous_episode_uuid,
                **memory.add_episode_kwargs(),
            )
            return result.episode.uuid

        ticket = await memory.queue.submit(group, name, job)
        return SuccessResponse(
            message=f"Episode '{name}' queued for processing in group '{group}' "
            f"(ticket {ticket.id}; get_status lists it until it is saved)"
        )

    @mcp.tool(description=add_triplet_doc)
    @answers("Error adding triplet")
    async def add_triplet(
        source_node_name: str,
        edge_name: str,
        fact: str,
        target_node_name: str,
        group_id: str | None = None,
        source_node_uuid: str | None = None,
        target_node_uuid: str | None = None,
        valid_at: str | None = None,
        invalid_at: str | None = None,
    ) -> TripletResponse | ErrorResponse:
        memory.clients.require("add_triplet")
        group = group_name(group_id or memory.default_group)
        for arg, value in (
            ("source_node_name", source_node_name),
            ("edge_name", edge_name),
            ("fact", fact),
            ("target_node_name", target_node_name),
        ):
            if not value.strip():
                raise BadInput(f"{arg} is empty")
        starts = parse_time("valid_at", valid_at)
        ends = parse_time("invalid_at", invalid_at)
        if starts is not None and ends is not None and ends <= starts:
            raise BadInput(f"invalid_at ({invalid_at}) must be after valid_at ({valid_at})")
        now = datetime.now(timezone.utc)
        src = EntityNode(
            uuid=source_node_uuid or str(uuid4()),
            name=source_node_name,
            group_id=group,
            created_at=now,
        )
        dst = EntityNode(
            uuid=target_node_uuid or str(uuid4()),
            name=target_node_name,
            group_id=group,
            created_at=now,
        )
        edge = EntityEdge(
            name=edge_name,
            fact=fact,
            group_id=group,
            source_node_uuid=src.uuid,
            target_node_uuid=dst.uuid,
            created_at=now,
            valid_at=starts,
            invalid_at=ends,
        )
        result = await memory.graphiti.add_triplet(src, edge, dst)
        return TripletResponse(
            message=f"Triplet '{source_node_name} -[{edge_name}]-> {target_node_name}' added",
            nodes=[node_result(n) for n in result.nodes],
            edges=[edge_result(e) for e in result.edges],
        )

    @mcp.tool()
    @answers("Error deleting episode")
    async def delete_episode(uuid: str) -> SuccessResponse | ErrorResponse:
        """Delete an episode, and the entities and facts that only it produced (those also
        supported by other episodes stay). ``as_of`` and ``get_history`` still see them.

        Args:
            uuid: UUID of the episode to delete
        """
        await _episodes_exist(memory, "uuid", [uuid_arg("uuid", uuid)])
        await memory.graphiti.remove_episode(uuid)
        return SuccessResponse(message=f"Episode with UUID {uuid} deleted successfully")

    @mcp.tool()
    @answers("Error deleting entity edge")
    async def delete_entity_edge(uuid: str) -> SuccessResponse | ErrorResponse:
        """Delete one fact (entity edge). ``as_of`` and ``get_history`` still see it.

        Args:
            uuid: UUID of the entity edge to delete
        """
        edge = await EntityEdge.get_by_uuid(memory.driver, uuid_arg("uuid", uuid))
        await edge.delete(memory.driver)
        return SuccessResponse(message=f"Entity edge with UUID {uuid} deleted successfully")

    @mcp.tool()
    @answers("Error clearing graph")
    async def clear_graph(
        group_ids: str | list[str] | None = None,
    ) -> SuccessResponse | ErrorResponse:
        """Clear all data of the given groups (default: the default group). The cleared data
        stays visible to ``as_of`` queries of earlier instants.

        Args:
            group_ids: Optional group ID, or list of group IDs, to clear
        """
        given = group_list(group_ids)
        groups = memory.groups_or_default(given)
        if not groups:
            raise BadInput("no group_ids given and no default group_id is configured")
        if given:
            await memory.known_groups(given)
        await clear_data(memory.driver, group_ids=groups)
        return SuccessResponse(
            message=f"Graph data cleared successfully for group IDs: {', '.join(groups)}"
        )

    @mcp.tool()
    @answers("Error building communities")
    async def build_communities(
        group_ids: str | list[str] | None = None,
    ) -> BuildCommunitiesResponse | ErrorResponse:
        """Detect communities of densely connected entities and summarise each (expensive: it
        reads every entity of the groups).

        Args:
            group_ids: Optional group ID, or list of group IDs (default: the default group)
        """
        memory.clients.require("build_communities")
        given = group_list(group_ids)
        if given:
            await memory.known_groups(given)
        groups = memory.groups_or_default(given) or None
        communities, edges = await memory.graphiti.build_communities(group_ids=groups)
        return BuildCommunitiesResponse(
            message=f"Built {len(communities)} communities",
            community_count=len(communities),
            edge_count=len(edges),
            communities=[
                CommunityResult(uuid=c.uuid, name=c.name, group_id=c.group_id, summary=c.summary)
                for c in communities
            ],
        )

    @mcp.tool()
    @answers("Error summarizing saga")
    async def summarize_saga(
        saga_name: str, group_id: str | None = None
    ) -> SagaSummaryResponse | ErrorResponse:
        """Generate or refresh the running summary of a saga (the episodes added with the same
        ``saga`` name in add_memory).

        Args:
            saga_name: The saga name, as passed as ``saga`` to add_memory
            group_id: Optional group ID the saga belongs to (default: the default group)
        """
        memory.clients.require("summarize_saga")
        group = group_name(group_id or memory.default_group)
        sagas = await SagaNode.get_by_group_ids(memory.driver, [group])
        match = next((s for s in sagas if s.name == saga_name), None)
        if match is None:
            raise BadInput(
                f"no saga named {saga_name!r} in group {group!r} (a saga is named by the saga "
                "argument of add_memory)"
            )
        node = await memory.graphiti.summarize_saga(match.uuid)
        return SagaSummaryResponse(
            message=f"Saga '{saga_name}' summarized successfully",
            uuid=node.uuid,
            name=node.name,
            summary=node.summary,
        )


add_triplet_doc = """Add one fact (source entity -> fact -> target entity) directly, without
extraction. The endpoints are resolved against existing entities (deduplicated by name).

When the fact held true: give valid_at (and invalid_at if it has ended). Where the LLM finds
that the new fact contradicts a stored one, the one that became true later (by valid_at) ends
the other: the earlier one gets invalid_at = the later one's valid_at. Without valid_at,
graphiti-core dates the fact from its text as of now, so a triplet about the past would end a
fact that an episode recorded with an older reference_time: pass valid_at for anything that did
not become true just now.

Args:
    source_node_name: Name of the source entity
    edge_name: Relationship type name (e.g. "WORKS_FOR")
    fact: Natural-language statement of the relationship
    target_node_name: Name of the target entity
    group_id: Optional group ID (default: the default group)
    source_node_uuid: Optional UUID of an existing source entity to reuse
    target_node_uuid: Optional UUID of an existing target entity to reuse
    valid_at: Optional ISO-8601 time the fact became true (naive means UTC; default: dated
        from the fact's text as of now)
    invalid_at: Optional ISO-8601 time the fact stopped being true (after valid_at)
"""

add_memory_doc = """Add an episode to memory: the primary way to add information to the graph.

Returns at once; the episode is processed in the background, in order with the other episodes of
its group (get_status lists what is still queued). Each episode records when it was ingested and
when the events it describes happened (reference_time).

Args:
    name: Name of the episode
    episode_body: The content to remember (at most {limit:,} characters). With source='json'
        it must be a JSON string.
    group_id: Optional graph partition (default: the configured group_id)
    source: 'text' (default), 'json' or 'message' (conversation-style "speaker: text" lines)
    source_description: Optional description of the source
    uuid: Optional UUID of an existing episode to process again
    reference_time: Optional ISO-8601 time the described events occurred (naive means UTC;
        default: now)
    excluded_entity_types: Optional names of configured entity types to leave out
    custom_extraction_instructions: Optional extra guidance for the extraction model
    previous_episode_uuids: Optional UUIDs of prior episodes to use as context
    update_communities: Must be false (broken in graphiti-core 0.31; use build_communities)
    saga: Optional saga name: episodes of one saga can be summarised with summarize_saga
    saga_previous_episode_uuid: Optional UUID of the preceding episode in the saga
"""

__all__ = ["register"]
