"""Cognee's deletions erase (issue 15): scenarios run in a fresh interpreter each.

``python -m tests.cognee.erasure_scenarios NAME WORKDIR`` (cwd = the repository root), run by
test_cognee_erasure.py. One anatid file for graph and vectors (access control off), hash
embeddings, no LLM: ``cognee.add`` + a custom pipeline of ``add_data_points``. Unique tokens sit
in an entity's name, a nested property, a 3,000-word chunk text (compressed by DuckDB), a value
repeated in 3,000 rows, an old version only, and an embedding (the float32 bytes of the chunk's
vector); the raw files are scanned for them before and after each deletion. Prints one
``RESULT`` JSON line of observations.
"""

from __future__ import annotations

import asyncio
import functools
import json
import os
import sys
import time
from datetime import datetime, timezone
from pathlib import Path
from typing import Any
from uuid import NAMESPACE_URL, uuid5

from tests.cognee.conftest import COGNEE_ENV

WORKDIR = Path(sys.argv[2]) if len(sys.argv) > 2 else Path.cwd()
os.environ.update(COGNEE_ENV)
os.environ["ENABLE_BACKEND_ACCESS_CONTROL"] = "false"
os.environ["SYSTEM_ROOT_DIRECTORY"] = str(WORKDIR / "system")
os.environ["DATA_ROOT_DIRECTORY"] = str(WORKDIR / "data")
MEMORY_FILE = WORKDIR / "memory.duckdb"
REPEATED_ROWS = 3000

#: The documents: which dataset each goes to, and the token its records carry.
DOCS = {"secret": "main", "keep": "main", "other": "other"}


def tokens(doc: str) -> dict[str, str]:
    """The unique tokens of one document's records, by where they are stored."""
    t = doc.upper()
    return {
        "name": f"zq{t}NAMETOKENq",
        "nested": f"zq{t}NESTEDTOKENq",
        "long": f"zq{t}LONGTEXTTOKENq",
        "repeated": f"zq{t}REPEATEDTOKENq",
        "old_version": f"zq{t}OLDVERSIONTOKENq",
    }


def long_text(doc: str) -> str:
    words = [f"w{i % 400}" for i in range(3000)]
    words[1500] = tokens(doc)["long"]
    return " ".join(words)


def entity_id(doc: str) -> str:
    return str(uuid5(NAMESPACE_URL, f"anatid-erasure-entity-{doc}"))  # the Entity's id


@functools.cache
def _models() -> Any:
    from cognee.infrastructure.engine import DataPoint

    class Note(DataPoint):
        """A record with a nested property and a tag repeated across many rows."""

        name: str
        tag: str = ""
        details: dict = {}
        metadata: dict = {"index_fields": ["name"]}  # pyright: ignore[reportIncompatibleVariableOverride]

    return Note


def points(doc: str, data_id: Any, *, version: int = 1) -> list[Any]:
    """The DataPoints of one document: its chunk (long text), an entity (name token; its
    first version's description holds the old-version token), a note with a nested token, and
    notes sharing one repeated tag."""
    from cognee.modules.chunking.models.DocumentChunk import DocumentChunk
    from cognee.modules.data.processing.document_types.TextDocument import TextDocument
    from cognee.modules.engine.models import Entity, EntityType

    tok = tokens(doc)
    note = _models()
    kind = EntityType(
        id=uuid5(NAMESPACE_URL, "anatid-erasure-type"), name="person", description="a person"
    )
    entity = Entity(
        id=uuid5(NAMESPACE_URL, f"anatid-erasure-entity-{doc}"),
        name=f"entity {tok['name']}",
        description=f"first version {tok['old_version']}" if version == 1 else "second version",
        is_a=kind,
    )
    if version > 1:
        return [entity]
    rows = REPEATED_ROWS if doc == "secret" else 20
    notes = [note(name=f"{doc} note {i}", tag=tok["repeated"]) for i in range(rows)]
    nested = note(name=f"{doc} nested", details={"outer": {"inner": [1, {"deep": tok["nested"]}]}})
    document = TextDocument(
        id=data_id,
        name=doc,
        raw_data_location=f"/dev/null/{doc}",
        external_metadata=None,
        mime_type="text/plain",
    )
    chunk = DocumentChunk(
        text=long_text(doc),
        chunk_size=3000,
        chunk_index=0,
        cut_type="sentence_end",
        is_part_of=document,
        contains=[entity],
    )
    return [chunk, nested, *notes]


