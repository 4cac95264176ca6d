"""Issue 42, point 1: every query is bounded. Each adversarial query of the issue is answered
or raises a typed error (never MemoryError, never RecursionError, never hours of backtracking).
No test asserts a wall-clock time: the bounds are made small so that each case is quick."""

from __future__ import annotations

import threading

import pytest

from anatid_core import (
    CypherError,
    CypherLimitExceeded,
    CypherTimeout,
    CypherUnsupported,
    Edge,
    InvalidInput,
    Node,
    Store,
)
from anatid_core.cypher import limits
from anatid_core.cypher.limits import Deadline


@pytest.fixture
def small_limits(monkeypatch: pytest.MonkeyPatch) -> dict[str, float]:
    for key, value in {"rows": 20_000, "steps": 50_000, "list": 10_000}.items():
        monkeypatch.setitem(limits.LIMITS, key, value)
    return limits.LIMITS


@pytest.fixture
def no_size_limits(monkeypatch: pytest.MonkeyPatch) -> None:
    """Only the deadline can stop the query (so that a fast machine cannot meet a size bound
    first); the deadline stops it long before the memory fills."""
    monkeypatch.setitem(limits.LIMITS, "rows", 10**12)
    monkeypatch.setitem(limits.LIMITS, "steps", 10**12)


def ring(store: Store, n: int) -> None:
    store.upsert_nodes(Node(id=f"n{i}", labels=("Item",), name=f"n{i}") for i in range(n))
    store.upsert_edges(
        Edge(id=f"e{i}", src=f"n{i}", dst=f"n{(i + 1) % n}", rel="NEXT") for i in range(n)
    )


def complete(store: Store, n: int) -> None:
    store.upsert_nodes(Node(id=f"k{i}", labels=("K",)) for i in range(n))
    store.upsert_edges(
        Edge(id=f"k{i}-{j}", src=f"k{i}", dst=f"k{j}", rel="R")
        for i in range(n)
        for j in range(n)
        if i != j
    )


# ---------------------------------------------------------------------------- (a) deadline


def test_a_catastrophic_regular_expression_is_refused_naming_it(store: Store):
    store.upsert_nodes([Node(id="x", name="a" * 40 + "!")])
    with pytest.raises(CypherUnsupported, match=r"\(a\+\)\+\$"):
        store.cypher("MATCH (n) WHERE n.name =~ '(a+)+$' RETURN n.name")


@pytest.mark.parametrize(
    "pattern", ["(a*)*", "(a|a)*", "(a|ab)+b", r"(\w+\s?)*$", ".*.*.*x", r"\w+\s*\w+\s*\w+!"]
)
def test_nested_quantifiers_and_overlapping_alternations_are_refused(store: Store, pattern):
    store.upsert_nodes([Node(id="x", name="aaaa")])
    with pytest.raises(CypherUnsupported, match="regular expression"):
        store.cypher("MATCH (n) WHERE n.name =~ $p RETURN n", {"p": pattern})


@pytest.mark.parametrize(
    "pattern",
    ["(a|b)*", "a+b", ".*foo.*bar.*", "[a-z]+", "(ab)+", "a{2,}", r"^\d{4}-\d{2}\d{2}$"],
)
def test_safe_regular_expressions_still_run(store: Store, pattern):
    store.upsert_nodes([Node(id="x", name="aab")])
    assert store.cypher("RETURN 'aab' =~ $p AS m", {"p": pattern}).rows in ([(True,)], [(False,)])


def test_a_deadline_stops_a_long_expansion_with_cypher_timeout(store: Store, no_size_limits):
    complete(store, 40)
    with pytest.raises(CypherTimeout) as caught:
        store.cypher("MATCH (a:K)-[*]->(b) RETURN count(*)", timeout=0.3)
    assert caught.value.seconds == pytest.approx(0.3)


def test_a_deadline_stops_a_long_list_evaluation(store: Store):
    query = "UNWIND range(1, 3000) AS i RETURN size([x IN range(1, 3000) WHERE x % 7 = i]) AS n"
    with pytest.raises(CypherTimeout):
        store.cypher(query, timeout=0.05)


def test_the_environment_sets_the_default_deadline(store: Store, monkeypatch, no_size_limits):
    complete(store, 40)
    monkeypatch.setenv(limits.TIMEOUT_ENV, "0.2")
    with pytest.raises(CypherTimeout):
        store.cypher("MATCH (a:K)-[*]->(b) RETURN count(*)")


def test_a_per_call_timeout_wins_over_the_environment(store: Store, monkeypatch):
    monkeypatch.setenv(limits.TIMEOUT_ENV, "0.000001")
    assert store.cypher("RETURN 1 AS one", timeout=30).rows == [(1,)]


@pytest.mark.parametrize("bad", [0, -1, float("nan"), "soon", True])
def test_a_timeout_that_is_not_a_positive_number_is_invalid_input(store: Store, bad):
    with pytest.raises(InvalidInput, match="timeout"):
        store.cypher("RETURN 1", timeout=bad)


