"""Cognee on its reference backends (LadybugDB + LanceDB) and on anatid, side by side.

Each backend runs every scenario of tests/cognee/differential/ in its own process and system
root; the typed outputs are normalised (generated ids, write times, each run's directory,
order where the API promises none) and compared value and type. Differences that must stay
are listed in differential/known.py, each pointing at docs/drivers/cognee.md.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("cognee")
pytest.importorskip("ladybug")
pytest.importorskip("lancedb")

from tests.cognee.differential.compare import differences, normalise_pair  # noqa: E402
from tests.cognee.differential.known import KNOWN, PENDING  # noqa: E402

REPO = Path(__file__).resolve().parents[2]
BACKENDS = ("ladybug", "anatid")


def _run(backend: str, root: Path) -> dict[str, Any]:
    workdir = root / backend
    workdir.mkdir()
    out = root / f"{backend}.json"
    proc = subprocess.run(
        [sys.executable, "-m", "tests.cognee.differential.runner", backend, str(workdir), str(out)],
        cwd=REPO,
        env={**os.environ, "PYTHONPATH": str(REPO)},
        capture_output=True,
        text=True,
        timeout=900,
    )
    if proc.returncode != 0 or not out.exists():
        pytest.fail(f"{backend} run failed ({proc.returncode}):\n{proc.stderr[-6000:]}")
    return json.loads(out.read_text())


@pytest.fixture(scope="module")
def compared(tmp_path_factory) -> dict[str, Any]:
    root = tmp_path_factory.mktemp("cognee-differential")
    with ThreadPoolExecutor(max_workers=2) as pool:
        ladybug, anatid = pool.map(lambda b: _run(b, root), BACKENDS)
    left, right = normalise_pair(
        ladybug["results"], anatid["results"], ladybug["root"], anatid["root"]
    )
    return {"left": left, "right": right, "diffs": differences(left, right)}


def _matches(path: str, pattern: str) -> bool:
    """``*`` matches anything; every other character (``[``, ``$``, ``.``) is literal."""
    return re.fullmatch(".*".join(map(re.escape, pattern.split("*"))), path) is not None


def _explained_by(path: str) -> str | None:
    for name, known in KNOWN.items():
        if any(_matches(path, p) for p in known.patterns):
            return name
    return None


def _show(diffs: list[tuple[str, Any, Any]]) -> str:
    return "\n".join(
        f"{p}\n  ladybug: {json.dumps(a)[:400]}\n  anatid:  {json.dumps(b)[:400]}"
        for p, a, b in diffs
    )


def test_both_backends_ran_every_step(compared):
    assert compared["left"].keys() == compared["right"].keys()
    assert len(compared["left"]) > 90


def test_no_unexplained_differences(compared):
    unexplained = [
        d for d in compared["diffs"] if d[0] not in PENDING and _explained_by(d[0]) is None
    ]
    assert not unexplained, "differences not in differential/known.py:\n" + _show(unexplained)


def test_every_known_difference_still_occurs(compared):
    used = {_explained_by(p) for p, _a, _b in compared["diffs"]}
    stale = sorted(set(KNOWN) - used)
    assert not stale, (
        f"known differences that no longer occur (remove them and their docs): {stale}"
    )


@pytest.mark.parametrize("step", sorted(PENDING))
def test_pending_difference(compared, step):
    left, right = compared["left"][step], compared["right"][step]
    if left != right:
        pytest.xfail(PENDING[step])
    # Strict: once the difference is gone, move the step out of PENDING.
    pytest.fail(f"{step} now matches the reference: remove it from PENDING")


def test_visualize_graph_renders_on_anatid(compared):
    """Issue 14: cognee.visualize_graph() raised TypeError (UUID not JSON serializable)."""
    html = compared["right"]["visualize.html"]
    assert "$error" not in html
    assert html == compared["left"]["visualize.html"]


def test_graph_reads_return_json_values_like_ladybug(compared):
    node = compared["right"]["datapoints.get_node"]
    assert node["published_at"] == "1843-09-01T12:30:00+00:00"
    assert node["isbn_uuid"] == "38ccd7ea-6a2e-55a0-b15a-921bc0294ba3"
    assert node["pair"] == [1, "one"] and node["price"] == 12.5
    assert node == compared["left"]["datapoints.get_node"]
