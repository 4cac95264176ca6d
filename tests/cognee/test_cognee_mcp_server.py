"""``cognee-mcp`` over stdio on anatid, driven by the MCP SDK's client (issue 12). Opt-in.

``cognee-mcp`` 0.5.7 (PyPI) pulls in torch and extra Cognee extras, gigabytes that CI does not
install, so this test runs only with ``ANATID_TEST_COGNEE_MCP=1`` and ``cognee-mcp`` installed
in the test venv (``pip install cognee-mcp==0.5.7``). The server process (direct mode) gets the
same ``.env`` as the CLI tests: two provider keys plus the fake OpenAI server.
"""

from __future__ import annotations

import asyncio
import os
import shutil
from pathlib import Path

import pytest

from tests.cognee.cognee_processes import BIN, anatid_files, check_file, child_env, offline_dotenv
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


async def _session_run(project: Path) -> str:
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    params = StdioServerParameters(
        command=str(_EXECUTABLE), args=["--transport", "stdio"], env=child_env(), cwd=project
    )
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
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


def test_cognee_mcp_stdio_cognify_and_search_on_anatid(tmp_path: Path):
    with serve_fake_openai() as fake:
        offline_dotenv(tmp_path, fake.url)
        answer = asyncio.run(_session_run(tmp_path))
    assert NOTE in answer
    for path in anatid_files(tmp_path):
        checked = check_file(path)
        assert checked.returncode == 0, checked.stdout + checked.stderr
        assert not Path(f"{path}.wal").exists()
