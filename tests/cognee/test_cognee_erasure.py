"""Cognee's deletions erase (issue 15), through Cognee's public API in a fresh process.

tests/cognee/erasure_scenarios.py fills one anatid file (graph and vectors) with three
documents whose records carry unique tokens (a name, a nested property, a 3,000-word text, a
value repeated in 3,000 rows, a first version only, an embedding's float32 bytes), then calls
``cognee.datasets.delete_data``, ``empty_dataset`` and ``cognee.prune.prune_system`` and scans
the raw files after each; this asserts on what it saw, and reads the receipts with the CLI.
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
NEEDLES = {"name", "nested", "long", "repeated", "old_version", "embedding"}


def _run(name: str, workdir: Path) -> dict:
    proc = subprocess.run(
        [sys.executable, "-m", "tests.cognee.erasure_scenarios", name, str(workdir)],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=900,
        env={**os.environ, "PYTHONPATH": str(REPO)},
    )
    lines = [line for line in proc.stdout.splitlines() if line.startswith("RESULT ")]
    assert proc.returncode == 0 and lines, proc.stdout[-3000:] + proc.stderr[-5000:]
    return json.loads(lines[-1][len("RESULT ") :])


@pytest.fixture(scope="module")
def workdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("erasure")


@pytest.fixture(scope="module")
def seen(workdir: Path) -> dict:
    return _run("erasure", workdir)


def _all(found: dict[str, bool]) -> bool:
    assert set(found) == NEEDLES
    return all(found.values())


def _none(found: dict[str, bool]) -> bool:
    assert set(found) == NEEDLES
    return not any(found.values())


def test_the_scan_finds_every_token_before_any_deletion(seen: dict):
    for doc in ("secret", "keep", "other"):
        assert _all(seen["before"][doc]), doc


def test_delete_data_leaves_no_byte_of_the_document_in_any_file(seen: dict):
    assert _none(seen["after_delete_data"]["secret"])
    assert _all(seen["after_delete_data"]["keep"])  # same dataset, not deleted
    assert _all(seen["after_delete_data"]["other"])
    assert seen["leftover_files"] == [
        "memory.duckdb",
        "memory.duckdb.anatid-lease",
        "memory.duckdb.anatid-wait",
    ]


def test_delete_data_erases_every_version_from_history_and_as_of(seen: dict):
    assert seen["history_before"] == 2
    assert seen["history_after"] == 0
    assert seen["secret_entity_erased"]  # gone from as_of(a time when it existed)
    assert len(seen["erased_nodes"]) > 3000
    assert seen["keep_entity"] in seen["entity_rows_after_delete"]


def test_delete_data_leaves_everything_else_unchanged_now_and_as_of(seen: dict):
    assert seen["as_of_others_unchanged"]
    assert seen["now_others_unchanged"]


def test_delete_data_records_complete_receipts(seen: dict):
    receipts = seen["receipts"]
    assert receipts and {r["state"] for r in receipts} == {"gone"}
    erased = {i for r in receipts for i in r["nodes"]}
    assert set(seen["erased_nodes"]) <= erased


def test_empty_dataset_leaves_no_byte_of_its_data(seen: dict):
    assert _none(seen["after_empty_dataset"]["other"])
    assert _all(seen["after_empty_dataset"]["keep"])
    assert seen["keep_history_after_empty"] > 0


def test_prune_system_leaves_no_byte_of_anything(seen: dict):
    for doc in ("secret", "keep", "other"):
        assert _none(seen["after_prune_system"][doc]), doc
    assert seen["pending_after_prune"] == 0


def test_the_cli_lists_the_receipts(seen: dict, workdir: Path):
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "anatid_core.cli",
            "erasures",
            str(workdir / "memory.duckdb"),
            "--json",
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    listed = json.loads(proc.stdout)
    assert len(listed) >= len(seen["receipts"])
    assert {r["state"] for r in listed} == {"gone"}
    erased = {i for r in listed for i in r["node_ids"]}
    assert set(seen["erased_nodes"]) <= erased


def test_the_audit_setting_keeps_deleted_data_in_history_and_says_so(tmp_path: Path):
    kept = _run("audit", tmp_path)
    assert kept["warned"] and "ANATID_COGNEE_KEEP_DELETED" in kept["warned"][0]
    assert not kept["current_has_secret"]
    assert kept["as_of_has_secret"]
    assert kept["history"] == 2
    assert _all(kept["scan"])
    assert kept["receipts"] == 0
