"""One call of every tool, checking each answer: run over each transport."""

from __future__ import annotations

from mcp import ClientSession

from .conftest import call, remember


async def call_every_tool(s: ClientSession) -> set[str]:
    """Call each tool once with real arguments; the names of the tools called."""
    called = set()

    async def use(tool: str, **args):
        called.add(tool)
        return await call(s, tool, **args)

    called.add("add_memory")
    await remember(s, "Alice works at Acme.", 1, saga="story")
    facts = (await use("search_memory_facts", query="Alice works", as_of=None))["facts"]
    assert [f["fact"] for f in facts] == ["Alice works at Acme"]
    assert "Alice" in {n["name"] for n in (await use("search_nodes", query="Alice"))["nodes"]}
    [episode] = (await use("get_episodes", group_ids="main"))["episodes"]
    assert (await use("get_entity_edge", uuid=facts[0]["uuid"]))["uuid"] == facts[0]["uuid"]
    prov = await use("get_episode_entities", episode_uuids=[episode["uuid"]])
    assert {n["name"] for n in prov["nodes"]} == {"Alice", "Acme"}
    assert len((await use("get_history", uuid=facts[0]["uuid"]))["versions"]) == 1
    changes = await use("what_changed", since="2000-01-01T00:00:00Z")
    assert ("added", "fact") in {(c["change"], c["kind"]) for c in changes["changes"]}
    assert (await use("summarize_saga", saga_name="story"))["summary"]
    alice, acme = facts[0]["source_node_uuid"], facts[0]["target_node_uuid"]
    [path] = (await use("shortest_path", source_node_uuid=alice, target_node_uuid=acme))["paths"]
    assert [e["uuid"] for e in path["edges"]] == [facts[0]["uuid"]]
    why = await use("explain", source_node_uuid=alice, target_node_uuid=acme, max_depth=1)
    assert [f["episodes"][0]["uuid"] for f in why["facts"]] == [episode["uuid"]]
    rows = await use("query_graph", query="MATCH ()-[r:RELATES_TO]->() RETURN r.uuid AS uuid")
    assert rows["rows"] == [{"uuid": facts[0]["uuid"]}]
    triplet = await use(
        "add_triplet",
        source_node_name="Carol",
        edge_name="KNOWS",
        fact="Carol knows Dave",
        target_node_name="Dave",
    )
    assert [e["fact"] for e in triplet["edges"]] == ["Carol knows Dave"]
    assert (await use("build_communities"))["community_count"] >= 1
    await use("delete_entity_edge", uuid=triplet["edges"][0]["uuid"])
    await use("delete_episode", uuid=episode["uuid"])
    assert (await use("search_memory_facts", query="Alice works"))["facts"] == []
    await use("clear_graph")
    assert (await use("get_status"))["status"] == "ok"
    return called
