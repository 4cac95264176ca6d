"""Sizes of the reliability suite: a CI setting by default, a long one with ``ANATID_LONG=1``.

Cognee reads its configuration from the environment when first imported, so the offline
settings are in place before any test module imports it (the Cognee tests' conftest sets the same
values when it is loaded first).
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator

import pytest

from tests.extras import has, reason

from .harness import ForkServer

LONG = os.environ.get("ANATID_LONG", "") not in ("", "0")

#: Every size in the suite, CI value first, long value second.
SIZES: dict[str, int] = {
    # SIGKILLs of a writer per workload (core, graphiti, cognee).
    "kills_core": 600 if LONG else 30,
    "kills_graphiti": 250 if LONG else 10,
    "kills_cognee": 250 if LONG else 10,
    # records sampled per kill to hold the text and vector arms against the rows.
    "arm_samples": 40 if LONG else 10,
    # hypothesis examples of the write/read fuzz against the plain-Python model.
    "fuzz_examples": int(os.environ.get("ANATID_FUZZ_EXAMPLES") or (1500 if LONG else 50)),
    # concurrent Graphiti episodes, Cognee points per dataset, core threads x transactions.
    "graphiti_episodes": 64 if LONG else 24,
    "cognee_points": 400 if LONG else 60,
    "core_threads": 16 if LONG else 8,
    "core_transactions": 200 if LONG else 12,
    # seconds that writer and reader processes share one file (issue 11).
    "mp_seconds": 30 if LONG else 3,
}

_ROOT = tempfile.mkdtemp(prefix="anatid-reliability-")
for _key, _value in {
    "ENABLE_BACKEND_ACCESS_CONTROL": "false",
    "TELEMETRY_DISABLED": "1",
    "GRAPHITI_TELEMETRY_ENABLED": "false",
    "COGNEE_SKIP_CONNECTION_TEST": "true",
    "CACHING": "false",
    "AUTO_FEEDBACK": "false",
    "LLM_API_KEY": "dummy",
    "EMBEDDING_DIMENSIONS": "64",
    "SYSTEM_ROOT_DIRECTORY": os.path.join(_ROOT, "system"),
    "DATA_ROOT_DIRECTORY": os.path.join(_ROOT, "data"),
    "LOG_LEVEL": "ERROR",
}.items():
    os.environ.setdefault(_key, _value)


@pytest.fixture(scope="session")
def servers(tmp_path_factory) -> Iterator[dict[str, ForkServer]]:
    """One fork server per workload, started together so that their imports overlap."""
    root = tmp_path_factory.mktemp("forkservers")
    hosts = ["core"] + [host for host in HOSTS if has(host)]
    started = {name: ForkServer(name, root / f"{name}.stderr") for name in hosts}
    yield started
    for server in started.values():
        server.close()


#: The hosts whose extra a test needs when its id names them (``test_graphiti_...``, ``[cognee]``).
HOSTS = ("graphiti", "cognee")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Without a host's extra, the tests of that host skip, saying what to install."""
    here = os.path.dirname(__file__)
    for item in items:
        if not str(item.path).startswith(here):
            continue
        for host in HOSTS:
            if host in item.name and not has(host):
                item.add_marker(pytest.mark.skip(reason=reason(host)))
