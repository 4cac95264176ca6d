"""The dataset handlers follow the anatid provider, as Cognee's own providers' do (issue 12)."""

from __future__ import annotations

import anatid_cognee  # noqa: F401  (registration installs the rule)
import pytest
from cognee import context_global_variables
from cognee.infrastructure.databases.graph.config import GraphConfig
from cognee.infrastructure.databases.vector.config import VectorConfig


def test_an_anatid_graph_config_gets_the_anatid_graph_handler_by_default():
    assert GraphConfig(graph_database_provider="anatid").graph_dataset_database_handler == (
        "anatid_graph"
    )


def test_an_anatid_vector_config_gets_the_anatid_vector_handler_by_default():
    assert VectorConfig(vector_db_provider="anatid").vector_dataset_database_handler == (
        "anatid_vector"
    )


def test_the_provider_name_as_handler_means_the_provider_handler():
    config = GraphConfig(graph_database_provider="ANATID", graph_dataset_database_handler="anatid")
    assert config.graph_dataset_database_handler == "anatid_graph"


def test_a_handler_chosen_explicitly_is_left_alone():
    config = GraphConfig(graph_database_provider="anatid", graph_dataset_database_handler="neo4j")
    assert config.graph_dataset_database_handler == "neo4j"


def test_other_providers_keep_cognees_own_defaults():
    assert GraphConfig().graph_dataset_database_handler == "ladybug"
    assert GraphConfig(graph_database_provider="turso").graph_dataset_database_handler == (
        "turso_graph"
    )
    assert VectorConfig().vector_dataset_database_handler == "lancedb"


def test_with_both_providers_anatid_access_control_is_possible(monkeypatch: pytest.MonkeyPatch):
    # The configs Cognee would build from GRAPH_DATABASE_PROVIDER=anatid and
    # VECTOR_DB_PROVIDER=anatid alone (Cognee's cached ones stay untouched for other tests).
    graph = GraphConfig(graph_database_provider="anatid")
    vector = VectorConfig(vector_db_provider="anatid")
    monkeypatch.setattr(context_global_variables, "get_graph_config", lambda: graph)
    monkeypatch.setattr(context_global_variables, "get_vectordb_config", lambda: vector)
    assert context_global_variables.multi_user_support_possible() is True