def vector_bytes(doc: str) -> bytes:
    """The float32 bytes of the chunk's embedding, as the vector space stores them."""
    import numpy as np

    from tests.cognee.cognee_fakes import hash_vector

    return np.asarray(hash_vector(long_text(doc)), dtype="<f4").tobytes()


def needles(doc: str) -> dict[str, bytes]:
    found = {k: v.encode() for k, v in tokens(doc).items()}
    found["embedding"] = vector_bytes(doc)
    return found


def scan() -> dict[str, dict[str, bool]]:
    """For every document and needle, whether its bytes occur in any file of the store (the
    database, its WAL, a compaction copy, lease files)."""
    data = b"".join(p.read_bytes() for p in sorted(WORKDIR.glob(MEMORY_FILE.name + "*")))
    return {doc: {k: v in data for k, v in needles(doc).items()} for doc in DOCS}


async def _setup(uncompressed: bool = True) -> Any:
    import anatid_cognee
    from cognee.infrastructure.databases.graph import get_graph_engine
    from cognee.low_level import setup

    from tests.cognee.cognee_fakes import install_hash_embeddings

    install_hash_embeddings()
    anatid_cognee.configure(str(MEMORY_FILE))
    await setup()
    graph: Any = await get_graph_engine()
    # DuckDB compresses floats (ALP), which would hide a vector's bytes from the scan even
    # before deletion; stored uncompressed, the scan can see them (the copy keeps the setting).
    if uncompressed:
        graph._store.connection._con.execute("SET force_compression = 'uncompressed'").fetchall()
    return graph


async def _fill(docs: list[str]) -> None:
    import cognee
    from cognee.modules.pipelines.tasks.task import Task
    from cognee.tasks.storage import add_data_points

    for doc in docs:
        path = WORKDIR / f"{doc}.txt"
        path.write_text(f"The {doc} document.", encoding="utf-8")
        await cognee.add(str(path), dataset_name=DOCS[doc])

        async def to_points(data: list[Any], doc: str = doc) -> list[Any]:
            return [p for d in data for p in points(doc, d.id)]

        await cognee.run_custom_pipeline(
            tasks=[Task(to_points), Task(add_data_points)], dataset=DOCS[doc]
        )
    # A second version of each entity: the first one's token lives in history only.
    await add_data_points([p for doc in docs for p in points(doc, None, version=2)])


async def _dataset(name: str) -> Any:
    import cognee

    (found,) = [d for d in await cognee.datasets.list_datasets() if str(d.name) == name]
    return found


async def _data_of(doc: str) -> Any:
    import cognee

    dataset = await _dataset(DOCS[doc])
    (data,) = [d for d in await cognee.datasets.list_data(dataset.id) if str(d.name) == doc]
    return dataset, data


async def _graph_state(graph: Any, at: datetime | None = None) -> dict[str, Any]:
    """Every node and edge (id -> properties), now or as of ``at``."""
    reads = graph.as_of(at) if at is not None else graph
    nodes, edges = await reads.get_graph_data()
    return {
        "nodes": {str(i): props for i, props in nodes},
        "edges": {f"{s}|{r}|{t}": props for s, t, r, props in edges},
    }


def _without(state: dict[str, Any], erased: set[str]) -> dict[str, Any]:
    return {
        "nodes": {i: p for i, p in state["nodes"].items() if i not in erased},
        "edges": {
            k: p
            for k, p in state["edges"].items()
            if k.split("|")[0] not in erased and k.split("|")[2] not in erased
        },
    }


