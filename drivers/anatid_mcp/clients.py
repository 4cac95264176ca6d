"""The LLM, embedder and reranker, built with graphiti-core's own client classes.

Providers and their settings are those of Graphiti's MCP server (``llm.provider``: openai,
azure_openai, anthropic, gemini, groq; ``embedder.provider``: openai, azure_openai, gemini,
voyage; the reranker follows the LLM provider, then the embedder provider). An ``api_url`` other
than OpenAI's own selects graphiti-core's ``OpenAIGenericClient``, for OpenAI-compatible
endpoints such as a local Ollama.

A client that cannot be built (no API key, a provider package not installed) is *missing*, not
fatal: the server starts, the read tools work (fact and node search fall back to full text
without an embedder), and the tools that need the missing client answer with an error naming
what to set (:class:`Missing`).

Test hook: ``ANATID_MCP_CLIENTS=module:factory`` names a callable returning a mapping with any
of ``llm_client``, ``embedder``, ``cross_encoder``; those replace the configured ones. The test
suite injects its deterministic fakes this way.
"""

from __future__ import annotations

import importlib
import logging
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from .config import Config, EmbedderConfig, LLMConfig, ProviderConfig

log = logging.getLogger("anatid_mcp")

#: The environment variable naming a client factory (``module:callable``), for tests.
CLIENTS_HOOK = "ANATID_MCP_CLIENTS"

_OPENAI_HOSTS = ("api.openai.com", "openai.azure.com")
_KEY_VARS = {
    "openai": "OPENAI_API_KEY",
    "azure_openai": "AZURE_OPENAI_API_KEY (and AZURE_OPENAI_ENDPOINT)",
    "anthropic": "ANTHROPIC_API_KEY",
    "gemini": "GOOGLE_API_KEY",
    "groq": "GROQ_API_KEY",
    "voyage": "VOYAGE_API_KEY",
}


class NotConfigured(RuntimeError):
    """A client needed by a tool is not configured; the message names what to set."""


@dataclass
class Missing:
    """Why a client is absent, and what to set to get it."""

    what: str  # "LLM", "embedder", "reranker"
    reason: str

    def message(self) -> str:
        return f"the {self.what} is not configured: {self.reason}"


#: The tools that call the LLM or the embedder, and which they call. No tool calls the
#: reranker: the searches fuse their results by RRF.
NEEDS = {
    "add_memory": ("llm_client", "embedder"),
    "add_triplet": ("llm_client", "embedder"),
    "build_communities": ("llm_client", "embedder"),
    "summarize_saga": ("llm_client",),
}
_ARTICLE = {"llm_client": "an LLM", "embedder": "an embedder", "cross_encoder": "a reranker"}

HOW_TO = (
    "A local OpenAI-compatible server (Ollama, llama.cpp, vLLM) needs OPENAI_API_URL "
    "(e.g. http://127.0.0.1:11434/v1), MODEL_NAME, EMBEDDER_MODEL and any non-empty "
    "OPENAI_API_KEY; another provider needs LLM__PROVIDER / EMBEDDER__PROVIDER and its key, "
    "or a --config file (see docs/mcp.md)."
)


def absent(missing: list[Missing]) -> str:
    """``the LLM and the embedder are not configured: <why>``, a shared reason said once."""
    names = " and ".join(f"the {m.what}" for m in missing)
    verb = "is" if len(missing) == 1 else "are"
    reasons = "; ".join(dict.fromkeys(m.reason for m in missing))
    return f"{names} {verb} not configured: {reasons}"


