"""Graphiti's similarity searches and search recipes through a persistent vector index (issue 34):
the same answers, values and order as the exact search before the index was built, with the
space served from the mapped index (no matrix loaded), and facts written after the build found
at once."""

from __future__ import annotations

from collections.abc import AsyncIterator

import numpy as np
import pytest
from anatid_graphiti import GraphitiDriver
from graphiti_core.edges import EntityEdge
from graphiti_core.nodes import EntityNode
from graphiti_core.search.search_config_recipes import (
    COMBINED_HYBRID_SEARCH_RRF,
    EDGE_HYBRID_SEARCH_RRF,
)
from graphiti_core.search.search_filters import SearchFilters
from graphiti_core.search.search_utils import edge_similarity_search, node_similarity_search

from anatid_core import SETTINGS

from .conftest import day, make_graphiti
from .fakes import EMBEDDING_DIM, hash_embedding

PEOPLE = 400


def vectors(rng: np.random.Generator, n: int) -> np.ndarray:
    centres = rng.standard_normal((12, EMBEDDING_DIM))
    return centres[rng.integers(0, 12, n)] + 0.3 * rng.standard_normal((n, EMBEDDING_DIM))


@pytest.fixture
async def crowd(tmp_path) -> AsyncIterator[GraphitiDriver]:
    """400 people in two groups, each with a fact about the next one: 400 node and 400 edge
    embeddings, over ``ann_min_rows`` lowered to 100."""
    before = SETTINGS["ann_min_rows"]
    SETTINGS["ann_min_rows"] = 100
    driver = GraphitiDriver(str(tmp_path / "memory.duckdb"))
    # The texts' own (fake) embeddings, as Graphiti's ingestion gives them, blurred so that
    # the graph has no exact duplicates.
    rng = np.random.default_rng(3)
    blur = 0.05 * rng.standard_normal((2, PEOPLE, EMBEDDING_DIM))
    names = [
        np.asarray(hash_embedding(f"person {i}", EMBEDDING_DIM)) + blur[0, i] for i in range(PEOPLE)
    ]
    facts = [
        np.asarray(hash_embedding(f"person {i} knows person {(i + 2) % PEOPLE}", EMBEDDING_DIM))
        + blur[1, i]
        for i in range(PEOPLE)
    ]
    nodes = [
        EntityNode(
            name=f"person {i}",
            group_id=f"g{i % 2}",
            labels=["Person"],
            name_embedding=names[i].tolist(),
            created_at=day(0),
        )
        for i in range(PEOPLE)
    ]
    for n in nodes:
        await n.save(driver)
    for i in range(PEOPLE):
        a, b = nodes[i], nodes[(i + 2) % PEOPLE]  # same group
        await EntityEdge(
            source_node_uuid=a.uuid,
            target_node_uuid=b.uuid,
            name="KNOWS",
            fact=f"person {i} knows person {(i + 2) % PEOPLE}",
            fact_embedding=facts[i].tolist(),
            group_id=a.group_id,
            created_at=day(0),
            valid_at=day(i % 30),
        ).save(driver)
    try:
        yield driver
    finally:
        await driver.close()
        SETTINGS["ann_min_rows"] = before


async def answers(driver: GraphitiDriver, queries: np.ndarray) -> list:
    out = []
    for q in queries:
        for groups in (None, ["g1"]):
            nodes = await node_similarity_search(
                driver, q.tolist(), SearchFilters(), group_ids=groups, limit=8
            )
            edges = await edge_similarity_search(
                driver, q.tolist(), None, None, SearchFilters(), group_ids=groups, limit=8
            )
            out.append([(n.uuid, n.name) for n in nodes])
            out.append([(e.uuid, e.fact, e.valid_at) for e in edges])
    return out


async def test_similarity_searches_answer_the_same_through_the_index(crowd) -> None:
    queries = vectors(np.random.default_rng(9), 12)
    exact = await answers(crowd, queries)
    built = crowd.store.build_indexes()
    assert sorted((b.kind, b.space is None, b.rows_total) for b in built) == [
        ("edge", False, PEOPLE),
        ("edge", True, PEOPLE),  # the text indexes
        ("node", False, PEOPLE),
        ("node", True, PEOPLE),
    ]
    built = [b for b in built if b.space is not None]
    through_index = await answers(crowd, queries)
    assert through_index == exact
    for b in built:  # served from the mapped index, never loaded as a matrix
        assert crowd.store.indexes.vectors.built(b.kind, b.space) is None
        assert crowd.store.indexes.ann.space(b.kind, b.space) is not None


async def test_recipes_and_new_facts_after_the_build(crowd) -> None:
    graphiti = make_graphiti(crowd)
    before_edges = await graphiti.search_(
        "person 7 knows", config=EDGE_HYBRID_SEARCH_RRF, group_ids=["g1"]
    )
    before_all = await graphiti.search_("person 12", config=COMBINED_HYBRID_SEARCH_RRF)
    crowd.store.build_indexes()
    after_edges = await graphiti.search_(
        "person 7 knows", config=EDGE_HYBRID_SEARCH_RRF, group_ids=["g1"]
    )
    after_all = await graphiti.search_("person 12", config=COMBINED_HYBRID_SEARCH_RRF)
    assert [e.uuid for e in after_edges.edges] == [e.uuid for e in before_edges.edges]
    assert [n.uuid for n in after_all.nodes] == [n.uuid for n in before_all.nodes]
    assert [e.uuid for e in after_all.edges] == [e.uuid for e in before_all.edges]
    # A node written after the build: found at once by its own embedding.
    probe = np.full(EMBEDDING_DIM, 3.0)
    newcomer = EntityNode(
        name="newcomer", group_id="g0", name_embedding=probe.tolist(), created_at=day(1)
    )
    await newcomer.save(crowd)
    hits = await node_similarity_search(crowd, probe.tolist(), SearchFilters(), limit=1)
    assert [n.name for n in hits] == ["newcomer"]
