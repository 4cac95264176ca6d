"""`anatid stats` lists each persistent index and `anatid check` names a damaged index file
(issue 41, points 3 and 5), run as a user runs them: a fresh interpreter per command."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from anatid_core import Edge, Node, Store

from .conftest import anatid


def memory(path: Path, n: int = 600) -> None:
    rng = np.random.default_rng(3)
    with Store.open(path) as s:
        s.upsert_nodes(
            [
                Node(
                    f"n{i}",
                    name=f"node {i}",
                    text=f"apples w{i % 40}",
                    embedding=rng.standard_normal(12).tolist(),
                )
                for i in range(n)
            ]
        )
        s.upsert_edges(
            [Edge(f"e{i}", f"n{i}", f"n{(i + 1) % n}", "R", text=f"fact {i % 9}") for i in range(n)]
        )


def test_stats_lists_each_index_with_rows_files_size_age_and_what_is_not_indexed(tmp_path) -> None:
    path = tmp_path / "m.duckdb"
    memory(path)
    before = json.loads(anatid("stats", path, "--json").out)["indexes"]
    assert [(i["kind"], i["space"], i["state"], i["rows"], i["pending"]) for i in before] == [
        ("node", "default", "none", 0, 600),
        ("node", None, "none", 0, 600),
        ("edge", None, "none", 0, 600),
    ]
    assert anatid("index", path, "--min-rows", "100").code == 0
    with Store.open(path) as s:
        s.upsert_nodes([Node("late", name="late", embedding=[0.5] * 12)])
    after = json.loads(anatid("stats", path, "--json").out)["indexes"]
    assert [(i["kind"], i["space"], i["state"], i["rows"], i["pending"]) for i in after] == [
        ("node", "default", "ok", 600, 1),
        ("node", None, "ok", 600, 1),
        ("edge", None, "ok", 600, 0),
    ]
    for i in after:
        assert all(Path(f).exists() for f in i["files"]) and len(i["files"]) == 2
        assert i["bytes"] == sum(Path(f).stat().st_size for f in i["files"])
        assert i["built_at"] is not None and i["built_at"].startswith("20")
    text = anatid("stats", path).out
    assert "search indexes" in text
    row = next(line for line in text.splitlines() if line.split()[:2] == ["node", "default"])
    assert row.split()[2:5] == ["ok", "600", "1"]


def test_check_names_the_damaged_index_file_and_stats_says_it_is_unused(tmp_path) -> None:
    path = tmp_path / "m.duckdb"
    memory(path)
    assert anatid("index", path, "--min-rows", "100").code == 0
    assert anatid("check", path).code == 0
    postings = next(Path(str(path) + ".anatid-index").glob("node-text-*.postings"))
    with open(postings, "r+b") as fh:
        fh.seek(postings.stat().st_size // 2)
        fh.write(b"\xff" * 64)
    r = anatid("check", path)
    assert r.code == 1 and str(postings) in r.out and "Traceback" not in r.err
    states = json.loads(anatid("stats", path, "--json", "--no-check").out)["indexes"]
    node_text = next(i for i in states if i["kind"] == "node" and i["space"] is None)
    assert node_text["state"] == "unused" and str(postings) in node_text["reason"]
    found = anatid("search", path, "apples", "--k", "3")
    assert found.code == 0 and "node" in found.out
