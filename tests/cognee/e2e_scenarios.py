"""End-to-end Cognee scenarios on anatid, each run in a fresh process by test_cognee_e2e.py.

Cognee keeps process-wide state (cached configs and engines, context variables), so every
scenario gets its own interpreter: ``python -m tests.cognee.e2e_scenarios <name> <workdir>``.
No LLM and no network: embeddings come from the hash engine, and the one LLM step of TEMPORAL
search (reading a date window out of the question) is replaced by a fixed window. Each
scenario prints one JSON line of observations for the test to assert on.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from tests.cognee.conftest import COGNEE_ENV

WORKDIR = Path(sys.argv[2]) if len(sys.argv) > 2 else Path.cwd()
os.environ.update(COGNEE_ENV)
os.environ["SYSTEM_ROOT_DIRECTORY"] = str(WORKDIR / "system")
os.environ["DATA_ROOT_DIRECTORY"] = str(WORKDIR / "data")
MEMORY_FILE = str(WORKDIR / "memory.duckdb")

DOCS = {
    "acme.txt": "Alice works at Acme in Berlin. She joined Acme on 2019-03-01.",
    "bob.txt": "Bob grows green apples in an orchard near Hamburg since 2021.",
}


def _setup(access_control: bool = False) -> None:
    os.environ["ENABLE_BACKEND_ACCESS_CONTROL"] = "true" if access_control else "false"
    import anatid_cognee

    from tests.cognee.cognee_fakes import install_hash_embeddings

    install_hash_embeddings()
    anatid_cognee.configure(None if access_control else MEMORY_FILE)


def _fix_temporal_window(start: str, end: str) -> None:
    """TEMPORAL search asks the LLM for the question's date window; answer it ourselves."""
    import cognee.modules.retrieval.temporal_hybrid_retriever as temporal

    async def window(query: str) -> tuple[datetime, datetime, str | None]:
        return (
            datetime.fromisoformat(start).replace(tzinfo=timezone.utc),
            datetime.fromisoformat(end).replace(tzinfo=timezone.utc),
            None,
        )

    temporal.extract_query_interval = window  # type: ignore[assignment]


def _chunk_graph(name: str, text: str, doc_id: Any = None, node_set: str | None = None) -> Any:
    """A document, one chunk, its entities with types, and its dates, as DataPoints."""
    import re

    from cognee.modules.chunking.models.DocumentChunk import DocumentChunk
    from cognee.modules.data.processing.document_types.TextDocument import TextDocument
    from cognee.modules.engine.models import Entity, EntityType
    from cognee.modules.engine.utils.timestamp_from_text import timestamp_from_text

    extra = {"id": doc_id} if doc_id is not None else {}
    doc = TextDocument(
        name=name,
        raw_data_location=f"/dev/null/{name}",
        external_metadata=None,
        mime_type="text/plain",
        **extra,
    )
    person = EntityType(name="person", description="a person")
    place = EntityType(name="place", description="a place")
    entities = [
        Entity(
            name=w.lower(),
            description=f"{w} from {name}",
            is_a=place if w in ("Berlin", "Hamburg", "Acme") else person,
        )
        for w in re.findall(r"\b(Alice|Bob|Acme|Berlin|Hamburg)\b", text)
    ]
    stamps = [timestamp_from_text(d) for d in re.findall(r"\d{4}-\d{2}-\d{2}|\b\d{4}\b", text)]
    from cognee.modules.engine.models.node_set import NodeSet

    return DocumentChunk(
        text=text,
        chunk_size=len(text.split()),
        chunk_index=0,
        cut_type="sentence_end",
        is_part_of=doc,
        contains=[*entities, *[s for s in stamps if s is not None]],
        belongs_to_set=[NodeSet(name=node_set)] if node_set else None,
    )


async def _search(query: str, kind: str, **kwargs: Any) -> list[Any]:
    import cognee
    from cognee.modules.search.types import SearchType

    return await cognee.search(query_text=query, query_type=SearchType[kind], **kwargs)


def _text_of(results: Any) -> str:
    return json.dumps(results, default=str)


