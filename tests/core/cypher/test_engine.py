"""What the differential suite cannot check against a peer: time travel, the typed errors and
where they point, parameters as data, the read verbs the engine narrows by, procedures."""

from __future__ import annotations

import re
import time
from datetime import datetime, timezone
from typing import Any

import pytest

from anatid_core import (
    CypherError,
    CypherLimitExceeded,
    CypherSyntaxError,
    CypherUnsupported,
    CypherWriteRefused,
    Edge,
    InvalidInput,
    Node,
    Store,
    UnsupportedOperation,
)
from anatid_core.cypher.graph import COLUMN_PAGES, SCAN_PAGES
from anatid_core.cypher.limits import LIMITS


def people(store: Store) -> None:
    store.upsert_nodes(
        [
            Node(id="a", labels=("Person",), name="Alice", props={"age": 30}),
            Node(id="b", labels=("Person",), name="Bob", props={"age": 25}),
            Node(id="c", labels=("Company",), name="Acme"),
        ]
    )
    store.upsert_edges(
        [
            Edge(id="ab", src="a", dst="b", rel="KNOWS"),
            Edge(id="ac", src="a", dst="c", rel="WORKS_AT"),
        ]
    )


def now() -> datetime:
    moment = datetime.now(timezone.utc)
    time.sleep(0.002)
    return moment


def test_the_same_query_as_of_a_past_instant_reads_the_past(store: Store) -> None:
    people(store)
    before = now()
    store.upsert_nodes([Node(id="a", labels=("Person",), name="Alicia", props={"age": 31})])
    store.upsert_edges([Edge(id="bc", src="b", dst="c", rel="WORKS_AT")])
    store.delete_edges(["ac"])
    query = "MATCH (p:Person)-[:WORKS_AT]->(c) RETURN p.name, p.age, c.name"
    assert store.cypher(query).rows == [("Bob", 25, "Acme")]
    assert store.as_of(before).cypher(query).rows == [("Alice", 30, "Acme")]
    renamed = "MATCH (p {id: 'a'}) RETURN p.name"
    assert store.as_of(before).cypher(renamed).rows == [("Alice",)]
    assert store.cypher(renamed).rows == [("Alicia",)]


def test_write_clauses_are_refused_before_any_read_and_name_the_clause(store: Store) -> None:
    people(store)
    for query, clause in [
        ("CREATE (n:Person {name: 'Eve'}) RETURN n", "CREATE"),
        ("MATCH (n {id: 'a'}) SET n.age = 1 RETURN n", "SET"),
        ("MATCH (n) DETACH DELETE n", "DETACH DELETE"),
        ("MERGE (n {id: 'z'})", "MERGE"),
        ("MATCH (n) REMOVE n.age RETURN n", "REMOVE"),
    ]:
        with pytest.raises(CypherWriteRefused) as caught:
            store.cypher(query)
        assert caught.value.construct == clause
        assert f"{clause} writes" in str(caught.value) and "upsert_nodes" in str(caught.value)
        assert query.index(clause.split()[0]) == caught.value.position
    assert store.count_nodes() == 3 and store.count_edges() == 2


def test_errors_are_typed_and_point_at_the_place(store: Store) -> None:
    with pytest.raises(CypherSyntaxError) as caught:
        store.cypher("MATCH (n)\nRETURN n.")
    assert (caught.value.line, caught.value.column) == (2, 10)
    assert isinstance(caught.value, InvalidInput)
    with pytest.raises(CypherUnsupported, match="CALL apoc.path.expand") as unsupported:
        store.cypher("CALL apoc.path.expand('a', '', '', 1, 2) YIELD path RETURN path")
    assert isinstance(unsupported.value, UnsupportedOperation)
    with pytest.raises(CypherUnsupported, match="shortestPath"):
        store.cypher("MATCH p = shortestPath((a)-[*]-(b)) RETURN p")
    with pytest.raises(CypherUnsupported, match="the function nosuch"):
        store.cypher("RETURN nosuch(1)")
    with pytest.raises(CypherError, match=r"\$missing, which was not given"):
        store.cypher("RETURN $missing")
    with pytest.raises(CypherError, match="cannot apply \\* to STRING and INTEGER"):
        store.cypher("RETURN 'a' * 2")
    with pytest.raises(CypherError, match="division by zero"):
        store.cypher("RETURN 1 / 0")


