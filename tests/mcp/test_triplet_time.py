"""``add_triplet``'s valid_at / invalid_at: when a fact held true decides which of two
contradicting facts ends (issue 36: a triplet stamped "now" ended an episode's newer fact)."""

from __future__ import annotations

from .conftest import call, refuse, remember, stdio_session

GLOBEX = "Alice works at Globex"


def triplet(target: str, **when: str) -> dict[str, str]:
    return {
        "source_node_name": "Alice",
        "edge_name": "WORKS_AT",
        "fact": f"Alice works at {target}",
        "target_node_name": target,
        **when,
    }


async def facts_by_text(s, group: str) -> dict[str, dict]:
    found = await call(s, "search_memory_facts", query="Alice works", group_ids=group)
    return {f["fact"]: f for f in found["facts"]}


async def test_a_triplet_with_an_older_valid_at_does_not_end_a_newer_fact(memory_path):
    async with stdio_session(memory_path) as s:
        # an episode of 2024-01-05: Alice works at Globex from then on
        await remember(s, "Alice works at Globex.", 5, group_id="past")
        added = await call(
            s, "add_triplet", group_id="past", **triplet("Acme", valid_at="2020-01-01T00:00:00Z")
        )
        [acme] = [e for e in added["edges"] if e["fact"] == "Alice works at Acme"]
        assert acme["valid_at"] == "2020-01-01T00:00:00+00:00"
        # the older fact is the one that ends, when the newer one began
        assert acme["invalid_at"] == "2024-01-05T00:00:00+00:00"
        facts = await facts_by_text(s, "past")
        assert facts[GLOBEX]["invalid_at"] is None and facts[GLOBEX]["expired_at"] is None
        assert facts["Alice works at Acme"]["invalid_at"] == "2024-01-05T00:00:00Z"

        # a triplet that became true later ends the episode's fact, at its own valid_at
        await call(
            s, "add_triplet", group_id="past", **triplet("Initech", valid_at="2025-03-01T00:00Z")
        )
        facts = await facts_by_text(s, "past")
        assert facts[GLOBEX]["invalid_at"] == "2025-03-01T00:00:00Z"
        assert facts["Alice works at Initech"]["invalid_at"] is None


async def test_without_valid_at_a_triplet_is_dated_now_and_ends_the_older_fact(memory_path):
    # The documented rule, as graphiti-core applies it: no valid_at means "true from now on",
    # so an episode's fact of 2024 ends today even if the triplet described the past.
    async with stdio_session(memory_path) as s:
        await remember(s, "Alice works at Globex.", 5, group_id="now")
        await call(s, "add_triplet", group_id="now", **triplet("Acme"))
        facts = await facts_by_text(s, "now")
        assert facts[GLOBEX]["invalid_at"] is not None
        assert facts[GLOBEX]["invalid_at"] == facts["Alice works at Acme"]["valid_at"]


async def test_a_triplet_with_both_times_is_history_and_ends_nothing(memory_path):
    async with stdio_session(memory_path) as s:
        await remember(s, "Alice works at Globex.", 5, group_id="hist")
        when = {"valid_at": "2019-01-01", "invalid_at": "2020-06-30"}
        added = await call(s, "add_triplet", group_id="hist", **triplet("Acme", **when))
        [acme] = [e for e in added["edges"] if e["fact"] == "Alice works at Acme"]
        assert acme["valid_at"] == "2019-01-01T00:00:00+00:00"
        assert acme["invalid_at"] == "2020-06-30T00:00:00+00:00"
        assert (await facts_by_text(s, "hist"))[GLOBEX]["invalid_at"] is None

        bad = await refuse(
            s, "add_triplet", **triplet("Acme", valid_at="2020-01-01", invalid_at="2019-01-01")
        )
        assert "invalid_at" in bad and "must be after valid_at" in bad
        assert "valid_at" in await refuse(s, "add_triplet", **triplet("Acme", valid_at="soon"))
