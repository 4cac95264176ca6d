"""Graphiti's search recipes, filters, BFS and rerankers on GraphitiDriver, with Neo4j semantics."""

from __future__ import annotations

import pytest
from graphiti_core.edges import EntityEdge, EpisodicEdge
from graphiti_core.nodes import EntityNode, EpisodeType, EpisodicNode
from graphiti_core.search.search_config_recipes import (
    COMBINED_HYBRID_SEARCH_CROSS_ENCODER,
    COMBINED_HYBRID_SEARCH_MMR,
    COMBINED_HYBRID_SEARCH_RRF,
    EDGE_HYBRID_SEARCH_EPISODE_MENTIONS,
    EDGE_HYBRID_SEARCH_MMR,
    EDGE_HYBRID_SEARCH_NODE_DISTANCE,
    NODE_HYBRID_SEARCH_EPISODE_MENTIONS,
    NODE_HYBRID_SEARCH_MMR,
    NODE_HYBRID_SEARCH_NODE_DISTANCE,
    NODE_HYBRID_SEARCH_RRF,
)
from graphiti_core.search.search_filters import ComparisonOperator, DateFilter, SearchFilters
from graphiti_core.search.search_utils import (
    edge_bfs_search,
    edge_fulltext_search,
    edge_similarity_search,
    node_bfs_search,
    node_distance_reranker,
    node_similarity_search,
)

from .conftest import add, day

GT, LE, IS_NULL = (
    ComparisonOperator.greater_than,
    ComparisonOperator.less_than_equal,
    ComparisonOperator.is_null,
)
NOT_NULL, EQ = ComparisonOperator.is_not_null, ComparisonOperator.equals


@pytest.fixture
async def story(graphiti):
    """Three episodes: Alice and Bob at Acme; Alice mentioned three times, Carol once."""
    await add(graphiti, "Alice works at Acme. Bob works at Acme.", 1)
    await add(graphiti, "Alice knows Bob.", 2)
    await add(graphiti, "Alice likes Carol.", 3)
    return graphiti


def entity(name: str, group_id: str = "", labels: list[str] | None = None, vec=None) -> EntityNode:
    return EntityNode(
        name=name, group_id=group_id, labels=labels or [], name_embedding=vec, created_at=day(0)
    )


def fact(a: EntityNode, b: EntityNode, text: str, **kw) -> EntityEdge:
    kw.setdefault("created_at", day(0))
    return EntityEdge(
        source_node_uuid=a.uuid,
        target_node_uuid=b.uuid,
        name=kw.pop("name", "REL"),
        fact=text,
        group_id=a.group_id,
        **kw,
    )


async def save(driver, *items):
    for item in items:
        await item.save(driver)


# ------------------------------------------------------------------------------ recipes


async def test_search_ranks_the_matching_fact_first(story):
    edges = await story.search("Alice knows")
    assert edges[0].fact == "Alice knows Bob"


async def test_combined_rrf_returns_every_layer(story):
    results = await story.search_("Alice Bob", config=COMBINED_HYBRID_SEARCH_RRF)
    assert {"Alice", "Bob"} <= {n.name for n in results.nodes}
    assert "Alice knows Bob" in [e.fact for e in results.edges]
    assert {e.name for e in results.episodes} >= {"e1", "e2"}


async def test_mmr_recipes_load_embeddings(story):
    communities, _ = await story.build_communities()
    for config in (EDGE_HYBRID_SEARCH_MMR, NODE_HYBRID_SEARCH_MMR, COMBINED_HYBRID_SEARCH_MMR):
        results = await story.search_("Alice knows Bob", config=config)
        assert results.edges or results.nodes
    combined = await story.search_(communities[0].name, config=COMBINED_HYBRID_SEARCH_MMR)
    assert communities[0].uuid in {c.uuid for c in combined.communities}


async def test_cross_encoder_orders_by_the_encoder(story):
    results = await story.search_("Alice likes Carol", config=COMBINED_HYBRID_SEARCH_CROSS_ENCODER)
    assert results.edges[0].fact == "Alice likes Carol"
    assert results.edge_reranker_scores == sorted(results.edge_reranker_scores, reverse=True)


