"""The graph verbs on AnatidGraphAdapter in Cognee's shapes: paths and explanations between
entities, with the chunks, documents and data ids Cognee learned each fact from; PageRank, hubs
and communities of the entity graph; the node-type wall; as_of; bad input."""

from __future__ import annotations

import asyncio
from datetime import datetime, timezone
from uuid import uuid4

import pytest
from anatid_cognee import AnatidGraphAdapter
from cognee.exceptions import CogneeValidationError
from cognee.infrastructure.databases.exceptions import EntityNotFoundError
from cognee.infrastructure.databases.provenance import EdgeIdentity, make_source_ref_key
from cognee.infrastructure.engine import DataPoint


class Thing(DataPoint):
    name: str
    metadata: dict = {"index_fields": ["name"]}


def _typed(name: str, node_type: str) -> Thing:
    node = Thing(name=name)
    object.__setattr__(node, "type", node_type)
    return node


@pytest.fixture
async def graph(tmp_path):
    adapter = AnatidGraphAdapter(graph_database_url=str(tmp_path / "g.duckdb"))
    yield adapter
    await adapter.close()


@pytest.fixture
async def world(graph):
    """doc <-is_part_of- chunk -contains-> Alice, Acme, Bob; Alice works_at Acme, knows Bob;
    Alice and Carol are both of the type person (not a link between entities)."""
    n = {name: _typed(name, "Entity") for name in ("Alice", "Acme", "Bob", "Carol")}
    n["doc"], n["chunk"] = _typed("doc", "TextDocument"), _typed("chunk", "DocumentChunk")
    n["person"] = _typed("person", "EntityType")
    ids = {k: str(v.id) for k, v in n.items()}
    await graph.add_nodes(list(n.values()))
    await graph.add_edges(
        [
            (ids["chunk"], ids["doc"], "is_part_of", {}),
            *[(ids["chunk"], ids[e], "contains", {}) for e in ("Alice", "Acme", "Bob")],
            (ids["Alice"], ids["person"], "is_a", {}),
            (ids["Carol"], ids["person"], "is_a", {}),
            (ids["Alice"], ids["Acme"], "works_at", {"edge_text": "Alice works at Acme"}),
        ]
    )
    await asyncio.sleep(0.01)
    ids["before_bob"] = datetime.now(timezone.utc)  # type: ignore[assignment]
    await asyncio.sleep(0.01)
    await graph.add_edges([(ids["Alice"], ids["Bob"], "knows", {})])
    ids["dataset"] = str(uuid4())
    key = make_source_ref_key(ids["dataset"], ids["doc"])  # type: ignore[arg-type]
    await graph.attach_edge_source_refs(
        [EdgeIdentity(ids["Alice"], ids["Acme"], "works_at")], [key]
    )
    return ids


def _names(nodes) -> list[str]:
    return [props["name"] for _id, props in nodes]


async def test_shortest_path_walks_entities_in_get_graph_data_shapes(graph, world):
    nodes, edges = await graph.get_graph_data()
    [path] = await graph.shortest_path(world["Bob"], world["Acme"])
    assert _names(path.nodes) == ["Bob", "Alice", "Acme"]
    assert all(node in nodes for node in path.nodes)  # (id, props) exactly as get_graph_data
    assert [e[2] for e in path.edges] == ["knows", "works_at"]
    assert all(edge in edges for edge in path.edges)
    assert await graph.shortest_path(world["Bob"], world["Acme"], max_depth=1) == []
    # Carol and Alice share only a type: not linked among entities, linked in the whole graph.
    assert await graph.shortest_path(world["Carol"], world["Alice"]) == []
    [via_type] = await graph.shortest_path(world["Carol"], world["Alice"], node_types=None)
    assert _names(via_type.nodes) == ["Carol", "person", "Alice"]
    only_knows = await graph.shortest_path(
        world["Bob"], world["Acme"], relationship_names=["knows"]
    )
    assert only_knows == []


async def test_explain_gives_each_fact_its_chunks_documents_and_data_ids(graph, world):
    why = await graph.explain(world["Bob"], world["Acme"])
    assert why.connected and [_names(p.nodes) for p in why.paths] == [["Bob", "Alice", "Acme"]]
    by_rel = {f.edge[2]: f for f in why.facts}
    assert set(by_rel) == {"knows", "works_at"}
    works = by_rel["works_at"]
    assert works.edge[:2] == (world["Alice"], world["Acme"])
    assert "_anatid_provenance" not in works.edge[3]
    assert _names(works.chunks) == ["chunk"] and _names(works.documents) == ["doc"]
    assert works.data_ids == [world["doc"]] and works.dataset_ids == [world["dataset"]]
    knows = by_rel["knows"]  # the chunk contains both ends; no source ref was attached
    assert _names(knows.chunks) == ["chunk"] and knows.dataset_ids == []

    past = await graph.as_of(world["before_bob"]).explain(  # type: ignore[arg-type]
        world["Alice"], world["Acme"]
    )
    assert [f.edge[2] for f in past.facts] == ["works_at"]
    # Bob was known then, but no fact linked him yet.
    unlinked = await graph.as_of(world["before_bob"]).explain(  # type: ignore[arg-type]
        world["Bob"], world["Acme"]
    )
    assert not unlinked.connected and unlinked.facts == []


async def test_hubs_pagerank_and_communities_of_the_entity_graph(graph, world):
    nodes, edges = await graph.get_graph_data()
    entity = {i for i, p in nodes if p["type"] == "Entity"}
    degree = {i: 0 for i in entity}
    for src, dst, _rel, _props in edges:
        if src in entity and dst in entity:
            degree[src] += 1
            degree[dst] += 1
    hubs = await graph.hubs(10)
    assert [(node[0], d) for node, d in hubs] == sorted(
        ((i, d) for i, d in degree.items() if d), key=lambda x: (-x[1], x[0])
    )
    assert all(node in nodes for node, _d in hubs)

    ranked = await graph.pagerank([world["Bob"]], k=10)
    scores = {node[0]: s for node, s in ranked}
    assert set(scores) <= entity and world["Bob"] in scores
    assert scores[world["Alice"]] > scores.get(world["Carol"], 0.0)
    assert abs(sum(scores.values()) - 1.0) < 1e-6
    pushed = await graph.pagerank([world["Bob"]], k=10, method="push", tolerance=1e-9)
    assert [node[0] for node, _ in pushed] == [node[0] for node, _ in ranked]

    parts = await graph.communities()
    assert parts == await graph.communities()  # deterministic
    assert {i for p in parts for i, _props in p} <= entity
    linked = next(p for p in parts if world["Alice"] in {i for i, _ in p})
    assert {world["Acme"], world["Bob"]} <= {i for i, _ in linked}
    assert world["Carol"] not in {i for i, _ in linked}


async def test_bad_input_is_cognees_typed_error(graph, world):
    with pytest.raises(EntityNotFoundError):
        await graph.shortest_path(world["Alice"], str(uuid4()))
    with pytest.raises(EntityNotFoundError):  # a document is not among the entities walked
        await graph.explain(world["Alice"], world["doc"])
    with pytest.raises(CogneeValidationError):
        await graph.shortest_path(world["Alice"], world["Acme"], max_depth=-1)
    with pytest.raises(CogneeValidationError):
        await graph.pagerank([world["Alice"]], damping=1.5)
    with pytest.raises(CogneeValidationError):
        await graph.hubs(-1)