def test_parameters_are_values_never_query_text(store: Store) -> None:
    people(store)
    hostile = "Alice'}) DETACH DELETE n //"
    store.upsert_nodes([Node(id="x", labels=("Person",), name=hostile)])
    query = "MATCH (n:Person {name: $name}) RETURN n.id"
    assert store.cypher(query, {"name": hostile}).rows == [("x",)]
    assert store.cypher(query, {"name": "Alice"}).rows == [("a",)]
    # a property key no store filter accepts is compared by the engine, not refused
    assert store.cypher("MATCH (n) WHERE n.`a key; DROP` = 1 RETURN n").rows == []
    assert store.count_nodes() == 4


def test_a_narrowing_read_never_loses_a_match(store: Store) -> None:
    """The engine hands id/name equalities to the store's reads and compares again itself:
    the answer equals the one without narrowing, for values of every type."""
    store.upsert_nodes(
        [
            Node(id="n1", labels=("T",), name="1", props={"k": 1, "s": "1"}),
            Node(id="n2", labels=("T",), name="x", props={"k": 1.0, "s": "x"}),
            Node(id="n3", labels=("T",), name="", props={"k": "1"}),
        ]
    )
    assert store.cypher("MATCH (n {k: 1}) RETURN n.id ORDER BY n.id").rows == [("n1",), ("n2",)]
    assert store.cypher("MATCH (n) WHERE n.name IN ['1', 'x'] RETURN count(*)").rows == [(2,)]
    assert store.cypher("MATCH (n) WHERE n.s = n.name RETURN count(*)").rows == [(2,)]
    assert store.cypher("UNWIND ['n1', 'n3', 'nope'] AS i MATCH (n {id: i}) RETURN i").rows == [
        ("n1",),
        ("n3",),
    ]


