"""The one place where exceptions become MCP tool errors.

A tool that fails answers with an MCP tool error (``isError: true``) whose body is Graphiti's
``ErrorResponse`` shape, ``{"error": "..."}``, both as text and as structured content, so a
client written for Graphiti's server reads it the same way. The server never dies of a tool's
exception: anything unexpected is logged with its traceback and reported by type and message.
"""

from __future__ import annotations

import functools
import json
import logging
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from graphiti_core.errors import EdgeNotFoundError, GroupIdValidationError, NodeNotFoundError
from mcp.types import CallToolResult, TextContent

from anatid_core import AnatidError, InvalidInput, ReadOnlyError, StoreLocked

from .clients import NotConfigured
from .inputs import BadInput

log = logging.getLogger("anatid_mcp")

F = TypeVar("F", bound=Callable[..., Awaitable[Any]])

#: Failures whose message is the whole story (no traceback in the log).
EXPECTED = (
    BadInput,
    NotConfigured,
    NodeNotFoundError,
    EdgeNotFoundError,
    GroupIdValidationError,
    InvalidInput,
    ReadOnlyError,
    StoreLocked,
)


def message_of(exc: BaseException) -> str:
    if isinstance(exc, (NodeNotFoundError, EdgeNotFoundError)):
        return f"{exc}: no such uuid in this memory (it may have been deleted)"
    if isinstance(exc, ReadOnlyError):
        return f"{exc} -- this server was started with --read-only"
    if isinstance(exc, (BadInput, NotConfigured, AnatidError)):
        return str(exc)
    return f"{type(exc).__name__}: {exc}"


def error_result(message: str) -> CallToolResult:
    body = {"error": message}
    return CallToolResult(
        content=[TextContent(type="text", text=json.dumps(body, ensure_ascii=False))],
        structuredContent={"result": body},
        isError=True,
    )


def tool_errors(action: str) -> Callable[[F], F]:
    """Decorate a tool: an exception becomes ``{"error": "<action>: <what was wrong>"}``."""

    def wrap(fn: F) -> F:
        @functools.wraps(fn)
        async def run(*args: Any, **kwargs: Any) -> Any:
            try:
                return await fn(*args, **kwargs)
            except EXPECTED as exc:
                log.info("%s refused: %s", fn.__name__, exc)
                return error_result(f"{action}: {message_of(exc)}")
            except Exception as exc:  # the server must outlive any one call
                log.exception("%s failed", fn.__name__)
                return error_result(f"{action}: {message_of(exc)}")

        return run  # type: ignore[return-value]

    return wrap


__all__ = ["error_result", "message_of", "tool_errors"]
