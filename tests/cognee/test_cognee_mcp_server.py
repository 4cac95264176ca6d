"""``cognee-mcp`` over stdio, HTTP and SSE on anatid, driven by the MCP SDK's client (issue 12). Opt-in.

Two modes: direct (the MCP server runs Cognee, and so anatid, in its own process) and API mode
(``--api-url``: the MCP server forwards every tool call to a running Cognee API server, which
holds the anatid files; the MCP process opens no database).

``cognee-mcp`` 0.5.7 (PyPI) pulls in torch and extra Cognee extras, gigabytes that CI does not
install, so this test runs only with ``ANATID_TEST_COGNEE_MCP=1`` and ``cognee-mcp`` installed
in the test venv (``pip install cognee-mcp==0.5.7``). The server process (direct mode) gets the
same ``.env`` as the CLI tests: two provider keys plus the fake OpenAI server.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import signal
import socket
import subprocess
from pathlib import Path

import httpx
import pytest

from tests.cognee.cognee_processes import (
    BIN,
    UVICORN,
    Server,
    anatid_files,
    check_file,
    child_env,
    offline_dotenv,
)
from tests.cognee.fake_openai import serve_fake_openai

NOTE = "Alice works at Acme."
_EXECUTABLE = shutil.which("cognee-mcp", path=str(BIN)) or shutil.which("cognee-mcp")

pytestmark = [
    pytest.mark.skipif(
        os.environ.get("ANATID_TEST_COGNEE_MCP") != "1",
        reason="opt-in: cognee-mcp needs torch (gigabytes); set ANATID_TEST_COGNEE_MCP=1",
    ),
    pytest.mark.skipif(_EXECUTABLE is None, reason="cognee-mcp is not installed"),
]


async def _remember_and_recall(session: object) -> str:
    from mcp import ClientSession

    assert isinstance(session, ClientSession)
    await session.initialize()
    tools = {tool.name for tool in (await session.list_tools()).tools}
    # cognee-mcp 0.5 names its cognify and search tools remember and recall.
    assert {"remember", "recall"} <= tools, sorted(tools)
    stored = await session.call_tool(
        "remember", {"data": NOTE, "dataset_name": "notes", "self_improvement": False}
    )
    assert not stored.isError, stored.content
    found = await session.call_tool(
        "recall", {"query": "Where does Alice work?", "search_type": "CHUNKS"}
    )
    assert not found.isError, found.content
    return " ".join(getattr(c, "text", "") for c in found.content)


async def _over_stdio(project: Path, *args: str) -> str:
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    params = StdioServerParameters(
        command=str(_EXECUTABLE),
        args=["--transport", "stdio", *args],
        env=child_env(),
        cwd=project,
    )
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        return await _remember_and_recall(session)


async def _over_http(project: Path, transport: str = "http") -> str:
    from mcp import ClientSession
    from mcp.client.sse import sse_client
    from mcp.client.streamable_http import streamablehttp_client

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    command = [
        str(_EXECUTABLE),
        "--transport",
        transport,
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
    ]
    with (project / "mcp.log").open("w") as log:
        server = subprocess.Popen(command, cwd=project, env=child_env(), stdout=log, stderr=log)
    try:
        for _ in range(300):
            assert server.poll() is None, (project / "mcp.log").read_text()[-3000:]
            try:
                if httpx.get(f"http://127.0.0.1:{port}/health", timeout=2).status_code == 200:
                    break
            except httpx.TransportError:
                await asyncio.sleep(1)
        if transport == "sse":
            async with (
                sse_client(f"http://127.0.0.1:{port}/sse") as (read, write),
                ClientSession(read, write) as session,
            ):
                answer = await _remember_and_recall(session)
        else:
            async with (
                streamablehttp_client(f"http://127.0.0.1:{port}/mcp") as (read, write, _),
                ClientSession(read, write) as session,
            ):
                answer = await _remember_and_recall(session)
    finally:
        server.send_signal(signal.SIGTERM)
        try:
            server.wait(timeout=60)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
    # uvicorn re-raises SIGTERM after its shutdown: the process still dies by the signal, and
    # anatid's SIGTERM handler closed the files first (anatid_cognee/shutdown.py).
    assert server.returncode == -signal.SIGTERM, (project / "mcp.log").read_text()[-3000:]
    return answer


@pytest.mark.parametrize("transport", ["stdio", "http", "sse"])
def test_cognee_mcp_remember_and_recall_on_anatid(tmp_path: Path, transport: str):
    with serve_fake_openai() as fake:
        offline_dotenv(tmp_path, fake.url)
        if transport == "stdio":
            answer = asyncio.run(_over_stdio(tmp_path))
        else:
            answer = asyncio.run(_over_http(tmp_path, transport))
    assert NOTE in answer
    # The memory went into anatid: a per-dataset file (access control on), closed on exit.
    assert list((tmp_path / "system" / "databases").glob("*/*.anatid.duckdb"))
    assert not list((tmp_path / "system" / "databases").glob("*lancedb*"))
    for path in anatid_files(tmp_path):
        checked = check_file(path)
        assert checked.returncode == 0, checked.stdout + checked.stderr
        assert not Path(f"{path}.wal").exists(), f"{path.name} left open after the server stopped"


def _assert_closed_and_healthy(project: Path) -> None:
    files = anatid_files(project)
    assert files
    for path in files:
        checked = check_file(path)
        assert checked.returncode == 0, checked.stdout + checked.stderr
        assert not Path(f"{path}.wal").exists(), f"{path.name} left open after the server stopped"


def test_cognee_mcp_in_api_mode_forwards_to_an_api_server_on_anatid(tmp_path: Path):
    """``cognee-mcp --api-url``: remember (add + cognify) and recall (search) go over HTTP to a
    Cognee API server on anatid; the memory lands in the server's anatid file."""
    password = "anatid-test-password"
    api, mcp_dir = tmp_path / "api", tmp_path / "mcp"
    api.mkdir()
    mcp_dir.mkdir()
    with serve_fake_openai() as fake:
        offline_dotenv(api, fake.url, DEFAULT_USER_PASSWORD=password)
        # The MCP process imports Cognee too (for its logging): give it its own root, so that
        # "opens no database" can be checked.
        offline_dotenv(mcp_dir, fake.url)
        server = Server(api, UVICORN)
        try:
            server.wait_ready()
            token = httpx.post(
                f"{server.url}/api/v1/auth/login",
                data={"username": "default_user@example.com", "password": password},
                timeout=120,
            )
            assert token.status_code == 200, token.text
            answer = asyncio.run(
                _over_stdio(
                    mcp_dir,
                    "--api-url",
                    server.url,
                    "--api-token",
                    token.json()["access_token"],
                    "--api-auth-scheme",
                    "bearer",
                )
            )
            assert server.terminate() in (0, -signal.SIGTERM), server.output()[-3000:]
        finally:
            if server.process.poll() is None:
                server.process.kill()
                server.process.wait()
    assert NOTE in answer
    assert list((api / "system" / "databases").glob("*/*.anatid.duckdb"))
    assert not list((api / "system" / "databases").glob("*lancedb*"))
    _assert_closed_and_healthy(api)
    assert anatid_files(mcp_dir) == []  # API mode: the MCP server opened no database
