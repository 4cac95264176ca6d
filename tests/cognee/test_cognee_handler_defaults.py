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


_KEYS = {
    "graph": ("graph_database_provider", "graph_dataset_database_handler"),
    "vector": ("vector_db_provider", "vector_dataset_database_handler"),
}


@pytest.fixture
def cognee_defaults():
    """Cognee's cached configs at its defaults (ladybug, lancedb), restored afterwards."""
    from cognee.infrastructure.databases.graph.config import get_graph_config
    from cognee.infrastructure.databases.vector.config import get_vectordb_config

    configs = {"graph": get_graph_config(), "vector": get_vectordb_config()}
    saved = {side: [getattr(configs[side], k) for k in keys] for side, keys in _KEYS.items()}
    for side, (provider, handler) in _KEYS.items():
        default_provider = "ladybug" if side == "graph" else "lancedb"
        object.__setattr__(configs[side], provider, default_provider)
        object.__setattr__(configs[side], handler, default_provider)
    yield configs
    for side, keys in _KEYS.items():
        for key, value in zip(keys, saved[side], strict=True):
            object.__setattr__(configs[side], key, value)


def _handlers(configs: dict) -> tuple[str, str]:
    return (
        configs["graph"].graph_dataset_database_handler,
        configs["vector"].vector_dataset_database_handler,
    )


def test_selecting_anatid_from_code_with_cognees_dict_setters_selects_its_handlers(
    cognee_defaults: dict,
):
    import cognee

    cognee.config.set_graph_db_config({"graph_database_provider": "anatid"})
    cognee.config.set_vector_db_config({"vector_db_provider": "anatid"})
    assert _handlers(cognee_defaults) == ("anatid_graph", "anatid_vector")
    # Backend access control is possible with these configs (Cognee's own check).
    assert context_global_variables.multi_user_support_possible() is True


def test_selecting_anatid_with_the_single_key_setters_and_config_set(cognee_defaults: dict):
    import cognee

    cognee.config.set_graph_database_provider("anatid")
    cognee.config.set("vector_db_provider", "anatid")  # what `cognee-cli config set` calls
    assert _handlers(cognee_defaults) == ("anatid_graph", "anatid_vector")


def test_switching_away_from_anatid_gives_back_cognees_default_handlers(cognee_defaults: dict):
    import cognee

    cognee.config.set_graph_db_config({"graph_database_provider": "anatid"})
    cognee.config.set_vector_db_provider("anatid")
    cognee.config.set_graph_db_config({"graph_database_provider": "ladybug"})
    cognee.config.set_vector_db_config({"vector_db_provider": "lancedb"})
    assert _handlers(cognee_defaults) == ("ladybug", "lancedb")
    assert context_global_variables.multi_user_support_possible() is True


def test_a_handler_set_in_the_same_call_is_left_alone(cognee_defaults: dict):
    import cognee

    cognee.config.set_graph_db_config(
        {"graph_database_provider": "anatid", "graph_dataset_database_handler": "neo4j"}
    )
    assert cognee_defaults["graph"].graph_dataset_database_handler == "neo4j"
    # Cognee's own check then names the mismatch, as for any wrong pair.
    with pytest.raises(OSError, match="does not work with the configured graph database"):
        context_global_variables.multi_user_support_possible()
