"""``cognee.update()`` of one edited document on anatid and on LadybugDB + LanceDB (issue 35).

Each backend runs tests/cognee/incremental_update_runner.py in its own process: add a
document of four paragraphs, cognify it into eight chunks, then update it with the third
paragraph rewritten longer (two chunks out, six in, the two after them renumbered). LLM calls
go to the fake OpenAI server on 127.0.0.1 and are counted there. On anatid the update must be
chunk-level, as on LadybugDB: the same LLM calls (two per fresh chunk, not the whole document
again), the same counters, and the same graph afterwards.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("cognee")
pytest.importorskip("ladybug")
pytest.importorskip("lancedb")

from tests.cognee.incremental_update_runner import NEW_PARAGRAPH, OLD_PARAGRAPH  # noqa: E402

REPO = Path(__file__).resolve().parents[2]
BACKENDS = ("ladybug", "anatid")
#: What update() reports about the work it did (ids and timings differ by run).
COUNTERS = (
    "status",
    "regions",
    "deleted_chunks",
    "added_chunks",
    "reused_chunks",
    "redated_chunks",
    "kept_chunks",
    "reindexed_chunks",
    "total_chunks",
    "fallback",
)


def _run(backend: str, root: Path) -> dict[str, Any]:
    workdir = root / backend
    workdir.mkdir()
    out = root / f"{backend}.json"
    proc = subprocess.run(
        [sys.executable, "-m", "tests.cognee.incremental_update_runner", backend, str(workdir)]
        + [str(out)],
        cwd=REPO,
        env={**os.environ, "PYTHONPATH": _pythonpath()},
        capture_output=True,
        text=True,
        timeout=600,
    )
    if proc.returncode != 0 or not out.exists():
        pytest.fail(f"{backend} run failed ({proc.returncode}):\n{proc.stderr[-6000:]}")
    return json.loads(out.read_text())


def _pythonpath() -> str:
    """The repository first, then the caller's path (a worktree's drivers, say: the editable
    install points at the main checkout's)."""
    inherited = os.environ.get("PYTHONPATH", "")
    return os.pathsep.join([str(REPO), *([inherited] if inherited else [])])


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> dict[str, dict[str, Any]]:
    root = tmp_path_factory.mktemp("cognee-incremental-update")
    with ThreadPoolExecutor(max_workers=2) as pool:
        return dict(zip(BACKENDS, pool.map(lambda b: _run(b, root), BACKENDS), strict=True))


def test_the_engines_are_the_ones_compared(runs):
    assert runs["anatid"]["after_update"]["engine"] == "AnatidGraphAdapter"
    assert runs["ladybug"]["after_update"]["engine"] == "LadybugAdapter"


def test_update_on_anatid_is_chunk_level_not_a_full_rebuild(runs):
    result = runs["anatid"]["update"]
    assert result["status"] == "incremental", result.get("fallback")
    assert result["fallback"] is None
    # The edit moved the chunks after it: update_chunk_index and update_payload ran.
    assert result["reindexed_chunks"] > 0
    reference = runs["ladybug"]["update"]
    assert {k: result[k] for k in COUNTERS} == {k: reference[k] for k in COUNTERS}


def test_update_makes_as_many_llm_calls_as_on_ladybug(runs):
    anatid, ladybug = runs["anatid"], runs["ladybug"]
    assert anatid["cognify_calls"] == ladybug["cognify_calls"]
    assert anatid["update_calls"] == ladybug["update_calls"]
    # Only the fresh chunks are extracted and summarised, not the whole document again.
    assert 0 < anatid["update_calls"] < anatid["cognify_calls"]


def test_graph_after_the_update_agrees_with_ladybug(runs):
    anatid, ladybug = runs["anatid"]["after_update"], runs["ladybug"]["after_update"]
    assert anatid["nodes"] == ladybug["nodes"]
    assert anatid["edges"] == ladybug["edges"]
    assert anatid["chunks"] == ladybug["chunks"]
    # The chunks' vector rows carry the same positions. Their text is compared stripped:
    # anatid's index_data_points stores the embeddable (stripped) text where LanceDB keeps
    # the chunk's own, a difference that predates incremental updates.
    assert _stripped(anatid["chunk_rows"]) == _stripped(ladybug["chunk_rows"])
    assert [index for index, _ in anatid["chunk_rows"]] == list(range(len(anatid["chunks"])))


def test_the_old_paragraph_is_gone_and_the_new_one_is_there(runs):
    for backend in BACKENDS:
        before, after = runs[backend]["after_cognify"], runs[backend]["after_update"]
        assert OLD_PARAGRAPH in _text(before["chunks"])
        text = _text(after["chunks"])
        assert OLD_PARAGRAPH not in text, backend
        assert NEW_PARAGRAPH in text, backend
        assert not any("Carol" in label for label in after["nodes"]), backend
        assert not any("Carol" in t for _, t in after["chunk_rows"]), backend


def _text(chunks: list[list[Any]]) -> str:
    return "".join(text for _, text in sorted(chunks))


def _stripped(rows: list[list[Any]]) -> list[tuple[int, str]]:
    return [(index, text.strip()) for index, text in rows]
