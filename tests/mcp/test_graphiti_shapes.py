"""The tools anatid-mcp shares with Graphiti's MCP server answer as that server does: the same
names, arguments and output schemas (``graphiti_tools.json``, what Graphiti's server lists), and
structured content that fits those schemas exactly, ``{"result": {...}}`` for a tool whose return
annotation is a union (``X | ErrorResponse``), the bare object for ``get_status``.

With ``ANATID_GRAPHITI_MCP_SRC`` set (see ``graphiti_server.py``), Graphiti's server itself runs on
the same store and both answer the same calls.
"""

from __future__ import annotations

import copy
import json
import os
from typing import Any

import jsonschema
import pydantic_core
import pytest
from mcp.types import CallToolResult

from .conftest import payload, remember, stdio_session
from .graphiti_server import SNAPSHOT, SRC_VAR

GRAPHITI = json.loads(SNAPSHOT.read_text())["tools"]
#: Arguments and keys of ours beyond Graphiti's (documented in docs/mcp.md).
EXTRA_ARGS = {
    "search_nodes": {"as_of"},
    "search_memory_facts": {"as_of"},
    "add_triplet": {"valid_at", "invalid_at"},
}
EXTRA_KEYS = {"get_status": {"queue"}}


def without_descriptions(schema: Any) -> Any:
    if isinstance(schema, dict):
        return {k: without_descriptions(v) for k, v in schema.items() if k != "description"}
    if isinstance(schema, list):
        return [without_descriptions(v) for v in schema]
    return schema


def closed(schema: dict[str, Any], extra: set[str] = frozenset()) -> dict[str, Any]:
    """``schema`` with every object of named properties closed (no other key allowed): a
    structured answer must have exactly the keys of Graphiti's TypedDicts."""
    schema = copy.deepcopy(schema)

    def close(node: Any, top: bool) -> None:
        if isinstance(node, dict):
            if "properties" in node and "additionalProperties" not in node:
                node["additionalProperties"] = False
                if top and extra:
                    node["properties"].update({k: {} for k in extra})
            for key, value in node.items():
                close(value, top=False) if key != "properties" else [
                    close(v, top=False) for v in value.values()
                ]
        elif isinstance(node, list):
            for value in node:
                close(value, top=False)

    close(schema, top=True)
    return schema


async def test_shared_tools_have_graphiti_names_arguments_and_output_schemas(memory_path):
    async with stdio_session(memory_path) as s:
        ours = {t.name: t for t in (await s.list_tools()).tools}
    assert set(GRAPHITI) <= set(ours)
    for name, theirs in GRAPHITI.items():
        mine_in = without_descriptions(ours[name].inputSchema)
        their_in = without_descriptions(theirs["inputSchema"])
        assert mine_in.get("required", []) == their_in.get("required", []), name
        extra = set(mine_in["properties"]) - set(their_in["properties"])
        assert extra == EXTRA_ARGS.get(name, set()), name
        for arg, schema in their_in["properties"].items():
            assert mine_in["properties"][arg] == schema, (name, arg)
        mine_out, their_out = ours[name].outputSchema, theirs["outputSchema"]
        if name in EXTRA_KEYS:  # ours adds keys to the object Graphiti's server sends
            assert mine_out is not None and their_out is not None
            assert set(mine_out["properties"]) - set(their_out["properties"]) == EXTRA_KEYS[name]
            assert all(mine_out["properties"][k] == v for k, v in their_out["properties"].items())
        else:
            assert mine_out == their_out, name


def fits(name: str, result: CallToolResult) -> dict[str, Any]:
    """``result`` is what Graphiti's server would send for ``name``; its unwrapped body."""
    data = result.structuredContent
    assert data is not None, result.content
    schema = GRAPHITI[name]["outputSchema"]
    jsonschema.validate(data, closed(schema, EXTRA_KEYS.get(name, set())))
    wrapped = "result" in schema["properties"]
    assert (set(data) == {"result"}) == wrapped, (name, data)
    # the text is FastMCP's rendering of the same value
    [text] = result.content
    assert text.type == "text"
    assert (
        text.text == pydantic_core.to_json(data["result"] if wrapped else data, indent=2).decode()
    )
    return payload(result)


