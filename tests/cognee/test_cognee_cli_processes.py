"""``cognee-cli`` picks anatid from ``.env`` alone: no ``import anatid_cognee`` anywhere (issue 12).

Real ``cognee-cli`` processes, one at a time, in a project directory whose ``.env`` sets the two
provider keys plus offline settings; the LLM and the embeddings are the fake OpenAI server on
127.0.0.1. Backend access control is left at Cognee's default (on) and the dataset handler keys
unset: the handlers follow from the provider.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.cognee.cognee_processes import (
    anatid_files,
    check_file,
    child_env,
    offline_dotenv,
    run_cli,
)
from tests.cognee.fake_openai import FakeOpenAI, serve_fake_openai


@pytest.fixture(scope="module")
def fake_llm() -> Iterator[FakeOpenAI]:
    with serve_fake_openai() as fake:
        yield fake


def _output(result) -> str:
    return result.stdout + result.stderr


def _assert_ok(result) -> None:
    assert result.returncode == 0, _output(result)[-4000:]


def _assert_files_closed_and_healthy(project: Path) -> list[Path]:
    files = anatid_files(project)
    assert files, "Cognee created no anatid file"
    for path in files:
        checked = check_file(path)
        assert checked.returncode == 0, checked.stdout + checked.stderr
        assert not Path(f"{path}.wal").exists(), f"{path} was left open (WAL present)"
    return files


def test_cli_add_cognify_search_doctor_demo_delete_run_on_anatid(
    tmp_path: Path, fake_llm: FakeOpenAI
):
    offline_dotenv(tmp_path, fake_llm.url)

    _assert_ok(run_cli(tmp_path, "add", "Alice works at Acme."))
    # Access control is on: the dataset got its own anatid file under its owner's folder.
    dataset_files = list((tmp_path / "system" / "databases").glob("*/*.anatid.duckdb"))
    assert len(dataset_files) == 1

    _assert_ok(run_cli(tmp_path, "cognify"))
    assert {"KnowledgeGraph", "SummarizedContent"} <= set(fake_llm.schema_names())

    found = run_cli(tmp_path, "search", "Where does Alice work?", "-t", "CHUNKS", "-f", "json")
    _assert_ok(found)
    results = json.loads(found.stdout[found.stdout.index("[") :])
    texts = [hit["text"] for per_dataset in results for hit in per_dataset["search_result"]]
    assert "Alice works at Acme." in texts

    doctor = run_cli(tmp_path, "doctor")
    _assert_ok(doctor)
    assert "graph_db (anatid" in doctor.stdout and "vector_db (anatid" in doctor.stdout

    demo = run_cli(tmp_path, "demo")
    _assert_ok(demo)
    assert "Demo graph loaded into dataset 'demo'" in _output(demo)
    assert len(list((tmp_path / "system" / "databases").glob("*/*.anatid.duckdb"))) == 2

    deleted = run_cli(tmp_path, "delete", "-d", "demo", "--force")
    _assert_ok(deleted)
    assert "Successfully deleted dataset 'demo'" in _output(deleted)
    # The demo dataset's file went with it; the notes dataset's file stays.
    assert list((tmp_path / "system" / "databases").glob("*/*.anatid.duckdb")) == dataset_files

    files = _assert_files_closed_and_healthy(tmp_path)
    graph = check_file(dataset_files[0]).stdout
    assert "0 nodes" not in graph  # cognify wrote the extracted graph into the dataset's file
    assert not any(p.name.startswith("cognee_graph_ladybug") for p in files)
    assert not (tmp_path / "system" / "databases" / "cognee.lancedb").exists()


def test_with_the_hook_turned_off_cognee_does_not_know_anatid(tmp_path: Path, fake_llm: FakeOpenAI):
    offline_dotenv(tmp_path, fake_llm.url)
    doctor = run_cli(tmp_path, "doctor", env=child_env(ANATID_COGNEE_HOOK="0"))
    assert doctor.returncode == 1
    assert "Unsupported graph database provider" in _output(doctor)
    assert anatid_files(tmp_path) == []


def test_an_unknown_handler_name_gets_cognees_error_listing_the_anatid_handlers(
    tmp_path: Path, fake_llm: FakeOpenAI
):
    offline_dotenv(tmp_path, fake_llm.url, GRAPH_DATASET_DATABASE_HANDLER="anatid_grpah")
    added = run_cli(tmp_path, "add", "Alice works at Acme.")
    assert added.returncode != 0
    output = _output(added)
    assert "Unsupported graph dataset to database handler" in output
    assert "anatid_grpah" in output and "anatid_graph" in output
