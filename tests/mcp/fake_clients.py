"""The test hook's factory: ``ANATID_MCP_CLIENTS=tests.mcp.fake_clients:clients`` makes the
server run on the deterministic fakes of the Graphiti suite (no network, no model)."""

from __future__ import annotations

from typing import Any

from tests.graphiti.fakes import FakeCrossEncoder, FakeEmbedder, FakeLLMClient


def clients() -> dict[str, Any]:
    return {
        "llm_client": FakeLLMClient(),
        "embedder": FakeEmbedder(),
        "cross_encoder": FakeCrossEncoder(),
    }


def embedder_only() -> dict[str, Any]:
    """No LLM: the write tools that need one must refuse, the read tools must work."""
    return {"embedder": FakeEmbedder(), "cross_encoder": FakeCrossEncoder()}
