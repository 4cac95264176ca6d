"""``anatid-mcp`` over stdio, driven by the MCP SDK's client: the tool set and every tool."""

from __future__ import annotations

import asyncio
from datetime import datetime, timezone
from pathlib import Path

from .conftest import call, refuse, remember, remember_two, settle, stdio_session

#: Graphiti's MCP server's tools and their arguments (required ones first), plus ours (as_of,
#: add_triplet's valid_at / invalid_at, get_history, what_changed, shortest_path, explain). A client switching servers must find exactly these.
GRAPHITI_TOOLS = {
    "add_memory": (
        ["name", "episode_body"],
        [
            "group_id",
            "source",
            "source_description",
            "uuid",
            "reference_time",
            "excluded_entity_types",
            "custom_extraction_instructions",
            "previous_episode_uuids",
            "update_communities",
            "saga",
            "saga_previous_episode_uuid",
        ],
    ),
    "add_triplet": (
        ["source_node_name", "edge_name", "fact", "target_node_name"],
        ["group_id", "source_node_uuid", "target_node_uuid", "valid_at", "invalid_at"],
    ),
    "search_nodes": (
        ["query"],
        ["group_ids", "max_nodes", "entity_types", "center_node_uuid", "as_of"],
    ),
    "search_memory_facts": (
        ["query"],
        [
            "group_ids",
            "max_facts",
            "center_node_uuid",
            "edge_types",
            "valid_at_after",
            "valid_at_before",
            "invalid_at_after",
            "invalid_at_before",
            "as_of",
        ],
    ),
    "get_episodes": ([], ["group_ids", "max_episodes"]),
    "get_entity_edge": (["uuid"], []),
    "get_episode_entities": (["episode_uuids"], []),
    "delete_episode": (["uuid"], []),
    "delete_entity_edge": (["uuid"], []),
    "clear_graph": ([], ["group_ids"]),
    "build_communities": ([], ["group_ids"]),
    "summarize_saga": (["saga_name"], ["group_id"]),
    "get_status": ([], []),
    "get_history": (["uuid"], []),
    "what_changed": (["since"], ["until", "group_ids", "max_changes"]),
    "shortest_path": (
        ["source_node_uuid", "target_node_uuid"],
        ["group_ids", "max_depth", "as_of"],
    ),
    "explain": (["source_node_uuid", "target_node_uuid"], ["group_ids", "max_depth", "as_of"]),
    "query_graph": (["query"], ["params", "as_of", "max_rows", "timeout_seconds"]),
}


def at(text: str | None) -> datetime | None:
    return None if text is None else datetime.fromisoformat(text.replace("Z", "+00:00"))


def types_of(prop: dict) -> set[str]:
    if "type" in prop:
        return {prop["type"]}
    return {t.get("type", "?") for t in prop.get("anyOf", [])}


async def test_lists_graphiti_tools_with_their_arguments(memory_path):
    async with stdio_session(memory_path) as s:
        tools = {t.name: t for t in (await s.list_tools()).tools}
    assert set(tools) == set(GRAPHITI_TOOLS)
    for name, (required, optional) in GRAPHITI_TOOLS.items():
        schema = tools[name].inputSchema
        assert sorted(schema.get("required", [])) == sorted(required), name
        assert sorted(schema["properties"]) == sorted(required + optional), name
        assert tools[name].description, name
    facts = tools["search_memory_facts"].inputSchema["properties"]
    assert types_of(facts["group_ids"]) == {"string", "array", "null"}
    assert types_of(facts["max_facts"]) == {"integer"}
    assert types_of(facts["as_of"]) == {"string", "null"}
    memory = tools["add_memory"].inputSchema["properties"]
    assert types_of(memory["update_communities"]) == {"boolean"}
    assert types_of(memory["previous_episode_uuids"]) == {"array", "null"}
    assert types_of(tools["get_episode_entities"].inputSchema["properties"]["episode_uuids"]) == {
        "array"
    }


