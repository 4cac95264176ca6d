"""Every read method of a Cognee graph adapter, called the same way on each backend.

``get_graph_data``-shaped results are ``(nodes, edges)``; neither list has a promised order.
"""

from __future__ import annotations

from typing import Any

from tests.cognee.differential.encoding import unordered


def _pair(result: Any) -> Any:
    """``(nodes, edges)`` with both lists unordered, keeping the outer tuple."""
    nodes, edges = result
    return (unordered(nodes), unordered(edges))


async def graph_data(graph: Any) -> Any:
    return _pair(await graph.get_graph_data())


async def _list(call: Any) -> Any:
    return unordered(await call)


async def _bounded(graph: Any, seeds: list[str]) -> Any:
    chunks = []
    async for nodes, edges in graph.iter_bounded_neighborhood(seeds, depth=2, max_nodes=50):
        chunks.append((unordered(nodes), unordered(edges)))
    return unordered(chunks)


FIXED_TYPES = ("Entity", "EntityType", "Book", "Author", "Publisher", "DocumentChunk")


def _fixed_ids(nodes: list[Any]) -> list[str]:
    """Ids of the nodes whose ids the scenario fixed (sorted: the same picks on each backend)."""
    return sorted(n[0] for n in nodes if n[1].get("type") in FIXED_TYPES)


def _fixed_edges(nodes: list[Any], edges: list[Any]) -> list[Any]:
    fixed = set(_fixed_ids(nodes))
    return sorted(
        (e for e in edges if e[0] in fixed and e[1] in fixed), key=lambda e: (e[0], e[1], e[2])
    )


async def _source_refs(graph: Any) -> Any:
    """Which node and edge ids carry a source ref, and the delete data of a few of them."""
    nodes, edges = await graph.get_graph_data()
    # Entities and types: ids the scenario fixed, unlike those of documents and chunks.
    ids = _fixed_ids(nodes)
    refs = await graph.find_node_source_refs_by_dataset("no-such-dataset")
    delete_data = await graph.get_node_delete_data(ids[:3])
    some = _fixed_edges(nodes, edges)[:3]
    from cognee.infrastructure.databases.provenance.delete_data import EdgeIdentity

    identities = [
        EdgeIdentity(source_id=e[0], target_id=e[1], relationship_name=e[2]) for e in some
    ]
    edge_data = await graph.get_edge_delete_data(identities)
    return {
        "by_unknown_dataset": refs,
        "node_delete_data": delete_data,
        "edge_delete_data": unordered(edge_data.values()),
    }


async def adapter_reads(rec: Any, prefix: str, graph: Any, book: str, node_set: bool) -> None:
    """The adapter's read methods around node ``book``."""
    from cognee.modules.engine.models.node_set import NodeSet

    p = prefix
    missing = "00000000-0000-0000-0000-000000000000"
    nodes, edges = await graph.get_graph_data()
    some = _fixed_ids(nodes)[:4]
    await rec.step(f"{p}.get_graph_data", lambda: graph_data(graph))
    await rec.step(f"{p}.get_graph_counts", graph.get_graph_counts)
    await rec.step(f"{p}.is_empty", graph.is_empty)
    await rec.step(f"{p}.get_node", lambda: graph.get_node(book))
    await rec.step(f"{p}.get_node_missing", lambda: graph.get_node(missing))
    await rec.step(f"{p}.get_nodes", lambda: _list(graph.get_nodes([book, *some, missing])))
    await rec.step(f"{p}.has_node", lambda: graph.has_node(book))
    if edges:
        e = _fixed_edges(nodes, edges)[0]
        await rec.step(f"{p}.has_edge", lambda: graph.has_edge(e[0], e[1], e[2]))
        await rec.step(
            f"{p}.has_edges",
            lambda: _list(graph.has_edges([(e[0], e[1], e[2]), (e[0], e[1], "nope")])),
        )
    await rec.step(f"{p}.get_edges", lambda: _list(graph.get_edges(book)))
    await rec.step(f"{p}.get_neighbors", lambda: _list(graph.get_neighbors(book)))
    await rec.step(f"{p}.get_connections", lambda: _list(graph.get_connections(book)))
    for depth in (1, 2):
        await rec.step(
            f"{p}.get_neighborhood_{depth}",
            lambda d=depth: _pair_of(graph.get_neighborhood([book], depth=d)),
        )
    rels = sorted({e[2] for e in edges})[:1]
    await rec.step(
        f"{p}.get_neighborhood_typed",
        lambda: _pair_of(graph.get_neighborhood([book], depth=2, edge_types=rels)),
    )
    await rec.step(
        f"{p}.get_id_filtered_graph_data",
        lambda: _pair_of(graph.get_id_filtered_graph_data([book])),
    )
    types = sorted({n[1].get("type") for n in nodes})[:2]
    await rec.step(
        f"{p}.get_filtered_graph_data",
        lambda: _pair_of(graph.get_filtered_graph_data([{"type": types}])),
    )
    names = ["library"] if node_set else ["notes"]
    await rec.step(
        f"{p}.get_nodeset_subgraph",
        lambda: _pair_of(graph.get_nodeset_subgraph(NodeSet, names)),
    )
    await rec.step(f"{p}.get_triplets_batch", lambda: _list(graph.get_triplets_batch(0, 100)))
    await rec.step(f"{p}.get_graph_metrics", graph.get_graph_metrics)
    await rec.step(f"{p}.get_degree_one_nodes", lambda: _list(graph.get_degree_one_nodes("Entity")))
    entity_ids = sorted(n[0] for n in nodes if n[1].get("type") == "Entity")
    await rec.step(f"{p}.get_entity_type_names", lambda: graph.get_entity_type_names(entity_ids))
    await rec.step(
        f"{p}.get_top_degree_node_ids", lambda: _list(graph.get_top_degree_node_ids(len(nodes)))
    )
    await rec.step(f"{p}.iter_bounded_neighborhood", lambda: _bounded(graph, [book]))
    await rec.step(
        f"{p}.get_timestamps_in_range",
        lambda: _list(graph.get_timestamps_in_range(0, 4_102_444_800_000)),
    )
    chunk_ids = sorted(n[0] for n in nodes if n[1].get("type") == "DocumentChunk")
    await rec.step(
        f"{p}.get_temporal_anchors",
        lambda: graph.get_temporal_anchors(chunk_ids, entity_ids, None, None),
    )
    await rec.step(f"{p}.source_refs", lambda: _source_refs(graph))


async def _pair_of(call: Any) -> Any:
    return _pair(await call)
