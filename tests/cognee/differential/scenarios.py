"""The differential scenarios: the same calls through Cognee's public API on any backend.

Ids are fixed (uuid5 of a name) wherever the caller chooses them, so most ids compare as they
are; those Cognee generates (users, datasets, data items) are normalised by the comparison.
Every list the API returns without a promised order is wrapped in ``unordered``.
"""

from __future__ import annotations

import re
from datetime import date, datetime, timezone
from decimal import Decimal
from pathlib import Path
from typing import Any
from uuid import NAMESPACE_URL, UUID, uuid5

from cognee.infrastructure.engine import DataPoint
from cognee.infrastructure.engine.models.DataPoint import MetaData
from cognee.modules.engine.models.node_set import NodeSet

from tests.cognee.differential.encoding import unordered
from tests.cognee.differential.reads import adapter_reads, graph_data

FIXED_MS = 1_700_000_000_000


def fixed_id(name: str) -> UUID:
    return uuid5(NAMESPACE_URL, f"anatid-differential/{name}")


class Publisher(DataPoint):
    name: str
    founded: date
    metadata: MetaData = {"index_fields": ["name"]}


class Author(DataPoint):
    name: str
    born: date
    score: int
    metadata: MetaData = {"index_fields": ["name"]}


class Book(DataPoint):
    name: str
    published_at: datetime
    printed_at: datetime
    isbn_uuid: UUID
    tags: list[str]
    ratings: list[float]
    pair: tuple[int, str]
    details: dict[str, Any]
    price: Decimal
    subtitle: str | None = None
    publisher: Publisher
    authors: list[Author]
    metadata: MetaData = {"index_fields": ["name"]}


def library() -> list[DataPoint]:
    """Two books, their authors and a publisher: datetime, UUID, date, nested, list props."""
    publisher = Publisher(id=fixed_id("publisher"), name="Quill Press", founded=date(1901, 5, 17))
    ada = Author(id=fixed_id("ada"), name="Ada Lovelace", born=date(1815, 12, 10), score=7)
    alan = Author(id=fixed_id("alan"), name="Alan Turing", born=date(1912, 6, 23), score=9)
    books: list[DataPoint] = [
        Book(
            id=fixed_id("engines"),
            name="Engines of Thought",
            published_at=datetime(1843, 9, 1, 12, 30, tzinfo=timezone.utc),
            printed_at=datetime(1999, 1, 2, 3, 4, 5, 600000),
            isbn_uuid=fixed_id("isbn-engines"),
            tags=["math", "machines"],
            ratings=[4.5, 5.0],
            pair=(1, "one"),
            details={"pages": 120, "nested": {"ids": [str(fixed_id("x"))], "ok": True}},
            price=Decimal("12.50"),
            publisher=publisher,
            authors=[ada],
            belongs_to_set=[NodeSet(id=fixed_id("set-library"), name="library")],
        ),
        Book(
            id=fixed_id("machinery"),
            name="Computing Machinery",
            published_at=datetime(1950, 10, 1, tzinfo=timezone.utc),
            printed_at=datetime(2001, 1, 1),
            isbn_uuid=fixed_id("isbn-machinery"),
            tags=[],
            ratings=[3.0],
            pair=(2, "two"),
            details={},
            price=Decimal("7"),
            subtitle="Can machines think?",
            publisher=publisher,
            authors=[alan, ada],
        ),
    ]
    for point in [publisher, ada, alan, *books]:
        point.created_at = point.updated_at = FIXED_MS
    return books


async def run_all(rec: Any) -> None:
    import cognee
    from cognee.low_level import setup

    await cognee.prune.prune_data()
    await cognee.prune.prune_system(metadata=True)
    await setup()
    await datapoints(rec)
    await pipeline(rec)


async def datapoints(rec: Any) -> None:
    """``add_data_points`` outside any dataset (the global graph), then every adapter read."""
    from cognee.infrastructure.databases.graph import get_graph_engine
    from cognee.tasks.storage import add_data_points

    await rec.step("datapoints.add", lambda: _points_summary(add_data_points(library())))
    graph = await get_graph_engine()
    await adapter_reads(rec, "datapoints", graph, book=str(fixed_id("engines")), node_set=True)
    await feedback(rec, graph)


async def _points_summary(call: Any) -> Any:
    points = await call
    return unordered(f"{type(p).__name__}:{p.id}" for p in points)


async def feedback(rec: Any, graph: Any) -> None:
    """Feedback weights and truth state, written and read back through the adapter."""
    book, ada = str(fixed_id("engines")), str(fixed_id("ada"))
    missing = str(fixed_id("missing"))
    await rec.step(
        "feedback.set_node_weights",
        lambda: graph.set_node_feedback_weights({book: 0.9, missing: 0.1}),
    )
    await rec.step(
        "feedback.node_weights", lambda: graph.get_node_feedback_weights([book, ada, missing])
    )
    _, edges = await graph.get_graph_data()
    edge_ids = sorted(str(e[3]["edge_object_id"]) for e in edges if "edge_object_id" in e[3])
    await rec.step(
        "feedback.set_edge_weights",
        lambda: graph.set_edge_feedback_weights({edge_ids[0]: 0.25, missing: 0.3}),
    )
    await rec.step(
        "feedback.edge_weights", lambda: graph.get_edge_feedback_weights([*edge_ids, missing])
    )
    await rec.step(
        "feedback.set_truth",
        lambda: graph.set_node_truth_state({book: {"truth_alignment": ["a"], "truth_epoch": 3}}),
    )
    await rec.step("feedback.truth", lambda: graph.get_node_truth_state([book, ada]))
    await rec.step("feedback.update_node", lambda: graph.update_node(ada, {"score": 10}))
    await rec.step("feedback.node_after", lambda: graph.get_node(ada))
    await rec.step("feedback.edges_after", lambda: graph_data(graph))


