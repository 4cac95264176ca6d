"""Cognee's HTTP API server on anatid, configured by ``.env`` alone (issue 12).

``uvicorn cognee.api.client:app``, and ``gunicorn`` with uvicorn workers, run in a subprocess
on a free port of 127.0.0.1, in a
project directory whose ``.env`` sets the two provider keys, offline settings and the default
user's password. The LLM and the embeddings are the fake OpenAI server, so ``cognify`` really
runs (chunking, graph extraction, summaries, embeddings) end to end through HTTP. Then
SIGTERM: every anatid file must be closed (no WAL) and pass ``anatid check``.
"""

from __future__ import annotations

import signal
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.cognee.cognee_processes import (
    GUNICORN,
    UVICORN,
    Server,
    anatid_files,
    check_file,
    offline_dotenv,
)
from tests.cognee.fake_openai import FakeOpenAI, serve_fake_openai

PASSWORD = "anatid-test-password"
USER = "default_user@example.com"
NOTE = "Alice works at Acme."


@pytest.fixture
def fake_llm() -> Iterator[FakeOpenAI]:
    with serve_fake_openai() as fake:
        yield fake


@pytest.fixture(params=["uvicorn", "gunicorn"])
def server(
    request: pytest.FixtureRequest, tmp_path: Path, fake_llm: FakeOpenAI
) -> Iterator[Server]:
    """The API server, launched as users do: ``uvicorn`` or ``gunicorn`` with uvicorn workers."""
    offline_dotenv(tmp_path, fake_llm.url, DEFAULT_USER_PASSWORD=PASSWORD)
    running = Server(tmp_path, {"uvicorn": UVICORN, "gunicorn": GUNICORN}[request.param])
    try:
        yield running
    finally:
        if running.process.poll() is None:
            running.process.kill()
            running.process.wait()


def login(client: httpx.Client) -> None:
    token = client.post("/api/v1/auth/login", data={"username": USER, "password": PASSWORD})
    assert token.status_code == 200, token.text
    client.headers["Authorization"] = f"Bearer {token.json()['access_token']}"


def _search(client: httpx.Client, search_type: str, **extra: object) -> list[dict]:
    found = client.post(
        "/api/v1/search",
        json={"query": "Where does Alice work?", "search_type": search_type, "datasets": ["notes"]}
        | extra,
    )
    assert found.status_code == 200, found.text
    return found.json()


def test_api_server_add_cognify_search_graph_then_sigterm_closes_every_file(
    tmp_path: Path, server: Server, fake_llm: FakeOpenAI
):
    server.wait_ready()
    with httpx.Client(base_url=server.url, timeout=600) as client:
        health = client.get("/health/detailed").json()
        assert health["status"] == "healthy", health
        for component in ("graph_db", "vector_db"):
            assert health["components"][component]["provider"] == "anatid"
            assert health["components"][component]["status"] == "healthy"

        login(client)
        added = client.post(
            "/api/v1/add",
            files={"data": ("note.txt", NOTE.encode(), "text/plain")},
            data={"datasetName": "notes"},
        )
        assert added.status_code == 200, added.text
        assert added.json()["status"] == "PipelineRunCompleted"

        cognified = client.post("/api/v1/cognify", json={"datasets": ["notes"]})
        assert cognified.status_code == 200, cognified.text
        assert [run["status"] for run in cognified.json().values()] == ["PipelineRunCompleted"]
        assert {"KnowledgeGraph", "SummarizedContent"} <= set(fake_llm.schema_names())

        (chunks,) = _search(client, "CHUNKS")
        assert NOTE in [hit["text"] for hit in chunks["search_result"]]
        (context,) = _search(client, "GRAPH_COMPLETION", only_context=True)
        assert "alice --[works_at]--> acme" in str(context["search_result"])

        (dataset,) = [d for d in client.get("/api/v1/datasets").json() if d["name"] == "notes"]
        graph = client.get(f"/api/v1/datasets/{dataset['id']}/graph").json()
        labels = {node["label"] for node in graph["nodes"]}
        assert {"alice", "acme"} <= labels
        assert "works_at" in {edge["label"] for edge in graph["edges"]}

    # Access control is on by default: the dataset has its own file, under its owner's folder.
    dataset_file = tmp_path / "system" / "databases" / dataset["ownerId"]
    assert (dataset_file / f"{dataset['id']}.anatid.duckdb").is_file()

    server.terminate()
    assert "Application shutdown complete" in server.output()
    _assert_every_file_closed_and_healthy(tmp_path)


def _assert_every_file_closed_and_healthy(project: Path) -> None:
    files = anatid_files(project)
    assert files
    for path in files:
        checked = check_file(path)
        assert checked.returncode == 0, checked.stdout + checked.stderr
        assert not Path(f"{path}.wal").exists(), f"{path} left open: WAL present after shutdown"


def test_ctrl_c_also_closes_every_file(tmp_path: Path, fake_llm: FakeOpenAI):
    offline_dotenv(tmp_path, fake_llm.url, DEFAULT_USER_PASSWORD=PASSWORD)
    server = Server(tmp_path, UVICORN)
    try:
        server.wait_ready()
        with httpx.Client(base_url=server.url, timeout=600) as client:
            health = client.get("/health/detailed").json()
            assert health["components"]["graph_db"]["provider"] == "anatid", health
            login(client)
            added = client.post(
                "/api/v1/add",
                files={"data": ("note.txt", NOTE.encode(), "text/plain")},
                data={"datasetName": "notes"},
            )
            assert added.status_code == 200, added.text
        assert list((tmp_path / "system" / "databases").glob("*/*.anatid.duckdb"))
        server.terminate(signal.SIGINT)
    finally:
        if server.process.poll() is None:
            server.process.kill()
            server.process.wait()
    assert "Application shutdown complete" in server.output()
    _assert_every_file_closed_and_healthy(tmp_path)