def test_an_unreadable_environment_timeout_is_invalid_input(store: Store, monkeypatch):
    monkeypatch.setenv(limits.TIMEOUT_ENV, "thirty")
    with pytest.raises(InvalidInput, match=limits.TIMEOUT_ENV):
        store.cypher("RETURN 1")


def test_the_default_deadline_is_thirty_seconds(monkeypatch):
    monkeypatch.delenv(limits.TIMEOUT_ENV, raising=False)
    assert limits.timeout_seconds(None) == 30.0


def test_a_deadline_past_raises_typed_errors_of_the_cypher_family():
    deadline = Deadline(1e-9)
    with pytest.raises(CypherError):
        for _ in range(1000):
            deadline.check()


# ------------------------------------------------------------- (b) memory while expanding


def test_an_unbounded_expansion_over_a_ring_stops_at_the_steps_bound(store: Store, small_limits):
    ring(store, 800)
    with pytest.raises(CypherLimitExceeded) as caught:
        store.cypher("MATCH (a:Item)-[:NEXT*]->(b) RETURN count(*)")
    assert caught.value.limit in ("steps", "rows")


def test_an_unbounded_expansion_over_a_complete_graph_stops_inside_a_step(
    store: Store, small_limits
):
    complete(store, 60)  # one step from every node: 3,540 paths; the second: 205,320
    with pytest.raises(CypherLimitExceeded, match="LIMITS"):
        store.cypher("MATCH (a:K)-[*]->(b) RETURN count(*)")


def test_a_bounded_expansion_over_the_same_ring_is_answered(store: Store, small_limits):
    ring(store, 800)
    rows = store.cypher("MATCH (a:Item {name: 'n0'})-[:NEXT*1..3]->(b) RETURN b.name").rows
    assert sorted(rows) == [("n1",), ("n2",), ("n3",)]


# --------------------------------------------------------------------------- (c) lists


def test_a_huge_range_is_refused_before_it_is_built(store: Store):
    with pytest.raises(CypherLimitExceeded) as caught:
        store.cypher("UNWIND range(0, 1000000000) AS i RETURN count(i)")
    assert caught.value.limit == "list"


def test_a_list_grown_by_concatenation_stops_at_the_list_bound(store: Store, small_limits):
    with pytest.raises(CypherLimitExceeded):
        store.cypher("WITH range(1, 6000) AS xs RETURN size(xs + xs) AS n")


def test_lists_under_the_bound_are_answered(store: Store, small_limits):
    assert store.cypher("UNWIND range(1, 5000) AS i RETURN count(i) AS n").rows == [(5000,)]


def test_limit_errors_are_cypher_errors():
    assert issubclass(CypherLimitExceeded, CypherError)
    assert issubclass(CypherTimeout, CypherError)


# ------------------------------------------------------------------- (d) flat chains parse


def test_ten_thousand_ored_equalities_parse_and_answer(store: Store):
    store.upsert_nodes(Node(id=f"p{i}", name=f"p{i}") for i in range(20))
    where = " OR ".join(f"n.name = 'p{i}'" for i in range(0, 10_000, 3))
    where += " OR " + " OR ".join(f"n.id = 'q{i}'" for i in range(6_700))
    rows = store.cypher(f"MATCH (n) WHERE {where} RETURN n.id ORDER BY n.id").rows
    assert sorted(rows) == sorted((f"p{i}",) for i in range(0, 20, 3))


def test_a_thousand_ands_and_long_sums_and_in_lists_answer(store: Store):
    ands = " AND ".join(["1 < 2"] * 1_000)
    total = " + ".join(["1"] * 10_000)
    members = ", ".join(str(i) for i in range(10_000))
    query = f"RETURN {ands} AS a, {total} AS s, 9999 IN [{members}] AS i, 1 - 2 - 3 AS d"
    assert store.cypher(query).rows == [(True, 10_000, True, -4)]


def test_a_long_chain_in_a_projection_with_an_aggregate(store: Store):
    total = " + ".join(["1"] * 5_000)
    assert store.cypher(f"UNWIND [1, 2] AS x RETURN count(x) + {total} AS n").rows == [(5_002,)]


def test_chains_keep_left_associativity_and_precedence(store: Store):
    query = (
        "RETURN 1 + 2 + 'a' AS s, 'a' + 1 + 2 AS t, 2 * 3 ^ 2 AS p, -2 ^ 2 AS q, "
        "NOT true OR true AS n, true OR false AND false AS o, 1 < 2 < 3 AS c, "
        "10 - 2 - 3 AS m, 24 / 4 / 2 AS d, null IS NULL AND 1 IN [1] AS i"
    )
    assert store.cypher(query).records() == [
        {
            "s": "3a",
            "t": "a12",
            "p": 18.0,
            "q": 4.0,
            "n": True,
            "o": True,
            "c": True,
            "m": 5,
            "d": 3,
            "i": True,
        }
    ]


# ---------------------------------------------------------------------- (e) nesting depth