async def _vector_rows(collection: str) -> list[str]:
    from cognee.infrastructure.databases.vector import get_vector_engine_async

    vector = await get_vector_engine_async()
    if not await vector.has_collection(collection):
        return []
    return sorted(str(r.id) for r in await vector.search(collection, query_text="x", limit=None))


async def erasure() -> dict[str, Any]:
    """delete_data, then empty_dataset, then prune_system on one shared file."""
    import cognee

    graph = await _setup()
    await _fill(list(DOCS))
    at_fill = datetime.now(timezone.utc)
    out: dict[str, Any] = {"before": scan()}
    past_before = await _graph_state(graph, at_fill)
    now_before = await _graph_state(graph)
    out["history_before"] = len(await graph.history(entity_id("secret")))

    dataset, data = await _data_of("secret")
    started = time.perf_counter()
    await cognee.datasets.delete_data(dataset.id, data.id)
    out["delete_data_seconds"] = time.perf_counter() - started
    out["file_bytes"] = MEMORY_FILE.stat().st_size
    out["after_delete_data"] = scan()
    out["history_after"] = len(await graph.history(entity_id("secret")))
    past_after = await _graph_state(graph, at_fill)
    now_after = await _graph_state(graph)
    erased = set(past_before["nodes"]) - set(past_after["nodes"])
    out["erased_nodes"] = sorted(erased)
    out["secret_entity_erased"] = entity_id("secret") in erased
    out["as_of_others_unchanged"] = _without(past_before, erased) == past_after
    out["now_others_unchanged"] = _without(now_before, erased) == now_after
    out["entity_rows_after_delete"] = await _vector_rows("Entity_name")
    out["keep_entity"] = entity_id("keep")
    receipts = graph._store.erasures()
    out["receipts"] = [{"state": r.state, "nodes": list(r.node_ids)} for r in receipts]
    out["leftover_files"] = sorted(p.name for p in WORKDIR.glob(MEMORY_FILE.name + "*"))

    other = await _dataset("other")
    await cognee.datasets.empty_dataset(other.id)
    out["after_empty_dataset"] = scan()
    out["keep_history_after_empty"] = len(await graph.history(entity_id("keep")))

    await cognee.prune.prune_system(metadata=False)
    out["after_prune_system"] = scan()
    out["pending_after_prune"] = len(
        [r for r in (await _graph())._store.erasures() if r.state != "gone"]
    )
    return out


async def _graph() -> Any:
    from cognee.infrastructure.databases.graph import get_graph_engine

    return await get_graph_engine()


async def audit() -> dict[str, Any]:
    """The audit setting: delete_data keeps the deleted records in history, and says so."""
    import warnings

    import cognee
    from anatid_cognee import KEEP_DELETED_ENV, DeletedDataKept

    os.environ[KEEP_DELETED_ENV] = "1"
    graph = await _setup()
    await _fill(["secret", "keep"])
    at_fill = datetime.now(timezone.utc)
    dataset, data = await _data_of("secret")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        await cognee.datasets.delete_data(dataset.id, data.id)
    now = await _graph_state(graph)
    past = await _graph_state(graph, at_fill)
    return {
        "warned": [str(w.message) for w in caught if issubclass(w.category, DeletedDataKept)],
        "current_has_secret": entity_id("secret") in now["nodes"],
        "as_of_has_secret": entity_id("secret") in past["nodes"],
        "history": len(await graph.history(entity_id("secret"))),
        "scan": scan()["secret"],
        "receipts": len(graph._store.erasures()),
    }


SCENARIOS = {"erasure": erasure, "audit": audit}

if __name__ == "__main__":
    result = asyncio.run(SCENARIOS[sys.argv[1]]())
    print("RESULT " + json.dumps(result, default=str))
