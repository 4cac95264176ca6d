"""Records whose props wait until read (the Cypher engine's reads, issue 42): the same values
as the plain records, and never handed to a caller."""

from __future__ import annotations

import dataclasses
from datetime import datetime, timezone

from anatid_core import Edge, Item, Node, RecordShape, Store
from anatid_core.base.codec import encode_props, to_micros
from anatid_core.base.lazy import LazyEdge, LazyNode, lazy_props, solid
from anatid_core.storage.rows import edge_from_row, node_from_row

WHEN = datetime(2024, 5, 6, 7, 8, 9, 123456, tzinfo=timezone.utc)
PROPS = {"when": WHEN, "n": [1, (2, 3)], "s": "x"}


def test_a_lazy_record_reads_as_the_plain_one():
    us = to_micros(WHEN, what="t")
    node_row = (7, "n1", "g", ["A"], "nm", "tx", encode_props(PROPS), None, us, None, us, None)
    edge_row = (
        9,
        "e1",
        "a",
        "b",
        "R",
        "g",
        "nm",
        "tx",
        encode_props(PROPS),
        None,
        us,
        None,
        us,
        None,
    )
    with lazy_props():
        lazy_node, lazy_edge = node_from_row(node_row), edge_from_row(edge_row)
    plain_node, plain_edge = node_from_row(node_row), edge_from_row(edge_row)
    assert isinstance(lazy_node, LazyNode) and isinstance(lazy_edge, LazyEdge)
    assert type(plain_node) is Node and type(plain_edge) is Edge
    for lazy, plain in ((lazy_node, plain_node), (lazy_edge, plain_edge)):
        assert lazy.props == PROPS
        for f in dataclasses.fields(plain):
            assert getattr(lazy, f.name) == getattr(plain, f.name), f.name
        assert type(solid(lazy)) is type(plain) and solid(lazy) == plain
        assert solid(plain) is plain


def test_cypher_returns_plain_records_and_reads_lazy_props():
    store = Store.open(":memory:")
    store.upsert_node(Node(id="a", labels=("P",), name="Alice", props={"when": WHEN, "k": [1]}))
    store.upsert_node(Node(id="b", labels=("P",), name="Bob"))
    store.upsert_edge(Edge(id="e", src="a", dst="b", rel="KNOWS", props={"since": WHEN}))
    [(n, r, k, since)] = store.cypher("MATCH (n:P)-[r:KNOWS]->(m) RETURN n, r, n.k, r.since").rows
    assert type(n) is Node and n == store.get_node("a")
    assert type(r) is Edge and r == store.get_edge("e")
    assert k == [1] and since == WHEN


class EmbeddingShape(RecordShape):
    """The core's shape with each node's embedding shown as its ``vec`` property."""

    def embedding_key(self, item: Item) -> str | None:
        return "vec" if isinstance(item, Node) else None


def test_embeddings_of_returned_nodes_are_read_in_one_batch(monkeypatch):
    store = Store.open(":memory:")
    store.upsert_nodes(
        [
            Node(id=f"n{i}", labels=("P",), name=f"a{i}", embedding=[float(i), 1.0])
            for i in range(30)
        ]
    )
    calls: list[int] = []
    original = Store.get_embedding_arrays

    def counted(self, ids, **kw):
        ids = list(ids)
        calls.append(len(ids))
        return original(self, ids, **kw)

    monkeypatch.setattr(Store, "get_embedding_arrays", counted)
    for query in (
        "MATCH (n:P) RETURN n",
        "MATCH (n:P) WHERE n.name STARTS WITH 'a' RETURN n",
    ):
        calls.clear()
        rows = store.cypher(query, shape=EmbeddingShape()).rows
        assert len(rows) == 30 and calls == [30], query
    calls.clear()  # a streamed projection: a batch per page of the scan, each record once
    rows = store.cypher("MATCH (n:P) RETURN n.vec AS v", shape=EmbeddingShape()).rows
    assert sorted(rows) == sorted(([float(i), 1.0],) for i in range(30))
    assert sum(calls) == 30 and len(calls) <= 2
    [(v,)] = store.cypher("MATCH (n {id: 'n7'}) RETURN n.vec", shape=EmbeddingShape()).rows
    assert v == [7.0, 1.0]