@dataclass
class Clients:
    llm_client: Any = None
    embedder: Any = None
    cross_encoder: Any = None
    missing: dict[str, Missing] = field(default_factory=dict)

    def require(self, tool: str) -> None:
        """Raise :class:`NotConfigured` if ``tool`` needs a client that is missing."""
        names = NEEDS[tool]
        gone = [self.missing[n] for n in names if n in self.missing]
        if gone:
            needs = " and ".join(_ARTICLE[n] for n in names)
            raise NotConfigured(f"{tool} needs {needs}, but {absent(gone)}. {HOW_TO}")

    def startup_notice(self, *, read_only: bool) -> str | None:
        """The one line logged at start when a model some tool needs is missing, else None.
        A read-only server registers no write tool: only a missing embedder matters there."""
        wanted = ("embedder",) if read_only else ("llm_client", "embedder")
        gone = [self.missing[n] for n in wanted if n in self.missing]
        if not gone:
            return None
        effects = []
        if not read_only:
            refusing = [t for t, needs in NEEDS.items() if set(needs) & set(self.missing)]
            effects.append(
                ", ".join(refusing[:-1]) + f" and {refusing[-1]} refuse"
                if len(refusing) > 1
                else f"{refusing[0]} refuses"
            )
        if "embedder" in self.missing:
            effects.append("searches use full text only")
        return f"{absent(gone)}; until then {', and '.join(effects)}. {HOW_TO}"

    def summary(self) -> str | None:
        """What is missing of the LLM and the embedder, for get_status; None if nothing."""
        gone = [self.missing[n] for n in ("llm_client", "embedder") if n in self.missing]
        return absent(gone) if gone else None


def _provider(section: LLMConfig | EmbedderConfig, name: str) -> ProviderConfig:
    found = section.providers.get(name)
    return found if found is not None else ProviderConfig()


def _key(name: str, p: ProviderConfig) -> str:
    if not p.api_key:
        raise NotConfigured(f"{name} has no API key (set {_KEY_VARS.get(name, 'its api_key')})")
    return p.api_key


def _azure_base(p: ProviderConfig) -> str:
    if not p.api_url:
        raise NotConfigured("azure_openai has no endpoint (set AZURE_OPENAI_ENDPOINT)")
    base = p.api_url if p.api_url.endswith("/") else p.api_url + "/"
    return base if base.endswith("openai/v1/") else base + "openai/v1/"


def _reasoning(model: str) -> str | None:
    # Reasoning models need an effort and others must not get one (as Graphiti's server does).
    if not model.startswith(("o1", "o3", "gpt-5")):
        return None
    return "none" if model.startswith("gpt-5.5") else "minimal"


def build_llm(cfg: LLMConfig) -> Any:
    from graphiti_core.llm_client.config import LLMConfig as CoreLLMConfig

    name = cfg.provider.lower()
    p = _provider(cfg, name)
    base: dict[str, Any] = {
        "model": cfg.model,
        "temperature": cfg.temperature,
        "max_tokens": cfg.max_tokens,
    }
    if name == "openai":
        core = CoreLLMConfig(
            api_key=_key(name, p), small_model=cfg.model, base_url=p.api_url, **base
        )
        if p.api_url and not any(h in p.api_url for h in _OPENAI_HOSTS):
            from graphiti_core.llm_client.openai_generic_client import OpenAIGenericClient

            return OpenAIGenericClient(
                config=core,
                max_tokens=cfg.max_tokens,
                structured_output_mode=cfg.structured_output_mode,
            )
        from graphiti_core.llm_client import OpenAIClient

        effort = _reasoning(cfg.model)
        if effort is None:
            return OpenAIClient(config=core)
        return OpenAIClient(config=core, reasoning=effort, verbosity="low")
    if name == "azure_openai":
        from graphiti_core.llm_client.azure_openai_client import AzureOpenAILLMClient
        from openai import AsyncOpenAI

        url, key = _azure_base(p), _key(name, p)
        effort = _reasoning(cfg.model)
        return AzureOpenAILLMClient(
            azure_client=AsyncOpenAI(base_url=url, api_key=key),
            config=CoreLLMConfig(api_key=key, base_url=url, **base),
            max_tokens=cfg.max_tokens,
            reasoning=effort,
            verbosity="low" if effort is not None else None,
        )
    classes = {
        "anthropic": ("graphiti_core.llm_client.anthropic_client", "AnthropicClient"),
        "gemini": ("graphiti_core.llm_client.gemini_client", "GeminiClient"),
        "groq": ("graphiti_core.llm_client.groq_client", "GroqClient"),
    }
    if name not in classes:
        raise NotConfigured(
            f"unknown LLM provider {cfg.provider!r} (use one of openai, "
            "azure_openai, anthropic, gemini, groq)"
        )
    extra: dict[str, Any] = {"base_url": p.api_url} if name == "groq" else {}
    core = CoreLLMConfig(api_key=_key(name, p), **base, **extra)
    return _load(*classes[name], extra=name)(config=core)


