"""Cognee's vector search through a persistent vector index (issue 34): the same results,
distances and order as the exact search before the index was built, node-set filters included,
with the collection served from the mapped index; points written after the build found at once."""

from __future__ import annotations

import random

import pytest
from anatid_cognee import AnatidVectorAdapter
from cognee.infrastructure.engine import DataPoint

from anatid_core import SETTINGS
from tests.cognee.cognee_fakes import HashEmbeddingEngine

WORDS = [f"word{i}" for i in range(120)]


class Chunk(DataPoint):
    text: str
    metadata: dict = {"index_fields": ["text"]}


@pytest.fixture
async def vectors(tmp_path):
    before = SETTINGS["ann_min_rows"]
    SETTINGS["ann_min_rows"] = 100
    adapter = AnatidVectorAdapter(
        url=str(tmp_path / "v.duckdb"), embedding_engine=HashEmbeddingEngine()
    )
    yield adapter
    await adapter.close()
    SETTINGS["ann_min_rows"] = before


async def answers(vectors, queries: list[str]) -> list:
    out = []
    for q in queries:
        for names in (None, ["odd"]):
            hits = await vectors.search("Chunk_text", query_text=q, limit=7, node_name=names)
            out.append([(r.id, round(r.score, 6)) for r in hits])
    return out


async def test_search_answers_the_same_through_the_index(vectors) -> None:
    rng = random.Random(4)
    points = [
        Chunk(
            text=" ".join(rng.choice(WORDS) for _ in range(6)),
            belongs_to_set=["odd"] if i % 2 else ["even"],
        )
        for i in range(600)
    ]
    await vectors.create_data_points("Chunk_text", points)
    queries = [" ".join(rng.choice(WORDS) for _ in range(3)) for _ in range(15)]
    exact = await answers(vectors, queries)
    store = vectors.store
    built = [b for b in store.build_indexes() if b.space is not None]
    assert [b.rows_total for b in built] == [600]
    assert await answers(vectors, queries) == exact
    b = built[0]
    assert store.indexes.vectors.built(b.kind, b.space) is None  # the mapped index answered
    assert store.indexes.ann.space(b.kind, b.space) is not None
    late = Chunk(text="zebra quagga okapi", belongs_to_set=["odd"])
    await vectors.create_data_points("Chunk_text", [late])
    hit = await vectors.search("Chunk_text", query_text="zebra quagga okapi", limit=1)
    assert hit[0].id == late.id and hit[0].score == pytest.approx(0.0, abs=1e-6)
