"""get_graph_data's bulk path (core rows, props read straight into JSON values) returns exactly
what the per-record path (Node objects, then as_json) returns, odd ``type`` values included."""

from __future__ import annotations

from datetime import date, datetime, timezone
from uuid import UUID

import pytest

pytest.importorskip("cognee")

from anatid_cognee.records import (  # noqa: E402
    GRAPH_GROUP,
    edge_tuple,
    graph_edge,
    graph_node,
    node_tuple,
    plain_edge_tuple,
    plain_node_tuple,
)

from anatid_core import Store  # noqa: E402

WHEN = datetime(2026, 1, 2, 3, 4, 5, 6, tzinfo=timezone.utc)
UID = UUID("12345678-1234-5678-1234-567812345678")
TYPES = ["Entity", "", None, UID, WHEN, date(2020, 1, 1), 7, ("a", 1)]


def test_bulk_rows_read_as_the_per_record_path() -> None:
    fields = [
        {"id": f"n{i}", "name": f"node {i}", "type": t, "at": WHEN, "ref": UID, "pair": (UID, 1)}
        for i, t in enumerate(TYPES)
    ]
    fields.append({"id": "bare"})  # no name, no type
    fields.append({"id": "named", "name": UID})  # a non-string name
    with Store.open(":memory:") as store:
        store.upsert_nodes(graph_node(f, {"source_ref_keys": ["k"]}) for f in fields)
        store.upsert_edges(
            [graph_edge("n0", "n1", "rel", {"at": WHEN, "source_node_id": UID}, {"k": 1})]
        )
        groups = [GRAPH_GROUP]
        want_nodes = [node_tuple(n) for n in store.find_nodes(groups=groups)]
        want_edges = [edge_tuple(e) for e in store.find_edges(groups=groups)]
        got_nodes = [plain_node_tuple(r) for r in store.node_rows(groups=groups, plain_props=True)]
        got_edges = [plain_edge_tuple(r) for r in store.edge_rows(groups=groups, plain_props=True)]
    assert got_nodes == want_nodes
    assert [list(p) for _, p in got_nodes] == [list(p) for _, p in want_nodes]  # key order
    assert got_edges == want_edges
    assert {p["type"] for _, p in got_nodes} >= {"Entity", "", str(UID), str(WHEN)}


async def test_get_node_and_get_nodes_read_as_the_per_record_path(tmp_path) -> None:
    """get_node/get_nodes build their dicts from the same bulk rows, in the caller's order."""
    from anatid_cognee import AnatidGraphAdapter
    from anatid_cognee.records import node_data

    fields = [
        {"id": f"n{i}", "name": f"node {i}", "type": t, "at": WHEN, "ref": UID, "pair": (UID, 1)}
        for i, t in enumerate(TYPES)
    ]
    adapter = AnatidGraphAdapter(graph_database_url=str(tmp_path / "g.duckdb"))
    try:
        store = adapter._store
        store.upsert_nodes(graph_node(f, {"source_ref_keys": ["k"]}) for f in fields)
        ids = ["n5", "missing", "n0", "n3", "n0"]
        want = [node_data(n) for n in store.get_nodes(["n5", "n0", "n3"])]
        got = await adapter.get_nodes(ids)
        assert got == want
        assert [list(d) for d in got] == [list(d) for d in want]  # key order
        for i in ("n0", "n4", "missing"):
            node = store.get_node(i)
            assert await adapter.get_node(i) == (node_data(node) if node else None)
    finally:
        await adapter.close()
