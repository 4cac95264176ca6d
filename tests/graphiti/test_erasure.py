"""Graphiti's deletes are erasures (issue 15): after ``remove_episode``, ``clear_data``,
``erase_episode`` and ``erase_group`` no byte of what they removed is in the store's files, the
records that stay are unchanged, and the receipts say what went and what may still mention it.

Each test builds the memory of ``erasure_data`` through Graphiti's real pipeline (fake clients),
proves the byte scan sees every token first, erases, and scans the raw files again.
"""

from __future__ import annotations

import asyncio
import dataclasses
import shutil
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pytest
from anatid_graphiti import GraphitiDriver, GraphitiErasure
from graphiti_core.edges import EntityEdge
from graphiti_core.errors import NodeNotFoundError
from graphiti_core.nodes import EntityNode, EpisodicNode
from graphiti_core.utils.maintenance.graph_data_operations import clear_data

from anatid_core import Store, UnsupportedOperation
from tests.core.erasure_data import dump, uncompressed

from .conftest import add, make_graphiti
from .erasure_data import ORPHANS, Built, build, facts_of, found, needles


@pytest.fixture(scope="module")
def built_once(tmp_path_factory: pytest.TempPathFactory) -> Built:
    """Built once per module (through the whole pipeline), copied for each test."""
    made = asyncio.run(build(tmp_path_factory.mktemp("graphiti-erasure") / "memory.duckdb"))
    before = found(made.path)
    missing = [k for k, n in before.items() if n == 0]
    assert not missing, f"the scan does not see {missing} before erasure: it proves nothing"
    return made


@pytest.fixture
def built(built_once: Built, tmp_path: Path) -> Built:
    path = tmp_path / built_once.path.name
    assert not Path(f"{built_once.path}.wal").exists()  # closed and checkpointed: one file
    shutil.copyfile(built_once.path, path)
    return dataclasses.replace(built_once, path=path)


def _all_gone(path: Path) -> None:
    left = {k: n for k, n in found(path).items() if n}
    assert not left, f"bytes of erased records remain in the store's files: {left}"


def _ids(path: Path, group: str | None = None) -> set[str]:
    """Every record id with any version in the file (read with the store's own reader)."""
    with Store.open(path, read_only=True) as s:
        groups = None if group is None else [group]
        return {v.id for kind in ("node", "edge") for v in s.versions(kind, groups=groups)}  # type: ignore[arg-type]


async def _open(path: Path, **kw: Any) -> GraphitiDriver:
    driver = GraphitiDriver(path, **kw)
    uncompressed(driver.store)
    return driver


async def _instant() -> datetime:
    await asyncio.sleep(0.002)
    return datetime.now(timezone.utc)


# ------------------------------------------------------------------------ remove_episode


def _expected_erasure(built: Built) -> set[str]:
    """What removing the victim must erase: it, the entities only it mentions, its facts, and
    every edge touching any of them (read from the file before)."""
    zembla = next(n.uuid for n in built.victim.nodes if n.name == "Zembla")
    nodes = {built.victim.episode.uuid, built.quorvex.uuid, zembla, *built.orphans}
    with Store.open(built.path, read_only=True) as s:
        touching = {v.id for v in s.versions("edge") if {v.src, v.dst} & nodes}  # type: ignore[union-attr]
    return nodes | touching | facts_of(built)