def build_embedder(cfg: EmbedderConfig) -> Any:
    name = cfg.provider.lower()
    p = _provider(cfg, name)
    if name == "openai":
        from graphiti_core.embedder import OpenAIEmbedder
        from graphiti_core.embedder.openai import OpenAIEmbedderConfig

        return OpenAIEmbedder(
            config=OpenAIEmbedderConfig(
                api_key=_key(name, p),
                embedding_model=cfg.model,
                base_url=p.api_url,
                embedding_dim=cfg.dimensions,
            )
        )
    if name == "azure_openai":
        from graphiti_core.embedder.azure_openai import AzureOpenAIEmbedderClient
        from openai import AsyncOpenAI

        client = AsyncOpenAI(base_url=_azure_base(p), api_key=_key(name, p))
        return AzureOpenAIEmbedderClient(azure_client=client, model=cfg.model)
    if name == "gemini":
        cls = _load("graphiti_core.embedder.gemini", "GeminiEmbedder", extra="google-genai")
        conf = _load("graphiti_core.embedder.gemini", "GeminiEmbedderConfig", extra="google-genai")
        return cls(
            config=conf(
                api_key=_key(name, p), embedding_model=cfg.model, embedding_dim=cfg.dimensions
            )
        )
    if name == "voyage":
        cls = _load("graphiti_core.embedder.voyage", "VoyageAIEmbedder", extra="voyageai")
        conf = _load("graphiti_core.embedder.voyage", "VoyageAIEmbedderConfig", extra="voyageai")
        return cls(
            config=conf(
                api_key=_key(name, p),
                embedding_model=p.model or cfg.model,
                embedding_dim=cfg.dimensions,
            )
        )
    raise NotConfigured(
        f"unknown embedder provider {cfg.provider!r} (use one of openai, "
        "azure_openai, gemini, voyage)"
    )


def build_reranker(config: Config) -> Any:
    """The LLM provider's reranker, else the embedder provider's (openai, azure_openai, gemini);
    anthropic, groq and voyage have none in graphiti-core."""
    from graphiti_core.llm_client.config import LLMConfig as CoreLLMConfig

    reasons = []
    for section in (config.llm, config.embedder):
        name = section.provider.lower()
        p = _provider(section, name)
        try:
            if name == "openai":
                from graphiti_core.cross_encoder.openai_reranker_client import OpenAIRerankerClient

                return OpenAIRerankerClient(
                    config=CoreLLMConfig(api_key=_key(name, p), base_url=p.api_url)
                )
            if name == "azure_openai":
                from graphiti_core.cross_encoder.openai_reranker_client import OpenAIRerankerClient
                from openai import AsyncOpenAI

                client = AsyncOpenAI(base_url=_azure_base(p), api_key=_key(name, p))
                return OpenAIRerankerClient(client=client)
            if name == "gemini":
                cls = _load(
                    "graphiti_core.cross_encoder.gemini_reranker_client",
                    "GeminiRerankerClient",
                    extra="google-genai",
                )
                return cls(config=CoreLLMConfig(api_key=_key(name, p)))
        except NotConfigured as exc:
            reasons.append(str(exc))
    raise NotConfigured(
        "; ".join(dict.fromkeys(reasons))
        or "no provider of a reranker is configured "
        "(openai, azure_openai or gemini as llm or embedder provider)"
    )


