"""One backend's ``cognee.update()`` of one edited document, in its own process.

``python -m tests.cognee.incremental_update_runner <ladybug|anatid> <workdir> <out.json>``

The process configures Cognee the way the differential runner does (LadybugDB + LanceDB, or
anatid for both stores; LLM calls to the fake OpenAI server on 127.0.0.1, embeddings from the
hash engine), then: ``add`` a document of several paragraphs, ``cognify`` it at a chunk size
that cuts one chunk per paragraph, and ``update`` it with one paragraph rewritten. It writes
the LLM calls each step made (counted on the fake server), ``update``'s result, and the
dataset's graph afterwards (nodes by name and type, edges by their endpoints' names, the
chunks' texts) for ``tests/cognee/test_cognee_incremental_update.py`` to compare.
"""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Any

from tests.cognee.differential.runner import configure_environment

PARAGRAPHS = [
    "Alice works at Acme in Berlin. She leads the storage team and reviews every design.",
    "Bob grows green apples in an orchard near Hamburg. He sells them at the market.",
    "Carol writes the quarterly report for Acme. It covers revenue, hiring and travel.",
    "Dave repairs old bicycles in a small shop in Munich. He opens it every Saturday.",
]
#: The edit: the third paragraph rewritten longer (one chunk more), the others untouched, so
#: the chunks after it move up one place (``update_chunk_index``, ``update_payload``).
OLD_PARAGRAPH = PARAGRAPHS[2]
NEW_PARAGRAPH = (
    "Erin audits the yearly accounts for Globex in Vienna every spring and every autumn. "
    "She checks each invoice, each payroll run and each expense claim line by line. "
    "Her findings go to the board of Globex before the annual meeting in June."
)
#: Tokens per chunk: each paragraph (about twenty tokens) is a chunk of its own.
CHUNK_SIZE = 24
DATASET = "incremental"


def document(paragraphs: list[str]) -> str:
    return "\n\n".join(paragraphs) + "\n"


def chat_calls(fake: Any) -> int:
    return sum(1 for r in fake.requests if r["path"].endswith("/chat/completions"))


async def snapshot(dataset_id: Any, owner_id: Any) -> dict[str, Any]:
    """The dataset's graph as names, and its chunks' vector rows: what must agree."""
    from cognee.context_global_variables import set_database_global_context_variables
    from cognee.infrastructure.databases.graph import get_graph_engine
    from cognee.infrastructure.databases.vector import get_vector_engine_async

    async with set_database_global_context_variables(dataset_id, owner_id):
        graph = await get_graph_engine()
        nodes, edges = await graph.get_graph_data()
        engine = graph.__class__.__name__  # the adapter behind Cognee's engine handle
        by_id = {str(node_id): props for node_id, props in nodes}
        chunk_ids = [i for i, p in by_id.items() if p.get("type") == "DocumentChunk"]
        vector = await get_vector_engine_async()
        rows = await vector.retrieve("DocumentChunk_text", chunk_ids)

    def label(node_id: Any) -> str:
        props = by_id.get(str(node_id), {})
        if props.get("type") in ("DocumentChunk", "TextSummary"):
            return f"{props.get('type')}:{props.get('text', '')}"
        return f"{props.get('type')}:{props.get('name', '')}"

    return {
        "engine": engine,
        "nodes": sorted(label(i) for i in by_id),
        "edges": sorted(f"{label(s)} -[{rel}]-> {label(t)}" for s, t, rel, _ in edges),
        "chunks": sorted([int(by_id[i]["chunk_index"]), by_id[i]["text"]] for i in chunk_ids),
        "chunk_rows": sorted([int(r.payload["chunk_index"]), r.payload["text"]] for r in rows),
    }


async def run(backend: str, workdir: Path, fake: Any) -> dict[str, Any]:
    if backend == "anatid":
        import anatid_cognee  # noqa: F401  (registers the "anatid" provider)

    import cognee
    from cognee.modules.users.methods import get_default_user

    from tests.cognee.cognee_fakes import install_hash_embeddings

    install_hash_embeddings()
    await cognee.prune.prune_data()
    await cognee.prune.prune_system(metadata=True)

    source = workdir / "notes.txt"
    source.write_text(document(PARAGRAPHS), encoding="utf-8")
    await cognee.add(str(source), dataset_name=DATASET)
    user = await get_default_user()
    (dataset,) = [d for d in await cognee.datasets.list_datasets(user=user) if d.name == DATASET]
    (data,) = await cognee.datasets.list_data(dataset.id, user=user)

    before = chat_calls(fake)
    await cognee.cognify(datasets=[DATASET], chunk_size=CHUNK_SIZE)
    cognify_calls = chat_calls(fake) - before
    after_cognify = await snapshot(dataset.id, dataset.owner_id)

    edited = workdir / "notes_v2.txt"
    edited.write_text(
        document([NEW_PARAGRAPH if p == OLD_PARAGRAPH else p for p in PARAGRAPHS]),
        encoding="utf-8",
    )
    before = chat_calls(fake)
    result = await cognee.update(data_id=data.id, data=str(edited), dataset_id=dataset.id)
    update_calls = chat_calls(fake) - before
    return {
        "backend": backend,
        "cognify_calls": cognify_calls,
        "update_calls": update_calls,
        "update": json.loads(json.dumps(result, default=str)),
        "after_cognify": after_cognify,
        "after_update": await snapshot(dataset.id, dataset.owner_id),
    }


def main() -> None:
    backend, workdir, out = sys.argv[1], Path(sys.argv[2]), Path(sys.argv[3])
    from tests.cognee.fake_openai import serve_fake_openai

    with serve_fake_openai() as fake:
        configure_environment(backend, workdir, fake.url)
        result = asyncio.run(run(backend, workdir, fake))
    out.write_text(json.dumps(result, ensure_ascii=False, indent=1))


if __name__ == "__main__":
    main()
