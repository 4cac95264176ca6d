"""The README's run command: docs/examples/quickstart.py works offline, prints what it stored and
found, and leaves files the ``anatid`` command can read."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.extras import needs

ROOT = Path(__file__).resolve().parents[2]


@needs("graphiti", "cognee")
def test_quickstart_runs_offline_and_time_travels(tmp_path: Path) -> None:
    env = dict(os.environ)
    for key in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "LLM_API_KEY"):
        env.pop(key, None)  # no API key: the example must not need one
    proc = subprocess.run(
        [sys.executable, str(ROOT / "docs" / "examples" / "quickstart.py"), str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=600,
        env=env,
    )
    assert proc.returncode == 0, proc.stderr[-4000:]
    out = proc.stdout
    # Graphiti: the triplet, the fact the stand-in LLM extracted, and the contradiction it found
    assert "Alice works at Acme (valid from 2024-01-10, invalid since 2024-06-01)" in out
    assert "Alice works at Globex (valid from 2024-06-01)" in out
    # the read as of before the episode sees the old fact only, still valid
    past = out.split("(before the episode):")[1].split("versions of")[0]
    assert past.strip() == "Alice works at Acme (invalid_at=None)"
    assert "versions of the Acme fact: 2" in out
    # Cognee: stored data points, found a chunk, built a graph context without an LLM
    assert "CHUNKS search 'who grows apples': ['Bob grows apples near Hamburg.']" in out
    context = out.split("GRAPH_COMPLETION context")[1]
    assert "--[contains]--> globex" in context and "alice --[is_a]--> person" in context

    # The files it wrote are anatid stores the command line reads.
    for name in ("graphiti.duckdb", "cognee.duckdb"):
        check = subprocess.run(
            [sys.executable, "-m", "anatid_core.cli", "check", str(tmp_path / name)],
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert check.returncode == 0 and ": ok (" in check.stdout, check.stderr
    found = subprocess.run(
        [
            sys.executable,
            "-m",
            "anatid_core.cli",
            "search",
            str(tmp_path / "graphiti.duckdb"),
            "Globex",
            "--kind",
            "edge",
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert found.returncode == 0 and "Alice works at Globex" in found.stdout
