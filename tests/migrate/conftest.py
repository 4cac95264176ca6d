"""Fixtures for the migrate tests: source databases written by the real frameworks and engines.

``setup_sources.sh`` builds (once, cached) the venvs with kuzu 0.11.3 / cognee 1.0.3 and
writes the sources with Graphiti's KuzuDriver and Cognee's own adapters. It needs PyPI on a
cold cache: without network the dependent tests skip, except under CI (``CI`` set), where
they fail, because CI must run them.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from tests.extras import require

# Every migration here loads its graph through a host's driver (and the Cognee sources are written
# by Cognee itself), so the suite needs both hosts besides the migrate extra.
for _extra in ("migrate", "graphiti", "cognee"):
    require(_extra)

HERE = Path(__file__).resolve().parent
# Cognee reads its configuration from the environment when first imported (the Cognee plan
# imports the anatid Cognee adapter, which imports cognee): keep it offline and quiet.
_ROOT = Path(tempfile.mkdtemp(prefix="anatid-migrate-tests-"))
for key, value in {
    "ENABLE_BACKEND_ACCESS_CONTROL": "false",
    "TELEMETRY_DISABLED": "1",
    "COGNEE_SKIP_CONNECTION_TEST": "true",
    "CACHING": "false",
    "AUTO_FEEDBACK": "false",
    "LLM_API_KEY": "dummy",
    "SYSTEM_ROOT_DIRECTORY": str(_ROOT / "system"),
    "DATA_ROOT_DIRECTORY": str(_ROOT / "data"),
    "LOG_LEVEL": "ERROR",
    "GRAPHITI_TELEMETRY_ENABLED": "false",
}.items():
    os.environ.setdefault(key, value)


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    shutil.rmtree(_ROOT, ignore_errors=True)


def cache_root() -> Path:
    root = os.environ.get("ANATID_MIGRATE_CACHE") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "anatid-migrate"
    )
    return Path(root)


@pytest.fixture(scope="session")
def sources() -> Path:
    """The directory holding every generated source and its expected-reads JSON."""
    os.environ["ANATID_MIGRATE_CACHE"] = str(cache_root())  # the migrations find readers here
    done = subprocess.run(
        ["bash", str(HERE / "setup_sources.sh"), sys.executable],
        capture_output=True,
        text=True,
        timeout=1800,
    )
    if done.returncode != 0:
        reason = "could not build the migrate sources (needs PyPI on a cold cache): " + "\n".join(
            line for line in done.stderr.splitlines()[-15:] if "WARNING: Location" not in line
        )
        if os.environ.get("CI"):
            pytest.fail(reason)
        pytest.skip(reason)
    return Path(done.stdout.strip().splitlines()[-1])


@pytest.fixture
def source_copy(sources: Path, tmp_path: Path):
    """Copy a generated source into tmp_path (tests that damage or watch the file use it)."""

    def copy(name: str) -> Path:
        dst = tmp_path / name
        if (sources / name).is_dir():
            shutil.copytree(sources / name, dst)
        else:
            shutil.copyfile(sources / name, dst)
        return dst

    return copy
