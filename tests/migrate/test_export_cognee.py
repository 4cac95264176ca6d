"""``anatid-migrate export cognee FILE --to URL`` and ``import cognee --from URL`` (issue 18),
against a real PostgreSQL 16 + pgvector server (the ``pgserver`` wheel's binaries) started on
127.0.0.1 by this module, and against LadybugDB + LanceDB in a directory. What the backend holds
is read back through the adapters Cognee's own factories select for it, as a Cognee user
configured for that backend would read it."""

from __future__ import annotations

import asyncio
import os
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from tests.extras import require

require("export-cognee")
pytest.importorskip("pgserver", reason="needs pgserver (the dev extra): a PostgreSQL server")

import anatid_migrate.cognee_records as records  # noqa: E402
from anatid_migrate.cognee_export import export_cognee, import_cognee  # noqa: E402
from anatid_migrate.cognee_targets import close_engines, open_engines, parse_cognee_url  # noqa: E402
from anatid_migrate.errors import (  # noqa: E402
    TargetExists,
    TargetNotEmpty,
    TargetUnreachable,
    UnsupportedTarget,
)

from anatid_core import Store  # noqa: E402
from tests.migrate.falkordb_server import free_port  # noqa: E402
from tests.migrate.interrupted import kill_mid_export  # noqa: E402
from tests.migrate.postgres_server import postgres_server  # noqa: E402
from tests.migrate.sources.make_cognee_anatid import (  # noqa: E402
    DATASET_A,
    DATASET_B,
    _uuid,
    build_cognee_anatid,
)

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module", autouse=True)
def _hash_embeddings() -> None:
    import anatid_cognee  # noqa: F401  (registers the anatid provider)

    from tests.cognee.cognee_fakes import install_hash_embeddings

    install_hash_embeddings()


