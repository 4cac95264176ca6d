"""Configuration as Graphiti's MCP server reads it, and the clients built from it (no network:
building a client object sends nothing)."""

from __future__ import annotations

import pytest
from anatid_mcp.clients import build_clients
from anatid_mcp.config import ConfigError, load
from graphiti_core.cross_encoder.openai_reranker_client import OpenAIRerankerClient
from graphiti_core.embedder import OpenAIEmbedder
from graphiti_core.llm_client import OpenAIClient
from graphiti_core.llm_client.openai_generic_client import OpenAIGenericClient

GRAPHITI_YAML = """
llm:
  provider: "openai"
  model: ${MODEL_NAME:gpt-4.1-mini}
  providers:
    openai:
      api_key: ${OPENAI_API_KEY}
      api_url: ${OPENAI_API_URL:https://api.openai.com/v1}
embedder:
  provider: "openai"
  model: ${EMBEDDER_MODEL:text-embedding-3-small}
  dimensions: 768
database:
  provider: "falkordb"
graphiti:
  group_id: ${GRAPHITI_GROUP_ID:main}
  entity_types:
    - name: "Preference"
      description: "User preferences"
"""


def test_graphitis_yaml_and_environment_variables_are_read(tmp_path):
    path = tmp_path / "config.yaml"
    path.write_text(GRAPHITI_YAML)
    env = {"OPENAI_API_KEY": "sk-test", "MODEL_NAME": "gpt-4.1", "GRAPHITI_GROUP_ID": "work"}
    config = load(path, env=env)
    assert config.llm.model == "gpt-4.1"
    assert config.llm.providers["openai"].api_key == "sk-test"  # type: ignore[union-attr]
    assert config.embedder.dimensions == 768
    assert config.graphiti.group_id == "work"
    assert [t.name for t in config.graphiti.entity_types] == ["Preference"]


def test_priority_is_command_line_then_environment_then_yaml(tmp_path):
    path = tmp_path / "config.yaml"
    path.write_text("llm:\n  provider: gemini\n  model: from-yaml\n")
    env = {"LLM__MODEL": "from-env", "CONFIG_PATH": str(path)}
    assert load(env=env).llm.model == "from-env"
    assert load(env=env).llm.provider == "gemini"  # CONFIG_PATH found the file
    assert load(env=env, overrides={"llm": {"model": "from-cli"}}).llm.model == "from-cli"


def test_defaults_use_graphitis_variables_and_stdio_on_loopback():
    config = load(env={"OPENAI_API_KEY": "sk-x", "EMBEDDER_MODEL": "e-1"})
    assert config.server.transport == "stdio" and config.server.host == "127.0.0.1"
    assert config.embedder.model == "e-1"
    assert config.embedder.providers["openai"].api_key == "sk-x"  # type: ignore[union-attr]


def test_bad_configuration_is_a_clear_error(tmp_path):
    path = tmp_path / "config.yaml"
    path.write_text("server:\n  transport: carrier-pigeon\n")
    with pytest.raises(ConfigError, match="transport"):
        load(path, env={})
    with pytest.raises(ConfigError, match="cannot read"):
        load(tmp_path / "missing.yaml", env={})


def test_clients_are_graphiti_core_classes(monkeypatch):
    monkeypatch.delenv("ANATID_MCP_CLIENTS", raising=False)
    made = build_clients(load(env={"OPENAI_API_KEY": "sk-x"}))
    assert isinstance(made.llm_client, OpenAIClient)
    assert isinstance(made.embedder, OpenAIEmbedder)
    assert isinstance(made.cross_encoder, OpenAIRerankerClient)
    assert made.missing == {}


def test_an_openai_compatible_url_selects_the_generic_client(monkeypatch):
    monkeypatch.delenv("ANATID_MCP_CLIENTS", raising=False)
    env = {"OPENAI_API_KEY": "ollama", "OPENAI_API_URL": "http://127.0.0.1:11434/v1"}
    made = build_clients(load(env=env))
    assert isinstance(made.llm_client, OpenAIGenericClient)
    assert made.llm_client.config.base_url == "http://127.0.0.1:11434/v1"


def test_missing_keys_are_recorded_with_what_to_set(monkeypatch):
    monkeypatch.delenv("ANATID_MCP_CLIENTS", raising=False)
    made = build_clients(load(env={"LLM__PROVIDER": "anthropic"}))
    assert made.llm_client is None and "ANTHROPIC_API_KEY" in made.missing["llm_client"].reason
    assert "OPENAI_API_KEY" in made.missing["embedder"].reason
    unknown = build_clients(load(env={"LLM__PROVIDER": "clippy"}))
    assert "unknown LLM provider 'clippy'" in unknown.missing["llm_client"].reason


def test_the_default_memory_is_memory_duckdb_and_an_earlier_memory_anatid_is_kept(
    tmp_path, monkeypatch
):
    import sys

    from anatid_mcp.memory import default_path

    if sys.platform in ("darwin", "win32"):
        pytest.skip("the data directory is XDG_DATA_HOME's on Linux only")
    monkeypatch.delenv("ANATID_MCP_PATH", raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    folder = tmp_path / "anatid-mcp"
    assert default_path() == str(folder / "memory.duckdb")
    # A user whose memory was written under the earlier default name keeps it...
    folder.mkdir()
    (folder / "memory.anatid").write_bytes(b"")
    assert default_path() == str(folder / "memory.anatid")
    # ...and once a memory.duckdb exists, that is the memory.
    (folder / "memory.duckdb").write_bytes(b"")
    assert default_path() == str(folder / "memory.duckdb")
    monkeypatch.setenv("ANATID_MCP_PATH", str(tmp_path / "x.duckdb"))
    assert default_path() == str(tmp_path / "x.duckdb")
