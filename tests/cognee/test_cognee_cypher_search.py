"""Cypher through Cognee, end to end, on anatid and on LadybugDB (issue 35).

Both backends run :mod:`tests.cognee.cypher_search_scenarios` in their own process: add +
cognify with the fake LLM, then ``SearchType.CYPHER``, ``NATURAL_LANGUAGE`` (the fake LLM
writes the Cypher), ``FEELING_LUCKY`` (the fake LLM picks CYPHER), and Cognee's own functions
that query the graph engine. What the user gets is compared between the two, and checked
against the graph Cognee's non-Cypher reads return. Where anatid answers differently on
purpose, the test says which answer each gives and why.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("cognee")
pytest.importorskip("ladybug")
pytest.importorskip("lancedb")

from tests.cognee.cypher_search_scenarios import USER_QUERIES  # noqa: E402

REPO = Path(__file__).resolve().parents[2]
BACKENDS = ("ladybug", "anatid")
#: User queries whose answers differ on purpose (each has its own test below).
DIFFERING = {"optional", "properties_blob"}


def _run(backend: str, root: Path) -> dict[str, Any]:
    workdir = root / backend
    workdir.mkdir()
    out = root / f"{backend}.json"
    proc = subprocess.run(
        [sys.executable, "-m", "tests.cognee.cypher_search_scenarios", backend, str(workdir)]
        + [str(out)],
        cwd=REPO,
        env={**os.environ, "PYTHONPATH": str(REPO)},
        capture_output=True,
        text=True,
        timeout=600,
    )
    if proc.returncode != 0 or not out.exists():
        pytest.fail(f"{backend} run failed ({proc.returncode}):\n{proc.stderr[-6000:]}")
    return json.loads(out.read_text())["results"]


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> dict[str, dict[str, Any]]:
    root = tmp_path_factory.mktemp("cognee-cypher")
    with ThreadPoolExecutor(max_workers=2) as pool:
        return dict(zip(BACKENDS, pool.map(lambda b: _run(b, root), BACKENDS), strict=True))


def plain(value: Any) -> Any:
    """Encoded data (tests/cognee/differential/encoding.py) back as plain lists and values."""
    if isinstance(value, list):
        return [plain(v) for v in value]
    if isinstance(value, dict):
        for tag in ("$tuple", "$unordered"):
            if tag in value:
                return [plain(v) for v in value[tag]]
        if "$uuid" in value:
            return value["$uuid"]
        return {k: plain(v) for k, v in value.items()}
    return value


def seen(result: Any) -> Any:
    """What the user reads from a search: each dataset's rows (its id is generated per run)."""
    if isinstance(result, dict) and "$error" in result:
        return result
    assert [r["dataset_name"] for r in result] == ["notes"]
    return [r["search_result"] for r in result]


def rows(run: dict[str, Any], step: str) -> list[list[Any]]:
    (found,) = plain(seen(run[step]))
    return found


def test_both_runs_cognified(runs):
    assert runs["anatid"]["cognify"] == runs["ladybug"]["cognify"] == "ok"


def test_cypher_search_returns_the_rows_of_the_query(runs):
    anatid = runs["anatid"]
    assert rows(anatid, "cypher.entity_names") == [["acme"], ["alice"]]
    assert rows(anatid, "cypher.works_at") == [["alice", "works_at", "acme"]]
    assert rows(anatid, "cypher.types") == [
        ["DocumentChunk", 2],
        ["Entity", 2],
        ["EntityType", 2],
        ["TextDocument", 2],
        ["TextSummary", 2],
    ]
    assert rows(anatid, "cypher.entity_of_type") == [["acme", "organization"], ["alice", "person"]]
    assert rows(anatid, "cypher.no_rows") == []


def test_cypher_search_rows_equal_ladybugs_with_their_types(runs):
    for name in sorted(set(USER_QUERIES) - DIFFERING):
        step = f"cypher.{name}"
        assert seen(runs["anatid"][step]) == seen(runs["ladybug"][step]), step


def test_cypher_rows_match_what_cognees_own_reads_return(runs):
    """The Cypher answers agree with get_graph_data (no Cypher) on the same backend."""
    anatid = runs["anatid"]
    nodes = plain(anatid["graph.nodes"])
    edges = plain(anatid["graph.edges"])
    types = Counter(t for _, t, _ in nodes)
    assert rows(anatid, "cypher.types") == [[t, n] for t, n in sorted(types.items())]
    rels = Counter(rel for _, _, rel in edges)
    assert rows(anatid, "cypher.rels") == [[r, n] for r, n in sorted(rels.items())]