async def test_add_memory_extracts_and_search_finds_the_fact(memory_path):
    async with stdio_session(memory_path) as s:
        queued = await call(
            s,
            "add_memory",
            name="e1",
            episode_body="Alice works at Acme.",
            reference_time="2024-01-01T00:00:00Z",
        )
        assert "queued" in queued["message"]
        assert not (await settle(s))["failed"]
        facts = (await call(s, "search_memory_facts", query="Alice works"))["facts"]
        assert [f["fact"] for f in facts] == ["Alice works at Acme"]
        assert facts[0]["valid_at"] == "2024-01-01T00:00:00Z"
        assert "fact_embedding" not in facts[0]
        nodes = (await call(s, "search_nodes", query="Alice"))["nodes"]
        assert "Alice" in {n["name"] for n in nodes}
        episodes = (await call(s, "get_episodes"))["episodes"]
        assert [(e["name"], e["content"], e["group_id"]) for e in episodes] == [
            ("e1", "Alice works at Acme.", "main")
        ]
        edge = await call(s, "get_entity_edge", uuid=facts[0]["uuid"])
        assert edge["fact"] == "Alice works at Acme" and edge["episodes"] == [episodes[0]["uuid"]]
        prov = await call(s, "get_episode_entities", episode_uuids=[episodes[0]["uuid"]])
        assert sorted(n["name"] for n in prov["nodes"]) == ["Acme", "Alice"]
        assert [e["fact"] for e in prov["edges"]] == ["Alice works at Acme"]
    async with stdio_session(memory_path) as s:  # the memory is in the file
        facts = (await call(s, "search_memory_facts", query="Alice works"))["facts"]
        assert [f["fact"] for f in facts] == ["Alice works at Acme"]


async def test_episodes_of_a_group_are_processed_in_order(memory_path):
    async with stdio_session(memory_path) as s:
        for day, body in enumerate(["Alice works at Acme.", "Alice works at Globex."], start=1):
            await call(
                s,
                "add_memory",
                name=f"e{day}",
                episode_body=body,
                group_id="g1",
                reference_time=f"2024-01-{day:02d}T00:00:00Z",
            )
        await settle(s)
        facts = (await call(s, "search_memory_facts", query="Alice works", group_ids="g1"))["facts"]
    by_fact = {f["fact"]: f["invalid_at"] for f in facts}
    # the second episode saw the first one's fact and invalidated it: processed after it
    assert by_fact == {"Alice works at Acme": "2024-01-02T00:00:00Z", "Alice works at Globex": None}


async def test_delete_episode_removes_only_what_it_alone_created(memory_path):
    async with stdio_session(memory_path) as s:
        await remember(s, "Alice works at Acme.", 1)
        await remember(s, "Alice knows Bob.", 2)
        episodes = {e["name"]: e["uuid"] for e in (await call(s, "get_episodes"))["episodes"]}
        await call(s, "delete_episode", uuid=episodes["e2"])
        facts = {f["fact"] for f in (await call(s, "search_memory_facts", query="Alice"))["facts"]}
        names = {
            n["name"] for n in (await call(s, "search_nodes", query="Alice Bob Acme"))["nodes"]
        }
        left = {e["name"] for e in (await call(s, "get_episodes"))["episodes"]}
    assert facts == {"Alice works at Acme"}
    assert names == {"Alice", "Acme"}  # Alice is also e1's: kept; Bob was only e2's: gone
    assert left == {"e1"}


async def test_as_of_before_a_contradiction_returns_the_old_fact(memory_path):
    async with stdio_session(memory_path) as s:
        between = await remember_two(s, ("Alice works at Acme.", 1), ("Alice works at Globex.", 30))
        now = await call(s, "search_memory_facts", query="Alice works")
        then = await call(s, "search_memory_facts", query="Alice works", as_of=between)
        old_nodes = await call(s, "search_nodes", query="Globex Acme", as_of=between)
    assert {f["fact"]: f["invalid_at"] for f in now["facts"]} == {
        "Alice works at Acme": "2024-01-30T00:00:00Z",
        "Alice works at Globex": None,
    }
    assert [(f["fact"], f["invalid_at"]) for f in then["facts"]] == [("Alice works at Acme", None)]
    assert "Globex" not in {n["name"] for n in old_nodes["nodes"]}


async def test_history_and_what_changed_show_the_invalidation(memory_path):
    async with stdio_session(memory_path) as s:
        start = datetime.now(timezone.utc).isoformat()
        await remember(s, "Alice works at Acme.", 1)
        await asyncio.sleep(0.01)
        middle = datetime.now(timezone.utc).isoformat()
        await remember(s, "Alice works at Globex.", 30)
        acme = next(
            f
            for f in (await call(s, "search_memory_facts", query="Acme"))["facts"]
            if f["fact"] == "Alice works at Acme"
        )
        history = await call(s, "get_history", uuid=acme["uuid"])
        early = await call(s, "what_changed", since=start, until=middle)
        late = await call(s, "what_changed", since=middle)
    assert history["kind"] == "fact"
    assert [at(v["invalid_at"]) for v in history["versions"]] == [None, at("2024-01-30T00:00:00Z")]
    first, last = history["versions"]
    assert first["known_until"] == last["known_from"] and last["known_until"] is None
    assert {(c["change"], c["kind"], c["record"].get("fact")) for c in early["changes"]} >= {
        ("added", "fact", "Alice works at Acme")
    }
    assert all(c["change"] == "added" for c in early["changes"])
    late_facts = {
        (c["change"], c["record"].get("fact")) for c in late["changes"] if c["kind"] == "fact"
    }
    assert late_facts == {
        ("invalidated", "Alice works at Acme"),
        ("added", "Alice works at Globex"),
    }