def _load(module: str, name: str, *, extra: str) -> Callable[..., Any]:
    try:
        return getattr(importlib.import_module(module), name)
    except ImportError as exc:
        raise NotConfigured(
            f"{name} needs an optional package that is not installed ({exc.name}); "
            f"install it, e.g. pip install 'graphiti-core[{extra}]'"
        ) from exc


def _hooked() -> dict[str, Any] | None:
    spec = os.environ.get(CLIENTS_HOOK)
    if not spec:
        return None
    module, _, attr = spec.partition(":")
    if not module or not attr:
        raise NotConfigured(f"{CLIENTS_HOOK} must look like 'module:factory', got {spec!r}")
    made = getattr(importlib.import_module(module), attr)()
    log.warning("clients injected by %s=%s", CLIENTS_HOOK, spec)
    return dict(made)


def build_clients(config: Config) -> Clients:
    """Every client that can be built; the others are recorded in ``missing``, with why."""
    out = Clients()
    hooked = _hooked()
    builders: dict[str, tuple[str, Callable[[], Any]]] = {
        "llm_client": ("LLM", lambda: build_llm(config.llm)),
        "embedder": ("embedder", lambda: build_embedder(config.embedder)),
        "cross_encoder": ("reranker", lambda: build_reranker(config)),
    }
    for attr, (what, build) in builders.items():
        if hooked is not None and hooked.get(attr) is not None:
            setattr(out, attr, hooked[attr])
            continue
        try:
            setattr(out, attr, build())
        except NotConfigured as exc:
            out.missing[attr] = Missing(what, str(exc))
            # said once, in one line, when the server starts (Clients.startup_notice)
            log.info("no %s: %s", what, exc)
    return out


# ------------------------------------------------------------- stand-ins for missing clients


def stand_ins(clients: Clients) -> dict[str, Any]:
    """The three clients for ``Graphiti(...)``, a stand-in for each missing one: Graphiti would
    otherwise build an OpenAI client of its own, which fails at start without OPENAI_API_KEY.
    A stand-in raises :class:`NotConfigured` (naming what to set) if anything calls it."""
    from graphiti_core.cross_encoder.client import CrossEncoderClient
    from graphiti_core.embedder.client import EmbedderClient
    from graphiti_core.llm_client.client import LLMClient
    from graphiti_core.llm_client.config import LLMConfig as CoreLLMConfig

    def refusal(attr: str) -> NotConfigured:
        return NotConfigured(clients.missing[attr].message() + ". " + HOW_TO)

    class NoLLM(LLMClient):
        def __init__(self) -> None:
            super().__init__(CoreLLMConfig(api_key="unset", model="unset", small_model="unset"))

        async def _generate_response(self, *args: Any, **kwargs: Any) -> dict[str, Any]:
            raise refusal("llm_client")

    class NoEmbedder(EmbedderClient):
        async def create(self, input_data: Any) -> list[float]:
            raise refusal("embedder")

        async def create_batch(self, input_data_list: list[str]) -> list[list[float]]:
            raise refusal("embedder")

    class NoReranker(CrossEncoderClient):
        async def rank(self, query: str, passages: list[str]) -> list[tuple[str, float]]:
            raise refusal("cross_encoder")

    return {
        "llm_client": clients.llm_client or NoLLM(),
        "embedder": clients.embedder or NoEmbedder(),
        "cross_encoder": clients.cross_encoder or NoReranker(),
    }


__all__ = [
    "CLIENTS_HOOK",
    "HOW_TO",
    "NEEDS",
    "Clients",
    "Missing",
    "NotConfigured",
    "absent",
    "build_clients",
    "stand_ins",
]