async def single_user() -> dict[str, Any]:
    """add_data_points, the offline search types, a custom pipeline, prune and rerun."""
    _setup()
    import cognee
    from cognee.infrastructure.databases.graph import get_graph_engine
    from cognee.infrastructure.databases.vector import get_vector_engine_async
    from cognee.low_level import setup
    from cognee.tasks.storage import add_data_points

    await cognee.prune.prune_data()
    await cognee.prune.prune_system(metadata=True)
    await setup()
    out: dict[str, Any] = {}

    chunks = [_chunk_graph(name, text, node_set=name.split(".")[0]) for name, text in DOCS.items()]
    await add_data_points(chunks)
    graph = await get_graph_engine()
    vector = await get_vector_engine_async()
    out["graph_class"] = graph.__class__.__name__
    out["vector_class"] = vector.__class__.__name__
    out["same_store"] = graph._store is vector._store
    out["counts"] = list(await graph.get_graph_counts())
    out["collections"] = sorted(await vector.get_collection_names())

    out["chunks"] = _text_of(await _search("Alice Acme Berlin", "CHUNKS"))
    out["lexical"] = _text_of(await _search("green apples orchard", "CHUNKS_LEXICAL"))
    out["graph_completion"] = _text_of(
        await _search("Where does Alice work?", "GRAPH_COMPLETION", only_context=True)
    )
    out["rag_completion"] = _text_of(
        await _search("Who grows apples?", "RAG_COMPLETION", only_context=True)
    )
    out["hybrid_completion"] = _text_of(
        await _search("Where does Alice work?", "HYBRID_COMPLETION", only_context=True)
    )
    # Node-set scoped retrieval: get_nodeset_subgraph on the graph side.
    from cognee.modules.engine.models.node_set import NodeSet

    out["nodeset_completion"] = _text_of(
        await _search(
            "Who grows apples?",
            "GRAPH_COMPLETION",
            only_context=True,
            node_type=NodeSet,
            node_name=["bob"],
        )
    )
    _fix_temporal_window("2019-01-01", "2019-12-31")
    out["temporal"] = _text_of(
        await _search("What happened in 2019?", "TEMPORAL", only_context=True)
    )

    before_pipeline = datetime.now(timezone.utc)

    # cognee.add + a custom pipeline on a named dataset (the dataset context and ledger path).
    for name, text in DOCS.items():
        path = WORKDIR / name
        path.write_text(text, encoding="utf-8")
        await cognee.add(str(path), dataset_name="notes")

    async def to_points(data: list[Any]) -> list[Any]:
        return [
            _chunk_graph(d.name, Path(_local(d.raw_data_location)).read_text(), d.id) for d in data
        ]

    from cognee.modules.pipelines.tasks.task import Task

    await cognee.run_custom_pipeline(
        tasks=[Task(to_points), Task(add_data_points)], dataset="notes"
    )
    out["after_pipeline_counts"] = list(await graph.get_graph_counts())
    # Time travel through Cognee's own engine handle: the graph before the pipeline ran.
    out["as_of_before_pipeline"] = list(await graph.as_of(before_pipeline).get_graph_counts())
    out["pipeline_search"] = _text_of(await _search("Hamburg orchard", "CHUNKS"))

    # Prune, then the same ingestion again on the emptied store.
    await cognee.prune.prune_data()
    await cognee.prune.prune_system(metadata=True)
    graph = await get_graph_engine()
    out["after_prune_counts"] = list(await graph.get_graph_counts())
    await setup()
    await add_data_points(
        [_chunk_graph(name, text, node_set=name.split(".")[0]) for name, text in DOCS.items()]
    )
    graph = await get_graph_engine()
    out["rerun_counts"] = list(await graph.get_graph_counts())
    out["rerun_chunks"] = _text_of(await _search("Bob apples", "CHUNKS"))
    return out


def _local(location: str) -> str:
    return location[len("file://") :] if location.startswith("file://") else location


async def reopen() -> dict[str, Any]:
    """A new process opens the file the previous scenario left and reads it."""
    _setup()
    from cognee.infrastructure.databases.graph import get_graph_engine
    from cognee.infrastructure.databases.vector import get_vector_engine_async

    graph = await get_graph_engine()
    vector = await get_vector_engine_async()
    nodes, edges = await graph.get_graph_data()
    hits = await vector.search(
        "DocumentChunk_text", query_text="Bob apples", limit=1, include_payload=True
    )
    return {
        "nodes": len(nodes),
        "edges": len(edges),
        "names": sorted({d.get("name") for _, d in nodes if d.get("type") == "Entity"}),
        "top_chunk": hits[0].payload["text"] if hits else None,
    }