def test_properties_column_holds_the_same_fields_in_canonical_order(runs):
    """anatid writes the JSON blob with sorted keys (docs/drivers/cognee.md, property-key-order);
    the fields and values are LadybugDB's, but for the write times of each run."""
    blobs = {b: json.loads(rows(runs[b], "cypher.properties_blob")[0][0]) for b in BACKENDS}
    for blob in blobs.values():
        del blob["created_at"], blob["updated_at"]
    assert blobs["anatid"] == blobs["ladybug"]
    raw = rows(runs["anatid"], "cypher.properties_blob")[0][0]
    assert list(json.loads(raw)) == sorted(json.loads(raw))


def test_collect_of_no_match_is_an_empty_list_where_ladybug_gives_null(runs):
    """openCypher (Neo4j): collect() of only nulls is []; Kuzu/LadybugDB answer null
    (tests/core/cypher/DIFFERENCES.md). anatid follows openCypher."""
    assert rows(runs["anatid"], "cypher.optional") == [["acme", []], ["alice", ["acme"]]]
    assert rows(runs["ladybug"], "cypher.optional") == [["acme", None], ["alice", ["acme"]]]


def _edge_keys(prompt: str) -> set[str]:
    return set(re.findall(r"\('(\w+)',\)", prompt))


def test_natural_language_runs_the_cypher_the_llm_wrote(runs):
    anatid, ladybug = runs["anatid"], runs["ladybug"]
    assert rows(anatid, "natural_language") == [["alice", "acme"]]
    assert seen(anatid["natural_language"]) == seen(ladybug["natural_language"])
    # One LLM call: the first query it wrote found rows. Its prompt carries the result of
    # the retriever's edge-schema query: the EDGE table's columns on both backends.
    (prompt,) = anatid["natural_language.llm"]
    (reference,) = ladybug["natural_language.llm"]
    assert _edge_keys(prompt) == _edge_keys(reference)
    assert {"relationship_name", "properties", "source_ref_keys"} <= _edge_keys(prompt)


def test_feeling_lucky_runs_cypher_when_the_llm_picks_it(runs):
    for backend in BACKENDS:
        assert runs[backend]["feeling_lucky.llm"] == ["CYPHER"]
    assert rows(runs["anatid"], "feeling_lucky") == [["acme"], ["alice"]]
    assert seen(runs["anatid"]["feeling_lucky"]) == seen(runs["ladybug"]["feeling_lucky"])


def test_natural_language_schema_queries_describe_the_node_and_edge_tables(runs):
    """The retriever's two schema queries (MATCH (n) UNWIND keys(n) ... / keys(r)). Differences:
    labels() is a list on anatid (openCypher) and a string on LadybugDB; LadybugDB's
    GraphMetadata table is a node table there (and its key/value columns join every node's
    keys), while anatid keeps Cognee's metadata out of the graph Cypher sees."""
    (a_nodes, a_edges) = plain(runs["anatid"]["host.nl_schema"])
    (l_nodes, l_edges) = plain(runs["ladybug"]["host.nl_schema"])
    assert [labels for labels, _ in a_nodes] == [["Node"]]
    assert sorted(label for label, _ in l_nodes) == ["GraphMetadata", "Node"]
    ((_, a_keys),) = a_nodes
    l_keys = dict(l_nodes)["Node"]
    assert a_keys == [k for k in l_keys if k not in ("key", "value")]
    assert sorted(map(tuple, a_edges)) == sorted(map(tuple, l_edges))


def _degree_oracle(run: dict[str, Any], top_k: int) -> list[str]:
    degree: Counter[str] = Counter()
    for src, dst, _ in plain(run["graph.edges"]):
        degree[src] += 1
        degree[dst] += 1
    ranked = sorted(degree, key=lambda i: (-degree[i], i))
    isolated = [i for i, _, _ in plain(run["graph.nodes"]) if i not in degree]
    return (ranked + isolated)[:top_k]


def _described(run: dict[str, Any], ids: list[str]) -> list[tuple[str, str]]:
    names = {i: (t, n) for i, t, n in plain(run["graph.nodes"])}
    return [names[i] for i in ids]


