"""Deleting a dataset through Cognee's public API removes its anatid file (issue 14).

Access control on, anatid selected from code with Cognee's own setters (no handler keys), no
LLM. One fresh interpreter runs tests/cognee/deletion_scenarios.py; this asserts on what it saw.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("cognee", reason="needs the cognee extra")

REPO = Path(__file__).resolve().parents[2]
SIDE = (".anatid.duckdb", ".anatid.duckdb.wal", ".anatid.duckdb.anatid-lease")


@pytest.fixture(scope="module")
def seen(tmp_path_factory: pytest.TempPathFactory) -> dict:
    workdir = tmp_path_factory.mktemp("deletion")
    proc = subprocess.run(
        [sys.executable, "-m", "tests.cognee.deletion_scenarios", "deletions", str(workdir)],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=900,
        env={**os.environ, "PYTHONPATH": str(REPO)},
    )
    lines = [line for line in proc.stdout.splitlines() if line.startswith("RESULT ")]
    assert proc.returncode == 0 and lines, proc.stdout[-3000:] + proc.stderr[-5000:]
    return json.loads(lines[-1][len("RESULT ") :])


def _of(files: list[str], dataset_id: str) -> list[str]:
    return sorted(f[len(dataset_id) :] for f in files if f.startswith(dataset_id))


def test_each_dataset_has_its_own_file_with_its_side_files(seen: dict):
    for name, dataset_id in seen["ids"].items():
        assert set(SIDE) <= set(_of(seen["files"], dataset_id)), name
        assert seen["searched"][name], name


def test_empty_dataset_removes_the_file_wal_and_lock_files_and_leaves_the_others(seen: dict):
    assert _of(seen["after_empty"], seen["ids"]["alpha"]) == []
    assert _of(seen["after_empty"], seen["ids"]["beta"])
    assert seen["beta_after_empty"] == ["Bob grows green apples near Hamburg."]


def test_deleting_the_last_data_with_delete_dataset_if_empty_removes_the_file(seen: dict):
    assert _of(seen["after_delete_data"], seen["ids"]["beta"]) == []
    assert seen["gamma_after_delete_data"] == ["Carol repairs old bicycles in Munich."]


def test_a_dataset_created_again_gets_a_fresh_file(seen: dict):
    assert seen["alpha_again"] == ["Alice works at Acme in Berlin."]
    assert ".anatid.duckdb" in _of(seen["files_again"], seen["ids"]["alpha"])


def test_a_file_held_elsewhere_is_erased_at_once_and_removed_when_released(seen: dict):
    gamma = seen["ids"]["gamma"]
    assert seen["held_nodes_before"] > 0
    assert seen["held_nodes_after_delete"] == 0
    assert ".anatid.duckdb" in _of(seen["while_held"], gamma)
    assert _of(seen["after_release"], gamma) == []


def test_delete_all_leaves_no_anatid_file(seen: dict):
    assert seen["after_delete_all"] == []
    assert seen["datasets_after_delete_all"] == []