def _counting_compactions(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    calls: list[int] = []
    real = Store.compact

    def counting(self: Store) -> Any:
        calls.append(1)
        return real(self)

    monkeypatch.setattr(Store, "compact", counting)
    return calls


async def test_remove_episode_leaves_no_byte_and_keeps_what_others_mention(
    built, monkeypatch
) -> None:
    victim = built.victim.episode.uuid
    expected = _expected_erasure(built)
    # Graphiti re-saves the kept entities (their summaries rebuilt): new versions of them
    resaved = {built.alice.uuid, built.acme.uuid}
    before_ids = _ids(built.path)
    before = dump(built.path, expected | resaved)
    compactions = _counting_compactions(monkeypatch)
    driver = await _open(built.path)
    try:
        t = await _instant()
        await make_graphiti(driver).remove_episode(victim)
        # three deletes (facts, orphaned entities, the episode), one compaction at the end
        assert len(compactions) == 1
        receipts = await driver.erasures()
        assert [r.state for r in receipts] == ["gone"] * 3
        kept_listed = {i for r in receipts for i in r.kept_neighbour_ids}
        assert {built.alice.uuid, built.acme.uuid} <= kept_listed
        # the entities mentioned elsewhere stay, with their other fact
        kept = await EntityNode.get_by_uuids(driver, [built.alice.uuid, built.acme.uuid])
        assert sorted(n.name for n in kept) == ["Acme", "Alice"]
        facts = [e.fact for e in await EntityEdge.get_by_group_ids(driver, ["g1"])]
        assert facts == ["Alice works at Acme"]
        # as_of and history no longer see the erased records
        assert await driver.history(built.quorvex.uuid) == []
        past = await EntityNode.get_by_group_ids(driver.as_of(t), ["g1"])
        assert sorted(n.name for n in past) == ["Acme", "Alice"]
        with pytest.raises(NodeNotFoundError):
            await EpisodicNode.get_by_uuid(driver.as_of(t), victim)
    finally:
        await driver.close()
    _all_gone(built.path)
    assert before_ids - _ids(built.path) == expected
    assert dump(built.path, expected | resaved) == before  # everything else as it was


async def test_with_audit_deletes_remove_episode_keeps_history_and_bytes(tmp_path) -> None:
    driver = await _open(tmp_path / "m.duckdb", audit_deletes=True)
    try:
        g = make_graphiti(driver)
        await add(g, "Alice works at Acme.", 1)
        second = await add(g, "Quorvex knows Alice.", 2)
        t = await _instant()
        await g.remove_episode(second.episode.uuid)
        assert await driver.erasures() == []
        quorvex = next(n for n in second.nodes if n.name == "Quorvex")
        [version] = await driver.history(quorvex.uuid)
        assert version.tx_to is not None  # ended, kept
        past = await EntityNode.get_by_group_ids(driver.as_of(t), [""])
        assert "Quorvex" in {n.name for n in past}
        assert await EntityNode.get_by_group_ids(driver, [""]) != past
    finally:
        await driver.close()
    assert found(tmp_path / "m.duckdb")["name"] > 0


# ------------------------------------------------------------------------- erase_episode


async def test_erase_episode_erases_what_only_it_made_and_lists_kept_entities(built) -> None:
    victim = built.victim.episode.uuid
    expected = _expected_erasure(built)
    before = dump(built.path, set())
    driver = await _open(built.path)
    try:
        result = await driver.erase_episode(victim)
        assert isinstance(result, GraphitiErasure) and result.physically_gone
        assert result.episodes == (victim,)
        assert set(result.facts) == facts_of(built)
        zembla = next(n.uuid for n in built.victim.nodes if n.name == "Zembla")
        assert set(result.entities) == {built.quorvex.uuid, zembla, *built.orphans}
        assert len(result.entities) == ORPHANS + 2
        assert set(result.kept_entities) == {built.alice.uuid, built.acme.uuid}
        assert result.updated_facts == ()
        [receipt] = result.receipts
        assert receipt.state == "gone" and set(receipt.kept_neighbour_ids) >= {built.alice.uuid}
        assert await driver.erasures() == [receipt]
        # kept entities keep their other fact and every version
        alice = await EntityNode.get_by_uuid(driver, built.alice.uuid)
        assert alice.name == "Alice"
        facts = [e.fact for e in await EntityEdge.get_by_node_uuid(driver, built.alice.uuid)]
        assert facts == ["Alice works at Acme"]
        assert await driver.history(built.quorvex.uuid) == []
    finally:
        await driver.close()
    _all_gone(built.path)
    erased = set(receipt.node_ids) | set(receipt.edge_ids)
    assert erased == expected
    assert dump(built.path, set()) == dump_without(before, erased)


def dump_without(before: dict[str, list[Any]], erased: set[str]) -> dict[str, Any]:
    """``before`` less the rows of the erased records (their ids are the second column)."""
    out: dict[str, Any] = {}
    gone_vids = {r[0] for t in ("nodes", "edges") for r in before[t] if r[1] in erased}
    for table, rows in before.items():
        if table in ("nodes", "edges"):
            out[table] = [r for r in rows if r[1] not in erased]
        elif table == "spaces":
            out[table] = rows
        else:
            out[table] = [r for r in rows if r[0] not in gone_vids]
    return out


async def test_erase_episode_keeps_a_fact_another_episode_supports(tmp_path) -> None:
    driver = await _open(tmp_path / "m.duckdb")
    try:
        g = make_graphiti(driver)
        first = await g.add_episode(
            name="a",
            episode_body="Alice works at Acme.",
            source_description="chat",
            reference_time=datetime(2024, 1, 1, tzinfo=timezone.utc),
        )
        second = await g.add_episode(
            name="b",
            episode_body="Alice works at Acme.",
            source_description="chat",
            reference_time=datetime(2024, 1, 2, tzinfo=timezone.utc),
        )
        [fact] = await EntityEdge.get_by_group_ids(driver, [""])
        assert set(fact.episodes) == {first.episode.uuid, second.episode.uuid}
        result = await driver.erase_episode(second.episode.uuid)
        assert result.facts == () and result.entities == ()
        assert result.updated_facts == (fact.uuid,)
        again = await EntityEdge.get_by_uuid(driver, fact.uuid)
        assert again.episodes == [first.episode.uuid]
        assert len(await driver.history(fact.uuid)) >= 2  # the update kept history
        with pytest.raises(NodeNotFoundError):
            await driver.erase_episode(second.episode.uuid)
    finally:
        await driver.close()


# ---------------------------------------------------------------- clear_data, erase_group


async def test_clear_data_of_a_group_leaves_no_byte_and_other_groups_unchanged(built) -> None:
    g1 = _ids(built.path, "g1")
    before = dump(built.path, g1)
    driver = await _open(built.path)
    try:
        await clear_data(driver, ["g1"])
        assert await EntityNode.get_by_group_ids(driver, ["g1"]) == []
        names = sorted(n.name for n in await EntityNode.get_by_group_ids(driver, ["g2"]))
        assert names == ["Bob", "Carol"]
        assert [r.state for r in await driver.erasures()] == ["gone"]
    finally:
        await driver.close()
    _all_gone(built.path)
    assert _ids(built.path, "g1") == set()
    assert dump(built.path, g1) == before


async def test_erase_group_erases_every_record_ever_in_it(built) -> None:
    g1 = _ids(built.path, "g1")
    before = dump(built.path, g1)
    driver = await _open(built.path)
    try:
        result = await driver.erase_group("g1")
        assert result.physically_gone and result.receipts
        assert set(result.episodes) == {built.keeper.episode.uuid, built.victim.episode.uuid}
        assert built.quorvex.uuid in result.entities and len(result.entities) >= ORPHANS + 4
        assert result.kept_entities == ()  # nothing outside the group was linked to it
        erased = {i for r in result.receipts for i in (*r.node_ids, *r.edge_ids)}
        assert erased == g1
    finally:
        await driver.close()
    _all_gone(built.path)
    assert dump(built.path, g1) == before


async def test_clear_data_of_everything_leaves_no_byte(built) -> None:
    driver = await _open(built.path)
    try:
        await clear_data(driver)
        [receipt] = await driver.erasures()
        assert receipt.everything and receipt.state == "gone"
    finally:
        await driver.close()
    _all_gone(built.path)
    assert _ids(built.path) == set()


# ------------------------------------------------------------------------ other deletes


async def test_node_delete_inside_a_transaction_is_erased_at_the_commit(built) -> None:
    driver = await _open(built.path)
    try:
        quorvex = await EntityNode.get_by_uuid(driver, built.quorvex.uuid)
        async with driver.transaction():
            await quorvex.delete(driver)
            [pending] = await driver.erasures(pending_only=True)
            with pytest.raises(UnsupportedOperation):
                await driver.erase_group("g2")
        assert pending.node_ids == (built.quorvex.uuid,)
        assert [r.state for r in await driver.erasures()] == ["gone"]
    finally:
        await driver.close()
    for key in ("name_vector", "nested"):  # only Quorvex held these
        assert found(built.path)[key] == 0


async def test_edge_and_node_deletes_by_uuid_are_erasures(built) -> None:
    fact = next(e for e in built.victim.edges if "Zembla" in e.fact)
    driver = await _open(built.path)
    try:
        await EntityEdge.delete_by_uuids(driver, [fact.uuid])
        assert await driver.history(fact.uuid) == []
        await EntityNode.delete_by_uuids(driver, built.orphans)
        receipts = await driver.erasures()
        assert [r.state for r in receipts] == ["gone", "gone"]
        assert receipts[1].node_ids == tuple(sorted(built.orphans))
    finally:
        await driver.close()
    assert found(built.path)["fact_vector"] == 0 and found(built.path)["repeat"] == 0
    assert needles()["name"] and found(built.path)["name"] > 0  # Quorvex itself stays


async def test_a_remove_episode_failing_half_way_leaves_pending_receipts_closed_gone(
    tmp_path, monkeypatch
) -> None:
    path = tmp_path / "m.duckdb"
    driver = await _open(path)
    g = make_graphiti(driver)
    await add(g, "Alice works at Acme.", 1)
    second = await add(g, "Quorvex knows Alice.", 2)
    quorvex = next(n for n in second.nodes if n.name == "Quorvex")
    quorvex.attributes = {"secret": {"line": "zqxnestedtok"}}
    await quorvex.save(driver)

    async def broken(self: Any, driver: Any) -> None:
        raise RuntimeError("the episode's delete failed")

    monkeypatch.setattr(EpisodicNode, "delete", broken)
    with pytest.raises(RuntimeError, match="delete failed"):
        await g.remove_episode(second.episode.uuid)
    pending = await driver.erasures(pending_only=True)
    assert pending and all(r.state == "pending" for r in pending)  # the state is said
    assert await driver.history(quorvex.uuid) == []  # gone from every read already
    await driver.close()  # completes what the failed call left pending
    with Store.open(path, read_only=True) as s:
        assert s.erasures(pending_only=True) == [] and s.erasures()
    assert found(path)["nested"] == 0