@pytest.fixture(scope="module")
def memory(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("cognee-export") / "memory.duckdb"
    asyncio.run(build_cognee_anatid(path))
    return path


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    with postgres_server() as url:
        yield url


@pytest.fixture
def pg_url(server: str, request: pytest.FixtureRequest) -> str:
    """A fresh, empty database on the module's server, per test."""
    import psycopg2

    name = "t_" + "".join(c if c.isalnum() else "_" for c in request.node.name)[:40].lower()
    conn = psycopg2.connect(server)
    conn.autocommit = True
    with conn.cursor() as cur:
        cur.execute(f'DROP DATABASE IF EXISTS "{name}"')
        cur.execute(f'CREATE DATABASE "{name}"')
    conn.close()
    return server.rsplit("/", 1)[0] + "/" + name


async def _read_backend(url: str) -> dict[str, Any]:
    graph, vector = open_engines(parse_cognee_url(url))
    try:
        return _comparable(await records.read_memory(graph, vector))
    finally:
        await close_engines(graph, vector)


async def _read_anatid(path: Path) -> dict[str, Any]:
    from anatid_cognee import AnatidGraphAdapter, AnatidVectorAdapter

    graph = AnatidGraphAdapter(graph_database_url=str(path))
    vector = AnatidVectorAdapter(url=str(path))
    try:
        return _comparable(await records.read_memory(graph, vector))
    finally:
        await graph.close()
        await vector.close()


def _comparable(memory: tuple[list, list, dict, dict, dict, dict]) -> dict[str, Any]:
    """The memory as plain sorted values: the graph's metadata, nodes, edges, the four
    provenance lists of each record, and each collection's points (vectors as float32 bytes)."""
    nodes, edges, by_node, by_edge, points, metadata = memory

    def prov(found: dict) -> dict:
        return {
            (k if isinstance(k, str) else (k.source_id, k.target_id, k.relationship_name)): [
                list(getattr(v, f)) for f in records.PROVENANCE
            ]
            for k, v in found.items()
        }

    return {
        "metadata": dict(metadata),
        "nodes": sorted(records.normal([[str(i), p] for i, p in nodes])),
        "edges": sorted(records.normal([[str(s), str(d), r, p] for s, d, r, p in edges])),
        "node_provenance": prov(by_node),
        "edge_provenance": prov(by_edge),
        "vectors": {
            c: sorted(
                (p.id, p.vector.astype(np.float32).tobytes(), records.normal(
                    {k: v for k, v in p.payload.items() if k != "id"}))
                for p in rows
            )
            for c, rows in points.items()
            if rows
        },
    }  # fmt: skip


def _versions(path: Path) -> list[tuple[Any, ...]]:
    with Store.open(path, read_only=True) as store:
        return sorted(
            (
                v.id,
                v.name,
                repr(sorted(v.props.items())),
                v.valid_from,
                v.valid_to,
                v.tx_from,
                v.tx_to,
            )
            for kind in ("node", "edge")
            for v in store.versions(kind)  # type: ignore[arg-type]
        )


def _round_trip(memory: Path, url: str, tmp_path: Path) -> None:
    history = tmp_path / "history"
    want = asyncio.run(_read_anatid(memory))
    assert want["nodes"] and want["edges"] and want["node_provenance"] and len(want["vectors"]) == 3
    assert want["metadata"] == {"delete_mode": "graph_native", "provenance_version": "1"}

    report = export_cognee(memory, url, history_dir=history)

    assert report.verified
    assert asyncio.run(_read_backend(url)) == want
    back = tmp_path / "back.duckdb"
    again = import_cognee(url, back, history_dir=history)
    assert again.verified
    assert asyncio.run(_read_anatid(back)) == want
    # Every version of the original (both time axes, deleted records included) came back.
    original = _versions(memory)
    assert any(v[6] is not None for v in original)  # the fixture has closed versions
    assert set(original) <= set(_versions(back))
    # Without the history too, the graph's metadata (Cognee's provenance marker) comes back.
    plain = tmp_path / "plain.duckdb"
    assert import_cognee(url, plain).verified
    assert asyncio.run(_read_anatid(plain)) == want


def test_postgres_round_trip_reads_back_identically_with_history(
    memory: Path, pg_url: str, tmp_path: Path
) -> None:
    _round_trip(memory, pg_url, tmp_path)


def test_ladybug_lancedb_round_trip_reads_back_identically_with_history(
    memory: Path, tmp_path: Path
) -> None:
    _round_trip(memory, f"ladybug://{tmp_path / 'cognee'}", tmp_path)


class _CogneeDeletes:
    """Cognee's own deletions, as ``cognee.datasets.delete_data`` / ``delete_dataset`` call them
    after their access checks (``delete_data_nodes_and_edges``, ``delete_dataset_nodes_and_edges``:
    the graph-provenance marker check, then the unified engine's delete or the relational
    ledger), pointed at a given pair of adapters: Cognee's ``get_unified_engine`` is answered
    with the engine it builds for separate backends, and the user and dataset lookups of the
    access checks (which read Cognee's relational database) with the dataset asked for."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        import importlib
        from types import SimpleNamespace

        from cognee.infrastructure.databases.unified import UnifiedStoreEngine
        from cognee.infrastructure.databases.unified.capabilities import EngineCapability

        self.adapters: tuple[Any, Any] | None = None

        async def unified() -> Any:
            assert self.adapters is not None
            both = EngineCapability.GRAPH | EngineCapability.VECTOR
            return UnifiedStoreEngine(*self.adapters, capabilities=both)

        async def user(user_id: Any) -> Any:
            return SimpleNamespace(id=user_id, tenant_id=None)

        async def dataset(user: Any, dataset_id: Any, permission: str) -> Any:
            return SimpleNamespace(id=dataset_id)

        methods = "cognee.modules.graph.methods."
        self.by_data = importlib.import_module(methods + "delete_data_nodes_and_edges")
        self.by_dataset = importlib.import_module(methods + "delete_dataset_nodes_and_edges")
        routing = importlib.import_module(methods + "try_delete_data_by_graph_provenance")
        for module in (self.by_data, self.by_dataset):
            monkeypatch.setattr(module, "get_user", user)
            monkeypatch.setattr(module, "get_authorized_dataset", dataset)
        for module in (routing, self.by_dataset):
            monkeypatch.setattr(module, "get_unified_engine", unified)

    async def delete(self, graph: Any, vector: Any, what: str) -> None:
        self.adapters = (graph, vector)
        user = _uuid(999)
        if what == "data":  # the document of dataset A (its source ref), as delete_data does
            await self.by_data.delete_data_nodes_and_edges(DATASET_A, _uuid(100), user)
        else:  # the whole of dataset B, as delete_dataset does
            await self.by_dataset.delete_dataset_nodes_and_edges(DATASET_B, user)


@pytest.mark.parametrize("what", ["data", "dataset"])
@pytest.mark.parametrize("backend", ["postgres", "ladybug"])
def test_cognee_deletes_on_the_backend_as_it_deleted_on_the_file(
    memory: Path,
    server: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    request: pytest.FixtureRequest,
    backend: str,
    what: str,
) -> None:
    """Issue 32: the export left the graph's metadata behind, so on the backend Cognee read the
    graph as unmarked and deleted from its relational ledger, missing the provenance moved."""
    import shutil

    from anatid_cognee import AnatidGraphAdapter, AnatidVectorAdapter

    url = (request.getfixturevalue("pg_url") if backend == "postgres"
           else f"ladybug://{tmp_path / 'cognee'}")  # fmt: skip
    export_cognee(memory, url, history_dir=tmp_path / "history")
    cognee = _CogneeDeletes(monkeypatch)

    async def on_the_file() -> dict[str, Any]:
        copy = tmp_path / "copy.duckdb"
        shutil.copyfile(memory, copy)
        graph = AnatidGraphAdapter(graph_database_url=str(copy))
        vector = AnatidVectorAdapter(url=str(copy))
        try:
            await cognee.delete(graph, vector, what)
            return _comparable(await records.read_memory(graph, vector))
        finally:
            await graph.close()
            await vector.close()

    async def on_the_backend() -> dict[str, Any]:
        from cognee.infrastructure.databases.provenance.markers import stores_provenance_in_graph

        graph, vector = open_engines(parse_cognee_url(url))
        try:
            assert await stores_provenance_in_graph(graph)  # as on the file
            await cognee.delete(graph, vector, what)
            return _comparable(await records.read_memory(graph, vector))
        finally:
            await close_engines(graph, vector)

    want = asyncio.run(on_the_file())
    assert want != asyncio.run(_read_anatid(memory))  # the deletion did something
    assert asyncio.run(on_the_backend()) == want


def test_a_backend_marked_otherwise_is_refused_before_writing(
    memory: Path, pg_url: str, tmp_path: Path
) -> None:
    async def mark_otherwise() -> None:
        graph, vector = open_engines(parse_cognee_url(pg_url))
        try:
            await graph.set_graph_metadata({"delete_mode": "graph_native", "other": "x"})
        finally:
            await close_engines(graph, vector)

    asyncio.run(mark_otherwise())
    with pytest.raises(TargetNotEmpty, match=r"holds graph metadata \['other'\]"):
        export_cognee(memory, pg_url, history_dir=tmp_path / "h", force=True)
    assert asyncio.run(_read_backend(pg_url))["nodes"] == []


def _current_ids(path: Path) -> set[str]:
    with Store.open(path, read_only=True) as store:
        return {r.id for r in store.find_nodes()} | {r.id for r in store.find_edges()}


def test_a_node_deleted_on_the_backend_after_export_is_closed_by_the_import(
    memory: Path, tmp_path: Path
) -> None:
    url, history = f"ladybug://{tmp_path / 'cognee'}", tmp_path / "history"
    export_cognee(memory, url, history_dir=history)

    async def delete_on_backend() -> tuple[str, str, str]:
        graph, vector = open_engines(parse_cognee_url(url))
        try:
            nodes, edges = await graph.get_graph_data()
            linked = {str(s) for s, _, _, _ in edges}
            node = next(str(i) for i, _ in nodes if str(i) in linked)  # one with edges
            await graph.delete_node(node)  # Cognee's own delete (DETACH DELETE)
            collection = sorted(await records.collection_names(vector))[0]
            point = (await records.read_points(vector, collection))[0].id
            await vector.delete_data_points(collection, [point])
            return node, collection, point
        finally:
            await close_engines(graph, vector)

    node, collection, point = asyncio.run(delete_on_backend())
    before_import = datetime.now(UTC)
    back = tmp_path / "back.duckdb"
    report = import_cognee(url, back, history_dir=history)

    # Verified against the backend: the import holds what the backend holds, no more.
    assert report.verified
    assert asyncio.run(_read_anatid(back)) == asyncio.run(_read_backend(url))
    row = f"{collection}:{point}"  # the anatid vector adapter's row id
    gone = _current_ids(memory) - _current_ids(back)
    assert {node, row} <= gone and any(node in i for i in gone - {node, row})  # its edges
    assert f"closed: {len(gone)} records deleted on the backend since the export" in report.notes
    with Store.open(memory, read_only=True) as old, Store.open(back, read_only=True) as new:
        then = new.as_of(tx_time=before_import)
        for record in (node, row):
            was, seen = old.get_node(record), then.get_node(record)
            assert new.get_node(record) is None
            assert was is not None and seen is not None and seen.props == was.props
            assert len(new.history(record)) == len(old.history(record))  # history kept
        assert new.check() == []


def test_interrupted_export_is_completed_by_a_rerun_without_duplicates(
    memory: Path, pg_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    history = tmp_path / "history"
    real = records.write_points
    calls = {"n": 0}

    async def crash_on_second_collection(vector: Any, collection: str, points: list) -> None:
        calls["n"] += 1
        if calls["n"] == 2:
            raise KeyboardInterrupt("killed halfway")
        await real(vector, collection, points)

    monkeypatch.setattr(records, "write_points", crash_on_second_collection)
    with pytest.raises(KeyboardInterrupt):
        export_cognee(memory, pg_url, history_dir=history)
    monkeypatch.setattr(records, "write_points", real)
    half = asyncio.run(_read_backend(pg_url))
    assert half["nodes"] and len(half["vectors"]) == 1  # graph written, one collection of three

    report = export_cognee(memory, pg_url, history_dir=history)  # no --force needed

    assert report.verified
    assert asyncio.run(_read_backend(pg_url)) == asyncio.run(_read_anatid(memory))


def test_a_non_empty_backend_is_refused_without_force(
    memory: Path, pg_url: str, tmp_path: Path
) -> None:
    export_cognee(memory, pg_url, history_dir=tmp_path / "h1")
    with pytest.raises(TargetNotEmpty, match="--force"):
        export_cognee(memory, pg_url, history_dir=tmp_path / "h2")
    assert export_cognee(memory, pg_url, history_dir=tmp_path / "h2", force=True).verified


def test_unreachable_server_and_unknown_scheme_are_typed_errors(
    memory: Path, tmp_path: Path
) -> None:
    with pytest.raises(TargetUnreachable, match="Cannot reach"):
        export_cognee(memory, f"postgresql://postgres:x@127.0.0.1:{free_port()}/postgres")
    with pytest.raises(UnsupportedTarget, match="unknown scheme"):
        export_cognee(memory, "mongodb://127.0.0.1/x")
    existing = tmp_path / "exists.duckdb"
    existing.write_bytes(b"")
    with pytest.raises(TargetExists):
        import_cognee(f"ladybug://{tmp_path}", existing)


def test_dry_run_counts_and_writes_nothing(memory: Path, pg_url: str, tmp_path: Path) -> None:
    report = export_cognee(memory, pg_url, history_dir=tmp_path / "h", dry_run=True)
    assert report.dry_run and not report.verified
    assert report.source_tally.counts["node:Entity"] == 4
    assert not (tmp_path / "h").exists()
    assert asyncio.run(_read_backend(pg_url))["nodes"] == []


def test_cli_export_and_import(memory: Path, pg_url: str, tmp_path: Path, capsys: Any) -> None:
    from anatid_migrate.cli import main

    h = str(tmp_path / "h")
    assert main(["export", "cognee", str(memory), "--to", pg_url, "--history", h]) == 0
    assert "verified: yes" in capsys.readouterr().out
    assert main(["export", "cognee", str(memory), "--to", pg_url, "--history", h + "2"]) == 1
    assert "--force" in capsys.readouterr().err
    back = tmp_path / "back.duckdb"
    assert main(["import", "cognee", "--from", pg_url, str(back), "--history", h, "--json"]) == 0
    assert '"verified": true' in capsys.readouterr().out
    assert back.exists()


@pytest.mark.skipif(
    not os.environ.get("ANATID_TEST_SLOW"),
    reason="a subprocess importing Cognee: ANATID_TEST_SLOW=1",
)
def test_killed_export_is_completed_by_a_rerun_without_duplicates(
    memory: Path, pg_url: str, tmp_path: Path
) -> None:
    marker, history = tmp_path / "exporting", tmp_path / "history"
    kill_mid_export(
        "import tests.migrate.conftest  # Cognee's offline environment\n"
        "import anatid_migrate.cognee_records as records\n"
        "from anatid_migrate.cognee_export import export_cognee",
        "records",
        "export_cognee",
        (memory, pg_url, marker, history),
        repo=REPO,
        timeout=300,
    )
    half = asyncio.run(_read_backend(pg_url))
    want = asyncio.run(_read_anatid(memory))
    assert half["nodes"] and half != want

    report = export_cognee(memory, pg_url, history_dir=history)  # no --force needed

    assert report.verified
    assert asyncio.run(_read_backend(pg_url)) == want
