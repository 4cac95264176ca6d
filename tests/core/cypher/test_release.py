"""A query's working set is freed when its answer is returned, not left to the cycle collector.

Issue 42: the engine's parts referred to one another, so every record a query read, and the
caches around them, stayed until the collector's next pass found them; those passes were a
quarter of a 300-row query's time. Here ``gc.collect()`` after a query finds nothing of it."""

from __future__ import annotations

import gc

import pytest

from anatid_core import Edge, Node, Store

QUERIES = [
    "MATCH (n:P) WHERE n.a > 3 RETURN n.name AS x ORDER BY x",
    "MATCH (a:P)-[r:R]->(b)-[:R*1..2]->(c) RETURN a, r, count(c) AS k",
    "MATCH (a:P), (b:P {name: 'x1'}) RETURN count(*) AS pairs",
    "UNWIND range(1, 10) AS x WITH x WHERE x > 2 RETURN collect(x) AS xs",
    "MATCH (n:P) RETURN n {.name, k: [x IN [1, 2] | x + n.a]} AS m",
    "MATCH (n:P) WHERE exists((n)-->()) RETURN count(*) AS c",
    "OPTIONAL MATCH (n:Nope) RETURN n UNION MATCH (n:P {name: 'x2'}) RETURN n",
    "MATCH (n:P)-[r]-(m) WITH n, count(r) AS d ORDER BY d DESC, n.name LIMIT 3 RETURN n.name, d",
]


@pytest.fixture(scope="module")
def store():
    s = Store.open(":memory:")
    s.upsert_nodes(Node(id=f"n{i}", labels=("P",), name=f"x{i}", props={"a": i}) for i in range(50))
    s.upsert_edges(
        Edge(id=f"e{i}", src=f"n{i}", dst=f"n{(i + 1) % 50}", rel="R") for i in range(50)
    )
    yield s
    s.close()


@pytest.mark.parametrize("query", QUERIES)
def test_a_query_leaves_nothing_for_the_cycle_collector(store: Store, query: str):
    store.cypher(query).records()  # the first run builds the store's own lasting caches
    gc.collect()
    was_on = gc.isenabled()
    gc.disable()
    try:
        answer = store.cypher(query).records()
        assert answer
        del answer
        assert gc.collect() == 0
    finally:
        if was_on:
            gc.enable()
