"""docs/offline.md runs as written: Cognee, Graphiti and anatid-mcp on a local model server,
with no network (issue 36).

The blocks marked ``<!-- recipe: NAME -->`` are read from the page at test time and run in
fresh directories, with ``HOME`` in ``tmp_path``, against the fake OpenAI server on 127.0.0.1
(``offline_support.serve_local_model``; stopped after the module). The one change made to the
page's text is the server's URL (the fake listens on a free port). Every child process carries
a guard that refuses, and records, any name lookup or connection off the loopback interface:
a recipe that lets anything reach the network fails here.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.extras import needs

from .offline_support import DOCUMENTED_URL, network_guard, recipe_blocks, serve_local_model

BIN = Path(sys.executable).parent
#: Variables of the runner that would change what the recipe configures.
_FOREIGN = (
    "GRAPH_",
    "VECTOR_",
    "LLM_",
    "LLM__",
    "EMBEDDING_",
    "EMBEDDER",
    "OPENAI_",
    "MODEL_NAME",
    "TELEMETRY_",
    "COGNEE_",
    "CACHING",
    "CACHE_",
    "SYSTEM_ROOT_DIRECTORY",
    "DATA_ROOT_DIRECTORY",
    "LOG_LEVEL",
    "TIKTOKEN_",
    "LITELLM_",
    "HF_",
    "HUGGINGFACE_",
    "GRAPHITI_",
    "ANATID_",
    "CONFIG_PATH",
    "XDG_",
    "PYTHONPATH",
    "ENABLE_BACKEND_ACCESS_CONTROL",
)


@pytest.fixture(scope="module")
def local_model() -> Iterator[Any]:
    with serve_local_model() as fake:
        yield fake


@pytest.fixture(scope="module")
def blocks() -> dict[str, str]:
    found = recipe_blocks()
    expected = {
        "cognee-env",
        "cognee-tiktoken",
        "cognee-doctor",
        "cognee-run",
        "graphiti-script",
        "graphiti-run",
        "mcp-run",
    }
    assert expected <= set(found), f"docs/offline.md lacks recipe blocks {expected - set(found)}"
    return found


def _at(text: str, url: str) -> str:
    """The block with the fake's URL where the page has Ollama's."""
    assert DOCUMENTED_URL in text, f"the recipe no longer names {DOCUMENTED_URL}"
    return text.replace(DOCUMENTED_URL, url)


class Child:
    """A fresh project directory and HOME, and the environment a reader's shell would have."""

    def __init__(self, root: Path) -> None:
        self.project, self.home = root / "project", root / "home"
        self.project.mkdir(parents=True)
        self.home.mkdir()
        guard = network_guard(root / "guard")
        self.refused = Path(guard["ANATID_TEST_NETLOG"])
        self.env = {k: v for k, v in os.environ.items() if not k.startswith(_FOREIGN)}
        self.env.update(guard)
        self.env.update(
            HOME=str(self.home),
            PATH=str(BIN) + os.pathsep + self.env.get("PATH", ""),
            PYTHONUNBUFFERED="1",
        )

    def bash(self, code: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            ["bash", "-euo", "pipefail", "-c", code],
            cwd=self.project,
            env=self.env,
            capture_output=True,
            text=True,
            timeout=timeout,
        )

    def assert_offline(self) -> None:
        refused = self.refused.read_text(encoding="utf-8")
        assert not refused, f"the recipe reached for the network:\n{refused}"


def _ok(result: subprocess.CompletedProcess[str]) -> str:
    output = result.stdout + result.stderr
    assert result.returncode == 0, output[-4000:]
    return output


def _cognee_package_files() -> dict[Path, float]:
    """Files under the cognee package's own data folders (its defaults), with their mtimes."""
    import importlib.util

    spec = importlib.util.find_spec("cognee")  # the hook's finder answers without importing
    assert spec is not None and spec.origin
    package = Path(spec.origin).parent
    return {
        p: p.stat().st_mtime
        for folder in (".cognee_system", ".data_storage", ".cognee_cache")
        for p in (package / folder).rglob("*")
        if p.is_file()
    }