async def test_node_distance_puts_the_centres_neighbours_first(story, driver):
    nodes = {n.name: n for n in await EntityNode.get_by_group_ids(driver, [""])}
    results = await story.search_(
        "Acme Carol Bob",
        config=NODE_HYBRID_SEARCH_NODE_DISTANCE,
        center_node_uuid=nodes["Carol"].uuid,
    )
    names = [n.name for n in results.nodes]
    assert names.index("Alice") < names.index("Bob")  # Alice likes Carol; Bob is two hops away
    edges = await story.search_(
        "works", config=EDGE_HYBRID_SEARCH_NODE_DISTANCE, center_node_uuid=nodes["Bob"].uuid
    )
    assert edges.edges


async def test_episode_mentions_put_the_most_mentioned_first(story):
    results = await story.search_("Alice Carol", config=NODE_HYBRID_SEARCH_EPISODE_MENTIONS)
    assert [n.name for n in results.nodes][0] == "Alice"
    assert results.node_reranker_scores[0] == 3.0
    edges = await story.search_("Alice", config=EDGE_HYBRID_SEARCH_EPISODE_MENTIONS)
    assert edges.edges


async def test_search_with_group_filter_and_bfs_origins(story, driver):
    nodes = {n.name: n for n in await EntityNode.get_by_group_ids(driver, [""])}
    results = await story.search_(
        "Bob",
        config=NODE_HYBRID_SEARCH_RRF,
        bfs_origin_node_uuids=[nodes["Alice"].uuid],
        group_ids=[""],
    )
    assert "Bob" in [n.name for n in results.nodes]
    assert not (
        await story.search_("Bob", config=NODE_HYBRID_SEARCH_RRF, group_ids=["other"])
    ).nodes


# ------------------------------------------------------------------------------ filters


@pytest.fixture
async def dated(driver):
    """Four facts with every shape of valid/invalid time (None included)."""
    a, b = entity("Ann", labels=["Person"]), entity("Bo", labels=["Robot"])
    facts = {
        "open": fact(a, b, "fact open", valid_at=day(1)),
        "closed": fact(
            a, b, "fact closed", valid_at=day(5), invalid_at=day(10), expired_at=day(11)
        ),
        "timeless": fact(b, a, "fact timeless", name="OTHER"),
        "late": fact(a, b, "fact late", valid_at=day(20), created_at=day(3)),
    }
    await save(driver, a, b, *facts.values())
    return a, b, facts


async def found(driver, search_filter: SearchFilters) -> set[str]:
    edges = await edge_fulltext_search(driver, "fact", search_filter, group_ids=[""], limit=20)
    return {e.fact.removeprefix("fact ") for e in edges}


async def test_date_filters_are_or_of_and_with_is_null(dated, driver):
    f = SearchFilters
    assert await found(driver, f()) == {"open", "closed", "timeless", "late"}
    assert await found(driver, f(invalid_at=[[DateFilter(comparison_operator=IS_NULL)]])) == {
        "open",
        "timeless",
        "late",
    }
    between = [
        DateFilter(date=day(3), comparison_operator=GT),
        DateFilter(date=day(7), comparison_operator=LE),
    ]
    never = [DateFilter(comparison_operator=IS_NULL)]
    assert await found(driver, f(valid_at=[between, never])) == {"closed", "timeless"}
    assert await found(driver, f(valid_at=[between, never], invalid_at=[never])) == {"timeless"}
    assert await found(driver, f(expired_at=[[DateFilter(comparison_operator=NOT_NULL)]])) == {
        "closed"
    }
    assert await found(
        driver, f(created_at=[[DateFilter(date=day(3), comparison_operator=EQ)]])
    ) == {"late"}
    # each comparison keeps its own date (Graphiti's Cypher builder would reuse valid_at_0)
    early = [DateFilter(date=day(2), comparison_operator=LE)]
    late = [DateFilter(date=day(19), comparison_operator=GT)]
    assert await found(driver, f(valid_at=[early, late])) == {"open", "late"}


async def test_naive_filter_dates_are_read_as_utc(dated, driver):
    naive = day(3).replace(tzinfo=None)
    flt = SearchFilters(created_at=[[DateFilter(date=naive, comparison_operator=EQ)]])
    assert await found(driver, flt) == {"late"}


