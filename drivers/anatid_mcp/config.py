"""Configuration: the YAML keys and environment variables of Graphiti's MCP server.

A user moving from Graphiti's server keeps their ``config.yaml`` and their environment: the same
sections (``llm``, ``embedder``, ``graphiti``, ``server``), the same keys under them
(``llm.provider``, ``llm.model``, ``llm.providers.openai.api_key`` ...), the same
``${VAR}`` / ``${VAR:default}`` expansion, the same variables in the built-in defaults
(``OPENAI_API_KEY``, ``MODEL_NAME``, ``OPENAI_API_URL`` ...), and the same nested overrides
(``LLM__PROVIDER=anthropic``). Priority, as there: command line > environment > YAML > defaults.

Two defaults differ on purpose: the transport is stdio and the HTTP host is 127.0.0.1 (a memory
server should not listen on every interface unless told to). The ``database`` section is
ignored: the memory is one anatid file (``--path``).
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, Field, ValidationError

#: The defaults, with the environment variables Graphiti's server reads through its config.yaml.
DEFAULTS_YAML = """
server:
  transport: stdio
  host: 127.0.0.1
  port: 8000
llm:
  provider: openai
  model: ${MODEL_NAME:gpt-5.5}
  max_tokens: 4096
  structured_output_mode: ${LLM_STRUCTURED_OUTPUT_MODE:json_schema}
  providers:
    openai:
      api_key: ${OPENAI_API_KEY}
      api_url: ${OPENAI_API_URL:https://api.openai.com/v1}
      organization_id: ${OPENAI_ORGANIZATION_ID:}
    azure_openai:
      api_key: ${AZURE_OPENAI_API_KEY}
      api_url: ${AZURE_OPENAI_ENDPOINT}
      api_version: ${AZURE_OPENAI_API_VERSION:2024-10-21}
      deployment_name: ${AZURE_OPENAI_DEPLOYMENT}
      use_azure_ad: ${USE_AZURE_AD:false}
    anthropic:
      api_key: ${ANTHROPIC_API_KEY}
      api_url: ${ANTHROPIC_API_URL:https://api.anthropic.com}
      max_retries: 3
    gemini:
      api_key: ${GOOGLE_API_KEY}
      project_id: ${GOOGLE_PROJECT_ID:}
      location: ${GOOGLE_LOCATION:us-central1}
    groq:
      api_key: ${GROQ_API_KEY}
      api_url: ${GROQ_API_URL:https://api.groq.com/openai/v1}
embedder:
  provider: openai
  model: ${EMBEDDER_MODEL:text-embedding-3-small}
  dimensions: 1536
  providers:
    openai:
      api_key: ${OPENAI_API_KEY}
      api_url: ${OPENAI_API_URL:https://api.openai.com/v1}
      organization_id: ${OPENAI_ORGANIZATION_ID:}
    azure_openai:
      api_key: ${AZURE_OPENAI_API_KEY}
      api_url: ${AZURE_OPENAI_EMBEDDINGS_ENDPOINT}
      api_version: ${AZURE_OPENAI_API_VERSION:2024-10-21}
      deployment_name: ${AZURE_OPENAI_EMBEDDINGS_DEPLOYMENT}
      use_azure_ad: ${USE_AZURE_AD:false}
    gemini:
      api_key: ${GOOGLE_API_KEY}
      project_id: ${GOOGLE_PROJECT_ID:}
      location: ${GOOGLE_LOCATION:us-central1}
    voyage:
      api_key: ${VOYAGE_API_KEY}
      api_url: ${VOYAGE_API_URL:https://api.voyageai.com/v1}
      model: voyage-3
graphiti:
  group_id: ${GRAPHITI_GROUP_ID:main}
  episode_id_prefix: ${EPISODE_ID_PREFIX:}
  user_id: ${USER_ID:mcp_user}
"""

_VAR = re.compile(r"\$\{([^:}]+)(:([^}]*))?\}")
_SECTIONS = ("server", "llm", "embedder", "database", "graphiti")


class ConfigError(ValueError):
    """The configuration file or environment holds something unusable; the message says what."""


class ProviderConfig(BaseModel):
    """One provider's settings (the union of the keys the providers use)."""

    api_key: str | None = None
    api_url: str | None = None
    organization_id: str | None = None
    api_version: str | None = None
    deployment_name: str | None = None
    use_azure_ad: bool = False
    max_retries: int = 3
    project_id: str | None = None
    location: str | None = None
    model: str | None = None


class ServerConfig(BaseModel):
    transport: Literal["stdio", "http"] = "stdio"
    host: str = "127.0.0.1"
    port: int = 8000


class LLMConfig(BaseModel):
    provider: str = "openai"
    model: str = "gpt-5.5"
    temperature: float | None = None
    max_tokens: int = 4096
    structured_output_mode: Literal["json_schema", "json_object"] = "json_schema"
    providers: dict[str, ProviderConfig | None] = Field(default_factory=dict)


class EmbedderConfig(BaseModel):
    provider: str = "openai"
    model: str = "text-embedding-3-small"
    dimensions: int = 1536
    providers: dict[str, ProviderConfig | None] = Field(default_factory=dict)


class TypeConfig(BaseModel):
    name: str
    description: str = ""


class EdgeTypeMapEntry(BaseModel):
    source: str = "Entity"
    target: str = "Entity"
    edge_types: list[str] = Field(default_factory=list)


class GraphitiSection(BaseModel):
    group_id: str = "main"
    episode_id_prefix: str | None = ""
    user_id: str = "mcp_user"
    entity_types: list[TypeConfig] = Field(default_factory=list)
    edge_types: list[TypeConfig] = Field(default_factory=list)
    edge_type_map: list[EdgeTypeMapEntry] = Field(default_factory=list)


class Config(BaseModel):
    server: ServerConfig = Field(default_factory=ServerConfig)
    llm: LLMConfig = Field(default_factory=LLMConfig)
    embedder: EmbedderConfig = Field(default_factory=EmbedderConfig)
    graphiti: GraphitiSection = Field(default_factory=GraphitiSection)


# ------------------------------------------------------------------------------ loading


def _expand(value: Any, env: dict[str, str]) -> Any:
    """``${VAR}`` / ``${VAR:default}`` substitution, as Graphiti's server does it: a value that
    is one whole expression becomes a bool for true/false words and None when empty."""
    if isinstance(value, dict):
        return {k: _expand(v, env) for k, v in value.items()}
    if isinstance(value, list):
        return [_expand(v, env) for v in value]
    if not isinstance(value, str):
        return value

    def sub(m: re.Match[str]) -> str:
        return env.get(m.group(1), m.group(3) if m.group(3) is not None else "")

    whole = _VAR.fullmatch(value)
    if whole:
        out = sub(whole)
        low = out.strip().lower()
        if low in ("true", "1", "yes", "on"):
            return True
        if low in ("false", "0", "no", "off"):
            return False
        return None if low == "" else out
    return _VAR.sub(sub, value)


def _merge(base: dict[str, Any], over: dict[str, Any]) -> dict[str, Any]:
    out = dict(base)
    for key, value in over.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = _merge(out[key], value)
        else:
            out[key] = value
    return out


def _read_yaml(path: Path) -> dict[str, Any]:
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    except (OSError, yaml.YAMLError) as exc:
        raise ConfigError(f"cannot read the configuration file {path}: {exc}") from exc
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: the top level must be a mapping of sections")
    return data


def _nested_env(env: dict[str, str]) -> dict[str, Any]:
    """``LLM__MODEL=x`` -> ``{"llm": {"model": "x"}}`` (case-insensitive, ``__`` nests)."""
    out: dict[str, Any] = {}
    for name, value in env.items():
        parts = name.lower().split("__")
        if len(parts) < 2 or parts[0] not in _SECTIONS or not all(parts):
            continue
        node = out
        for part in parts[:-1]:
            node = node.setdefault(part, {})
            if not isinstance(node, dict):
                break
        else:
            node[parts[-1]] = value
    return out


def load(
    path: str | os.PathLike[str] | None = None,
    *,
    env: dict[str, str] | None = None,
    overrides: dict[str, Any] | None = None,
) -> Config:
    """The configuration from the defaults, a YAML file (``path``, else ``$CONFIG_PATH`` if that
    file exists), the environment and ``overrides`` (from the command line), in rising order."""
    env = dict(os.environ) if env is None else env
    data = yaml.safe_load(DEFAULTS_YAML)
    if path is None and env.get("CONFIG_PATH") and Path(env["CONFIG_PATH"]).is_file():
        path = env["CONFIG_PATH"]
    if path is not None:
        data = _merge(data, _read_yaml(Path(path)))
    data = _merge(_expand(data, env), _nested_env(env))
    data = _merge(data, overrides or {})
    data.pop("database", None)  # one anatid file; Neo4j/FalkorDB settings do not apply
    try:
        return Config.model_validate(data)
    except ValidationError as exc:
        raise ConfigError(f"invalid configuration: {exc}") from exc


__all__ = ["Config", "ConfigError", "EmbedderConfig", "LLMConfig", "ProviderConfig", "load"]
