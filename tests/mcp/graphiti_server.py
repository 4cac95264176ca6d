"""Graphiti's own MCP server (getzep/graphiti, ``mcp_server/src/graphiti_mcp_server.py``), loaded
in this process and serving a Graphiti on an anatid file, to compare its answers with ours.

Graphiti's server is not on PyPI; it lives only in its repository. Point
``ANATID_GRAPHITI_MCP_SRC`` at a checkout's ``mcp_server/src`` folder to run the comparison
(``tests/mcp/test_graphiti_shapes.py``); without it, that test is skipped and the other shape
tests check ours against ``graphiti_tools.json``, the tool list Graphiti's server publishes,
written by this module::

    python -m tests.mcp.graphiti_server /path/to/graphiti/mcp_server/src COMMIT

Third-party code is not copied into this repository: the server is imported from the checkout.
Its ``initialize()`` builds a Neo4j or FalkorDB driver; here its ``graphiti_service`` global is
replaced by one whose client is the given ``Graphiti`` (the same one anatid-mcp uses), and its
queue is started on that client, so both servers read and write the same store.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path
from types import ModuleType, SimpleNamespace
from typing import Any

SRC_VAR = "ANATID_GRAPHITI_MCP_SRC"
SNAPSHOT = Path(__file__).with_name("graphiti_tools.json")


def load_module(src: str | Path) -> ModuleType:
    """``graphiti_mcp_server``, imported from ``src`` (its folder names its imports:
    ``config``, ``models``, ``services``, ``utils``)."""
    src = str(Path(src).resolve())
    if src not in sys.path:
        sys.path.insert(0, src)
    argv, sys.argv = sys.argv, [sys.argv[0]]
    try:
        import graphiti_mcp_server  # type: ignore[import-not-found]
    finally:
        sys.argv = argv
    return graphiti_mcp_server


async def serving(module: ModuleType, graphiti: Any, group_id: str = "main") -> Any:
    """Graphiti's FastMCP server, its services set up on ``graphiti``."""
    from services.queue_service import QueueService  # type: ignore[import-not-found]

    module.config = SimpleNamespace(graphiti=SimpleNamespace(group_id=group_id))

    class Service:
        client = graphiti
        entity_types = edge_types = edge_type_map = None

        async def get_client(self) -> Any:
            return graphiti

    module.graphiti_service = Service()
    queue = QueueService()
    await queue.initialize(graphiti)
    module.queue_service = queue
    return module.mcp


async def drain(module: ModuleType) -> None:
    """Wait until Graphiti's queue has processed every episode it acknowledged."""
    for queue in module.queue_service._episode_queues.values():
        await queue.join()


async def tool_list(src: str | Path) -> dict[str, dict[str, Any]]:
    """Every tool Graphiti's server lists: its input and output schemas."""
    module = load_module(src)
    return {
        t.name: {"inputSchema": t.inputSchema, "outputSchema": t.outputSchema}
        for t in await module.mcp.list_tools()
    }


def main(argv: list[str]) -> int:
    import mcp

    src, commit = argv
    os.environ.setdefault("GRAPHITI_TELEMETRY_ENABLED", "false")
    tools = asyncio.run(tool_list(src))
    from importlib.metadata import version

    out = {
        "source": f"getzep/graphiti {commit}, mcp_server/src/graphiti_mcp_server.py",
        "mcp": version(mcp.__name__),
        "tools": tools,
    }
    SNAPSHOT.write_text(json.dumps(out, indent=1, sort_keys=True) + "\n")
    print(f"wrote {SNAPSHOT}: {len(tools)} tools")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
