"""Registration with Cognee's registries, configure(), and where the files go."""

from __future__ import annotations

import os

import anatid_cognee
import pytest
from anatid_cognee import paths
from cognee.infrastructure.databases.dataset_database_handler import (
    supported_dataset_database_handlers,
)
from cognee.infrastructure.databases.graph.config import get_graph_config
from cognee.infrastructure.databases.graph.supported_databases import (
    supported_databases as graph_providers,
)
from cognee.infrastructure.databases.vector import get_vectordb_config
from cognee.infrastructure.databases.vector.supported_databases import (
    supported_databases as vector_providers,
)


def test_import_registers_provider_and_handlers_idempotently():
    anatid_cognee.register()
    anatid_cognee.register()
    assert graph_providers["anatid"] is anatid_cognee.AnatidGraphAdapter
    assert vector_providers["anatid"] is anatid_cognee.AnatidVectorAdapter
    graph_handler = supported_dataset_database_handlers["anatid_graph"]
    vector_handler = supported_dataset_database_handlers["anatid_vector"]
    assert graph_handler["handler_instance"] is anatid_cognee.AnatidGraphDatasetDatabaseHandler
    assert vector_handler["handler_instance"] is anatid_cognee.AnatidVectorDatasetDatabaseHandler
    assert graph_handler["handler_provider"] == vector_handler["handler_provider"] == "anatid"


@pytest.fixture
def restored_config():
    graph, vector = get_graph_config(), get_vectordb_config()
    saved = (dict(vars(graph)), dict(vars(vector)))
    yield graph, vector
    vars(graph).update(saved[0])
    vars(vector).update(saved[1])


def test_configure_selects_anatid_everywhere(restored_config, tmp_path):
    from cognee.context_global_variables import multi_user_support_possible

    graph, vector = restored_config
    path = str(tmp_path / "memory.duckdb")
    anatid_cognee.configure(path)
    assert graph.graph_database_provider == vector.vector_db_provider == "anatid"
    assert graph.graph_database_url == vector.vector_db_url == path
    assert graph.graph_dataset_database_handler == "anatid_graph"
    assert vector.vector_dataset_database_handler == "anatid_vector"
    # Cognee's own check that backend access control can run with these handlers.
    assert multi_user_support_possible() is True


def test_default_paths_share_one_file_under_the_system_root(restored_config):
    graph, _vector = restored_config
    graph.graph_database_url = ""
    default = os.path.join(paths.databases_directory(), "cognee_graph_anatid.duckdb")
    assert paths.graph_path() == default
    lancedb_default = os.path.join(paths.databases_directory(), "cognee.lancedb")
    assert paths.vector_path(lancedb_default) == default
    assert paths.vector_path("") == default
    assert paths.vector_path("/data/v.duckdb") == "/data/v.duckdb"
    graph.graph_database_provider, graph.graph_database_url = "anatid", "/data/g.duckdb"
    assert paths.vector_path("") == "/data/g.duckdb"


def test_dataset_database_name_uses_the_dataset_file_from_cognees_context():
    from cognee.context_global_variables import graph_db_config

    token = graph_db_config.set(
        {"graph_database_name": "d1.anatid.duckdb", "graph_file_path": "/x/u/d1.anatid.duckdb"}
    )
    try:
        assert paths.graph_path("/stored/url.duckdb", "d1.anatid.duckdb") == "/x/u/d1.anatid.duckdb"
        assert paths.graph_path("/stored/url.duckdb", "other.anatid.duckdb") == "/stored/url.duckdb"
    finally:
        graph_db_config.reset(token)


async def test_error_mapping_names_cognee_types(tmp_path):
    from anatid_cognee.errors import map_error
    from cognee.exceptions import CogneeTransientError, CogneeValidationError
    from cognee.infrastructure.databases.exceptions import EntityNotFoundError

    from anatid_core import InvalidInput, NotFound, StoreLocked

    assert isinstance(map_error(NotFound("x", id="x")), EntityNotFoundError)
    assert isinstance(map_error(InvalidInput("bad")), CogneeValidationError)
    assert isinstance(map_error(StoreLocked("locked")), CogneeTransientError)

    vectors = anatid_cognee.AnatidVectorAdapter(url=str(tmp_path / "v.duckdb"))
    try:
        await vectors.upsert_raw_vectors(
            "C_text", [{"id": "a", "vector": [1.0, 0.0], "payload": {}}]
        )
        with pytest.raises(CogneeValidationError) as info:
            await vectors.upsert_raw_vectors(
                "C_text", [{"id": "b", "vector": [1.0], "payload": {}}]
            )
        assert isinstance(info.value.__cause__, InvalidInput)
    finally:
        await vectors.close()
