"""Cognee's graph-provenance contract suites run with "anatid" as the provider.

Both modules come from the installed cognee wheel; their provider-parametrised fixtures are
replaced by ones whose only parameter is anatid (the other providers are Cognee's to test).
"""

from __future__ import annotations

from types import SimpleNamespace

import pytest_asyncio
from anatid_cognee import AnatidGraphAdapter

from tests.cognee.wheel_suites import export_tests, load_wheel_module

_adapter_suite = load_wheel_module(
    "integration/infrastructure/graph/test_graph_provenance_adapter_contract.py"
)
_unified_suite = load_wheel_module(
    "integration/infrastructure/graph/test_graph_provenance_unified_contract.py"
)


@pytest_asyncio.fixture(params=["anatid"])
async def graph_provenance_adapter(request, tmp_path):
    adapter = AnatidGraphAdapter(graph_database_url=str(tmp_path / "graph.duckdb"))
    try:
        yield adapter
    finally:
        await adapter.close()


@pytest_asyncio.fixture(params=["anatid+recording_vector"])
async def graph_provenance_unified_engine(request, tmp_path):
    graph = AnatidGraphAdapter(graph_database_url=str(tmp_path / "graph.duckdb"))
    vector = _unified_suite.RecordingVectorEngine()
    engine = _unified_suite._new_engine(graph, vector)
    try:
        yield SimpleNamespace(graph=graph, vector=vector, engine=engine)
    finally:
        await graph.close()


export_tests(
    _adapter_suite,
    globals(),
    {},
)
export_tests(
    _unified_suite,
    globals(),
    {
        # Builds a LadybugAdapter itself instead of using the fixture; the same scenario
        # runs on anatid in test_cognee_graph_adapter.py.
        "test_vector_failure_leaves_refs_discoverable_and_retry_converges": (
            "constructs LadybugAdapter directly; covered for anatid in "
            "test_cognee_graph_adapter.py::test_vector_failure_then_retry_converges"
        ),
    },
)
