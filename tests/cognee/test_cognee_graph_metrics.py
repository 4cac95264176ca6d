"""get_graph_metrics(include_optional=True) on anatid (issue 35): diameter, average shortest
path length and average clustering, against Cognee's own ground truth and networkx.

The oracle is not LadybugDB: in Cognee 1.6.5 its optional metrics never come back (its
clustering query fails to bind, so the method returns its failure dict, counts zeroed; and its
path query only ever returns the single shortest length, slowly), which the last test pins.
The semantics followed are those of Cognee's working backends, Neo4j's GDS and the retired
networkx adapter, which Cognee's ``ground_truth_metrics.json`` was written for: edges undirected,
every pair of distinct nodes joined by a path, -1 where there is none (docs/drivers/cognee.md).
"""

from __future__ import annotations

import asyncio
import json
import random
from datetime import datetime, timezone
from importlib import resources
from pathlib import Path

import networkx as nx
import pytest
from anatid_cognee import AnatidGraphAdapter
from cognee.infrastructure.engine import DataPoint
from cognee.modules.graph.utils import deduplicate_nodes_and_edges, get_graph_from_model
from cognee.tests.tasks.descriptive_metrics import metrics_test_utils as cognee_fixture

OPTIONAL = ("num_selfloops", "diameter", "avg_shortest_path_length", "avg_clustering")


class Thing(DataPoint):
    name: str
    metadata: dict = {"index_fields": ["name"]}


@pytest.fixture
async def graph(tmp_path):
    adapter = AnatidGraphAdapter(graph_database_url=str(tmp_path / "g.duckdb"))
    yield adapter
    await adapter.close()


def _ground_truth() -> dict:
    folder = resources.files("cognee.tests.tasks.descriptive_metrics")
    return json.loads((folder / "ground_truth_metrics.json").read_text())


async def _write_models(graph, roots: list[DataPoint]) -> None:
    """What Cognee's add_data_points writes to the graph for ``roots``."""
    nodes, edges, added_nodes, added_edges = [], [], {}, {}
    for root in roots:
        n, e = await get_graph_from_model(
            root, added_nodes=added_nodes, added_edges=added_edges, visited_properties={}
        )
        nodes += n
        edges += e
    nodes, edges = deduplicate_nodes_and_edges(nodes, edges)
    await graph.add_nodes(nodes)
    await graph.add_edges(edges)


async def _write(graph, n: int, pairs: list[tuple[int, int, str]]) -> list[str]:
    things = [Thing(name=f"n{i}") for i in range(n)]
    if things:
        await graph.add_nodes(things)
    ids = [str(t.id) for t in things]
    if pairs:
        await graph.add_edges([(ids[s], ids[d], rel, {}) for s, d, rel in pairs])
    return ids


def _reference(n: int, pairs: list[tuple[int, int, str]]) -> dict:
    """The optional metrics by networkx: Cognee's networkx adapter's graphs (the undirected
    multigraph as a symmetric DiGraph), over the pairs joined by a path."""
    multi = nx.MultiDiGraph()
    multi.add_nodes_from(range(n))
    multi.add_edges_from((s, d) for s, d, _ in pairs)
    g = nx.DiGraph(multi.to_undirected())
    lengths = [
        d
        for source, found in nx.all_pairs_shortest_path_length(g)
        for target, d in found.items()
        if target != source
    ]
    if n and nx.is_strongly_connected(g) and n > 1:  # networkx's own verbs answer only then
        assert max(lengths) == nx.diameter(g)
        assert sum(lengths) / len(lengths) == nx.average_shortest_path_length(g)
    return {
        "num_selfloops": sum(1 for s, d, _ in pairs if s == d),
        "diameter": max(lengths) if lengths else -1,
        "avg_shortest_path_length": sum(lengths) / len(lengths) if lengths else -1,
        "avg_clustering": nx.average_clustering(g) if n else -1,
    }


def _assert_optional_equal(got: dict, expected: dict) -> None:
    for key in OPTIONAL:
        assert type(got[key]) is type(expected[key]), key  # int stays int, float float
        assert got[key] == pytest.approx(expected[key], rel=1e-12, abs=1e-15), key


async def test_cognee_ground_truth_graphs_give_cognees_expected_metrics(graph) -> None:
    """Cognee's own fixture graphs (tests/tasks/descriptive_metrics), every key equal."""
    truth = _ground_truth()
    doc = cognee_fixture.Document(path="test/path")
    chunk = cognee_fixture.DocumentChunk(part_of=doc, text="This is a chunk of text", contains=[])
    person = cognee_fixture.EntityType(name="Person")
    alice = cognee_fixture.Entity(name="Alice", is_type=person)
    alice2 = cognee_fixture.Entity(name="Alice2", is_type=person)
    chunk.contains.extend([alice, alice2, chunk])  # the self-loop is Cognee's, on purpose
    await _write_models(graph, [chunk])
    got = await graph.get_graph_metrics(include_optional=True)
    assert got == truth["connected"]
    assert isinstance(got["diameter"], int) and isinstance(got["avg_shortest_path_length"], float)