@pytest.mark.parametrize(
    "query",
    [
        "RETURN " + "(" * 300 + "1" + ")" * 300,
        "RETURN " + "[" * 300 + "1" + "]" * 300,
        "RETURN " + "coalesce(" * 300 + "1" + ")" * 300,
        "RETURN " + "NOT " * 1_000 + "true",
        "RETURN " + "-" * 1_000 + "1",
        "RETURN " + "CASE WHEN true THEN " * 300 + "1" + " END" * 300,
        "MATCH (n {a: " + "{a: " * 300 + "1" + "}" * 301 + ") RETURN n",
    ],
    ids=["brackets", "lists", "calls", "nots", "signs", "case", "pattern-map"],
)
def test_nesting_past_the_bound_is_cypher_unsupported(store: Store, query):
    with pytest.raises(CypherUnsupported, match="nested more than 100 levels"):
        store.cypher(query)


def test_nesting_within_the_bound_is_answered(store: Store):
    depth = int(limits.LIMITS["depth"]) - 2
    assert store.cypher("RETURN " + "(" * depth + "1" + ")" * depth + " AS x").rows == [(1,)]
    nested = store.cypher("RETURN " + "[" * depth + "1" + "]" * depth + " AS x").rows[0][0]
    for _ in range(depth - 1):
        nested = nested[0]
    assert nested == [1]


def test_a_deeply_nested_list_parameter_is_a_typed_error(store: Store):
    value: list = [1]
    for _ in range(20_000):
        value = [value]
    with pytest.raises(CypherLimitExceeded) as caught:
        store.cypher("RETURN $p AS p", {"p": value})
    assert caught.value.limit == "depth"


def test_a_deep_caller_stack_gets_a_typed_error_not_recursion_error(store: Store):
    query = "RETURN " + "(" * 95 + "1" + ")" * 95

    def descend(n: int) -> object:
        return store.cypher(query) if n == 0 else descend(n - 1)

    import sys

    room = sys.getrecursionlimit()
    try:
        descend(room - 300)
    except CypherLimitExceeded as exc:
        assert exc.limit == "depth"


def test_the_depth_bound_is_a_setting(store: Store, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setitem(limits.LIMITS, "depth", 10)
    with pytest.raises(CypherUnsupported, match="nested more than 10 levels"):
        store.cypher("RETURN " + "(" * 12 + "1" + ")" * 12)
    with pytest.raises(CypherLimitExceeded):
        store.cypher("RETURN $p", {"p": [[[[[[[[[[[[1]]]]]]]]]]]]})
    assert store.cypher("RETURN " + "(" * 8 + "1" + ")" * 8 + " AS x").rows == [(1,)]


def test_a_first_query_waits_for_the_records_build_only_until_its_deadline(
    file_store: Store, monkeypatch: pytest.MonkeyPatch
):
    """The first read of a kind builds its in-memory current records, work no loop of the
    query sees (a few seconds at the records limit). Under a deadline it runs beside the
    query, which raises CypherTimeout at its deadline; the build goes on, and serves the
    next query. The build is held here until the first query has answered: built inline, the
    query would wait for it past its deadline (the safety timer then lets it finish, and the
    query answers instead of raising)."""
    ring(file_store, 30)
    current = file_store.indexes.current
    current.forget()
    release = threading.Event()
    build = type(current)._build

    def slow_build(self, kind, limit, *rest):
        release.wait()
        return build(self, kind, limit, *rest)

    monkeypatch.setattr(type(current), "_build", slow_build)
    safety = threading.Timer(10, release.set)
    safety.start()
    try:
        with pytest.raises(CypherTimeout):
            file_store.cypher("MATCH (n:Item)-[:NEXT]->(m) RETURN count(*) AS c", timeout=0.3)
        assert not release.is_set()  # answered at its deadline, the build still held
    finally:
        release.set()
        safety.cancel()
    current.settle()  # the build went on beside
    assert current.loaded("node") is not None or current.loaded("edge") is not None
    got = file_store.cypher("MATCH (n:Item)-[:NEXT]->(m) RETURN count(*) AS c", timeout=5)
    assert got.rows == [(30,)]


def test_a_build_beside_a_query_hands_its_error_to_the_query(
    file_store: Store, monkeypatch: pytest.MonkeyPatch
):
    """A build that fails beside the query fails the query, as one built inline did, and the
    next read builds again."""
    ring(file_store, 5)
    current = file_store.indexes.current
    current.forget()
    build = type(current)._build
    calls = []

    def failing_once(self, kind, limit, *rest):
        calls.append(kind)
        if len(calls) == 1:
            raise OSError("the disk went away")
        return build(self, kind, limit, *rest)

    monkeypatch.setattr(type(current), "_build", failing_once)
    with pytest.raises(OSError, match="went away"):
        file_store.cypher("MATCH (n:Item) RETURN count(*) AS c", timeout=5)
    assert file_store.cypher("MATCH (n:Item) RETURN count(*) AS c", timeout=5).rows == [(5,)]
