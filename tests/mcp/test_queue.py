"""The background queue across a killed server, and several servers on one file."""

from __future__ import annotations

import asyncio
import time

import pytest

from .conftest import call, http_server, remember, server_env, settle, stdio_session

TROUBLED = "tests.mcp.fake_clients:troubled"


async def wait_for(session, predicate, timeout: float = 60):
    deadline = time.monotonic() + timeout
    while True:
        queue = (await call(session, "get_status"))["queue"]
        if predicate(queue):
            return queue
        assert time.monotonic() < deadline, queue
        await asyncio.sleep(0.1)


@pytest.mark.parametrize("stop", ["kill", "terminate"])
async def test_a_stopped_server_keeps_saved_episodes_and_reports_the_unsaved(memory_path, stop):
    with http_server(memory_path, env=server_env(hook=TROUBLED)) as server:
        async with server.session() as s:
            await remember(s, "Alice works at Acme.", 1)
            await call(s, "add_memory", name="e2", episode_body="Stall: Bob works at Initech.")
            await call(s, "add_memory", name="e3", episode_body="Carol knows Dave.")
            queue = await wait_for(s, lambda q: q["processing"])
            assert [t["name"] for t in queue["processing"]] == ["e2"]
            assert [t["name"] for t in queue["waiting"]] == ["e3"]
            assert queue["queued"] == {"main": 2}
        if stop == "kill":
            server.kill()  # SIGKILL: no chance to clean up
        else:
            server.proc.terminate()  # SIGTERM: stop now, without waiting for the stalled model
            assert server.proc.wait(timeout=60) == 0, server.output()

    async with stdio_session(memory_path) as s:
        queue = await settle(s)
        assert [(t["name"], t["group_id"]) for t in queue["interrupted"]] == [
            ("e2", "main"),
            ("e3", "main"),
        ]
        assert queue["failed"] == []
        assert [e["name"] for e in (await call(s, "get_episodes"))["episodes"]] == ["e1"]
        facts = (await call(s, "search_memory_facts", query="Alice works"))["facts"]
        assert [f["fact"] for f in facts] == ["Alice works at Acme"]
        # the client sends them again; they are processed now
        await remember(s, "Carol knows Dave.", 3)
        names = {e["name"] for e in (await call(s, "get_episodes"))["episodes"]}
        assert names == {"e1", "e3"}


async def test_a_failed_episode_is_reported_and_its_group_goes_on(memory_path):
    async with stdio_session(memory_path, env=server_env(hook=TROUBLED)) as s:
        await call(s, "add_memory", name="bad", episode_body="Explode: Alice works at Acme.")
        await call(s, "add_memory", name="good", episode_body="Bob knows Carol.")
        queue = await settle(s)
        [failed] = queue["failed"]
        assert failed["name"] == "bad" and "the model broke" in failed["error"]
        assert [e["name"] for e in (await call(s, "get_episodes"))["episodes"]] == ["good"]
    async with stdio_session(memory_path) as s:  # a failure is remembered across restarts
        assert [t["name"] for t in (await call(s, "get_status"))["queue"]["failed"]] == ["bad"]


async def test_two_servers_on_one_file_see_each_others_memories(memory_path):
    async with stdio_session(memory_path) as a, stdio_session(memory_path) as b:
        await remember(a, "Alice works at Acme.", 1)
        await remember(b, "Bob works at Initech.", 2)
        facts_a = {
            f["fact"] for f in (await call(a, "search_memory_facts", query="works"))["facts"]
        }
        facts_b = {
            f["fact"] for f in (await call(b, "search_memory_facts", query="works"))["facts"]
        }
    assert facts_a == facts_b == {"Alice works at Acme", "Bob works at Initech"}


async def test_a_clean_exit_processes_the_queue_first(memory_path):
    async with stdio_session(memory_path) as s:
        await call(s, "add_memory", name="e1", episode_body="Alice works at Acme.")
    # the client closed stdin right after the acknowledgement: the server saved it, then exited
    async with stdio_session(memory_path) as s:
        queue = (await call(s, "get_status"))["queue"]
        assert queue["interrupted"] == [] and queue["failed"] == []
        assert [e["name"] for e in (await call(s, "get_episodes"))["episodes"]] == ["e1"]
