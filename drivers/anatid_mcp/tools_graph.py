"""Graph tools no other memory server has: ``shortest_path`` and ``explain`` between two entities.

Both answer through :class:`anatid_graphiti.GraphitiDriver` (the core walks the graph; these only
check arguments and shape the results as the other tools do). They follow facts only (entity to
entity), so every node on a path is an entity and every edge a fact. ``group_ids`` is a wall: a
path never passes through an entity or fact of another group.

(No ``from __future__ import annotations``: the MCP SDK reads the annotations, see tools_read.)
"""

from anatid_graphiti import GraphitiDriver
from anatid_graphiti import mapping as m
from anatid_graphiti.insight import GraphitiPath
from graphiti_core.edges import EntityEdge
from graphiti_core.nodes import EntityNode
from mcp.server.fastmcp import FastMCP

from .errors import answers
from .inputs import BadInput, group_list, parse_time, positive, uuid_arg
from .memory import Memory
from .responses import ErrorResponse, ExplainResponse, LinkingFactResult, PathResult, PathsResponse
from .results import edge_result, episode_result, node_result

#: The longest chain a client may ask for: beyond it every entity is linked to every other.
MAX_DEPTH = 10


def path_result(path: GraphitiPath) -> PathResult:
    return PathResult(
        nodes=[node_result(n) for n in path.nodes if isinstance(n, EntityNode)],
        edges=[edge_result(e) for e in path.edges if isinstance(e, EntityEdge)],
    )


async def _reader(
    memory: Memory, group_ids: str | list[str] | None, as_of: str | None
) -> tuple[GraphitiDriver, list[str] | None]:
    groups = group_list(group_ids)
    if groups:
        await memory.known_groups(groups)
    return memory.at(parse_time("as_of", as_of)), groups


async def _check_entities(driver: GraphitiDriver, groups: list[str] | None, *uuids: str) -> None:
    """An unknown uuid, or one behind the group wall, is an error naming it (not an empty
    answer, and not "deleted" when it is only in another group)."""
    nodes = await EntityNode.get_by_uuids(driver, list(uuids))
    found = {n.uuid for n in nodes if not groups or n.group_id in groups}
    missing = [repr(u) for u in dict.fromkeys(uuids) if u not in found]
    if missing:
        where = f"in group(s) {', '.join(groups)}" if groups else "in this memory"
        ids = " or ".join(missing)
        raise BadInput(f"no entity with uuid {ids} {where}")


def register(mcp: FastMCP, memory: Memory) -> None:
    @mcp.tool()
    @answers("Error finding a path")
    async def shortest_path(
        source_node_uuid: str,
        target_node_uuid: str,
        group_ids: str | list[str] | None = None,
        max_depth: int = 6,
        as_of: str | None = None,
    ) -> PathsResponse | ErrorResponse:
        """The shortest chains of facts linking two entities (every chain of the least length,
        at most max_depth facts long), each as its entities and the facts between them.

        Args:
            source_node_uuid: UUID of the entity the chains start from
            target_node_uuid: UUID of the entity they end at
            group_ids: Optional group ID, or list of group IDs: chains stay inside them
                (default: every group)
            max_depth: The most facts on a chain (1 to 10, default: 6)
            as_of: Optional ISO-8601 instant: answer from what the memory knew then
        """
        src, dst = (
            uuid_arg("source_node_uuid", source_node_uuid),
            uuid_arg("target_node_uuid", target_node_uuid),
        )
        depth = positive("max_depth", max_depth, limit=MAX_DEPTH)
        driver, groups = await _reader(memory, group_ids, as_of)
        await _check_entities(driver, groups, src, dst)
        found = await driver.shortest_path(
            src, dst, max_depth=depth, group_ids=groups, rels=[m.RELATES_TO]
        )
        if not found:
            return PathsResponse(
                message=f"No chain of at most {depth} facts links the two entities", paths=[]
            )
        hops = len(found[0].edges)
        return PathsResponse(
            message=f"{len(found)} shortest chain(s) of {hops} fact(s)",
            paths=[path_result(p) for p in found],
        )

    @mcp.tool()
    @answers("Error explaining a link")
    async def explain(
        source_node_uuid: str,
        target_node_uuid: str,
        group_ids: str | list[str] | None = None,
        max_depth: int = 3,
        as_of: str | None = None,
    ) -> ExplainResponse | ErrorResponse:
        """Why two entities are connected: the facts on the chains of at most max_depth facts
        between them, each with the episodes it came from, and the chains themselves.

        Args:
            source_node_uuid: UUID of one entity
            target_node_uuid: UUID of the other
            group_ids: Optional group ID, or list of group IDs: chains stay inside them
                (default: every group)
            max_depth: The most facts on a chain (1 to 10, default: 3)
            as_of: Optional ISO-8601 instant: answer from what the memory knew then
        """
        a, b = (
            uuid_arg("source_node_uuid", source_node_uuid),
            uuid_arg("target_node_uuid", target_node_uuid),
        )
        depth = positive("max_depth", max_depth, limit=MAX_DEPTH)
        driver, groups = await _reader(memory, group_ids, as_of)
        await _check_entities(driver, groups, a, b)
        found = await driver.explain(a, b, max_depth=depth, group_ids=groups)
        facts = [
            LinkingFactResult(
                fact=edge_result(f.edge), episodes=[episode_result(e) for e in f.episodes]
            )
            for f in found.facts
            if isinstance(f.edge, EntityEdge)
        ]
        if not facts:
            message = f"No chain of at most {depth} facts links the two entities"
        else:
            message = f"{len(facts)} fact(s) on {len(found.paths)} chain(s) link the two entities"
        return ExplainResponse(
            message=message, facts=facts, paths=[path_result(p) for p in found.paths]
        )


__all__ = ["MAX_DEPTH", "path_result", "register"]
