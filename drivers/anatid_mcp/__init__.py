"""anatid_mcp: Graphiti's MCP memory server on one embedded anatid file, with time travel.

The ``anatid-mcp`` command (:mod:`anatid_mcp.cli`) serves Graphiti's MCP tool set, same names,
arguments and result shapes as Graphiti's own server, over stdio or streamable HTTP, on one local
file opened through :class:`anatid_graphiti.GraphitiDriver`; plus ``as_of`` on the searches,
``get_history`` and ``what_changed``. See docs/mcp.md.

Layers: :mod:`.config` (YAML + environment), :mod:`.clients` (LLM, embedder, reranker),
:mod:`.memory` (the file, Graphiti, the queue), :mod:`.queue` (per-group background episodes),
``tools_read`` / ``tools_write`` / ``tools_time`` / ``tools_graph`` (the tools), :mod:`.server` (transports).
"""

__version__ = "0.1.0"

#: The tools every server registers, and those only a writable one does.
READ_TOOLS = (
    "search_nodes",
    "search_memory_facts",
    "get_episodes",
    "get_entity_edge",
    "get_episode_entities",
    "get_status",
    "get_history",
    "what_changed",
    "shortest_path",
    "explain",
    "query_graph",
)
WRITE_TOOLS = (
    "add_memory",
    "add_triplet",
    "delete_episode",
    "delete_entity_edge",
    "clear_graph",
    "build_communities",
    "summarize_saga",
)

__all__ = ["READ_TOOLS", "WRITE_TOOLS", "__version__"]
