"""Bad input is an MCP tool error saying what was wrong; the server keeps serving."""

from __future__ import annotations

from anatid_mcp import READ_TOOLS

from .conftest import call, refuse, remember, server_env, stdio_session


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
        assert "no LLM is configured" in error and "OPENAI_API_KEY" in error
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
        assert status["status"] == "ok" and "no LLM is configured" in status["message"]


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