@needs("cognee")
def test_cognee_cli_runs_the_recipe_offline_on_anatid(
    tmp_path: Path, local_model: Any, blocks: dict[str, str]
) -> None:
    child = Child(tmp_path)
    (child.project / ".env").write_text(_at(blocks["cognee-env"], local_model.url) + "\n")
    before = _cognee_package_files()

    _ok(child.bash(blocks["cognee-tiktoken"]))
    assert "TIKTOKEN_CACHE_DIR=/" in (child.project / ".env").read_text()
    # doctor, as documented for a new setup, passes before the first add
    doctor = _ok(child.bash(blocks["cognee-doctor"], timeout=300))
    assert "graph_db (anatid" in doctor and "vector_db (anatid" in doctor, doctor
    ran = child.bash(blocks["cognee-run"], timeout=600)
    output = _ok(ran)

    child.assert_offline()
    # cognify asked the model for Cognee's graph and summary (by the schema in the prompt)
    assert {"KnowledgeGraph", "SummarizedContent"} <= set(local_model.schema_names())
    assert "Alice works at Acme." in ran.stdout.split("Where does Alice work?", 1)[1]
    assert "Traceback" not in output  # LOG_LEVEL=ERROR keeps the tokenizer warning off
    # The memory is anatid files in the documented place, none in site-packages.
    databases = child.home / ".local" / "share" / "cognee" / "system" / "databases"
    files = sorted(databases.rglob("*.duckdb"))
    assert files, f"no anatid file under {databases}"
    for path in files:
        checked = subprocess.run(
            [str(BIN / "anatid"), "check", str(path)], capture_output=True, text=True, timeout=120
        )
        assert checked.returncode == 0, checked.stdout + checked.stderr
    assert any((databases.parent.parent / "data").rglob("*")), "nothing in DATA_ROOT_DIRECTORY"
    after = _cognee_package_files()
    changed = [p for p, m in after.items() if before.get(p) != m]
    assert not changed, f"Cognee wrote inside its package: {changed[:5]}"


def test_the_guard_sees_what_the_tiktoken_setting_prevents(
    tmp_path: Path, blocks: dict[str, str]
) -> None:
    """Loading Cognee's tokenizer without the recipe's TIKTOKEN_CACHE_DIR line is a download the
    guard refuses; with the line the recipe appends, it loads offline. (So the guard, not luck,
    keeps the Cognee test offline; running cognee-cli without the line fails the same way.)"""
    child = Child(tmp_path)
    load = "python -c 'import tiktoken; tiktoken.get_encoding(\"cl100k_base\")'"
    assert child.bash(load).returncode != 0
    assert "openaipublic.blob.core.windows.net" in child.refused.read_text(encoding="utf-8")

    _ok(child.bash(blocks["cognee-tiktoken"]))  # appends to ./.env
    line = (child.project / ".env").read_text().strip()
    assert line.startswith("TIKTOKEN_CACHE_DIR=/"), line
    _ok(child.bash(f"export {line}; {load}"))


@needs("graphiti")
def test_graphiti_script_runs_the_recipe_offline(
    tmp_path: Path, local_model: Any, blocks: dict[str, str]
) -> None:
    child = Child(tmp_path)
    script = _at(blocks["graphiti-script"], local_model.url)
    (child.project / "memory_local.py").write_text(script + "\n")
    ran = child.bash(blocks["graphiti-run"])
    _ok(ran)
    child.assert_offline()
    assert ran.stdout.splitlines() == ["Alice works at Acme."]
    assert (child.home / "memory.duckdb").is_file()
    assert "ExtractedEdges" in local_model.schema_names()


def _payload(result: Any) -> dict[str, Any]:
    assert not result.isError, result.content
    data = result.structuredContent or json.loads(result.content[0].text)
    # Graphiti's server wraps some answers in {"result": ...}; accept either shape.
    return data.get("result", data) if isinstance(data.get("result"), dict) else data


@needs("mcp", "graphiti")
def test_anatid_mcp_started_as_documented_answers_offline(
    tmp_path: Path, local_model: Any, blocks: dict[str, str]
) -> None:
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    child = Child(tmp_path)
    command = _at(blocks["mcp-run"], local_model.url)
    params = StdioServerParameters(
        command="bash", args=["-euo", "pipefail", "-c", command], env=child.env, cwd=child.project
    )

    async def session() -> list[str]:
        async with stdio_client(params) as (read, write), ClientSession(read, write) as client:
            await client.initialize()
            added = await client.call_tool(
                "add_memory", {"name": "note", "episode_body": "Alice works at Acme."}
            )
            assert "queued" in _payload(added)["message"]
            deadline = time.monotonic() + 60
            while True:
                queue = _payload(await client.call_tool("get_status", {}))["queue"]
                if not queue["queued"] and not queue["processing"]:
                    break
                assert time.monotonic() < deadline, queue
                await asyncio.sleep(0.2)
            assert not queue["failed"], queue["failed"]
            found = await client.call_tool(
                "search_memory_facts", {"query": "Where does Alice work?"}
            )
            return [fact["fact"] for fact in _payload(found)["facts"]]

    facts = asyncio.run(session())
    assert facts == ["Alice works at Acme."]
    assert (child.home / "mcp-memory.duckdb").is_file()
    child.assert_offline()
