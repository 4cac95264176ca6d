"""Build a Cognee graph file with Cognee's own graph adapter, and dump what the adapter reads back.

Run by an interpreter with cognee installed:
- cognee 1.6.5 (LadybugDB 0.19): writes a LadybugDB file through ``LadybugAdapter``;
- cognee 1.0.3 (kuzu 0.11.3):    writes a Kuzu file through ``KuzuAdapter``.

    python make_cognee_graph.py OUT EXPECTED.json

The graph is built the way ``add_data_points`` builds it (``get_graph_from_model`` over real
DataPoints, then the adapter's ``add_nodes``/``add_edges``), without an LLM or network.
EXPECTED.json is ``get_graph_data()`` as the adapter returns it.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import tempfile
from pathlib import Path
from uuid import UUID

_ROOT = tempfile.mkdtemp(prefix="cognee-src-")
for key, value in {
    "ENABLE_BACKEND_ACCESS_CONTROL": "false",
    "TELEMETRY_DISABLED": "1",
    "COGNEE_SKIP_CONNECTION_TEST": "true",
    "CACHING": "false",
    "AUTO_FEEDBACK": "false",
    "LLM_API_KEY": "dummy",
    "SYSTEM_ROOT_DIRECTORY": _ROOT,
    "DATA_ROOT_DIRECTORY": _ROOT,
}.items():
    os.environ.setdefault(key, value)

import cognee  # noqa: E402,F401
from cognee.modules.chunking.models import DocumentChunk  # noqa: E402
from cognee.modules.data.processing.document_types import TextDocument  # noqa: E402
from cognee.modules.engine.models import Entity, EntityType  # noqa: E402
from cognee.modules.graph.utils import get_graph_from_model  # noqa: E402

PEOPLE = ["alice", "bob", "carol", "dana", "erin"]
ORGS = ["acme", "globex", "initech"]


def _uuid(i: int) -> UUID:
    return UUID(f"c0ffee00-0000-4000-8000-{i:012d}")


def data_points() -> list:
    person = EntityType(id=_uuid(1), name="person", description="A human being")
    org = EntityType(id=_uuid(2), name="organisation", description="A company")
    ents = {
        n: Entity(id=_uuid(10 + i), name=n, description=f"{n} is a person", is_a=person)
        for i, n in enumerate(PEOPLE)
    }
    ents.update(
        {
            n: Entity(id=_uuid(30 + i), name=n, description=f"{n} is a company", is_a=org)
            for i, n in enumerate(ORGS)
        }
    )
    doc = TextDocument(
        id=_uuid(100),
        name="notes.txt",
        raw_data_location="/dev/null",
        external_metadata=json.dumps({"source": "fixture", "n": 1}),
        mime_type="text/plain",
    )
    texts = [
        ("Alice works at Acme with Bob.", ["alice", "bob", "acme"]),
        ("Bob moved to Globex.", ["bob", "globex"]),
        ("Carol and Dana founded Initech; Erin joined.", ["carol", "dana", "erin", "initech"]),
    ]
    chunks = [
        DocumentChunk(
            id=_uuid(200 + i),
            text=text,
            chunk_size=len(text.split()),
            chunk_index=i,
            cut_type="sentence_end",
            is_part_of=doc,
            contains=[ents[n] for n in names],
        )
        for i, (text, names) in enumerate(texts)
    ]
    return chunks


async def graph() -> tuple[list, list]:
    nodes: list = []
    edges: list = []
    added_nodes: dict = {}
    added_edges: dict = {}
    visited: dict = {}
    for dp in data_points():
        n, e = await get_graph_from_model(
            dp, added_nodes=added_nodes, added_edges=added_edges, visited_properties=visited
        )
        nodes.extend(n)
        edges.extend(e)
    try:  # cognee >= 1.4 post-processes edges before storage
        from cognee.modules.graph.utils import deduplicate_nodes_and_edges
        from cognee.modules.graph.utils.prepare_edges_for_storage import (
            ensure_default_edge_properties,
        )

        nodes, edges = deduplicate_nodes_and_edges(nodes, edges)
        try:
            edges = ensure_default_edge_properties(edges, nodes=nodes)
        except TypeError:  # cognee 1.0.x takes only the edges
            edges = ensure_default_edge_properties(edges)
    except ImportError:
        from cognee.modules.graph.utils import deduplicate_nodes_and_edges

        nodes, edges = deduplicate_nodes_and_edges(nodes, edges)
    return nodes, edges


def adapter(path: str):
    try:
        from cognee.infrastructure.databases.graph.ladybug.adapter import LadybugAdapter

        return LadybugAdapter(path)
    except ImportError:
        from cognee.infrastructure.databases.graph.kuzu.adapter import KuzuAdapter

        return KuzuAdapter(path)


async def main(out: str, expected: str) -> None:
    if os.path.exists(out):
        os.remove(out)
    nodes, edges = await graph()
    engine = adapter(out)
    await engine.add_nodes(nodes)
    # An extra custom edge with nested, dated properties, as custom_edges would add.
    edges = list(edges) + [
        (
            str(_uuid(10)),
            str(_uuid(11)),
            "knows",
            {"since": "2019-03-01", "weight": 0.5, "tags": ["work", "friend"], "meta": {"k": 1}},
        )
    ]
    await engine.add_edges(edges)
    got_nodes, got_edges = await engine.get_graph_data()
    Path(expected).write_text(
        json.dumps({"nodes": got_nodes, "edges": got_edges}, indent=1, sort_keys=True, default=str)
    )
    close = getattr(engine, "close", None)
    if close is not None:
        result = close()
        if asyncio.iscoroutine(result):
            await result
    print({"nodes": len(got_nodes), "edges": len(got_edges), "engine": type(engine).__name__})


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2]))
