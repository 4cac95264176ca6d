"""Cognee end to end on anatid, offline: each scenario runs in its own process.

See e2e_scenarios.py for what each scenario does. Cognee's process-wide caches and context
variables would leak between scenarios in one interpreter, hence the subprocesses.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
ANATID = str(Path(sys.executable).parent / "anatid")


def run_scenario(name: str, workdir: Path) -> dict:
    proc = subprocess.run(
        [sys.executable, "-m", "tests.cognee.e2e_scenarios", name, str(workdir)],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=600,
        env={**os.environ, "PYTHONPATH": str(REPO)},
    )
    lines = [line for line in proc.stdout.splitlines() if line.startswith("RESULT ")]
    if proc.returncode != 0 or not lines:
        pytest.fail(f"scenario {name} failed ({proc.returncode}):\n{proc.stderr[-6000:]}")
    return json.loads(lines[-1][len("RESULT ") :])


def first_text(results: str) -> str:
    return json.loads(results)[0]["text"]


@pytest.fixture(scope="module")
def single_user(tmp_path_factory) -> tuple[dict, Path]:
    workdir = tmp_path_factory.mktemp("single_user")
    return run_scenario("single_user", workdir), workdir


def test_cognee_selects_anatid_for_graph_and_vectors_in_one_store(single_user):
    out, _ = single_user
    assert out["graph_class"] == "AnatidGraphAdapter"
    assert out["vector_class"] == "AnatidVectorAdapter"
    assert out["same_store"] is True
    # 2 documents, 2 chunks, 5 entities, 2 entity types, 2 dates, 2 node sets
    assert out["counts"][0] == 15
    assert "DocumentChunk_text" in out["collections"] and "Entity_name" in out["collections"]


def test_offline_search_types(single_user):
    out, _ = single_user
    assert first_text(out["chunks"]).startswith("Alice works at Acme")
    assert first_text(out["lexical"]).startswith("Bob grows green apples")
    graph_context = json.loads(out["graph_completion"])[0]
    assert "alice --[is_a]--> person" in graph_context
    assert "Bob grows green apples" in json.loads(out["rag_completion"])[0]
    hybrid = json.loads(out["hybrid_completion"])[0]
    assert hybrid.index("Alice works at Acme") < hybrid.index("Bob grows")
    assert "### alice (person)" in hybrid
    nodeset = json.loads(out["nodeset_completion"])[0]
    assert "Bob grows green apples" in nodeset and "Alice" not in nodeset
    temporal = json.loads(out["temporal"])[0]
    assert temporal.index("Alice works at Acme") < temporal.index("Bob grows")


def test_add_and_custom_pipeline_then_prune_and_rerun(single_user):
    out, _ = single_user
    assert out["after_pipeline_counts"][0] > out["counts"][0]
    assert out["as_of_before_pipeline"] == out["counts"]
    assert first_text(out["pipeline_search"]).startswith("Bob grows")
    assert out["after_prune_counts"] == [0, 0]
    assert out["rerun_counts"] == out["counts"]
    assert first_text(out["rerun_chunks"]).startswith("Bob grows")


def test_reopen_in_a_new_process_sees_the_same_memory(single_user):
    before, workdir = single_user
    out = run_scenario("reopen", workdir)
    assert [out["nodes"], out["edges"]] == before["rerun_counts"]
    assert out["names"] == ["acme", "alice", "berlin", "bob", "hamburg"]
    assert out["top_chunk"].startswith("Bob grows")


@pytest.mark.parametrize("query", ["apples", "who grows apples"])
def test_anatid_search_finds_a_chunk_by_its_text(single_user, query):
    """A chunk's words are in ``props.text``; the driver puts them in the core's full text too,
    so the command line finds what Cognee's CHUNKS search does (issue 44)."""
    _, workdir = single_user
    proc = subprocess.run(
        [ANATID, "search", str(workdir / "memory.duckdb"), query],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    first = proc.stdout.splitlines()[1]  # the header, then the best hit
    assert "DocumentChunk" in first and "Bob grows green apples" in first


def test_two_users_datasets_are_isolated_files_with_access_control(tmp_path):
    out = run_scenario("two_users", tmp_path)
    ann = json.loads(out["ann"])
    ben = json.loads(out["ben"])
    assert [r["text"][:5] for d in ann for r in d["search_result"]] == ["Alice"]
    assert [r["text"][:3] for d in ben for r in d["search_result"]] == ["Bob"]
    assert len(out["files"]) == 2

    # Ben's delete went through graph provenance and left Ann alone.
    assert json.loads(out["ben_after_delete"])[0]["search_result"] == []
    assert out["ben_file_after_delete"]["graph_nodes"] == 0
    assert out["ben_file_after_delete"]["metadata"]["delete_mode"] == "graph_native"
    assert json.loads(out["ann_after_delete"])[0]["search_result"][0]["text"].startswith("Alice")
    assert out["files_after_prune"] == []


def test_two_processes_share_a_dataset_with_access_control_on(tmp_path):
    """Two Cognee processes add to one dataset at once (issue 11): with access control on that
    is the dataset's own anatid file, and both also open the global file."""
    run_scenario("shared_setup", tmp_path)
    procs = [
        subprocess.Popen(
            [sys.executable, "-m", "tests.cognee.e2e_scenarios", "shared_writer", str(tmp_path)],
            cwd=REPO,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env={**os.environ, "PYTHONPATH": str(REPO), "ANATID_WRITER": str(w)},
        )
        for w in range(2)
    ]
    for proc in procs:
        out, err = proc.communicate(timeout=600)
        assert proc.returncode == 0, err[-6000:]
        assert '"done"' in out
    result = run_scenario("shared_check", tmp_path)
    assert all(result["found"].values()), result["found"]
    assert len(result["files"]) == 1  # one dataset, one file, written by both processes