async def test_cognee_disconnected_ground_truth_without_optional_metrics(graph) -> None:
    truth = _ground_truth()["disconnected"]
    doc, doc2 = (cognee_fixture.Document(path=p) for p in ("test/path", "test/path2"))
    chunk = cognee_fixture.DocumentChunk(part_of=doc, text="This is a chunk of text", contains=[])
    chunk2 = cognee_fixture.DocumentChunk(part_of=doc2, text="This is a chunk of text", contains=[])
    person, person2 = (
        cognee_fixture.EntityType(name="Person"),
        cognee_fixture.EntityType(name="Person"),
    )
    chunk.contains.extend(
        [cognee_fixture.Entity(name=n, is_type=person) for n in ("Alice", "Alice2")]
    )
    chunk2.contains.append(cognee_fixture.Entity(name="Bob", is_type=person2))
    await _write_models(graph, [chunk, chunk2])
    assert await graph.get_graph_metrics() == truth
    optional = await graph.get_graph_metrics(include_optional=True)
    # Two components: the path lengths cover the joined pairs of both.
    assert optional["diameter"] == 3 and optional["avg_clustering"] == 0.0


#: (nodes, edges (src, dst, rel)): connected, disconnected, directed cycle, self-loops, parallel
#: edges of two rels, a triangle, isolated nodes, empty, a single node.
SHAPES: dict[str, tuple[int, list[tuple[int, int, str]]]] = {
    "empty": (0, []),
    "single node": (1, []),
    "single node with a self-loop": (1, [(0, 0, "r")]),
    "isolated nodes": (3, []),
    "directed cycle": (5, [(i, (i + 1) % 5, "r") for i in range(5)]),
    "triangle with a tail": (5, [(0, 1, "r"), (1, 2, "r"), (2, 0, "r"), (2, 3, "r"), (3, 4, "r")]),
    "two components": (6, [(0, 1, "r"), (1, 2, "r"), (3, 4, "r"), (4, 5, "r"), (5, 3, "r")]),
    "self-loops and parallel edges": (
        4,
        [(0, 0, "r"), (0, 1, "r"), (0, 1, "s"), (1, 0, "r"), (1, 2, "r"), (2, 3, "s"), (3, 3, "r")],
    ),
}


@pytest.mark.parametrize("shape", list(SHAPES))
async def test_optional_metrics_equal_networkx_on_generated_graphs(graph, shape) -> None:
    n, pairs = SHAPES[shape]
    await _write(graph, n, pairs)
    got = await graph.get_graph_metrics(include_optional=True)
    _assert_optional_equal(got, _reference(n, pairs))


@pytest.mark.parametrize("seed", range(6))
async def test_optional_metrics_equal_networkx_on_random_graphs(graph, seed) -> None:
    rng = random.Random(seed)
    n = rng.randint(2, 40)
    pairs = [
        (rng.randrange(n), rng.randrange(n), rng.choice("rs")) for _ in range(rng.randint(0, 2 * n))
    ]
    await _write(graph, n, pairs)
    got = await graph.get_graph_metrics(include_optional=True)
    _assert_optional_equal(got, _reference(n, pairs))


async def test_what_the_empty_and_single_node_graphs_give(graph) -> None:
    got = await graph.get_graph_metrics(include_optional=True)
    assert {k: got[k] for k in OPTIONAL} == dict.fromkeys(OPTIONAL[1:], -1) | {"num_selfloops": 0}
    await _write(graph, 1, [])
    got = await graph.get_graph_metrics(include_optional=True)
    # No pair of distinct nodes: no path length (-1, as the reference backends); clustering 0.
    assert (got["diameter"], got["avg_shortest_path_length"], got["avg_clustering"]) == (
        -1,
        -1,
        0.0,
    )
    assert (await graph.get_graph_metrics())["diameter"] == -1  # not asked for: not computed


async def test_optional_metrics_as_of_a_past_instant(graph) -> None:
    """A path of four, then a chord making a triangle: the as_of adapter still sees the path."""
    ids = await _write(graph, 4, [(0, 1, "r"), (1, 2, "r"), (2, 3, "r")])
    await asyncio.sleep(0.01)
    before = datetime.now(timezone.utc)
    await asyncio.sleep(0.01)
    await graph.add_edges([(ids[0], ids[2], "r", {})])
    now = await graph.get_graph_metrics(include_optional=True)
    past = await graph.as_of(before).get_graph_metrics(include_optional=True)
    path = [(0, 1, "r"), (1, 2, "r"), (2, 3, "r")]
    _assert_optional_equal(past, _reference(4, path))
    _assert_optional_equal(now, _reference(4, [*path, (0, 2, "r")]))
    assert (past["diameter"], now["diameter"]) == (3, 2)


async def test_ladybug_reference_returns_its_failure_dict_for_optional_metrics(
    tmp_path: Path,
) -> None:
    """Why LadybugDB is not the oracle here: with include_optional=True, Cognee 1.6.5's
    LadybugDB adapter answers a small acyclic graph (where its path query is quick) with its
    failure dict, counts zeroed. The day this fails, Cognee fixed it: compare against it."""
    pytest.importorskip("ladybug")
    from cognee.infrastructure.databases.graph.ladybug.adapter import LadybugAdapter

    ladybug = LadybugAdapter(db_path=str(tmp_path / "g.lbug"))
    try:
        pairs = [(0, 1, "r"), (2, 3, "r")]
        await _write(ladybug, 4, pairs)
        plain = await ladybug.get_graph_metrics()
        assert (plain["num_nodes"], plain["num_edges"]) == (4, 2)
        optional = await ladybug.get_graph_metrics(include_optional=True)
        assert (optional["num_nodes"], optional["num_edges"]) == (0, 0)
        assert {k: optional[k] for k in OPTIONAL} == dict.fromkeys(OPTIONAL, -1)
    finally:
        await ladybug.close()
