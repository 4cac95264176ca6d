"""Fixtures: a GraphitiDriver (in memory or on a file) and Graphiti wired to the fake clients."""

from __future__ import annotations

import os
from collections.abc import AsyncIterator
from datetime import datetime, timedelta, timezone

import pytest

from tests.extras import require

require("graphiti")
os.environ["GRAPHITI_TELEMETRY_ENABLED"] = "false"

from anatid_graphiti import GraphitiDriver  # noqa: E402
from graphiti_core import Graphiti  # noqa: E402
from graphiti_core.nodes import EpisodeType  # noqa: E402

from .fakes import FakeCrossEncoder, FakeEmbedder, FakeLLMClient  # noqa: E402

T0 = datetime(2024, 1, 1, tzinfo=timezone.utc)


def day(n: int) -> datetime:
    return T0 + timedelta(days=n)


def make_graphiti(driver: GraphitiDriver) -> Graphiti:
    return Graphiti(
        graph_driver=driver,
        llm_client=FakeLLMClient(),
        embedder=FakeEmbedder(),
        cross_encoder=FakeCrossEncoder(),
    )


@pytest.fixture
async def driver() -> AsyncIterator[GraphitiDriver]:
    d = GraphitiDriver(":memory:")
    try:
        yield d
    finally:
        await d.close()


@pytest.fixture
async def graphiti(driver: GraphitiDriver) -> Graphiti:
    g = make_graphiti(driver)
    await g.build_indices_and_constraints()
    return g


async def add(g: Graphiti, body: str, n: int, *, group_id: str | None = None, **kw):
    """Add one text episode named ``e<n>`` with reference time ``day(n)``."""
    return await g.add_episode(
        name=f"e{n}",
        episode_body=body,
        source_description="test chat",
        reference_time=day(n),
        source=EpisodeType.text,
        group_id=group_id,
        **kw,
    )