async def test_type_uuid_endpoint_and_label_filters(dated, driver):
    a, b, facts = dated
    f = SearchFilters
    assert await found(driver, f(edge_types=["OTHER"])) == {"timeless"}
    assert await found(driver, f(edge_uuids=[facts["open"].uuid])) == {"open"}
    assert await found(driver, f(edge_source_node_uuids=[b.uuid])) == {"timeless"}
    assert await found(driver, f(edge_target_node_uuids=[b.uuid])) == {"open", "closed", "late"}
    assert await found(driver, f(node_labels=["Person"])) == set()  # both endpoints must match
    assert await found(driver, f(node_labels=["Person", "Robot"])) == {
        "open",
        "closed",
        "timeless",
        "late",
    }


async def test_similarity_scores_are_normalised_like_neo4j(driver):
    near, across = entity("Near", vec=[1.0, 0.0]), entity("Across", vec=[0.0, 1.0])
    await save(driver, near, across)
    # cos(Across, query) = 0, i.e. 0.5 once normalised as (1 + cos) / 2
    hits = await node_similarity_search(driver, [1.0, 0.0], SearchFilters(), min_score=0.4)
    assert [n.name for n in hits] == ["Near", "Across"]
    hits = await node_similarity_search(driver, [1.0, 0.0], SearchFilters(), min_score=0.6)
    assert [n.name for n in hits] == ["Near"]
    edge = fact(near, across, "x", fact_embedding=[0.0, -1.0])  # cos 0 with the query
    await edge.save(driver)
    assert await edge_similarity_search(
        driver, [1.0, 0.0], None, None, SearchFilters(), min_score=0.49
    )
    assert not await edge_similarity_search(
        driver, [1.0, 0.0], None, None, SearchFilters(), min_score=0.5
    )


# ---------------------------------------------------------------------------------- BFS


@pytest.fixture
async def chain(driver):
    """episode -MENTIONS-> a -> b -> c, and x (another group) -> a."""
    a, b, c, x = entity("a"), entity("b"), entity("c"), entity("x", group_id="other")
    ab, bc, xa = fact(a, b, "a to b"), fact(b, c, "b to c"), fact(x, a, "x to a")
    episode = EpisodicNode(
        name="ep",
        group_id="",
        source=EpisodeType.text,
        source_description="",
        content="a",
        valid_at=day(0),
        created_at=day(0),
    )
    mention = EpisodicEdge(
        source_node_uuid=episode.uuid, target_node_uuid=a.uuid, group_id="", created_at=day(0)
    )
    await save(driver, a, b, c, x, ab, bc, xa, episode, mention)
    return {"a": a, "b": b, "c": c, "x": x, "ep": episode}


async def test_edge_bfs_follows_paths_out_of_the_origins(chain, driver):
    async def facts(origin: str, depth: int) -> set[str]:
        edges = await edge_bfs_search(driver, [chain[origin].uuid], depth, SearchFilters())
        return {e.fact for e in edges}

    assert await facts("a", 1) == {"a to b"}
    assert await facts("a", 2) == {"a to b", "b to c"}
    assert await facts("c", 3) == set()  # directed: nothing leaves c
    assert await facts("ep", 1) == set()  # MENTIONS is walked but not returned
    assert await facts("ep", 2) == {"a to b"}


async def test_node_bfs_stays_in_the_origins_group(chain, driver):
    async def names(origin: str, depth: int) -> list[str]:
        nodes = await node_bfs_search(driver, [chain[origin].uuid], SearchFilters(), depth)
        return [n.name for n in nodes]

    assert await names("a", 1) == ["b"]
    assert await names("a", 2) == ["b", "c"]
    assert await names("ep", 1) == ["a"]
    assert await names("x", 3) == []  # x's group holds nothing else


async def test_node_distance_is_undirected(chain, driver):
    b, c, a = chain["b"], chain["c"], chain["a"]
    uuids, scores = await node_distance_reranker(driver, [a.uuid, c.uuid, b.uuid], b.uuid)
    assert uuids[0] == b.uuid and scores[0] == 10.0
    assert set(uuids[1:]) == {a.uuid, c.uuid} and scores[1:] == [1.0, 1.0]
