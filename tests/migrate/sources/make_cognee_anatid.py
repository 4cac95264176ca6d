"""Build a Cognee memory in an anatid file the way Cognee's ``add_data_points`` builds one, without
an LLM: the empty graph marked as holding its own provenance (Cognee's
``mark_graph_provenance_if_empty``), real Cognee DataPoints (documents, chunks, entities, entity
types, a node set) turned into a graph by Cognee's ``get_graph_from_model``, written through the
anatid Cognee adapters with provenance (two datasets, pipeline runs), and indexed into vector
collections with the deterministic hash embedder. A second write then changes and deletes records, so the file has a
history (earlier versions) beside its current state.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any
from uuid import UUID

DATASET_A = UUID("da7a0000-0000-4000-8000-00000000000a")
DATASET_B = UUID("da7a0000-0000-4000-8000-00000000000b")
RUN_1 = "0000aaaa-0000-4000-8000-000000000001"
RUN_2 = "0000aaaa-0000-4000-8000-000000000002"


def _uuid(i: int) -> UUID:
    return UUID(f"c0ffee00-0000-4000-8000-{i:012d}")


def data_points(n_people: int = 5) -> tuple[list[Any], dict[str, list[Any]]]:
    """The chunks to store, and the points to index per (type, field) collection."""
    from cognee.modules.chunking.models import DocumentChunk
    from cognee.modules.data.processing.document_types import TextDocument
    from cognee.modules.engine.models import Entity, EntityType
    from cognee.modules.engine.models.node_set import NodeSet

    team = NodeSet(id=_uuid(900), name="team")
    person = EntityType(id=_uuid(1), name="person", description="A human being")
    people = [
        Entity(id=_uuid(10 + i), name=f"person {i}", description=f"person {i} works here",
               is_a=person, belongs_to_set=[team])
        for i in range(n_people)
    ]  # fmt: skip
    doc = TextDocument(id=_uuid(100), name="notes.txt", raw_data_location="/dev/null",
                       external_metadata='{"source": "fixture"}', mime_type="text/plain")  # fmt: skip
    chunks = [
        DocumentChunk(id=_uuid(200 + i), text=f"chunk {i} mentions person {i}",
                      chunk_size=5, chunk_index=i, cut_type="sentence_end", is_part_of=doc,
                      contains=people[i : i + 2], belongs_to_set=[team])
        for i in range(max(1, n_people - 1))
    ]  # fmt: skip
    index = {"Entity_name": people, "EntityType_name": [person], "DocumentChunk_text": chunks}
    return chunks, index


async def graph_of(points: list[Any]) -> tuple[list[Any], list[Any]]:
    from cognee.modules.graph.utils import deduplicate_nodes_and_edges, get_graph_from_model
    from cognee.modules.graph.utils.prepare_edges_for_storage import (
        ensure_default_edge_properties,
    )

    nodes: list[Any] = []
    edges: list[Any] = []
    added_nodes: dict = {}
    added_edges: dict = {}
    visited: dict = {}
    for dp in points:
        n, e = await get_graph_from_model(
            dp, added_nodes=added_nodes, added_edges=added_edges, visited_properties=visited
        )
        nodes.extend(n)
        edges.extend(e)
    nodes, edges = deduplicate_nodes_and_edges(nodes, edges)
    return nodes, ensure_default_edge_properties(edges, nodes=nodes)


async def build_cognee_anatid(path: Path, n_people: int = 5) -> None:
    from anatid_cognee import AnatidGraphAdapter, AnatidVectorAdapter
    from cognee.infrastructure.databases.provenance.markers import mark_graph_provenance_if_empty
    from cognee.infrastructure.databases.provenance.source_refs import make_source_ref_key

    from tests.cognee.cognee_fakes import HashEmbeddingEngine

    graph = AnatidGraphAdapter(graph_database_url=str(path))
    vector = AnatidVectorAdapter(url=str(path), embedding_engine=HashEmbeddingEngine())
    try:
        assert await mark_graph_provenance_if_empty(graph)  # as add_data_points does first
        chunks, index = data_points(n_people)
        nodes, edges = await graph_of(chunks)
        key_a = make_source_ref_key(DATASET_A, _uuid(100))
        key_b = make_source_ref_key(DATASET_B, _uuid(101))
        await graph.add_nodes(nodes, source_ref_key=key_a, pipeline_run_id=RUN_1)
        await graph.add_edges(edges, source_ref_key=key_a, pipeline_run_id=RUN_1)
        # A second dataset owns part of the graph too (one with a run, one without).
        half = [str(n.id) for n in nodes[: len(nodes) // 2]]
        await graph.attach_node_source_refs(half, [key_b], RUN_2)
        custom = (str(_uuid(10)), str(_uuid(11)), "knows",
                  {"since": "2019-03-01", "weight": 0.5, "tags": ["work"], "meta": {"k": 1}})  # fmt: skip
        await graph.add_edges([custom])
        for collection, points in index.items():
            type_name, field = collection.split("_", 1)
            await vector.index_data_points(type_name, field, points)
        await vector.create_collection("Empty_text")
        # History: a changed description (a new version) and a deleted entity (a closed one).
        changed = index["Entity_name"][0].model_copy(update={"description": "moved away"})
        n2, _ = await graph_of([changed])
        await graph.add_nodes([n for n in n2 if str(n.id) == str(changed.id)])
        await vector.index_data_points("Entity", "name", [changed])
        gone = str(index["Entity_name"][-1].id)
        await graph.delete_nodes([gone])
        await vector.delete_data_points("Entity_name", [index["Entity_name"][-1].id])
    finally:
        await graph.close()
        await vector.close()
