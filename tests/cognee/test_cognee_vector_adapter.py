"""AnatidVectorAdapter: Cognee's VectorDBInterface semantics on anatid."""

from __future__ import annotations

import asyncio
from datetime import datetime, timezone
from uuid import UUID

import pytest
from anatid_cognee import AnatidVectorAdapter
from cognee.infrastructure.databases.vector.exceptions import CollectionNotFoundError
from cognee.infrastructure.engine import DataPoint

from tests.cognee.cognee_fakes import HashEmbeddingEngine, hash_vector


class Chunk(DataPoint):
    text: str
    metadata: dict = {"index_fields": ["text"]}


TEXTS = [
    "alice works at acme in berlin",
    "bob likes green apples",
    "carol studies graph databases",
    "dave writes duckdb extensions",
]


@pytest.fixture
async def vectors(tmp_path):
    adapter = AnatidVectorAdapter(
        url=str(tmp_path / "v.duckdb"), embedding_engine=HashEmbeddingEngine()
    )
    yield adapter
    await adapter.close()


async def _seed(vectors, tags=None):
    points = [Chunk(text=t, belongs_to_set=(tags or {}).get(i)) for i, t in enumerate(TEXTS)]
    await vectors.create_data_points("Chunk_text", points)
    return points


def _cosine_distance(a: list[float], b: list[float]) -> float:
    dot = sum(x * y for x, y in zip(a, b, strict=True))
    return 1.0 - dot  # both are unit vectors


async def test_search_returns_ascending_cosine_distances(vectors):
    points = await _seed(vectors)
    results = await vectors.search("Chunk_text", query_text="alice acme berlin", limit=3)

    assert results[0].id == points[0].id
    assert [r.score for r in results] == sorted(r.score for r in results)
    query = hash_vector("alice acme berlin")
    assert results[0].score == pytest.approx(_cosine_distance(query, hash_vector(TEXTS[0])))
    assert all(r.payload is None for r in results)


async def test_limit_none_returns_every_row_and_zero_returns_none(vectors):
    await _seed(vectors)
    assert len(await vectors.search("Chunk_text", query_text="x", limit=None)) == len(TEXTS)
    assert await vectors.search("Chunk_text", query_text="x", limit=0) == []


async def test_payload_is_json_safe_and_retrieve_omits_missing(vectors):
    points = await _seed(vectors)
    found = await vectors.retrieve("Chunk_text", [str(points[1].id), "ghost"])
    assert [r.id for r in found] == [points[1].id]
    assert found[0].payload["text"] == TEXTS[1] and found[0].payload["id"] == str(points[1].id)
    hit = (await vectors.search("Chunk_text", query_text=TEXTS[1], limit=1, include_payload=True))[
        0
    ]
    assert hit.payload["text"] == TEXTS[1]


async def test_missing_collection_raises_collection_not_found(vectors):
    assert await vectors.has_collection("Nope_text") is False
    with pytest.raises(CollectionNotFoundError):
        await vectors.search("Nope_text", query_text="x", limit=1)
    assert await vectors.retrieve("Nope_text", ["a"]) == []
    await vectors.delete_data_points("Nope_text", ["a"])  # idempotent, no error


async def test_node_name_filters_or_and(vectors):
    points = await _seed(vectors, {0: ["dev", "ops"], 1: ["dev"], 2: ["ops"]})
    any_dev = await vectors.search("Chunk_text", query_text="x", limit=None, node_name=["dev"])
    assert {r.id for r in any_dev} == {points[0].id, points[1].id}
    both = await vectors.search(
        "Chunk_text",
        query_text="x",
        limit=5,
        node_name=["dev", "ops"],
        node_name_filter_operator="AND",
    )
    assert [r.id for r in both] == [points[0].id]


async def test_batch_search_is_one_result_list_per_query(vectors):
    points = await _seed(vectors)
    results = await vectors.batch_search("Chunk_text", [TEXTS[2], TEXTS[3]], limit=1)
    assert [r[0].id for r in results] == [points[2].id, points[3].id]


async def test_upsert_merges_tags_and_remove_tags_deletes_emptied_rows(vectors):
    point = Chunk(text="shared", belongs_to_set=["a"])
    await vectors.create_data_points("Chunk_text", [point])
    await vectors.create_data_points(
        "Chunk_text", [Chunk(id=point.id, text="shared", belongs_to_set=["b"])]
    )
    other = Chunk(text="only a", belongs_to_set=["a"])
    await vectors.create_data_points("Chunk_text", [other])
    (row,) = await vectors.retrieve("Chunk_text", [str(point.id)])
    assert row.payload["belongs_to_set"] == ["a", "b"]

    await vectors.remove_belongs_to_set_tags(["a"])
    (row,) = await vectors.retrieve("Chunk_text", [str(point.id)])
    assert row.payload["belongs_to_set"] == ["b"]
    assert await vectors.retrieve("Chunk_text", [str(other.id)]) == []


async def test_update_payload_keeps_the_vector(vectors):
    points = await _seed(vectors)
    await vectors.update_payload("Chunk_text", {str(points[0].id): {"text": "renamed"}})
    (row,) = await vectors.retrieve("Chunk_text", [str(points[0].id)])
    assert row.payload["text"] == "renamed"
    best = await vectors.search("Chunk_text", query_text=TEXTS[0], limit=1)
    assert best[0].id == points[0].id and best[0].score == pytest.approx(0.0, abs=1e-6)


async def test_index_data_points_writes_index_rows(vectors):
    await vectors.create_vector_index("Chunk", "text")
    assert await vectors.has_collection("Chunk_text")
    assert await vectors.search("Chunk_text", query_text="x", limit=None) == []
    point = Chunk(text="indexed row")
    await vectors.index_data_points("Chunk", "text", [point])
    (row,) = await vectors.retrieve("Chunk_text", [str(point.id)])
    assert row.payload["text"] == "indexed row" and isinstance(row.id, UUID)
    assert await vectors.get_stored_vector_size() == 64


async def test_delete_and_prune(vectors):
    points = await _seed(vectors)
    await vectors.delete_data_points("Chunk_text", [points[0].id, "ghost"])
    assert len(await vectors.search("Chunk_text", query_text="x", limit=None)) == len(TEXTS) - 1
    await vectors.prune()
    assert await vectors.has_collection("Chunk_text") is False


async def test_as_of_search_sees_deleted_rows(vectors):
    points = await _seed(vectors)
    before = datetime.now(timezone.utc)
    await asyncio.sleep(0.01)
    await vectors.delete_data_points("Chunk_text", [points[0].id])
    past = await vectors.as_of(before).search("Chunk_text", query_text=TEXTS[0], limit=1)
    assert past[0].id == points[0].id
    now = await vectors.search("Chunk_text", query_text=TEXTS[0], limit=1)
    assert now[0].id != points[0].id


async def test_purge_erases_rows_from_history_too(vectors):
    points = await _seed(vectors)
    before = datetime.now(timezone.utc)
    await asyncio.sleep(0.01)
    await vectors.purge_data_points("Chunk_text", [points[0].id])
    past = await vectors.as_of(before).search("Chunk_text", query_text=TEXTS[0], limit=None)
    assert points[0].id not in {r.id for r in past}
    assert len(past) == len(TEXTS) - 1
