"""Wrong configuration gets Cognee's own error types, saying what to set (issue 12)."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest
from anatid_cognee import (
    AnatidGraphAdapter,
    AnatidGraphDatasetDatabaseHandler,
    AnatidVectorAdapter,
    store_registry,
)
from cognee import context_global_variables
from cognee.exceptions import CogneeConfigurationError, CogneeSystemError
from cognee.infrastructure.databases.graph import config as graph_config
from cognee.infrastructure.databases.graph.config import GraphConfig
from cognee.infrastructure.databases.vector.config import VectorConfig

from anatid_core import Store


def test_a_folder_that_cannot_be_created_is_a_configuration_error(tmp_path: Path):
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("a file where the folder should be")
    with pytest.raises(CogneeConfigurationError) as raised:
        AnatidGraphAdapter(graph_database_url=str(blocker / "memory.duckdb"))
    assert "GRAPH_DATABASE_URL" in str(raised.value) and "SYSTEM_ROOT_DIRECTORY" in str(
        raised.value
    )
    assert not store_registry.is_open(str(blocker / "memory.duckdb"))


def test_the_vector_side_says_the_same(tmp_path: Path):
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("")
    with pytest.raises(CogneeConfigurationError, match="VECTOR_DB_URL"):
        AnatidVectorAdapter(url=str(blocker / "memory.duckdb"))


def test_a_file_written_by_a_newer_anatid_is_refused_with_the_upgrade_to_make(tmp_path: Path):
    path = tmp_path / "newer.duckdb"
    Store.open(str(path)).close()
    with duckdb.connect(str(path)) as con:
        con.execute("UPDATE meta SET value = '999' WHERE key = 'schema_version'")
    with pytest.raises(CogneeSystemError, match="upgrade anatid-drivers"):
        AnatidGraphAdapter(graph_database_url=str(path))
    assert path.exists()  # refused, not rewritten


async def test_an_anatid_handler_with_another_provider_names_the_key_to_set(
    monkeypatch: pytest.MonkeyPatch,
):
    ladybug = GraphConfig(graph_database_provider="ladybug")
    monkeypatch.setattr(graph_config, "get_graph_config", lambda: ladybug)
    with pytest.raises(CogneeConfigurationError, match="GRAPH_DATABASE_PROVIDER=anatid"):
        await AnatidGraphDatasetDatabaseHandler.create_dataset(None, None)


def test_a_vector_provider_of_another_kind_with_the_anatid_handler_gets_cognees_error(
    monkeypatch: pytest.MonkeyPatch,
):
    graph = GraphConfig(graph_database_provider="anatid")
    vector = VectorConfig(
        vector_db_provider="lancedb", vector_dataset_database_handler="anatid_vector"
    )
    monkeypatch.setattr(context_global_variables, "get_graph_config", lambda: graph)
    monkeypatch.setattr(context_global_variables, "get_vectordb_config", lambda: vector)
    with pytest.raises(OSError, match="does not work with the configured vector database provider"):
        context_global_variables.multi_user_support_possible()


def test_another_vector_provider_beside_the_anatid_graph_keeps_its_own_handler(
    monkeypatch: pytest.MonkeyPatch,
):
    # Graph in anatid, vectors in LanceDB: a valid pair; each side gets its own handler.
    graph = GraphConfig(graph_database_provider="anatid")
    vector = VectorConfig(vector_db_provider="lancedb")
    monkeypatch.setattr(context_global_variables, "get_graph_config", lambda: graph)
    monkeypatch.setattr(context_global_variables, "get_vectordb_config", lambda: vector)
    assert context_global_variables.multi_user_support_possible() is True
    assert vector.vector_dataset_database_handler == "lancedb"


async def test_a_dataset_folder_that_cannot_be_created_is_a_configuration_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    import cognee.infrastructure.databases.vector as vector_package
    from anatid_cognee import AnatidVectorDatasetDatabaseHandler, handlers

    blocker = tmp_path / "system-root-is-a-file"
    blocker.write_text("")
    anatid_vectors = VectorConfig(vector_db_provider="anatid")
    monkeypatch.setattr(vector_package, "get_vectordb_config", lambda: anatid_vectors)
    monkeypatch.setattr(handlers, "databases_directory", lambda: str(blocker / "databases"))
    with pytest.raises(CogneeConfigurationError, match="SYSTEM_ROOT_DIRECTORY"):
        await AnatidVectorDatasetDatabaseHandler.create_dataset("d1", None)
