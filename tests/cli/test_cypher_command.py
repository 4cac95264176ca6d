"""``anatid cypher FILE QUERY``: a read-only query's rows as a table or JSON, parameters, a past
instant, and refusals with exit status 2 and one line that names what was wrong (issue 42)."""

from __future__ import annotations

import json

from .conftest import Seeded, anatid

JOBS = "MATCH (a:Person)-[r:WORKS_AT]->(c) RETURN a.name AS who, c.name AS company ORDER BY company"


def test_rows_as_a_table_with_their_count(seeded: Seeded) -> None:
    r = anatid("cypher", seeded.path, JOBS)
    assert r.code == 0, r.err
    lines = r.out.splitlines()
    assert lines[0].split() == ["who", "company"]
    assert [line.split("  ")[-1].strip() for line in lines[1:3]] == ["Acme", "Globex"]
    assert lines[-1] == "(2 rows)"


def test_parameters_are_json_when_they_parse_and_text_otherwise(seeded: Seeded) -> None:
    query = "MATCH (n) WHERE n.name = $who RETURN n.id AS id, $age + 1 AS next"
    r = anatid("cypher", seeded.path, query, "--param", "who=Alice Smith", "--param", "age=31")
    assert r.code == 0, r.err
    assert r.out.splitlines()[1].split() == ["alice", "32"]
    listed = anatid(
        "cypher", seeded.path, "UNWIND $xs AS x RETURN x", "--param", "xs=[1, 2]", "--json"
    )
    assert json.loads(listed.out)["rows"] == [{"x": 1}, {"x": 2}]


def test_json_shows_nodes_and_relationships_as_labels_type_and_properties(seeded: Seeded) -> None:
    r = anatid(
        "cypher", seeded.path, "MATCH (a {id: 'alice'})-[r:KNOWS]->(b) RETURN a, r", "--json"
    )
    assert r.code == 0, r.err
    # Bob is deleted: Alice knows nobody now, as of now.
    assert json.loads(r.out) == {"columns": ["a", "r"], "rows": []}
    past = anatid(
        "cypher",
        seeded.path,
        "MATCH (a {id: 'alice'})-[r:KNOWS]->(b) RETURN a, r",
        "--as-of",
        seeded.before_update,
        "--json",
    )
    assert past.code == 0, past.err
    [row] = json.loads(past.out)["rows"]
    assert row["a"]["labels"] == ["Person"]
    assert row["a"]["properties"]["name"] == "Alice" and row["a"]["properties"]["age"] == 31
    assert {k: row["r"][k] for k in ("type", "start", "end")} == {
        "type": "KNOWS",
        "start": "alice",
        "end": "bob",
    }
    assert row["r"]["properties"]["text"] == "Alice knows Bob"
    table = anatid("cypher", seeded.path, "MATCH (n {id: 'paris'}) RETURN n")
    assert table.out.splitlines()[1].startswith('(:City {id: "paris", name: "Paris"')


def test_an_empty_answer_names_its_columns(seeded: Seeded) -> None:
    r = anatid("cypher", seeded.path, "MATCH (n:Nobody) RETURN n.name AS name")
    assert (r.code, r.out.strip()) == (0, "no rows (columns: name)")


def test_writes_bad_queries_and_bad_parameters_exit_2_with_one_line(seeded: Seeded) -> None:
    write = anatid("cypher", seeded.path, "MATCH (n) DETACH DELETE n")
    assert (
        write.code == 2
        and "DETACH DELETE writes" in write.err
        and "nothing was written" in write.err
    )
    assert len(write.err.strip().splitlines()) == 1
    after = anatid("cypher", seeded.path, "MATCH (n) RETURN count(n) AS n", "--json")
    assert json.loads(after.out)["rows"] == [{"n": 4}]
    syntax = anatid("cypher", seeded.path, "MATCH (n RETURN n")
    assert syntax.code == 2 and syntax.err.startswith("anatid: ") and "Traceback" not in syntax.err
    param = anatid("cypher", seeded.path, "RETURN 1", "--param", "novalue")
    assert param.code == 2 and "NAME=VALUE" in param.err
    missing = anatid("cypher", seeded.path.parent / "nope.duckdb", "RETURN 1")
    assert missing.code == 2 and "Traceback" not in missing.err


def test_a_query_past_its_timeout_stops_with_exit_2(seeded: Seeded) -> None:
    slow = "UNWIND range(1, 9000000) AS i WITH i WHERE i % 7 = 0 RETURN count(*) AS n"
    r = anatid("cypher", seeded.path, slow, "--timeout", "0.5")
    assert r.code == 2 and "deadline of 0.5 s" in r.err, r.err


def test_a_parameter_nested_too_deep_is_refused_in_one_line(seeded: Seeded) -> None:
    deep = anatid(
        "cypher", seeded.path, "RETURN size($x)", "--param", "x=" + "[" * 20000 + "]" * 20000
    )
    assert deep.code == 2 and "nests too deeply" in deep.err and "Traceback" not in deep.err
    bounded = anatid(
        "cypher", seeded.path, "RETURN size($x)", "--param", "x=" + "[" * 500 + "]" * 500
    )
    assert bounded.code == 2 and "nests lists or maps more than" in bounded.err
