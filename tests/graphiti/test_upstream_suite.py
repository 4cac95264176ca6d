"""Graphiti 0.31.2's own driver tests (test_graphiti_mock, test_node_int, test_edge_int) pass
against GraphitiDriver, the three tests of helpers that send raw Cypher through no hook
(``upstream.RAW_CYPHER_TESTS``) included: their Neo4j queries run on the core's Cypher engine."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections import Counter

import pytest

from . import upstream
from .differential.references import cache_root


@pytest.fixture(scope="module")
def suite_result(tmp_path_factory):
    # The sdist is kept under the tests' cache root (shared with the migrate tests and the
    # differential harness), not in pytest's cache: ``-p no:cacheprovider`` must work too.
    cache = cache_root() / "graphiti-core-sdist"
    try:
        sdist = upstream.sdist_path(cache)
    except FileNotFoundError as exc:
        pytest.skip(f"Graphiti's test suite is not available offline: {exc}")
    workdir = tmp_path_factory.mktemp("graphiti-suite")
    root = upstream.prepare(sdist, workdir)
    junit = workdir / "junit.xml"
    done = upstream.run_suite(root, junit)
    outcomes: dict[str, str] = {}
    if junit.exists():
        for case in ET.parse(junit).getroot().iter("testcase"):
            name = case.get("name", "")
            if case.find("failure") is not None or case.find("error") is not None:
                outcome = "failed"
            elif (skipped := case.find("skipped")) is not None:
                outcome = "xfailed" if skipped.get("type") == "pytest.xfail" else "skipped"
            else:
                outcome = "passed"
            outcomes[name] = outcome
    return done, outcomes


def test_graphiti_suite_runs_green(suite_result):
    done, outcomes = suite_result
    report = done.stdout[-6000:] + done.stderr[-2000:]
    assert done.returncode == 0, report
    counts = Counter(outcomes.values())
    assert counts["passed"] >= 35, (counts, report)
    assert counts["skipped"] == 0, (counts, report)


def test_the_raw_cypher_helpers_pass_and_nothing_is_an_expected_failure(suite_result):
    _, outcomes = suite_result
    assert [name for name, o in outcomes.items() if o == "xfailed"] == []
    for test in upstream.RAW_CYPHER_TESTS:
        runs = {name: o for name, o in outcomes.items() if name.split("[")[0] == test}
        assert runs and set(runs.values()) == {"passed"}, (test, runs)
