"""The test hook's factory: ``ANATID_MCP_CLIENTS=tests.mcp.fake_clients:clients`` makes the
server run on the deterministic fakes of the Graphiti suite (no network, no model)."""

from __future__ import annotations

import asyncio
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


class TroubleLLM(FakeLLMClient):
    """The fake LLM, except that it never answers about a message containing ``Stall`` (an
    episode stuck in processing, for a test to kill the server meanwhile) and fails on one
    containing ``Explode``."""

    async def _generate_response(self, messages, *args: Any, **kwargs: Any):  # type: ignore[override]
        if "Stall" in messages[-1].content:
            await asyncio.Event().wait()
        if "Explode" in messages[-1].content:
            raise RuntimeError("the model broke")
        return await super()._generate_response(messages, *args, **kwargs)


def troubled() -> dict[str, Any]:
    return {**clients(), "llm_client": TroubleLLM()}