def test_limit_stops_the_reads_early(store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    store.upsert_nodes([Node(id=f"n{i:05d}", labels=("T",), name=str(i)) for i in range(3000)])
    pages: list[int | None] = []
    # a record's read, or its columns' alone (``RETURN n.name``: .columns)
    for verb in ("find_nodes", "find_node_columns"):
        original = getattr(type(store), verb)

        def counting(self: Store, *args: object, _original: Any = original, **kwargs: Any) -> Any:
            pages.append(kwargs.get("limit"))
            return _original(self, *args, **kwargs)

        monkeypatch.setattr(type(store), verb, counting)
    assert len(store.cypher("MATCH (n:T) RETURN n.name LIMIT 5").rows) == 5
    assert pages == [COLUMN_PAGES[0]]  # one page of its columns, not the whole label
    pages.clear()
    assert len(store.cypher("MATCH (n:T) RETURN n LIMIT 5").rows) == 5
    assert pages == [SCAN_PAGES[0]]  # one small page of records
    pages.clear()
    assert store.cypher("MATCH (n:T) RETURN count(n.name)").rows == [(3000,)]
    assert len(pages) > 1  # no LIMIT: every page (``count(n)`` alone is the store's count)


def test_a_far_node_is_not_read_for_a_relationship_its_near_node_rules_out(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the filtered LIMIT 10 shape: relationships read by their group, the near node's
    # conjunct checked before the far node is read (issue 42)
    store.upsert_nodes(
        [Node(id=f"a{i}", name=("x" if i % 5 == 0 else "y") + str(i)) for i in range(60)]
    )
    store.upsert_nodes([Node(id=f"b{i}", name=f"b{i}") for i in range(60)])
    store.upsert_edges([Edge(f"e{i}", f"a{i}", f"b{i}", "R", group="g") for i in range(60)])
    read: list[str] = []
    original = type(store).get_nodes

    def counting(self: Store, ids: list[str], *args: object, **kwargs: object) -> list[Node]:
        read.extend(ids)
        return original(self, ids, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(type(store), "get_nodes", counting)
    query = (
        "MATCH (n)-[r:R]->(m) WHERE r.group = 'g' AND n.name STARTS WITH 'x' "
        "RETURN n.id AS n, m.id AS m ORDER BY n"
    )
    rows = store.cypher(query).rows
    assert sorted(rows) == sorted((f"a{i}", f"b{i}") for i in range(0, 60, 5))
    assert {i for i in read if i.startswith("b")} == {f"b{i}" for i in range(0, 60, 5)}


@pytest.mark.parametrize(
    "kinds",
    [
        ["int", "null"],  # Python's own comparisons, nulls last (first when descending)
        ["int", "float", "null"],
        ["str", "null"],
        ["int", "nan"],  # a NaN: Cypher's order, a comparison at a time
        ["int", "str", "null"],  # kinds mixed: Cypher's order of kinds
    ],
)
def test_order_by_sorts_as_cypher_compares(store: Store, kinds: list[str]) -> None:
    # ORDER BY sorts by Python's comparisons where a column allows it, by ``order`` elsewhere:
    # either way the order Cypher's comparison gives, each key in its own direction (issue 42)
    import functools
    import random

    from anatid_core.cypher.values import order

    rng = random.Random(len(kinds))
    make = {
        "int": lambda: rng.randrange(5),
        "float": lambda: rng.randrange(5) + 0.5,
        "str": lambda: rng.choice("abc"),
        "nan": lambda: float("nan"),
        "null": lambda: None,
    }
    rows = [
        {"a": make[rng.choice(kinds)](), "b": rng.choice(["x", "y", None]), "i": i}
        for i in range(400)
    ]
    got = store.cypher(
        "UNWIND $rows AS r RETURN r.a AS a, r.b AS b, r.i AS i ORDER BY a DESC, b, i DESC",
        {"rows": rows},
    ).rows

    def cypher_order(x: dict[str, object], y: dict[str, object]) -> int:
        for key, sign in (("a", -1), ("b", 1), ("i", -1)):
            c = order(x[key], y[key])
            if c:
                return sign * c
        return 0

    wanted = sorted(rows, key=functools.cmp_to_key(cypher_order))
    assert [r[2] for r in got] == [r["i"] for r in wanted]


def test_schema_procedures_and_the_schema_query_cognee_sends(store: Store) -> None:
    people(store)
    assert store.cypher("CALL db.labels()").rows == [("Company",), ("Person",)]
    assert store.cypher(
        "CALL db.relationshipTypes() YIELD relationshipType AS t RETURN t"
    ).rows == [
        ("KNOWS",),
        ("WORKS_AT",),
    ]
    keys = store.cypher("CALL db.propertyKeys()").rows
    assert ("age",) in keys and ("id",) in keys
    with pytest.raises(CypherError, match="takes no arguments, got 1"):  # as Neo4j refuses
        store.cypher("CALL db.labels(1)")
    rows = store.cypher(
        "MATCH (n) UNWIND keys(n) AS prop "
        "RETURN DISTINCT labels(n) AS NodeLabels, collect(DISTINCT prop) AS Properties;"
    ).records()
    by_label = {tuple(r["NodeLabels"]): set(r["Properties"]) for r in rows}
    assert by_label[("Person",)] == {"id", "name", "group", "text", "age"}
    assert by_label[("Company",)] == {"id", "name", "group", "text"}
    # the schema of an instant (read from the distinct label sets and rels of what it saw)
    before = now()
    store.delete_nodes(["c"])  # the only Company, and its WORKS_AT edge with it
    assert store.cypher("CALL db.labels()").rows == [("Person",)]
    assert store.cypher("CALL db.relationshipTypes()").rows == [("KNOWS",)]
    past = store.as_of(before)
    assert past.cypher("CALL db.labels()").rows == [("Company",), ("Person",)]
    assert past.cypher("CALL db.relationshipTypes()").rows == [("KNOWS",), ("WORKS_AT",)]


def test_returned_nodes_and_relationships_are_the_core_records(store: Store) -> None:
    people(store)
    [(node, rel, ids)] = store.cypher(
        "MATCH (a {id: 'a'})-[r:KNOWS]->(b) RETURN a, r, [x IN [a, b] | id(x)]"
    ).rows
    assert isinstance(node, Node) and node.name == "Alice" and node.props == {"age": 30}
    assert isinstance(rel, Edge) and (rel.src, rel.dst) == ("a", "b")
    assert ids == ["a", "b"]


def test_a_runaway_query_stops_with_a_clear_error_not_the_memory(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    from anatid_core.cypher import limits

    store.upsert_nodes([Node(id=f"n{i:03d}", labels=("T",)) for i in range(60)])
    ring = [
        Edge(id=f"e{i}", src=f"n{i:03d}", dst=f"n{(i + 1) % 60:03d}", rel="R") for i in range(60)
    ]
    store.upsert_edges(ring)
    monkeypatch.setitem(limits.LIMITS, "rows", 1_000)
    with pytest.raises(CypherError, match="more than 1,000 rows at once"):
        store.cypher("MATCH (a:T), (b:T) RETURN count(*)")  # 3,600 pairs in one batch
    with pytest.raises(CypherError, match="bound the length"):
        store.cypher("MATCH (a:T)-[*]-(b) RETURN count(*)")  # every trail around the ring
    with pytest.raises(CypherError, match="rows at once"):
        store.cypher("UNWIND range(1, 2000) AS x RETURN count(x)")  # gathered to aggregate
    # under the bound: a narrowed product, a bounded length, a streamed RETURN with LIMIT
    assert store.cypher("MATCH (a:T {id: 'n001'}), (b:T) RETURN count(*)").rows == [(60,)]
    assert store.cypher("MATCH (a:T)-[:R*1..2]->(b) RETURN count(*)").rows == [(120,)]
    assert len(store.cypher("UNWIND range(1, 2000) AS x RETURN x LIMIT 3").rows) == 3


@pytest.mark.parametrize(
    "grow",
    ["s + s", "s || s", "replace(s, 'x', s)", "replace(s, '', s)", "s + toString(size(s)) + s"],
)
def test_a_string_the_query_builds_is_bounded(store: Store, grow: str) -> None:
    # doubled 40 times in a reduce (or 40 chained WITHs), a string took the machine's memory
    query = f"RETURN size(reduce(s = 'xy', i IN range(1, 40) | {grow})) AS n"
    with pytest.raises(CypherLimitExceeded, match="characters in one string"):
        store.cypher(query)
    assert store.cypher(query.replace("range(1, 40)", "range(1, 3)")).rows[0][0] > 2


@pytest.mark.parametrize(
    ("query", "message"),
    [
        ("MATCH (n:Person) RETURN m", "variable `m` is not defined"),
        ("MATCH (n:Nobody) RETURN m", "variable `m` is not defined"),
        ("MATCH (n:Nobody) WHERE m.age > 1 RETURN n", "variable `m` is not defined"),
        ("MATCH (n:Nobody) WITH n AS k RETURN n", "variable `n` is not defined"),
        ("UNWIND [] AS x RETURN y", "variable `y` is not defined"),
        ("MATCH (n:Nobody) RETURN a + b AS x", "variable `a` is not defined"),  # the first
        ("MATCH (n:Nobody) RETURN [x IN [1] | x + z] AS l", "variable `z` is not defined"),
        ("MATCH (n:Nobody) RETURN reduce(s = 0, x IN [1] | s + w) AS l", "variable `w` is"),
        ("MATCH (n:Nobody) RETURN reduce(s = x, x IN [1] | s) AS l", "variable `x` is not"),
        ("MATCH (n:Nobody) RETURN [(n)-->(m) | q] AS l", "variable `q` is not defined"),
        ("MATCH (n:Nobody) RETURN [(n)-->(m) | m] + [m] AS l", "variable `m` is not defined"),
        ("RETURN *", "RETURN \\* with no variables in scope"),
        (
            "MATCH (n:Person) RETURN n.name AS a UNION MATCH (n:Nobody) RETURN n.name AS b",
            "different columns: \\['a'\\] and \\['b'\\]",
        ),
    ],
)
def test_an_unknown_variable_is_refused_whatever_the_data(
    store: Store, query: str, message: str
) -> None:
    # Neo4j reports these from the query alone; with no row to evaluate on, the engine
    # answered [] where the same query over matching data failed
    people(store)
    with pytest.raises(CypherError, match=message):
        store.cypher(query)


def test_variables_defined_by_the_query_itself_are_in_scope(store: Store) -> None:
    people(store)
    answers = {
        "MATCH (a)-[:KNOWS]->(b {age: a.age - 5}) RETURN b.name AS n": [("Bob",)],
        "UNWIND [1, 2] AS x RETURN [y IN range(1, x) | y * x] AS l ORDER BY x": [([1],), ([2, 4],)],
        "MATCH (n:Person) WHERE any(z IN [25] WHERE z = n.age) RETURN n.name": [("Bob",)],
        "MATCH (n:Person) WHERE (n)-->(m:Company) RETURN n.name": [("Alice",)],
        "MATCH (n:Person) WITH n.name AS name ORDER BY n.age RETURN name": [("Bob",), ("Alice",)],
        "CALL db.labels() YIELD label AS l RETURN l ORDER BY l": [("Company",), ("Person",)],
        "MATCH (n:Person) RETURN n.name, [(n)-->(m) WHERE m.age < n.age | m.name] ORDER BY n.age": [
            ("Bob", []),
            ("Alice", ["Bob"]),
        ],
        "MATCH (n {name: 'Alice'}) RETURN reduce(s = n.age, m IN [(n)-->(m) | m] | s + 1)": [(32,)],
    }
    for query, rows in answers.items():
        assert store.cypher(query).rows == rows, query


def test_return_star_has_its_columns_with_or_without_rows(store: Store) -> None:
    people(store)
    assert store.cypher("MATCH (n:Nobody)-[r]->(m) RETURN *").columns == ["m", "n", "r"]
    union = "MATCH (n:Person) RETURN * UNION MATCH (n:Nobody) RETURN *"
    assert sorted(row[0].id for row in store.cypher(union).rows) == ["a", "b"]
    assert store.cypher("MATCH (n:Nobody) WITH n AS k RETURN *, 1 AS one").columns == [
        "k",
        "one",
    ]


@pytest.mark.parametrize("in_memory", [True, False])
@pytest.mark.parametrize("change", ["insert before", "delete seen"])
@pytest.mark.parametrize(
    ("query", "verb"),
    [
        ("MATCH (n:T) RETURN n.name", "find_node_columns"),  # its columns alone (.columns)
        ("MATCH (n:T) RETURN n.name, n", "find_nodes"),  # its record
    ],
)
def test_a_commit_between_two_pages_of_a_scan_skips_and_repeats_nothing(
    store: Store,
    monkeypatch: pytest.MonkeyPatch,
    in_memory: bool,
    change: str,
    query: str,
    verb: str,
) -> None:
    # Issue 42: scans paged by LIMIT/OFFSET; a record written or deleted before the scan's
    # position shifted the offsets, so the next page repeated or skipped one
    from anatid_core import SETTINGS

    if not in_memory:
        monkeypatch.setitem(SETTINGS, "current_records_limit", 0)
    # (more than a column scan's first two pages: 100 and 200)
    store.upsert_nodes([Node(id=f"p{i:03d}", labels=("T",), name=str(i)) for i in range(600)])
    original = getattr(type(store), verb)
    calls = 0

    def committing_between_pages(self: Store, *args: Any, **kwargs: Any) -> Any:
        nonlocal calls
        calls += 1
        if calls == 2:  # another writer of this process commits before the second page
            if change == "insert before":
                self.upsert_node(Node(id="a000", labels=("T",), name="new"))
            else:
                self.delete_nodes(["p001"])
        return original(self, *args, **kwargs)

    monkeypatch.setattr(type(store), verb, committing_between_pages)
    names = [row[0] for row in store.cypher(query).rows]
    assert calls > 2  # it paged
    assert len(names) == len(set(names))  # nothing twice
    assert set(map(str, range(2, 600))) <= set(names)  # nothing written before it lost


def test_planner_hints_are_read_and_change_no_answer(store: Store) -> None:
    # Neo4j's USING hints choose how its planner reads, never what a query answers
    people(store)
    plain = store.cypher("MATCH (n:Person) WHERE n.name = 'Alice' RETURN n.id").rows
    assert plain == [("a",)]
    for hint in (
        "USING INDEX n:Person(name)",
        "USING INDEX SEEK n:Person(name, age)",
        "USING TEXT INDEX n:Person(name) USING SCAN n:Person",
        "USING JOIN ON n",
    ):
        query = f"MATCH (n:Person) {hint} WHERE n.name = 'Alice' RETURN n.id"
        assert store.cypher(query).rows == plain, hint
    with pytest.raises(CypherSyntaxError, match="INDEX, SCAN or JOIN after USING"):
        store.cypher("MATCH (n:Person) USING FOO RETURN n")


def test_a_pattern_comprehension_is_bounded_and_a_named_path_in_one_refused(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    people(store)
    with pytest.raises(CypherUnsupported, match="named path"):
        store.cypher("MATCH (n) RETURN [p = (n)-->() | 1] AS r")
    # a list holding a comparison stays a list
    assert store.cypher("WITH 1 AS x RETURN [x = (1), 2] AS r").rows == [([True, 2],)]
    hubs = [Node(id=h, labels=("Hub",)) for h in ("h1", "h2")]
    store.upsert_nodes(hubs + [Node(id=f"s{i}", labels=("Spoke",)) for i in range(300)])
    store.upsert_edges(
        Edge(id=f"{h}-{i}", src=h, dst=f"s{i}", rel="HAS") for h in ("h1", "h2") for i in range(300)
    )
    [(size,)] = store.cypher("MATCH (h {id: 'h1'}) RETURN size([(h)-[:HAS]->(s) | s.id])").rows
    assert size == 300
    # h1 -> a spoke <- h2 -> another spoke: 300 x 299 matches in one comprehension
    monkeypatch.setitem(LIMITS, "rows", 10_000)
    query = "MATCH (h {id: 'h1'}) RETURN size([(h)-[:HAS]->()<-[:HAS]-()-[:HAS]->(s) | s.id])"
    with pytest.raises(CypherLimitExceeded):
        store.cypher(query)


@pytest.mark.parametrize(
    ("query", "construct"),
    [
        ("MATCH (n:$label) RETURN n", "a dynamic label"),
        ("MATCH (a)-[r:$type]->(b) RETURN b", "a dynamic type"),
        ("MATCH (n:!Person) RETURN n", "label expression operator '!'"),
        ("MATCH (n:Person&Company) RETURN n", "label expression operator '&'"),
        ("MATCH (n:%) RETURN n", "label expression operator '%'"),
        ("MATCH (a)-[:!KNOWS]->(b) RETURN b", "type expression operator '!'"),
        ("MATCH (n) WHERE n.name IS :: STRING RETURN n", "IS :: TYPE"),
        ("MATCH (n) WHERE n.name IS NOT TYPED STRING RETURN n", "IS :: TYPE"),
        ("MATCH (a)-[r]->{1,3}(b) RETURN b", "a quantified relationship"),
        ("MATCH ((a)-[:KNOWS]->(b))+ RETURN a", "a quantified path pattern"),
    ],
)
def test_neo4j_5_constructs_are_refused_by_name(store: Store, query: str, construct: str) -> None:
    # they were CypherSyntaxErrors ("expected a label, found ...") as if the query were wrong
    people(store)
    with pytest.raises(CypherUnsupported, match=re.escape(construct)):
        store.cypher(query)


def test_the_concatenation_operator_joins_strings_and_lists(store: Store) -> None:
    people(store)
    rows = store.cypher(
        "MATCH (n:Person) RETURN n.name || '!' AS s, [n.age] || [1] AS l, n.nick || 'x' AS z "
        "ORDER BY s"
    ).rows
    assert rows == [("Alice!", [30, 1], None), ("Bob!", [25, 1], None)]
    with pytest.raises(CypherError, match="joins two strings or two lists"):
        store.cypher("RETURN 1 || 2 AS x")


@pytest.mark.parametrize(
    "query",
    [
        "RETURN 9223372036854775807 + 1",
        "RETURN -9223372036854775808 - 1",
        "RETURN 3037000500 * 3037000500",
        "RETURN (-9223372036854775807 - 1) / -1",
        "RETURN -(-9223372036854775807 - 1)",
        "RETURN abs(-9223372036854775807 - 1)",
        "RETURN toInteger('99999999999999999999999')",
        "RETURN toInteger('" + "1" * 5_000 + "')",  # was null: Python's int() of 4,300 digits
        "UNWIND [9223372036854775807, 1] AS x RETURN sum(x)",
        # squared 20 times: a Python integer of a million bits, and toString() of it raised
        # an untyped ValueError (more than 4,300 digits)
        "RETURN toString(reduce(x = 2, i IN range(1, 20) | x * x))",
    ],
)
def test_integers_are_64_bit_and_an_overflow_is_an_error(store: Store, query: str) -> None:
    with pytest.raises(CypherError, match="integer overflow"):
        store.cypher(query)


def test_integer_literals_and_parameters_past_64_bits_are_refused(store: Store) -> None:
    assert store.cypher("RETURN -9223372036854775808 AS n, 0x7FFFFFFFFFFFFFFF AS m").rows == [
        (-(2**63), 2**63 - 1)
    ]
    assert store.cypher("RETURN 9223372036854775807 + 1.0 AS f").rows == [(2.0**63,)]
    for literal in ("9223372036854775808", "0x8000000000000000", "1" * 5_000):
        with pytest.raises(CypherSyntaxError, match="integer literal past 64 bits"):
            store.cypher(f"RETURN {literal} AS n")
    with pytest.raises(InvalidInput, match="64-bit integer"):
        store.cypher("RETURN $n AS n", {"n": 2**64})


@pytest.mark.parametrize(
    ("query", "error", "message"),
    [
        # Python's range() asked the length of 2**64 items: an untyped OverflowError
        (
            "RETURN size(range(-9223372036854775807, 9223372036854775807))",
            CypherLimitExceeded,
            "list items",
        ),
        (
            "RETURN size(split(reduce(s = 'ab', i IN range(1, 24) | s + s), ''))",
            CypherLimitExceeded,
            "list items",
        ),
        # a string in a vector: an untyped TypeError
        ("RETURN vector.similarity.euclidean(['a'], [1])", CypherError, "lists of numbers"),
        ("RETURN vector.similarity.cosine([1, null], [1, 2])", CypherError, "lists of numbers"),
        # sorting a string among numbers: an untyped TypeError
        ("UNWIND ['a', 1] AS x RETURN percentileDisc(x, 0.5)", CypherError, "takes numbers"),
        ("UNWIND ['a', 'b'] AS x RETURN percentileCont(x, 0.5)", CypherError, "takes numbers"),
        # Python's slice of a string bound: an untyped TypeError
        ("RETURN [1, 2][0..'a']", CypherError, "slice bound must be an integer"),
    ],
)
def test_hostile_function_arguments_are_typed_errors(
    store: Store, query: str, error: type[Exception], message: str
) -> None:
    with pytest.raises(error, match=message):
        store.cypher(query)


def test_arithmetic_past_the_floats_is_infinity_as_in_neo4j(store: Store) -> None:
    # math.exp(1000) and fsum() of two 1e308 raised untyped OverflowErrors
    assert store.cypher("RETURN exp(1000) AS big, exp(-1000) AS small").rows == [
        (float("inf"), 0.0)
    ]
    query = "UNWIND [1e308, 1e308] AS x RETURN sum(x), avg(x), stdev(x)"
    assert store.cypher(query).rows == [(float("inf"),) * 3]
    # ceil() of infinity raised OverflowError; a negative base to a fractional power was a
    # Python complex number in the answer
    [(up, down, odd)] = store.cypher("RETURN ceil(-1e400), floor(1e400), (-8) ^ (1.0 / 3)").rows
    assert (up, down) == (float("-inf"), float("inf")) and odd != odd  # NaN
    assert store.cypher("RETURN range(0, -9, -3) AS r, range(5, 1) AS e").rows == [
        ([0, -3, -6, -9], [])
    ]


@pytest.mark.parametrize("direction", ["out", "in", "both"])
def test_graph_ends_gives_each_relationship_once_per_end_however_batched(
    store: Store, monkeypatch: pytest.MonkeyPatch, direction: str
) -> None:
    from anatid_core.cypher import graph as graph_module
    from anatid_core.cypher.shape import RecordShape

    store.upsert_nodes([Node(f"n{i}") for i in range(6)])
    store.upsert_edges(
        [Edge(f"e{i}", f"n{i}", f"n{(i + 1) % 6}", "R") for i in range(6)]
        + [Edge("loop", "n0", "n0", "R"), Edge("chord", "n1", "n4", "S")]
    )
    ids = [f"n{i}" for i in range(6)]
    whole = graph_module.Graph(store, RecordShape()).ends(ids, direction, None)
    monkeypatch.setattr(graph_module, "BATCH", 2)  # an edge between two batches' nodes
    batched = graph_module.Graph(store, RecordShape()).ends(ids, direction, None)
    assert {i: sorted(v) for i, v in batched.items()} == {i: sorted(v) for i, v in whole.items()}
    edges = store.find_edges()
    wanted: dict[str, list[tuple[str, str, str]]] = {i: [] for i in ids}
    for e in edges:
        if direction in ("out", "both"):
            wanted[e.src].append((e.id, e.rel, e.dst))
        if direction in ("in", "both") and not (direction == "both" and e.src == e.dst):
            wanted[e.dst].append((e.id, e.rel, e.src))
    assert {i: sorted(v) for i, v in whole.items()} == {i: sorted(v) for i, v in wanted.items()}


def test_a_sum_per_group_of_one_row_is_the_sum_of_its_value(store: Store) -> None:
    # groups of one row take a short way for an int (count(r) per node is such a sum): the
    # answers stay the general sum's, a float, a null and a boolean included
    rows = store.cypher("UNWIND [3, null, 2.5, 3, -7, 0] AS x RETURN x, sum(x) AS s").rows
    assert rows == [(3, 6), (None, 0), (2.5, 2.5), (-7, -7), (0, 0)]
    assert [type(s) for _, s in rows] == [int, int, float, int, int]
    with pytest.raises(CypherError, match="adds numbers, got BOOLEAN"):
        store.cypher("UNWIND [true] AS x RETURN x, sum(x) AS s")
    with pytest.raises(CypherError, match="adds numbers"):
        store.cypher("UNWIND ['a'] AS x RETURN x, sum(x) AS s")
    big = "UNWIND [9223372036854775807, 9223372036854775807] AS x WITH 1 AS k, x RETURN k, sum(x)"
    with pytest.raises(CypherError, match="sum\\(\\)"):
        store.cypher(big)
