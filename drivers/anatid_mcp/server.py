"""The MCP server: tools registered on the SDK's ``FastMCP``, served over stdio or HTTP.

stdio is the default (what Claude Desktop, Claude Code and Cursor start). Streamable HTTP binds
127.0.0.1 unless ``--host`` names another address, and with a token (``--token`` or
``$ANATID_MCP_TOKEN``) answers 401 to any request without ``Authorization: Bearer <token>``.
"""

from __future__ import annotations

import asyncio
import hmac
import ipaddress
import logging
import signal
from collections.abc import Awaitable, Callable, MutableMapping
from contextlib import suppress
from typing import Any

from mcp.server.fastmcp import FastMCP

from . import tools_graph, tools_query, tools_read, tools_time, tools_write
from .memory import Memory

log = logging.getLogger("anatid_mcp")

INSTRUCTIONS = """
Long-term memory on a temporally-aware knowledge graph (Graphiti's tool set, stored in one local
anatid file). Information is added as episodes (text, message or JSON); entities (nodes) and
facts (edges between entities) are extracted from them, and partitioned by group_id.

Facts carry valid_at / invalid_at (when they held true); a contradicted fact is invalidated, not
erased. The memory also keeps every version it ever saved: search_memory_facts and search_nodes
take as_of (answer from what the memory knew at that instant), get_history lists every version
of a fact or entity, and what_changed lists what was added, invalidated or deleted in a window.
shortest_path and explain follow the facts between two entities (explain adds the episodes
each fact came from).
delete_episode, delete_entity_edge and clear_graph erase for good: what they delete leaves the
history too (unless the server runs with --keep-deleted).

add_memory returns at once and processes the episode in the background (in order within its
group); get_status shows what is still queued. Use specific queries, filter by group_id, and
give descriptive names and content when adding information.
"""

HEALTH = "/health"
Scope = MutableMapping[str, Any]
ASGI = Callable[
    [Scope, Callable[..., Awaitable[Any]], Callable[..., Awaitable[Any]]], Awaitable[None]
]


def build(memory: Memory, *, host: str = "127.0.0.1", port: int = 8000) -> FastMCP:
    """A FastMCP server with the tools; write tools only if the memory is writable."""
    mcp = FastMCP(
        "anatid memory",
        instructions=INSTRUCTIONS,
        host=host,
        port=port,
        log_level="WARNING",
        # room for the largest episode body we accept, JSON-escaped
        max_request_body_size=max(4 << 20, 8 * memory.options.max_body),
    )
    mcp.custom_route(HEALTH, methods=["GET"])(_health)
    tools_read.register(mcp, memory)
    tools_time.register(mcp, memory)
    tools_graph.register(mcp, memory)
    tools_query.register(mcp, memory)
    if not memory.options.read_only:
        tools_write.register(mcp, memory)
    return mcp


async def _health(request: Any) -> Any:
    """``GET /health``, as Graphiti's server has it for Docker and load balancers."""
    from starlette.responses import JSONResponse

    return JSONResponse({"status": "healthy", "service": "anatid-mcp"})


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


class BearerAuth:
    """ASGI middleware: HTTP requests must carry ``Authorization: Bearer <token>``."""

    def __init__(self, app: ASGI, token: str) -> None:
        self.app = app
        self._token = f"Bearer {token}".encode()

    async def __call__(self, scope: Scope, receive: Any, send: Any) -> None:
        # /health says only that the server is up: a load balancer may ask it without the token
        if scope["type"] == "http" and scope.get("path") != HEALTH:
            given = dict(scope.get("headers") or []).get(b"authorization", b"")
            if not hmac.compare_digest(given, self._token):
                await _refuse(send)
                return
        await self.app(scope, receive, send)


async def _refuse(send: Any) -> None:
    body = b'{"error": "missing or wrong bearer token (Authorization: Bearer <token>)"}'
    await send(
        {
            "type": "http.response.start",
            "status": 401,
            "headers": [
                (b"content-type", b"application/json"),
                (b"www-authenticate", b'Bearer realm="anatid-mcp"'),
                (b"content-length", str(len(body)).encode()),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})


async def serve_http(mcp: FastMCP, *, host: str, port: int, token: str | None) -> None:
    import uvicorn

    app: Any = mcp.streamable_http_app()
    if token:
        app = BearerAuth(app, token)
    elif not is_loopback(host):
        log.warning(
            "listening on %s without a token: anyone who can reach it can read and "
            "write this memory (set --token or ANATID_MCP_TOKEN)",
            host,
        )
    config = uvicorn.Config(app, host=host, port=port, log_level="warning", lifespan="on")
    server = uvicorn.Server(config)
    log.warning("anatid-mcp: streamable HTTP on http://%s:%d/mcp", host, port)
    # uvicorn re-raises the signal that stopped it once it has shut down; with the default
    # handlers that would kill the process before the memory file is closed. While it serves,
    # the handlers it restores and re-raises into are no-ops: the caller then closes the file.
    previous = {sig: signal.signal(sig, _ignore) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        await server.serve()
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


def _ignore(signum: int, frame: Any) -> None:
    """A stop signal arriving after uvicorn has begun to shut down: already being handled."""


async def serve_stdio(mcp: FastMCP) -> None:
    """Serve until the client closes stdin, or until SIGTERM (then queued work is abandoned:
    the next server on this file reports it as interrupted)."""
    task = asyncio.ensure_future(mcp.run_stdio_async())
    loop = asyncio.get_running_loop()
    with suppress(NotImplementedError, RuntimeError):  # no signal handlers on Windows loops
        loop.add_signal_handler(signal.SIGTERM, task.cancel)
    await task


__all__ = ["BearerAuth", "build", "is_loopback", "serve_http", "serve_stdio"]
