"""Starting ``anatid-mcp`` as a real subprocess and talking to it with the MCP SDK's client.

The server gets the deterministic fakes through its documented test hook
(``ANATID_MCP_CLIENTS``), an empty OpenAI key (so nothing could reach a real provider) and
telemetry off. HTTP servers listen on a free port of 127.0.0.1 and are stopped by the tests.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pytest

from tests.extras import require

require("mcp")

import httpx  # noqa: E402
from mcp import ClientSession, StdioServerParameters  # noqa: E402
from mcp.client.stdio import stdio_client  # noqa: E402
from mcp.client.streamable_http import streamable_http_client  # noqa: E402
from mcp.types import CallToolResult  # noqa: E402

REPO = Path(__file__).resolve().parents[2]
FAKES = "tests.mcp.fake_clients:clients"


def command() -> list[str]:
    exe = shutil.which("anatid-mcp", path=str(Path(sys.executable).parent))
    return [exe] if exe else [sys.executable, "-m", "anatid_mcp.cli"]


def server_env(hook: str | None = FAKES, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANATID_MCP", "LLM__"))}
    env.update(
        PYTHONPATH=str(REPO) + os.pathsep + env.get("PYTHONPATH", ""),
        GRAPHITI_TELEMETRY_ENABLED="false",
        OPENAI_API_KEY="",
        CONFIG_PATH="",
    )
    if hook:
        env["ANATID_MCP_CLIENTS"] = hook
    env.update(extra)
    return env


@asynccontextmanager
async def stdio_session(
    path: Path | str, *args: str, env: dict[str, str] | None = None
) -> AsyncIterator[ClientSession]:
    """A client session with ``anatid-mcp --path <path> <args>`` started over stdio."""
    exe, *pre = command()
    params = StdioServerParameters(
        command=exe, args=[*pre, "--path", str(path), *args], env=env or server_env(), cwd=str(REPO)
    )
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        yield session


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class HttpServer:
    """An ``anatid-mcp --transport http`` subprocess on 127.0.0.1."""

    def __init__(self, path: Path, *args: str, env: dict[str, str] | None = None) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}/mcp"
        self.log = path.with_suffix(".log").open("wb")
        self.proc = subprocess.Popen(
            [
                *command(),
                "--path",
                str(path),
                "--transport",
                "http",
                "--port",
                str(self.port),
                *args,
            ],
            env=env or server_env(),
            cwd=str(REPO),
            stdin=subprocess.DEVNULL,
            stdout=self.log,
            stderr=subprocess.STDOUT,
        )
        self._wait_listening()

    def _wait_listening(self) -> None:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(
                    f"anatid-mcp exited with {self.proc.returncode}: {self.output()}"
                )
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=0.2).close()
                return
            except OSError:
                time.sleep(0.1)
        raise RuntimeError(f"anatid-mcp did not listen on {self.port}: {self.output()}")

    def output(self) -> str:
        self.log.flush()
        return Path(self.log.name).read_text(errors="replace")[-3000:]

    def kill(self) -> None:
        self.proc.kill()
        self.proc.wait(timeout=30)

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.kill()
        self.log.close()

    @asynccontextmanager
    async def session(self, token: str | None = None) -> AsyncIterator[ClientSession]:
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        async with (
            httpx.AsyncClient(headers=headers, timeout=httpx.Timeout(60, read=300)) as http,
            streamable_http_client(self.url, http_client=http) as (read, write, _),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            yield session


@contextmanager
def http_server(path: Path, *args: str, env: dict[str, str] | None = None) -> Iterator[HttpServer]:
    server = HttpServer(path, *args, env=env)
    try:
        yield server
    finally:
        server.stop()


# ------------------------------------------------------------------------------ calling


def payload(result: CallToolResult) -> dict[str, Any]:
    """A tool's structured answer, unwrapped from FastMCP's ``{"result": ...}`` envelope."""
    data = result.structuredContent
    assert data is not None, result.content
    return data.get("result", data) if set(data) == {"result"} else data


async def call(session: ClientSession, tool: str, **args: Any) -> dict[str, Any]:
    result = await session.call_tool(tool, args)
    assert not result.isError, result.content
    return payload(result)


async def refuse(session: ClientSession, tool: str, **args: Any) -> str:
    """Call a tool that must fail: its error text (Graphiti's ``{"error": ...}`` shape)."""
    result = await session.call_tool(tool, args)
    assert result.isError, result.content
    body = payload(result)
    assert set(body) == {"error"}, body
    return body["error"]


async def settle(session: ClientSession, timeout: float = 120) -> dict[str, Any]:
    """Wait until the server's episode queue is empty; its final queue report."""
    deadline = time.monotonic() + timeout
    while True:
        queue = (await call(session, "get_status"))["queue"]
        if not queue["queued"]:
            return queue
        if time.monotonic() > deadline:
            raise AssertionError(f"episodes still queued: {queue}")
        await asyncio.sleep(0.1)


async def remember(session: ClientSession, body: str, day: int, **args: Any) -> dict[str, Any]:
    """Add one episode named ``e<day>`` at 2024-01-<day> and wait until it is saved."""
    await call(
        session,
        "add_memory",
        name=f"e{day}",
        episode_body=body,
        reference_time=f"2024-01-{day:02d}T00:00:00Z",
        **args,
    )
    queue = await settle(session)
    assert not queue["failed"], queue
    return queue


async def remember_two(
    session: ClientSession, first: tuple[str, int], second: tuple[str, int]
) -> str:
    """Remember two episodes (:func:`remember`, body and day each), and return an instant
    (ISO 8601, UTC) between their writes: an ``as_of`` that sees the first alone."""
    await remember(session, *first)
    await asyncio.sleep(0.01)
    between = datetime.now(timezone.utc).isoformat()
    await asyncio.sleep(0.01)
    await remember(session, *second)
    return between


@pytest.fixture
def memory_path(tmp_path: Path) -> Path:
    return tmp_path / "memory.duckdb"
