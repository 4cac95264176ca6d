"""``shortest_path`` and ``explain`` over stdio: chains of facts between two entities, the
episodes each fact came from, the group wall, ``as_of``, and refusals of bad arguments."""

from __future__ import annotations

from .conftest import call, refuse, remember, remember_two, stdio_session


async def _entities(s, query: str, **args) -> dict[str, str]:
    nodes = (await call(s, "search_nodes", query=query, max_nodes=50, **args))["nodes"]
    return {n["name"]: n["uuid"] for n in nodes}


def _chain(path: dict) -> tuple[list[str], list[str]]:
    return [n["name"] for n in path["nodes"]], [e["fact"] for e in path["edges"]]


async def test_shortest_path_and_explain_follow_facts_with_their_episodes(memory_path):
    async with stdio_session(memory_path) as s:
        before_bob = await remember_two(s, ("Alice works at Acme.", 1), ("Alice knows Bob.", 2))
        ids = await _entities(s, "Alice Bob Acme")
        episodes = {e["name"]: e["uuid"] for e in (await call(s, "get_episodes"))["episodes"]}

        found = await call(
            s, "shortest_path", source_node_uuid=ids["Bob"], target_node_uuid=ids["Acme"]
        )
        [path] = found["paths"]
        assert _chain(path) == (
            ["Bob", "Alice", "Acme"],
            ["Alice knows Bob", "Alice works at Acme"],
        )
        assert "fact_embedding" not in path["edges"][0]
        too_short = await call(
            s,
            "shortest_path",
            source_node_uuid=ids["Bob"],
            target_node_uuid=ids["Acme"],
            max_depth=1,
        )
        assert too_short["paths"] == []

        why = await call(s, "explain", source_node_uuid=ids["Acme"], target_node_uuid=ids["Bob"])
        by_fact = {f["fact"]["fact"]: [e["uuid"] for e in f["episodes"]] for f in why["facts"]}
        assert by_fact == {
            "Alice works at Acme": [episodes["e1"]],
            "Alice knows Bob": [episodes["e2"]],
        }
        assert [_chain(p)[0] for p in why["paths"]] == [["Acme", "Alice", "Bob"]]

        # Before Bob was learned nothing linked him: as_of answers from then.
        past = await refuse(
            s,
            "explain",
            source_node_uuid=ids["Acme"],
            target_node_uuid=ids["Bob"],
            as_of=before_bob,
        )
        assert ids["Bob"] in past
        direct = await call(
            s,
            "explain",
            source_node_uuid=ids["Acme"],
            target_node_uuid=ids["Alice"],
            max_depth=1,
            as_of=before_bob,
        )
        assert [f["fact"]["fact"] for f in direct["facts"]] == ["Alice works at Acme"]


async def test_a_group_is_a_wall_and_bad_arguments_are_refused(memory_path):
    async with stdio_session(memory_path) as s:
        await remember(s, "Alice works at Acme.", 1)
        await remember(s, "Carol knows Dave.", 2, group_id="g2")
        ids = await _entities(s, "Alice Acme")
        other = await _entities(s, "Carol Dave", group_ids="g2")
        # Inside g2 the main group's entities are not there to be linked.
        walled = await refuse(
            s,
            "shortest_path",
            source_node_uuid=ids["Alice"],
            target_node_uuid=ids["Acme"],
            group_ids="g2",
        )
        assert walled == f"Error finding a path: no entity with uuid {ids['Alice']!r} or " + (
            f"{ids['Acme']!r} in group(s) g2"
        )
        inside = await call(
            s,
            "shortest_path",
            source_node_uuid=other["Carol"],
            target_node_uuid=other["Dave"],
            group_ids=["g2"],
        )
        assert [_chain(p)[1] for p in inside["paths"]] == [["Carol knows Dave"]]
        apart = await call(
            s, "explain", source_node_uuid=ids["Alice"], target_node_uuid=other["Dave"]
        )
        assert apart["facts"] == [] and apart["paths"] == []

        for depth in (0, -1, 11):
            assert "max_depth" in await refuse(
                s,
                "shortest_path",
                source_node_uuid=ids["Alice"],
                target_node_uuid=ids["Acme"],
                max_depth=depth,
            )
        assert "nope" in await refuse(
            s, "explain", source_node_uuid=ids["Alice"], target_node_uuid="nope"
        )
        assert "unknown group_id" in await refuse(
            s,
            "explain",
            source_node_uuid=ids["Alice"],
            target_node_uuid=ids["Acme"],
            group_ids="never",
        )
        assert "as_of" in await refuse(
            s,
            "explain",
            source_node_uuid=ids["Alice"],
            target_node_uuid=ids["Acme"],
            as_of="yesterday",
        )
