"""The erasure scope (issue 15), in process: which adapter deletes erase, when the bytes go,
and that Cognee's deletion functions open the scope.

Inside :func:`anatid_cognee.erasure` (which Cognee's deletion calls run in) an adapter delete
purges every version and leaves a *pending* receipt; when the outermost scope ends the file is
compacted once and every receipt is *gone*, with no byte of the records left. Outside it (the
updates and merges Cognee's pipelines make) deletes keep history.
"""

from __future__ import annotations

import warnings
from pathlib import Path

import pytest
from anatid_cognee import KEEP_DELETED_ENV, AnatidGraphAdapter, AnatidVectorAdapter, erasure
from anatid_cognee.host_deletes import TARGETS, installed
from cognee.infrastructure.engine import DataPoint

from tests.cognee.cognee_fakes import HashEmbeddingEngine

TOKEN = "zqSCOPETOKENq"
#: Only in an edge: the graph side of the file.
EDGE_TOKEN = "zqEDGEONLYTOKENq"


class Thing(DataPoint):
    name: str
    metadata: dict = {"index_fields": ["name"]}  # pyright: ignore[reportIncompatibleVariableOverride]


def _bytes(path: Path) -> bytes:
    return b"".join(p.read_bytes() for p in sorted(path.parent.glob(path.name + "*")))


@pytest.fixture
async def pair(tmp_path: Path):
    path = tmp_path / "m.duckdb"
    graph = AnatidGraphAdapter(graph_database_url=str(path))
    vector = AnatidVectorAdapter(url=str(path), embedding_engine=HashEmbeddingEngine())
    yield path, graph, vector
    await vector.close()
    await graph.close()


async def _seed(graph, vector) -> tuple[Thing, Thing]:
    gone, kept = Thing(name=f"gone {TOKEN}"), Thing(name="kept")
    await graph.add_nodes([gone, kept])
    await graph.add_edges([(gone.id, kept.id, "knows", {"note": EDGE_TOKEN})])
    await vector.create_data_points("Thing_name", [gone, kept])
    return gone, kept


async def test_deletes_outside_the_scope_keep_history(pair):
    path, graph, vector = pair
    gone, _ = await _seed(graph, vector)
    await graph.delete_nodes([str(gone.id)])
    await vector.delete_data_points("Thing_name", [gone.id])
    assert len(await graph.history(str(gone.id))) == 1
    assert graph._store.erasures() == []
    assert TOKEN.encode() in _bytes(path)
    assert EDGE_TOKEN.encode() in _bytes(path)


async def test_deletes_inside_the_scope_are_pending_then_gone_when_it_ends(pair):
    path, graph, vector = pair
    gone, kept = await _seed(graph, vector)
    async with erasure():
        await graph.delete_nodes([str(gone.id)])
        await vector.delete_data_points("Thing_name", [gone.id])
        inside = graph._store.erasures()
        assert inside and {r.state for r in inside} == {"pending"}
        assert await graph.history(str(gone.id)) == []  # every version, at once
    after = graph._store.erasures()
    assert {r.state for r in after} == {"gone"}
    assert len({r.gone_at for r in after}) == 1  # one compaction for the whole scope
    assert TOKEN.encode() not in _bytes(path)
    assert EDGE_TOKEN.encode() not in _bytes(path)
    assert await graph.has_node(str(kept.id))
    assert [r.id for r in await vector.retrieve("Thing_name", [str(kept.id)])] == [kept.id]


async def test_nested_scopes_compact_once_when_the_outermost_ends(pair):
    path, graph, vector = pair
    gone, _ = await _seed(graph, vector)
    async with erasure():
        async with erasure():
            await graph.delete_nodes([str(gone.id)])
        assert {r.state for r in graph._store.erasures()} == {"pending"}
    assert {r.state for r in graph._store.erasures()} == {"gone"}


async def test_purges_that_committed_are_compacted_when_the_host_call_fails(pair):
    path, graph, vector = pair
    gone, _ = await _seed(graph, vector)
    with pytest.raises(RuntimeError, match="host failed"):
        async with erasure():
            await graph.delete_nodes([str(gone.id)])
            await vector.delete_data_points("Thing_name", [gone.id])
            raise RuntimeError("host failed")
    assert {r.state for r in graph._store.erasures()} == {"gone"}
    assert TOKEN.encode() not in _bytes(path)


async def test_prune_and_delete_graph_are_complete_erasures_on_their_own(pair):
    path, graph, vector = pair
    await _seed(graph, vector)
    await vector.prune()
    await graph.delete_graph()
    assert {r.state for r in graph._store.erasures()} == {"gone"}
    assert TOKEN.encode() not in _bytes(path)


async def test_the_audit_setting_keeps_history_inside_the_scope(pair, monkeypatch):
    path, graph, vector = pair
    gone, _ = await _seed(graph, vector)
    monkeypatch.setenv(KEEP_DELETED_ENV, "1")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        async with erasure():
            await graph.delete_nodes([str(gone.id)])
            await vector.prune()
    assert not await graph.has_node(str(gone.id))
    assert len(await graph.history(str(gone.id))) == 1
    assert graph._store.erasures() == []
    assert TOKEN.encode() in _bytes(path)


def test_every_public_deletion_path_of_cognee_opens_the_scope():
    import cognee
    from cognee.api.v1.datasets.datasets import datasets

    assert installed()
    for attr in ("delete_data", "empty_dataset", "delete_all"):
        assert getattr(getattr(cognee.datasets, attr), "__anatid_erasure__", False), attr
        assert getattr(getattr(datasets, attr), "__anatid_erasure__", False), attr
    for attr in ("prune_system", "prune_data"):
        assert getattr(getattr(cognee.prune, attr), "__anatid_erasure__", False), attr
    assert {t[2] for t in TARGETS} >= {"_forget_dataset_memory", "_forget_data_memory"}


async def test_the_dataset_handler_erases_or_under_the_audit_setting_keeps_the_file(
    tmp_path: Path, monkeypatch
):
    from anatid_cognee import handlers
    from anatid_cognee.records import GRAPH_GROUP, META_GROUP

    for keep in (False, True):
        path = tmp_path / f"d{keep}.duckdb"
        graph = AnatidGraphAdapter(graph_database_url=str(path))
        vector = AnatidVectorAdapter(url=str(path), embedding_engine=HashEmbeddingEngine())
        await _seed(graph, vector)
        await vector.close()
        await graph.close()
        if keep:
            monkeypatch.setenv(KEEP_DELETED_ENV, "1")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            await handlers._erase(str(path), [GRAPH_GROUP, META_GROUP], graph=True)
        # The vector rows remain, so the file stays: the graph compacted out of it, or (audit)
        # kept in history with its bytes.
        assert path.exists()
        assert (EDGE_TOKEN.encode() in _bytes(path)) is keep
        assert TOKEN.encode() in _bytes(path)  # the vector row's name
        reopened = AnatidGraphAdapter(graph_database_url=str(path))
        try:
            receipts = reopened._store.erasures()
            assert (receipts == []) is keep
            assert all(r.state == "gone" for r in receipts)
            assert await reopened.get_graph_counts() == (0, 0)
        finally:
            await reopened.close()