async def two_users() -> dict[str, Any]:
    """Backend access control on: each user's dataset is its own anatid file."""
    _setup(access_control=True)
    import cognee
    from cognee.low_level import setup
    from cognee.modules.pipelines.tasks.task import Task
    from cognee.modules.users.methods import create_user
    from cognee.tasks.storage import add_data_points

    await cognee.prune.prune_data()
    await cognee.prune.prune_system(metadata=True)
    await setup()
    users = {
        "ann": await create_user("ann@example.com", "pw-ann-123456", is_verified=True),
        "ben": await create_user("ben@example.com", "pw-ben-123456", is_verified=True),
    }
    texts = {"ann": DOCS["acme.txt"], "ben": DOCS["bob.txt"]}
    for who, user in users.items():
        path = WORKDIR / f"{who}.txt"
        path.write_text(texts[who], encoding="utf-8")
        await cognee.add(str(path), dataset_name=f"{who}_notes", user=user)

        async def to_points(data: list[Any]) -> list[Any]:
            return [
                _chunk_graph(d.name, Path(_local(d.raw_data_location)).read_text(), d.id)
                for d in data
            ]

        await cognee.run_custom_pipeline(
            tasks=[Task(to_points), Task(add_data_points)], dataset=f"{who}_notes", user=user
        )
    out: dict[str, Any] = {}
    for who, user in users.items():
        out[who] = _text_of(await _search("Alice Acme Bob apples", "CHUNKS", user=user))
    out["files"] = _dataset_files()

    # Ben deletes his document: his fresh dataset file carries graph provenance, so Cognee
    # deletes through the graph. Ann's dataset is untouched.
    ben = users["ben"]
    (dataset,) = await cognee.datasets.list_datasets(user=ben)
    for data in await cognee.datasets.list_data(dataset.id, user=ben):
        await cognee.datasets.delete_data(dataset.id, data.id, user=ben)
    out["ben_after_delete"] = _text_of(await _search("Bob apples", "CHUNKS", user=ben))
    out["ben_file_after_delete"] = _file_summary(dataset.id)
    out["ann_after_delete"] = _text_of(await _search("Alice Acme", "CHUNKS", user=users["ann"]))

    await cognee.prune.prune_system(metadata=True)
    out["files_after_prune"] = _dataset_files()
    return out


def _file_summary(dataset_id: Any) -> dict[str, Any]:
    """Graph records and provenance marker in a dataset's file, read through anatid_core."""
    from anatid_cognee import store_registry
    from anatid_cognee.records import GRAPH_GROUP, METADATA_NODE_ID

    (path,) = (WORKDIR / "system" / "databases").rglob(f"{dataset_id}.anatid.duckdb")
    store = store_registry.acquire(str(path))
    try:
        meta = store.get_node(METADATA_NODE_ID)
        return {
            "graph_nodes": store.count_nodes(groups=[GRAPH_GROUP]),
            "graph_edges": store.count_edges(groups=[GRAPH_GROUP]),
            "metadata": dict(meta.props) if meta is not None else {},
        }
    finally:
        store_registry.release(store)


def _dataset_files() -> list[str]:
    root = WORKDIR / "system" / "databases"
    return sorted(p.name for p in root.rglob("*.anatid.duckdb"))


async def shared_setup() -> dict[str, Any]:
    """Access control on, before two processes share the dataset: Cognee's one-time setup."""
    _setup(access_control=True)
    from cognee.low_level import setup

    await setup()
    return {"ok": True}


async def shared_writer() -> dict[str, Any]:
    """One of two processes adding documents to one dataset at once (access control on: the
    dataset's own anatid file, plus the global file Cognee opens for its embedding check)."""
    _setup(access_control=True)
    import cognee
    from cognee.modules.pipelines.tasks.task import Task
    from cognee.tasks.storage import add_data_points

    w = int(os.environ["ANATID_WRITER"])
    done = []
    for k in range(int(os.environ.get("ANATID_DOCS", "4"))):
        name = f"w{w}doc{k}"
        path = WORKDIR / f"{name}.txt"
        path.write_text(f"Writer{w} wrote note{w}x{k} about Acme.", encoding="utf-8")
        await cognee.add(str(path), dataset_name="shared_notes")

        async def to_points(data: list[Any]) -> list[Any]:
            return [
                _chunk_graph(d.name, Path(_local(d.raw_data_location)).read_text(), d.id)
                for d in data
            ]

        await cognee.run_custom_pipeline(
            tasks=[Task(to_points), Task(add_data_points)], dataset="shared_notes"
        )
        done.append(name)
        await _search(f"note{w}x{k}", "CHUNKS")
    return {"done": done}


async def shared_check() -> dict[str, Any]:
    """Afterwards, in a third process: what both writers added is found."""
    _setup(access_control=True)
    found = {}
    for w in range(2):
        for k in range(int(os.environ.get("ANATID_DOCS", "4"))):
            text = _text_of(await _search(f"note{w}x{k}", "CHUNKS"))
            found[f"w{w}doc{k}"] = f"note{w}x{k}" in text
    return {"found": found, "files": _dataset_files()}


SCENARIOS = {
    "single_user": single_user,
    "reopen": reopen,
    "two_users": two_users,
    "shared_setup": shared_setup,
    "shared_writer": shared_writer,
    "shared_check": shared_check,
}

if __name__ == "__main__":
    result = asyncio.run(SCENARIOS[sys.argv[1]]())
    print("RESULT " + json.dumps(result, default=str))
