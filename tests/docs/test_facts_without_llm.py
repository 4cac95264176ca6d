"""docs/examples/facts_without_llm.py: the README's way to store many facts in Graphiti with no
LLM (its client refuses every call) saves all 24, finds them by search, and run again in the
same folder updates the same records instead of duplicating them."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.extras import needs

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "docs" / "examples" / "facts_without_llm.py"


@needs("graphiti")
def test_many_facts_saved_without_an_llm_twice(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    for run in (1, 2):
        proc = subprocess.run(
            [sys.executable, str(EXAMPLE), str(tmp_path)],
            capture_output=True,
            text=True,
            timeout=300,
            env=env,
        )
        assert proc.returncode == 0, f"run {run}:\n{proc.stderr[-4000:]}"
        assert "facts stored: 24, entities: 15" in proc.stdout, proc.stdout
        assert "'Alice works at Acme'" in proc.stdout.split("search")[1]

    # The file holds 24 current facts; each was written four times (two saves per run), and its
    # history keeps every version.
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "anatid_core.cli",
            "stats",
            str(tmp_path / "facts.duckdb"),
            "--json",
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 0, out.stderr
    stats = json.loads(out.stdout)
    assert (stats["nodes"], stats["edges"]) == (15, 24)
    assert (stats["node_versions"], stats["edge_versions"]) == (15 * 4, 24 * 4)