async def test_the_other_write_tools(memory_path):
    async with stdio_session(memory_path) as s:
        triplet = await call(
            s,
            "add_triplet",
            source_node_name="Carol",
            edge_name="MANAGES",
            fact="Carol manages Dave",
            target_node_name="Dave",
            group_id="g2",
        )
        assert sorted(n["name"] for n in triplet["nodes"]) == ["Carol", "Dave"]
        [edge] = triplet["edges"]
        assert (await call(s, "get_entity_edge", uuid=edge["uuid"]))["fact"] == "Carol manages Dave"
        await call(s, "delete_entity_edge", uuid=edge["uuid"])
        assert "no such uuid" in await refuse(s, "get_entity_edge", uuid=edge["uuid"])
        # A delete is an erasure: the fact leaves the history too.
        assert "was ever stored" in await refuse(s, "get_history", uuid=edge["uuid"])
        changes = (await call(s, "what_changed", since=edge["created_at"], group_ids="g2"))[
            "changes"
        ]
        assert [c for c in changes if c["kind"] == "fact"] == []

        await remember(s, "Alice works at Acme.", 1, group_id="g3", saga="story")
        await remember(s, "Alice knows Bob.", 2, group_id="g3", saga="story")
        saga = await call(s, "summarize_saga", saga_name="story", group_id="g3")
        assert saga["name"] == "story" and saga["summary"]
        built = await call(s, "build_communities", group_ids=["g3"])
        assert built["community_count"] == len(built["communities"]) >= 1
        assert {c["group_id"] for c in built["communities"]} == {"g3"}

        cleared = await call(s, "clear_graph", group_ids="g3")
        assert "g3" in cleared["message"]
        assert (await call(s, "search_memory_facts", query="Alice", group_ids="g3"))["facts"] == []
        assert (await call(s, "get_episodes", group_ids=["g3"]))["episodes"] == []


async def test_text_that_looks_like_a_query_language_is_stored_as_text(memory_path):
    body = "Mallory said MATCH (n) DETACH DELETE n; DROP TABLE nodes; -- to Eve."
    async with stdio_session(memory_path) as s:
        await remember(s, body, 1)
        episodes = (await call(s, "get_episodes"))["episodes"]
        facts = (await call(s, "search_memory_facts", query="DETACH DELETE n; DROP TABLE"))["facts"]
        nodes = (await call(s, "search_nodes", query="MATCH (n) RETURN n"))["nodes"]
    assert [e["content"] for e in episodes] == [body]
    assert facts and all("Mallory" in f["fact"] for f in facts)
    assert "Mallory" in {n["name"] for n in nodes}


async def test_keep_deleted_keeps_what_a_delete_tool_deleted_in_history(memory_path):
    async with stdio_session(memory_path, "--keep-deleted") as s:
        triplet = await call(
            s,
            "add_triplet",
            source_node_name="Carol",
            edge_name="MANAGES",
            fact="Carol manages Dave",
            target_node_name="Dave",
            group_id="g2",
        )
        [edge] = triplet["edges"]
        await call(s, "delete_entity_edge", uuid=edge["uuid"])
        assert "no such uuid" in await refuse(s, "get_entity_edge", uuid=edge["uuid"])
        changes = (await call(s, "what_changed", since=edge["created_at"], group_ids="g2"))[
            "changes"
        ]
        facts = [(c["change"], c["record"]["fact"]) for c in changes if c["kind"] == "fact"]
        assert facts == [("added", "Carol manages Dave"), ("deleted", "Carol manages Dave")]
        versions = (await call(s, "get_history", uuid=edge["uuid"]))["versions"]
        assert versions[-1]["known_until"] is not None  # deleted, and still in the history


async def test_a_delete_tool_leaves_no_byte_of_the_fact_in_the_file(memory_path):
    token = "Quetzalfact7731"
    async with stdio_session(memory_path) as s:
        triplet = await call(
            s,
            "add_triplet",
            source_node_name="Carol",
            edge_name="MANAGES",
            fact=f"Carol manages {token}",
            target_node_name="Dave",
            group_id="g2",
        )
        [edge] = triplet["edges"]
        assert any(token.encode() in f.read_bytes() for f in _store_files(memory_path))
        await call(s, "delete_entity_edge", uuid=edge["uuid"])
    assert not any(token.encode() in f.read_bytes() for f in _store_files(memory_path))


def _store_files(path: Path) -> list[Path]:
    return [p for p in path.parent.iterdir() if p.name.startswith(path.name) and p.is_file()]
