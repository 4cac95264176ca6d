"""``anatid show`` by a name or the start of one, and values of several lines (issue 44)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from anatid_core import Node, Store

from .conftest import Seeded, anatid


def test_show_finds_a_node_by_its_name_in_any_case(seeded: Seeded) -> None:
    r = anatid("show", seeded.path, "alice smith")
    assert r.code == 0, r.err
    assert r.out.startswith("node alice\n") and "Alice Smith" in r.out


def test_show_finds_the_one_node_whose_name_or_id_starts_so(seeded: Seeded) -> None:
    by_name = anatid("show", seeded.path, "Glob")
    assert by_name.code == 0, by_name.err
    assert by_name.out.startswith("node globex\n")
    by_id = anatid("show", seeded.path, "par")
    assert by_id.code == 0 and by_id.out.startswith("node paris\n")


def test_an_id_wins_over_a_name(tmp_path: Path) -> None:
    path = tmp_path / "m.duckdb"
    with Store.open(path) as s:
        s.upsert_nodes([Node("alice", name="Someone"), Node("n2", name="alice")])
    r = anatid("show", path, "alice")
    assert r.code == 0 and r.out.startswith("node alice\n")


def test_several_matches_are_listed_and_the_command_fails(tmp_path: Path) -> None:
    path = tmp_path / "m.duckdb"
    with Store.open(path) as s:
        s.upsert_nodes([Node(f"acme-{i:02d}", name=f"Acme {i}") for i in range(12)])
        s.upsert_nodes([Node("a1", name="Bob"), Node("a2", name="BOB")])
    named = anatid("show", path, "bob")
    assert named.code == 1
    assert named.out.split("\n")[1:3] == ["a1  Bob", "a2  BOB"]
    assert named.err.count("\n") == 1 and "2 nodes are named 'bob'" in named.err
    many = anatid("show", path, "acme")
    assert many.code == 1 and len(many.out.splitlines()) == 1 + 10  # a header, ten candidates
    assert "more than 10 nodes names or ids start with 'acme'" in many.err
    listed = json.loads(anatid("show", path, "bob", "--json").out)
    assert listed == [{"id": "a1", "name": "Bob"}, {"id": "a2", "name": "BOB"}]


def test_an_edge_only_lookup_does_not_look_at_names(seeded: Seeded) -> None:
    r = anatid("show", seeded.path, "Alice Smith", "--kind", "edge")
    assert r.code == 1 and "no edge 'Alice Smith'" in r.err


@pytest.mark.parametrize("field", ["name", "text"])
def test_a_value_of_several_lines_stays_in_its_column(tmp_path: Path, field: str) -> None:
    path = tmp_path / "m.duckdb"
    summary = "Alice works at Acme.\n\nShe joined in 2019.\nShe likes anvils."
    with Store.open(path) as s:
        node = Node("alice", name=summary) if field == "name" else Node("alice", text=summary)
        s.upsert_nodes([node])
    r = anatid("show", path, "alice")
    assert r.code == 0, r.err
    lines = r.out.splitlines()
    first = next(i for i, line in enumerate(lines) if line.startswith(f"  {field} "))
    column = lines[first].index("Alice works")
    assert lines[first + 1] == ""
    assert lines[first + 2] == " " * column + "She joined in 2019."
    assert lines[first + 3] == " " * column + "She likes anvils."
