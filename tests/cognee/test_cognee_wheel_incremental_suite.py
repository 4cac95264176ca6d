"""Cognee's own incremental-update suites (``cognee/tests/e2e/incremental_update``) on anatid.

The installed wheel's suites take their backends from ``INCR_TEST_GRAPH_PROVIDER`` and
``INCR_TEST_VECTOR_PROVIDER`` (their ``backend_env.py``); they mock the LLM and the embeddings
in process. They rewrite Cognee's environment and configuration caches as they go, so they run
in a pytest process of their own, in a temporary directory, never from this repository.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("cognee")

from tests.cognee.cognee_processes import _litellm_tokenizers  # noqa: E402
from tests.cognee.wheel_suites import WHEEL_TESTS  # noqa: E402

REPO = Path(__file__).resolve().parents[2]
SUITES = WHEEL_TESTS / "e2e" / "incremental_update"


def test_cognee_incremental_update_suites_pass_on_anatid(tmp_path):
    if not SUITES.is_dir():
        pytest.fail(f"{SUITES} is not in the installed cognee wheel")
    inherited = os.environ.get("PYTHONPATH", "")
    env = {
        **os.environ,
        "INCR_TEST_GRAPH_PROVIDER": "anatid",
        "INCR_TEST_VECTOR_PROVIDER": "anatid",
        # Offline: litellm's bundled model table and tokenizers, no download.
        "LITELLM_LOCAL_MODEL_COST_MAP": "True",
        "TIKTOKEN_CACHE_DIR": _litellm_tokenizers(),
        "PYTHONPATH": os.pathsep.join([str(REPO), *([inherited] if inherited else [])]),
    }
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(SUITES)],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=1200,
    )
    summary = proc.stdout.strip().splitlines()[-1] if proc.stdout.strip() else ""
    assert proc.returncode == 0, f"{summary}\n{proc.stdout[-6000:]}\n{proc.stderr[-2000:]}"
    assert " passed" in summary and "skipped" not in summary, summary