async def test_answers_fit_graphiti_output_schemas_exactly(memory_path):
    missing = "00000000-0000-0000-0000-000000000000"
    async with stdio_session(memory_path) as s:
        await remember(s, "Alice works at Acme.", 1)
        await remember(s, "Alice knows Bob.", 2, saga="story")

        async def answer(tool: str, /, **args: Any) -> dict[str, Any]:
            return fits(tool, await s.call_tool(tool, args))

        assert set(await answer("add_memory", name="e9", episode_body="Bob works at Initech.")) == {
            "message"
        }
        facts = (await answer("search_memory_facts", query="Alice"))["facts"]
        assert facts and all("fact_embedding" not in f for f in facts)
        nodes = (await answer("search_nodes", query="Alice"))["nodes"]
        episodes = (await answer("get_episodes"))["episodes"]
        assert nodes and episodes
        edge = await answer("get_entity_edge", uuid=facts[0]["uuid"])
        assert edge == facts[0]  # the whole fact, as search_memory_facts gives it
        await answer("get_episode_entities", episode_uuids=[episodes[0]["uuid"]])
        triplet = await answer(
            "add_triplet",
            source_node_name="Carol",
            edge_name="MANAGES",
            fact="Carol manages Dave",
            target_node_name="Dave",
        )
        await answer("summarize_saga", saga_name="story")
        await answer("build_communities")
        await answer("get_status")
        await answer("delete_entity_edge", uuid=triplet["edges"][0]["uuid"])
        await answer("delete_episode", uuid=episodes[-1]["uuid"])
        await answer("clear_graph")
        # an error has Graphiti's ErrorResponse shape in every tool's envelope
        for name, args in {
            "get_entity_edge": {"uuid": missing},
            "delete_entity_edge": {"uuid": missing},
            "delete_episode": {"uuid": missing},
            "search_memory_facts": {"query": "x", "max_facts": 0},
            "search_nodes": {"query": "x", "center_node_uuid": missing},
            "get_episodes": {"group_ids": ["nosuchgroup"]},
            "get_episode_entities": {"episode_uuids": []},
            "add_memory": {"name": "n", "episode_body": "b", "reference_time": "soon"},
            "add_triplet": {
                "source_node_name": "A",
                "edge_name": "R",
                "fact": " ",
                "target_node_name": "B",
            },
            "summarize_saga": {"saga_name": "nosuchsaga"},
            "build_communities": {"group_ids": ["nosuchgroup"]},
            "clear_graph": {"group_ids": ["nosuchgroup"]},
        }.items():
            result = await s.call_tool(name, args)
            assert result.isError, name  # Graphiti's server sends these with isError false
            assert set(fits(name, result)) == {"error"}, name


@pytest.mark.skipif(not os.environ.get(SRC_VAR), reason=f"{SRC_VAR} names no Graphiti checkout")
async def test_graphiti_server_on_the_same_store_answers_the_same(tmp_path, monkeypatch):
    from anatid_mcp.config import load
    from anatid_mcp.memory import Memory, Options
    from anatid_mcp.server import build
    from mcp.shared.memory import create_connected_server_and_client_session as connect

    from .graphiti_server import drain, load_module, serving

    monkeypatch.setenv("ANATID_MCP_CLIENTS", "tests.mcp.fake_clients:clients")
    monkeypatch.setenv("OPENAI_API_KEY", "")
    monkeypatch.setenv("CONFIG_PATH", "")
    memory = await Memory.open(load(None), Options(path=str(tmp_path / "m.anatid")))
    try:
        graphiti_module = load_module(os.environ[SRC_VAR])
        theirs = await serving(graphiti_module, memory.graphiti)
        async with (
            connect(build(memory)._mcp_server) as mine,
            connect(theirs._mcp_server) as graphiti,
        ):
            await mine.call_tool(
                "add_memory",
                {
                    "name": "e1",
                    "episode_body": "Alice works at Acme.",
                    "reference_time": "2024-01-01T00:00:00Z",
                },
            )
            await memory.queue.drain()
            calls: list[tuple[str, dict[str, Any]]] = [
                ("search_memory_facts", {"query": "Alice works"}),
                ("search_nodes", {"query": "Alice"}),
                ("get_episodes", {}),
                ("get_entity_edge", {"uuid": "00000000-0000-0000-0000-000000000000"}),
                ("get_episode_entities", {"episode_uuids": []}),
            ]
            facts = payload(await mine.call_tool("search_memory_facts", {"query": "Alice"}))
            episodes = payload(await mine.call_tool("get_episodes", {}))["episodes"]
            calls += [
                ("get_entity_edge", {"uuid": facts["facts"][0]["uuid"]}),
                ("get_episode_entities", {"episode_uuids": [episodes[0]["uuid"]]}),
            ]
            for name, args in calls:
                a = await mine.call_tool(name, args)
                b = await graphiti.call_tool(name, args)
                assert set(a.structuredContent or {}) == set(b.structuredContent or {}), name
                sa, sb = payload(a), payload(b)
                if "error" in sb:
                    assert set(sa) == {"error"} and a.isError and not b.isError, (name, sa, sb)
                    # ours says what Graphiti's server says, and then what to do
                    assert sb["error"] in sa["error"], (sa, sb)
                else:
                    assert sa == sb, (name, sa, sb)
                    assert a.content == b.content, name  # the same text too
            # add_memory: the same message, ours naming the ticket get_status lists it by
            args = {"name": "e2", "episode_body": "Bob works at Initech."}
            ours = payload(await mine.call_tool("add_memory", args))["message"]
            graphitis = payload(await graphiti.call_tool("add_memory", args))["message"]
            assert ours.startswith(graphitis + " (ticket "), (ours, graphitis)
            status_a = await mine.call_tool("get_status", {})
            status_b = await graphiti.call_tool("get_status", {})
            assert set(status_a.structuredContent or {}) - set(
                status_b.structuredContent or {}
            ) == {"queue"}
            await drain(graphiti_module)  # nothing left writing when the file closes
            await memory.queue.drain()
    finally:
        await memory.close()
