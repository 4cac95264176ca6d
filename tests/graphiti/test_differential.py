"""GraphitiDriver against Graphiti's reference backends, side by side, through Graphiti's API.

The same scenarios (``differential/scenario.py``: add_episode, add_triplet, add_episode_bulk,
every search recipe, retrieve_episodes, the model getters, build_communities, remove_episode,
the deletes, clear_data) run on KuzuDriver (kuzu 0.11.3, in a private venv) and on FalkorDriver
over FalkorDB Lite (Python 3.12+, in a private venv), and on GraphitiDriver; what Graphiti
returned is compared value by value and type by type (``differential/compare.py``). Every
difference must be explained in ``compare.EXPLAINED``, each pointing at its entry under "Known
differences" in docs/drivers/graphiti.md.

The reference venvs are built once (cached, see ``differential/references.py``): without PyPI
or a Python 3.12+ interpreter the reference's tests skip with the reason, except under CI
(``CI`` set), where a reference that cannot be built fails. FalkorDB Lite compiles from source,
so its venv is built only on request (``ANATID_DIFF_FALKORDB=1``); once built it is always used.
"""

from __future__ import annotations

import copy
import os
import sys
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("graphiti_core")

from .differential import compare, references  # noqa: E402

DOCS = references.REPO / "docs" / "drivers" / "graphiti.md"


@pytest.fixture(scope="module")
def ours(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    work = tmp_path_factory.mktemp("differential-anatid")
    return compare.load(references.run_scenario(sys.executable, "anatid", work))


def _reference_python(ref: references.Reference) -> Path:
    try:
        return references.venv_python(ref)
    except references.ReferenceUnavailable as exc:
        no_interpreter = "interpreter found" in str(exc)
        not_asked = ref.opt_in is not None and ref.opt_in in str(exc)
        if os.environ.get("CI") and not (no_interpreter or not_asked):
            pytest.fail(str(exc))
        pytest.skip(str(exc))


@pytest.fixture(scope="module", params=sorted(references.REFERENCES))
def reference(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory):
    ref = references.REFERENCES[request.param]
    python = _reference_python(ref)
    work = tmp_path_factory.mktemp(f"differential-{ref.name}")
    return ref.name, compare.load(references.run_scenario(python, ref.name, work))


def test_no_unexplained_difference_from_the_reference(reference, ours):
    name, dump = reference
    left, _ = compare.explain(name, compare.differences(dump, ours))
    listing = "\n".join(str(d) for d in left[:40])
    assert not left, f"{len(left)} unexplained differences from {name}:\n{listing}"


def test_every_explanation_of_the_reference_is_still_needed(reference, ours):
    name, dump = reference
    _, used = compare.explain(name, compare.differences(dump, ours))
    stale = [e.key for e in compare.EXPLAINED if name in e.references and e.key not in used]
    assert not stale, f"explained differences that no longer occur on {name}: {stale}"


def test_both_sides_ran_every_step_and_ours_raised_only_for_missing_records(reference, ours):
    name, dump = reference
    assert [s["step"] for s in dump["steps"]] == [s["step"] for s in ours["steps"]]
    errors = {
        (s["step"].rsplit("/", 1)[-1] == "missing", s["result"]["$error"])
        for s in ours["steps"]
        if isinstance(s["result"], dict) and "$error" in s["result"]
    }
    # NotFound for the missing uuids; Graphiti's own error for a group without edges.
    allowed = {(True, "NodeNotFoundError"), (True, "EdgeNotFoundError")}
    allowed.add((False, "GroupsEdgesNotFoundError"))
    assert errors and errors <= allowed, errors


def test_every_explanation_points_at_a_known_differences_entry():
    text = DOCS.read_text()
    known = text[text.index("## Known differences") :]
    missing = [e.key for e in compare.EXPLAINED if e.doc not in known]
    assert not missing, missing


def test_the_comparison_sees_a_changed_type_value_and_order(ours):
    """The harness can fail: a naive datetime, an int turned float, a dropped record are found."""
    assert compare.differences(ours, ours) == []
    changed = copy.deepcopy(ours)
    step = next(
        s for s in changed["steps"] if s["step"] == "after-ingest/EntityNode.get_by_group_ids/g1"
    )
    step["result"][0]["created_at"]["aware"] = False
    step["result"][1]["name"] = step["result"][1]["name"] + "!"
    edges = next(
        s for s in changed["steps"] if s["step"] == "after-ingest/EntityEdge.get_by_group_ids/g1"
    )
    edges["result"].pop()
    triplet = next(s for s in changed["steps"] if s["step"] == "add_triplet")
    triplet["result"]["edges"][0]["attributes"]["weight"] = 2.0
    found = compare.differences(ours, changed)
    paths = {(d.step, d.path.split(".")[-1]) for d in found}
    assert ("after-ingest/EntityNode.get_by_group_ids/g1", "aware") in paths
    assert ("after-ingest/EntityNode.get_by_group_ids/g1", "name") in paths
    assert ("after-ingest/EntityEdge.get_by_group_ids/g1", "len") in paths
    assert ("add_triplet", "weight") in paths
    left, _ = compare.explain("kuzu", found)
    assert left  # a naive datetime is explained only as the reference's, never as ours


def test_the_kuzu_venv_is_the_one_the_migrate_tests_build():
    """One cached venv for both: same directory, packages and check as setup_sources.sh."""
    script = (references.REPO / "tests" / "migrate" / "setup_sources.sh").read_text()
    kuzu = references.KUZU
    assert f'"$CACHE/{kuzu.venv}"' in script
    assert f'"{kuzu.check}"' in script
    assert " ".join(kuzu.packages) in script
