"""Bad input is an MCP tool error saying what was wrong; the server keeps serving."""

from __future__ import annotations

import subprocess

from anatid_mcp import READ_TOOLS

from .conftest import (
    FAKES,
    REPO,
    call,
    command,
    refuse,
    remember,
    server_env,
    stdio_session,
)


async def test_bad_input_gets_a_clear_tool_error_and_the_server_survives(memory_path):
    async with stdio_session(memory_path, "--max-body", "500") as s:
        await remember(s, "Alice works at Acme.", 1)
        missing = "00000000-0000-0000-0000-000000000000"
        assert "no such uuid" in await refuse(s, "get_entity_edge", uuid=missing)
        assert "no episode with uuid" in await refuse(s, "delete_episode", uuid=missing)
        assert "no episode with uuid" in await refuse(
            s, "get_episode_entities", episode_uuids=[missing]
        )
        assert "was ever stored" in await refuse(s, "get_history", uuid=missing)
        assert "center_node_uuid" in await refuse(
            s, "search_nodes", query="x", center_node_uuid=missing
        )
        bad_date = await refuse(s, "search_memory_facts", query="x", valid_at_after="last week")
        assert "valid_at_after" in bad_date and "ISO 8601" in bad_date
        assert "as_of" in await refuse(s, "search_nodes", query="x", as_of="2024-13-45")
        assert "reference_time" in await refuse(
            s, "add_memory", name="n", episode_body="b", reference_time="soon"
        )
        assert "since" in await refuse(s, "what_changed", since="2030-01-01", until="2020-01-01")
        unknown = await refuse(s, "search_memory_facts", query="x", group_ids=["nosuchgroup"])
        assert "unknown group_id" in unknown and "nosuchgroup" in unknown
        assert "unknown group_id" in await refuse(s, "clear_graph", group_ids="nosuchgroup")
        assert "group_id" in await refuse(
            s, "add_memory", name="n", episode_body="b", group_id="not a valid id!"
        )
        too_big = await refuse(s, "add_memory", name="big", episode_body="word " * 200)
        assert "1,000 characters" in too_big and "limit of 500" in too_big
        assert "JSON" in await refuse(
            s, "add_memory", name="j", episode_body="{not json", source="json"
        )
        assert "source must be one of" in await refuse(
            s, "add_memory", name="n", episode_body="b", source="video"
        )
        assert "max_facts" in await refuse(s, "search_memory_facts", query="x", max_facts=0)
        assert "at least one" in await refuse(s, "get_episode_entities", episode_uuids=[])
        assert "update_communities" in await refuse(
            s, "add_memory", name="n", episode_body="b", update_communities=True
        )
        # nothing refused was queued or written, and the server still answers
        status = await call(s, "get_status")
        assert status["status"] == "ok" and status["queue"]["queued"] == {}
        assert [e["name"] for e in (await call(s, "get_episodes"))["episodes"]] == ["e1"]
        facts = (await call(s, "search_memory_facts", query="Alice"))["facts"]
        assert [f["fact"] for f in facts] == ["Alice works at Acme"]


async def test_without_an_llm_write_tools_say_what_to_set_and_reads_work(memory_path):
    async with stdio_session(memory_path) as s:  # fill the file with the fakes first
        await remember(s, "Alice works at Acme.", 1)
    env = server_env(hook=None)  # no hook, no OPENAI_API_KEY: nothing configured
    async with stdio_session(memory_path, env=env) as s:
        error = await refuse(s, "add_memory", name="n", episode_body="Bob works at Initech.")
        assert error.startswith(
            "Error queuing episode: add_memory needs an LLM and an embedder, but the LLM and "
            "the embedder are not configured: openai has no API key (set OPENAI_API_KEY). "
        ), error
        assert "OPENAI_API_URL" in error and "LLM__PROVIDER" in error  # what else to set
        assert "OPENAI_API_KEY" in await refuse(s, "build_communities")
        assert "OPENAI_API_KEY" in await refuse(
            s,
            "add_triplet",
            source_node_name="A",
            edge_name="R",
            fact="A r B",
            target_node_name="B",
        )
        facts = (await call(s, "search_memory_facts", query="Alice works"))["facts"]
        assert [f["fact"] for f in facts] == ["Alice works at Acme"]  # full text, no embedder
        assert "Alice" in {
            n["name"] for n in (await call(s, "search_nodes", query="Alice"))["nodes"]
        }
        status = await call(s, "get_status")
        assert status["status"] == "ok"
        assert status["message"].endswith(
            "; the LLM and the embedder are not configured: openai has no API key "
            "(set OPENAI_API_KEY)"
        )
        assert "summarize_saga needs an LLM, but the LLM is not configured" in await refuse(
            s, "summarize_saga", saga_name="s"
        )


def run_without_stdin(path, *args: str, hook: str | None) -> subprocess.CompletedProcess[str]:
    """The server started by hand with stdin closed: it starts, sees the end of its input, and
    exits; what it printed on each stream."""
    return subprocess.run(
        [*command(), "--path", str(path), *args],
        env=server_env(hook=hook),
        cwd=str(REPO),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_without_a_model_the_server_says_once_at_start_what_to_set(memory_path):
    done = run_without_stdin(memory_path, hook=None)
    assert done.returncode == 0, done.stderr
    assert done.stdout == ""  # stdout is the protocol: the notice never goes there
    lines = [line for line in done.stderr.splitlines() if "not configured" in line]
    assert len(lines) == 1, done.stderr
    assert "the LLM and the embedder are not configured" in lines[0]
    assert "set OPENAI_API_KEY" in lines[0] and "OPENAI_API_URL" in lines[0]
    assert "add_memory, add_triplet, build_communities and summarize_saga refuse" in lines[0]
    assert "no reranker" not in done.stderr  # no tool calls one: nothing to say about it

    read_only = run_without_stdin(memory_path, "--read-only", hook=None)
    (line,) = [line for line in read_only.stderr.splitlines() if "not configured" in line]
    assert "the embedder is not configured" in line and "full text only" in line
    assert "add_memory" not in line  # a read-only server has no write tools to refuse

    configured = run_without_stdin(memory_path, hook=FAKES)
    assert configured.returncode == 0 and "not configured" not in configured.stderr


async def test_read_only_registers_only_read_tools_and_reads_the_file(memory_path):
    async with stdio_session(memory_path) as s:
        await remember(s, "Alice works at Acme.", 1)
    async with stdio_session(memory_path, "--read-only") as s:
        names = {t.name for t in (await s.list_tools()).tools}
        assert names == set(READ_TOOLS)
        facts = (await call(s, "search_memory_facts", query="Alice"))["facts"]
        assert [f["fact"] for f in facts] == ["Alice works at Acme"]
        assert "(read-only)" in (await call(s, "get_status"))["message"]
        unknown = await s.call_tool("add_memory", {"name": "n", "episode_body": "b"})
        assert unknown.isError