def test_degree_seeds_rank_nodes_by_degree_like_ladybug(runs):
    """cypher_degree_seeds (Cognee's visualisation seeds; LadybugDB's get_top_degree_node_ids
    sends it) on anatid's query(): the top nodes by degree, then the isolated ones."""
    for backend in BACKENDS:
        run = runs[backend]
        assert plain(run["host.degree_seeds"]) == _degree_oracle(run, 4), backend
        every = plain(run["host.degree_seeds_all"])
        assert every[: len(_degree_oracle(run, 500))] == _degree_oracle(run, 500)[: len(every)]
        assert sorted(every) == sorted(i for i, _, _ in plain(run["graph.nodes"]))
    # Document and chunk ids depend on each run's user: compare what the seeds are.
    described = {
        b: sorted(_described(runs[b], plain(runs[b]["host.degree_seeds_all"]))) for b in BACKENDS
    }
    assert described["anatid"] == described["ladybug"]


def test_namespace_migration_edge_listing_finds_the_edges_present(runs):
    for backend in BACKENDS:
        assert plain(runs[backend]["host.edges_needing_reassert"]) == [["x", "y", "gone"]]


def test_health_check_query_runs(runs):
    assert runs["anatid"]["host.health"] == runs["ladybug"]["host.health"]
    assert str(runs["anatid"]["host.health"]).lower() == "healthy"


def test_writes_are_refused_and_leave_the_graph_as_it_was(runs):
    """LadybugDB runs the provenance re-key's SET statements and a user's DETACH DELETE;
    anatid's Cypher only reads: the re-key falls back to Cognee's generic path, and the
    search fails with Cognee's CypherSearchError, the graph unchanged."""
    assert runs["ladybug"]["host.rekey_fast_move"] is True
    assert runs["anatid"]["host.rekey_fast_move"] is False
    assert runs["anatid"]["cypher.write"]["$error"] == "CypherSearchError"
    # Cognee replaces every adapter error with one fixed sentence; ours is the error's cause
    # (raise ... from), which a Python caller reads and Cognee's log line shows.
    assert "An error occurred during the execution" in runs["anatid"]["cypher.write"]["message"]
    cause = runs["anatid"]["cypher.write"]["cause"]
    assert "DETACH DELETE writes, at line 1" in cause and "nothing was written" in cause, cause
    assert rows(runs["anatid"], "cypher.after_write") == rows(runs["anatid"], "cypher.types")
    assert rows(runs["ladybug"], "cypher.after_write") == []


#: Cognee's modules that send Cypher to a graph engine's query(), outside the adapters of
#: other backends, and where this file covers each (or why it cannot reach anatid).
HOST_QUERIES = {
    "modules/retrieval/cypher_search_retriever.py": "cypher.* steps",
    "modules/retrieval/natural_language_retriever.py": "natural_language, host.nl_schema",
    "infrastructure/databases/graph/degree_seeds.py": "host.degree_seeds*",
    "modules/migrations/versions/namespace_entity_type_node_ids.py": "host.edges_needing_*",
    "modules/migrations/versions/rekey_fork_document_ids.py": "host.rekey_fast_move",
    "api/v1/health/health.py": "host.health",
    # Runs only on a LadybugAdapter (isinstance check): LadybugDB's own schema migration.
    "modules/migrations/versions/ladybug_graph_provenance_columns.py": "not reachable",
}
_OTHER_BACKENDS = re.compile(
    r"^(tests/|infrastructure/databases/(graph/(kuzu|ladybug|neo4j_driver|neptune_driver|"
    r"postgres_demo|turso)/|hybrid/|vector/))"
)


def test_every_module_sending_cypher_to_the_graph_engine_is_covered():
    import cognee

    root = Path(cognee.__file__).parent
    sending = set()
    for path in root.rglob("*.py"):
        rel = path.relative_to(root).as_posix()
        if _OTHER_BACKENDS.match(rel):
            continue
        code = [
            ln
            for ln in path.read_text(encoding="utf-8").splitlines()
            if not ln.lstrip().startswith("#")
        ]
        if any(re.search(r"\b(graph_engine|engine|adapter)\.query\(", ln) for ln in code):
            sending.add(rel)
    assert sending == set(HOST_QUERIES)
