"""``query_graph`` over stdio: a read-only Cypher query in Graphiti's property names, its rows
capped by ``max_rows``, ``as_of``, writes and bad queries refused with a clear error, and no
tool of the kind in Graphiti's own server (so nothing to match there)."""

from __future__ import annotations

from .conftest import call, refuse, remember, remember_two, stdio_session

FACTS = (
    "MATCH (a:Entity)-[r:RELATES_TO]->(b:Entity) "
    "RETURN a.name AS source, r.name AS rel, r.fact AS fact, b.name AS target ORDER BY fact"
)


async def test_query_graph_answers_in_graphitis_names_and_as_of(memory_path):
    async with stdio_session(memory_path) as s:
        before_bob = await remember_two(s, ("Alice works at Acme.", 1), ("Alice knows Bob.", 2))

        found = await call(s, "query_graph", query=FACTS)
        assert found["columns"] == ["source", "rel", "fact", "target"]
        assert [(r["source"], r["fact"], r["target"]) for r in found["rows"]] == [
            ("Alice", "Alice knows Bob", "Bob"),
            ("Alice", "Alice works at Acme", "Acme"),
        ]
        assert found["truncated"] is False and found["message"] == "2 row(s)"

        past = await call(s, "query_graph", query=FACTS, as_of=before_bob)
        assert [r["fact"] for r in past["rows"]] == ["Alice works at Acme"]

        named = await call(
            s,
            "query_graph",
            query="MATCH (n:Entity) WHERE n.name = $name RETURN n",
            params={"name": "Alice"},
        )
        [row] = named["rows"]
        node = row["n"]
        assert node["name"] == "Alice" and isinstance(node["created_at"], str)
        assert "name_embedding" not in node

        capped = await call(
            s, "query_graph", query="MATCH (n:Entity) RETURN n.name ORDER BY n.name", max_rows=2
        )
        assert len(capped["rows"]) == 2 and capped["truncated"] is True
        assert capped["message"] == "3 row(s); the first 2 returned"


async def test_query_graph_refuses_writes_and_bad_queries(memory_path):
    async with stdio_session(memory_path) as s:
        await remember(s, "Alice works at Acme.", 1)
        write = await refuse(s, "query_graph", query="MATCH (n:Entity) DETACH DELETE n")
        assert write.startswith("Error running the query:") and "DELETE" in write
        still = await call(s, "query_graph", query="MATCH (n:Entity) RETURN count(n) AS n")
        assert still["rows"] == [{"n": 2}]
        syntax = await refuse(s, "query_graph", query="MATCH (n RETURN n")
        assert syntax.startswith("Error running the query:")
        assert "empty" in await refuse(s, "query_graph", query="   ")
        assert "max_rows" in await refuse(s, "query_graph", query=FACTS, max_rows=0)
        assert "as_of" in await refuse(s, "query_graph", query=FACTS, as_of="yesterday")
        slow = "UNWIND range(1, 9000000) AS i WITH i WHERE i % 7 = 0 RETURN count(*) AS n"
        stopped = await refuse(s, "query_graph", query=slow, timeout_seconds=1)
        assert "deadline of 1 s" in stopped, stopped
        assert "timeout_seconds" in await refuse(
            s, "query_graph", query=FACTS, timeout_seconds=1000
        )
