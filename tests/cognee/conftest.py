"""Offline harness for the Cognee driver tests.

Cognee reads its configuration from the environment when first imported, so the variables
below are set before anything imports it: no LLM, no telemetry, no network, and every file
Cognee writes goes under one temporary directory for the session.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

import pytest

from tests.extras import require

require("cognee")

SESSION_ROOT = Path(tempfile.mkdtemp(prefix="anatid-cognee-"))

#: The environment every Cognee test runs in (also handed to subprocess scenarios).
COGNEE_ENV = {
    "ENABLE_BACKEND_ACCESS_CONTROL": "false",
    "TELEMETRY_DISABLED": "1",
    "COGNEE_SKIP_CONNECTION_TEST": "true",
    "CACHING": "false",
    "AUTO_FEEDBACK": "false",
    "LLM_API_KEY": "dummy",
    "EMBEDDING_DIMENSIONS": "64",
    "SYSTEM_ROOT_DIRECTORY": str(SESSION_ROOT / "system"),
    "DATA_ROOT_DIRECTORY": str(SESSION_ROOT / "data"),
    "LOG_LEVEL": "ERROR",
}
os.environ.update(COGNEE_ENV)


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    shutil.rmtree(SESSION_ROOT, ignore_errors=True)


@pytest.fixture(autouse=True, scope="session")
def _hash_embeddings() -> None:
    import anatid_cognee  # noqa: F401  (registers the "anatid" provider)

    from tests.cognee.cognee_fakes import install_hash_embeddings

    install_hash_embeddings()
