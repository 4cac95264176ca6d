"""``cognee-mcp`` over stdio on anatid, driven by the MCP SDK's client (issue 12). Opt-in.

``cognee-mcp`` 0.5.7 (PyPI) pulls in torch and extra Cognee extras, gigabytes that CI does not
install, so this test runs only with ``ANATID_TEST_COGNEE_MCP=1`` and ``cognee-mcp`` installed
in the test venv (``pip install cognee-mcp==0.5.7``). The server process gets the same
``.env`` as the CLI tests (two provider keys plus the fake OpenAI server); tool arguments are
filled from each tool's own input schema, since their names changed across cognee-mcp releases.
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


def _arguments(tool: object, values: dict[str, str]) -> dict[str, object]:
    """Fill a tool's required string arguments by name: text-like, query-like, type-like."""
    schema = getattr(tool, "inputSchema", {}) or {}
    arguments: dict[str, object] = {}
    for name in schema.get("required", []):
        for hint, value in values.items():
            if hint in name:
                arguments[name] = value
                break
    return arguments


async def _session_run(project: Path) -> str:
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    params = StdioServerParameters(
        command=str(_EXECUTABLE), args=["--transport", "stdio"], env=child_env(), cwd=project
    )
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        tools = {tool.name: tool for tool in (await session.list_tools()).tools}
        assert {"cognify", "search"} <= set(tools), sorted(tools)
        await session.call_tool(
            "cognify", _arguments(tools["cognify"], {"text": NOTE, "data": NOTE})
        )
        for _ in range(120):  # cognify runs in the background in cognee-mcp
            found = await session.call_tool(
                "search",
                _arguments(tools["search"], {"query": "Where does Alice work?", "type": "CHUNKS"}),
            )
            text = " ".join(getattr(c, "text", "") for c in found.content)
            if NOTE in text:
                return text
            await asyncio.sleep(2)
        raise AssertionError(f"search never found the note; last answer: {text[:2000]}")


def test_cognee_mcp_stdio_cognify_and_search_on_anatid(tmp_path: Path):
    with serve_fake_openai() as fake:
        offline_dotenv(tmp_path, fake.url)
        answer = asyncio.run(_session_run(tmp_path))
    assert NOTE in answer
    for path in anatid_files(tmp_path):
        checked = check_file(path)
        assert checked.returncode == 0, checked.stdout + checked.stderr
        assert not Path(f"{path}.wal").exists()