DOCS = {
    "acme.txt": "Alice works at Acme in Berlin. She joined Acme on 2019-03-01.",
    "bob.txt": "Bob grows green apples in an orchard near Hamburg since 2021.",
}


def chunk_id(document_name: str) -> UUID:
    return fixed_id(f"chunk-{document_name}")


def chunk_graph(data: Any) -> Any:
    """A document's chunk, entities with types, dates and a summary, as Cognee DataPoints."""
    from cognee.modules.chunking.models.DocumentChunk import DocumentChunk
    from cognee.modules.data.processing.document_types.TextDocument import TextDocument
    from cognee.modules.engine.models import Entity, EntityType
    from cognee.modules.engine.utils.timestamp_from_text import timestamp_from_text
    from cognee.tasks.summarization.models import TextSummary

    location = str(data.raw_data_location)
    text = Path(location.removeprefix("file://")).read_text(encoding="utf-8")
    doc = TextDocument(
        id=data.id,
        name=data.name,
        raw_data_location=location,
        external_metadata=None,
        mime_type="text/plain",
    )
    kinds = {"person": ("Alice", "Bob"), "place": ("Acme", "Berlin", "Hamburg")}
    types = {k: EntityType(id=fixed_id(f"type-{k}"), name=k, description=f"a {k}") for k in kinds}
    entities = [
        Entity(
            id=fixed_id(f"entity-{w}"),
            name=w.lower(),
            description=f"{w} from {data.name}",
            is_a=types["place" if w in kinds["place"] else "person"],
        )
        for w in re.findall(r"\b(Alice|Bob|Acme|Berlin|Hamburg)\b", text)
    ]
    stamps = [timestamp_from_text(d) for d in re.findall(r"\d{4}-\d{2}-\d{2}|\b\d{4}\b", text)]
    chunk = DocumentChunk(
        id=chunk_id(data.name),
        text=text,
        chunk_size=len(text.split()),
        chunk_index=0,
        cut_type="sentence_end",
        is_part_of=doc,
        contains=[*entities, *[s for s in stamps if s is not None]],
        belongs_to_set=[NodeSet(id=fixed_id("set-notes"), name="notes")],
    )
    summary = TextSummary(
        id=fixed_id(f"summary-{data.name}"), text=f"Summary: {text}", made_from=chunk
    )
    return [chunk, summary]


async def pipeline(rec: Any) -> None:
    """``cognee.add`` + a custom pipeline on dataset "notes", then search, reads and deletes."""
    import cognee
    from cognee.context_global_variables import set_database_global_context_variables
    from cognee.infrastructure.databases.graph import get_graph_engine
    from cognee.infrastructure.databases.vector import get_vector_engine_async
    from cognee.modules.pipelines.tasks.task import Task
    from cognee.modules.users.methods import get_default_user
    from cognee.tasks.storage import add_data_points

    from tests.cognee.differential.datasets import dataset_steps
    from tests.cognee.differential.searches import searches
    from tests.cognee.differential.vectors import vector_reads

    async def to_points(data: list[Any]) -> list[Any]:
        return [p for d in data for p in chunk_graph(d)]

    # One document per run (incremental: the second run skips the first document), so nodes
    # both documents write (the entity types) are written in the same order on each backend.
    for name, text in DOCS.items():
        await cognee.add(text, dataset_name="notes", node_set=[name.split(".")[0]])
        await rec.step(
            f"pipeline.run.{name}",
            lambda: _run_summary(
                cognee.run_custom_pipeline(
                    tasks=[Task(to_points), Task(add_data_points)],
                    dataset="notes",
                    incremental_loading=True,
                )
            ),
        )
    user = await get_default_user()
    datasets: list[Any] = await cognee.datasets.list_datasets(user=user)
    (dataset,) = datasets
    await searches(rec, user)
    async with set_database_global_context_variables(dataset.id, dataset.owner_id):
        graph = await get_graph_engine()
        data: list[Any] = sorted(await cognee.datasets.list_data(dataset.id), key=lambda d: d.name)
        first_chunk = str(chunk_id(data[0].name))
        await adapter_reads(rec, "pipeline", graph, book=first_chunk, node_set=False)
        entities = [str(fixed_id(f"entity-{w}")) for w in ("Alice", "Bob", "Nobody")]
        await vector_reads(rec, "vector", await get_vector_engine_async(), entities)
    # A live engine handle defers its close past eviction (Cognee's closing_lru_cache): the
    # deletion steps must not run while this scenario itself still holds one.
    del graph
    await dataset_steps(rec, user, dataset)


async def _run_summary(call: Any) -> Any:
    runs = await call
    values = runs.values() if isinstance(runs, dict) else runs
    return unordered(type(r).__name__ + ":" + str(getattr(r, "status", "")) for r in values)


def today_iso() -> str:
    return datetime.now(timezone.utc).date().isoformat()
