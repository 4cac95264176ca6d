"""How tools answer: the one place where results are packed and exceptions become MCP errors.

A tool that fails answers with an MCP tool error (``isError: true``) whose body is Graphiti's
``ErrorResponse`` shape, ``{"error": "..."}``, both as text and as structured content, so a
client written for Graphiti's server reads it the same way. The server never dies of a tool's
exception: anything unexpected is logged with its traceback and reported by type and message.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import pydantic_core
from graphiti_core.errors import EdgeNotFoundError, GroupIdValidationError, NodeNotFoundError
from mcp.types import CallToolResult, TextContent

from anatid_core import AnatidError, CypherError, InvalidInput, ReadOnlyError, StoreLocked

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
    CypherError,  # refused or bad query: the message says what and where
)


def message_of(exc: BaseException) -> str:
    if isinstance(exc, (NodeNotFoundError, EdgeNotFoundError)):
        return f"{exc}: no such uuid in this memory (it may have been deleted)"
    if isinstance(exc, ReadOnlyError):
        return f"{exc} -- this server was started with --read-only"
    if isinstance(exc, (BadInput, NotConfigured, AnatidError)):
        return str(exc)
    return f"{type(exc).__name__}: {exc}"


def sendable(text: str) -> str:
    """``text`` with any lone surrogate escaped: a message may quote what the caller sent (a
    host's validator quotes it raw), and JSON, like a UTF-8 log, cannot carry one."""
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


def error_result(message: str) -> CallToolResult:
    """Graphiti's ``ErrorResponse``: the text and the structured content FastMCP makes of it,
    flagged ``isError`` (Graphiti's server returns it as a plain result)."""
    body = {"error": sendable(message)}
    return CallToolResult(
        content=[TextContent(type="text", text=pydantic_core.to_json(body, indent=2).decode())],
        structuredContent={"result": body},
        isError=True,
    )


def packed(result: Any, *, wrapped: bool = True) -> CallToolResult:
    """A tool's answer as FastMCP would send it: the JSON text, and the structured content
    (inside ``{"result": ...}`` when the return annotation is a union).

    Built here, not by the SDK, for speed: for a plain return value mcp 1.x re-validates the
    structured content with ``jsonschema.validate`` on every call, which checks the whole output
    schema against the metaschema each time (~10 ms per search on the benchmark machine, more
    than the search itself). FastMCP still validates a returned ``CallToolResult`` against the
    tool's output model (pydantic), so the shape stays checked.
    """
    data = pydantic_core.to_jsonable_python(result, fallback=str)
    text = pydantic_core.to_json(data, indent=2).decode()
    return CallToolResult(
        content=[TextContent(type="text", text=text)],
        structuredContent={"result": data} if wrapped else data,
        isError=False,
    )


def answers(action: str, *, wrapped: bool = True) -> Callable[[F], F]:
    """Decorate a tool: its result is :func:`packed`; an exception becomes an MCP tool error
    ``{"error": "<action>: <what was wrong>"}``."""

    def wrap(fn: F) -> F:
        @functools.wraps(fn)
        async def run(*args: Any, **kwargs: Any) -> Any:
            try:
                return packed(await fn(*args, **kwargs), wrapped=wrapped)
            except EXPECTED as exc:
                log.info("%s refused: %s", fn.__name__, sendable(str(exc)))
                return error_result(f"{action}: {message_of(exc)}")
            except Exception as exc:  # the server must outlive any one call
                log.exception("%s failed", fn.__name__)
                return error_result(f"{action}: {message_of(exc)}")

        return run  # type: ignore[return-value]

    return wrap


__all__ = ["answers", "error_result", "message_of", "packed"]
