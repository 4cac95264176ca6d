"""A WHERE's chain of equalities of one property is read as an IN (cypher/rewrite.py).

``n.name = 'a' OR n.name = 'b' OR ...`` checked every other record against the chain: thirty
ORs over 100,000 nodes took 5 s, three thousand ran past the 30 s deadline. Written as an
``IN``, the matcher reads the records by that field. These tests hold the two forms to the
same answers, row by row and nulls included, and check that the chain narrows the read.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest

from anatid_core import AnatidError, Node, Store
from anatid_core.cypher.parser import parse
from anatid_core.cypher.rewrite import equality_chains_as_in, rewrite
from anatid_core.cypher.syntax import Binary, ListOf, Literal, Match, Param, Prop, Var, operands

#: Values of ``x`` that equality treats apart or alike: 1 and 1.0 are equal, '1' is not,
#: null compares as unknown, a list compares item by item (a null item: unknown).
VALUES = [1, 1.0, 2, "1", "a", "b", True, False, None, [1, 2], [1, None], {"k": 1}]


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    s = Store.open(tmp_path / "rewrite.duckdb")
    nodes = [
        Node(f"n{i}", group=f"g{i % 2}", labels=("A",), name=f"n{i % 7}",
             props={} if value is None else {"x": value})
        for i, value in enumerate(VALUES * 2)
    ]  # fmt: skip
    s.upsert_nodes(nodes)
    yield s
    s.close()


def where_of(query: str) -> object:
    tree = parse(query)
    rewrite(tree)
    clause = tree.parts[0].clauses[0]
    assert isinstance(clause, Match)
    return clause.where


def test_an_or_chain_of_one_property_becomes_an_in_of_its_values_in_order() -> None:
    where = where_of(
        "MATCH (n) WHERE n.name = 'a' OR 'b' = n.name OR n.name IN ['c', $p] OR n.name = null "
        "RETURN n"
    )
    assert isinstance(where, Binary) and where.op == "IN"
    assert isinstance(where.left, Prop) and isinstance(where.left.subject, Var)
    assert (where.left.subject.name, where.left.key) == ("n", "name")
    assert isinstance(where.right, ListOf)
    items = where.right.items
    assert [i.value if isinstance(i, Literal) else f"${i.name}" for i in items] == [  # type: ignore[attr-defined]
        "a", "b", "c", "$p", None,
    ]  # fmt: skip
    assert isinstance(items[3], Param)


@pytest.mark.parametrize(
    "query",
    [
        "MATCH (n) WHERE n.name = 'a' OR n.text = 'b' RETURN n",  # two keys
        "MATCH (n), (m) WHERE n.name = 'a' OR m.name = 'b' RETURN n",  # two variables
        "MATCH (n), (m) WHERE n.name = 'a' OR n.name = m.name RETURN n",  # a row's value
        "MATCH (n) WHERE n.name = 'a' OR n.name <> 'b' RETURN n",
        "MATCH (n) WHERE n.name = 'a' OR n:B RETURN n",
        "MATCH (n) WHERE n.name = 'a' OR n.name = toUpper('a') RETURN n",  # a call
        "MATCH (n) WHERE n.name = 'a' OR n.name IN $names RETURN n",  # a list not written out
        "MATCH (n) WHERE n.name = 'a' RETURN n",
        "MATCH (n) WHERE n.name = 'a' XOR n.name = 'b' RETURN n",
        "MATCH (n) WHERE NOT (n.name = 'a' OR n.name = 'b') RETURN n",  # not a conjunct
    ],
)
def test_other_conditions_are_left_as_they_are(query: str) -> None:
    tree = parse(query)
    clause = tree.parts[0].clauses[0]
    assert isinstance(clause, Match)
    before = clause.where
    rewrite(tree)
    assert clause.where is before
    assert not (isinstance(before, Binary) and before.op == "IN")


def test_each_conjunct_of_an_and_is_rewritten_and_the_rest_kept() -> None:
    where = where_of(
        "MATCH (n) WHERE n.group = 'g0' AND (n.name = 'a' OR n.name = 'b') "
        "AND (n.x = 1 OR n.y = 2) AND ((n.text = 'c' OR n.text = 'd') AND n.x > 0) RETURN n"
    )
    found: list[str] = []
    stack = [where]
    while stack:
        e = stack.pop()
        if isinstance(e, Binary) and e.op == "AND":
            stack.extend((e.right, e.left))
        else:
            assert isinstance(e, Binary)
            found.append(e.op if e.op != "IN" else f"IN {e.left.key}")  # type: ignore[attr-defined]
    assert found == ["=", "IN name", "OR", "IN text", ">"]


def test_a_chain_of_ten_thousand_ors_is_one_in() -> None:
    chain = " OR ".join(f"n.name = 'v{i}'" for i in range(10_000))
    where = where_of(f"MATCH (n) WHERE {chain} RETURN n")
    assert isinstance(where, Binary) and where.op == "IN"
    assert isinstance(where.right, ListOf) and len(where.right.items) == 10_000
    # each conjunct of a chain of 3,000 ANDs, walked without recursion
    conj = " AND ".join(f"(n.x = {i} OR n.x = {i + 1})" for i in range(3_000))
    tree = parse(f"MATCH (n) WHERE {conj} RETURN n")
    clause = tree.parts[0].clauses[0]
    assert isinstance(clause, Match) and clause.where is not None
    where = equality_chains_as_in(clause.where)
    parts = operands(where, "AND")
    assert len(parts) == 3_000
    assert all(isinstance(p, Binary) and p.op == "IN" for p in parts)
    assert [[i.value for i in p.right.items] for p in parts[:2]] == [[0, 1], [1, 2]]  # type: ignore[attr-defined]


CHAINS = [
    "n.x = 1 OR n.x = 'a'",
    "n.x = 1.0 OR n.x = true",
    "n.x = null OR n.x = 'b'",
    "n.x = 2 OR n.x = [1, 2] OR n.x = [1, null]",
    "'a' = n.x OR n.x IN [false, {k: 1}] OR n.x = $p",
    "n.x IN [] OR n.x = $none",
    "n.name = 'n1' OR n.name = 'n3' OR n.name = $p",
]


@pytest.mark.parametrize("chain", CHAINS)
@pytest.mark.parametrize("p", ["1", 1, None, [1, None]])
def test_the_in_keeps_what_the_chain_answers_row_by_row(
    store: Store, chain: str, p: object
) -> None:
    params = {"p": p, "none": None}
    # RETURN is not rewritten: the chain itself, evaluated for every node
    per_row = store.cypher(f"MATCH (n) RETURN n.id AS id, {chain} AS t", params).rows
    wanted = sorted(row[0] for row in per_row if row[1] is True)
    got = store.cypher(f"MATCH (n) WHERE {chain} RETURN n.id AS id", params).rows
    assert sorted(row[0] for row in got) == wanted
    # WITH ... WHERE as well, and NOT of the chain keeps the unknown rows out
    with_where = store.cypher(f"MATCH (n) WITH n WHERE {chain} RETURN n.id AS id", params).rows
    assert sorted(row[0] for row in with_where) == wanted
    falsified = sorted(row[0] for row in per_row if row[1] is False)
    negated = store.cypher(f"MATCH (n) WHERE NOT ({chain}) RETURN n.id AS id", params).rows
    assert sorted(row[0] for row in negated) == falsified


def test_the_chain_narrows_the_read_to_its_values(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    from anatid_core.cypher import graph

    conds: list[object] = []
    # a node read as a whole (scan_nodes) or by its columns alone (scan_node_columns)
    for scan in ("scan_nodes", "scan_node_columns"):
        original = getattr(graph.Graph, scan)
        monkeypatch.setattr(
            graph.Graph,
            scan,
            lambda self, labels, c, *a, original=original: (
                conds.append(c) or original(self, labels, c, *a)
            ),
        )
    wanted = Counter(f"n{i}" for i in range(2 * len(VALUES)) if i % 7 in (1, 2))
    for returned in ("n.id", "n"):
        conds.clear()
        rows = store.cypher(
            f"MATCH (n:A) WHERE n.name = 'n1' OR n.name = $p OR n.name = 'nowhere' "
            f"RETURN {returned}",
            {"p": "n2"},
        ).rows
        assert Counter(r[0] if returned == "n.id" else r[0].id for r in rows) == wanted
        assert conds and all(conds)  # every read narrowed: none of every node
        (cond,) = conds[0]  # type: ignore[misc]
        assert cond.field == "name" and cond.op == "in"
        assert sorted(cond.value) == ["n1", "n2", "nowhere"]


def test_a_missing_parameter_in_the_chain_is_refused_whatever_the_data(store: Store) -> None:
    # The chain stopped at the first true equality and never asked for $nope: n1, named n1,
    # passed (only a row that failed it asked). Neo4j refuses the query before it runs.
    for name in ("n1", "nowhere"):
        with pytest.raises(AnatidError, match=r"\$nope"):
            store.cypher(
                f"MATCH (n) WHERE n.id = 'n1' AND (n.name = '{name}' OR n.name = $nope) RETURN n.id"
            )
