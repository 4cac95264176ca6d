"""Cognee's own graph adapter suite (``test_kuzu_adapter.py``, direct mode) run on anatid.

The module comes from the installed cognee wheel; only its adapter fixtures are replaced.
"""

from __future__ import annotations

import pytest
import pytest_asyncio
from anatid_cognee import AnatidGraphAdapter

from tests.cognee.wheel_suites import export_tests, load_wheel_module

_suite = load_wheel_module("integration/infrastructure/graph/test_kuzu_adapter.py", "test_kg.json")

_KUZU_INTERNALS = "exercises LadybugAdapter internals (its executor, locks or subprocess worker)"
_SUBPROCESS = "subprocess mode is LadybugDB's worker process; anatid runs in-process"

SKIPPED = {
    "test_close_subprocess": _SUBPROCESS,
    "test_subprocess_calls_after_close_raise": _SUBPROCESS,
    "test_close_does_not_block_event_loop_in_subprocess_mode": _SUBPROCESS,
    "test_delete_graph_subprocess_recreates_schema": _SUBPROCESS,
    "test_delete_graph_waits_for_in_flight_query": _KUZU_INTERNALS,
    "test_query_does_not_block_event_loop_during_slow_redis_acquire": _KUZU_INTERNALS,
}


@pytest_asyncio.fixture
async def adapter(tmp_path):
    """The suite's parametrised adapter fixture, direct mode only, on anatid."""
    a = AnatidGraphAdapter(graph_database_url=str(tmp_path / "graph.duckdb"))
    await a.initialize()
    try:
        yield a
    finally:
        await a.close()


@pytest_asyncio.fixture
async def kuzu_adapter(tmp_path):
    a = AnatidGraphAdapter(graph_database_url=str(tmp_path / "direct.duckdb"))
    await a.initialize()
    try:
        yield a
    finally:
        await a.close()


@pytest.fixture
def subprocess_adapter():
    pytest.skip(_SUBPROCESS)


export_tests(_suite, globals(), SKIPPED)
