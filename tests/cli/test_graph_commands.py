"""``anatid path``, ``explain``, ``neighbours``, ``hubs`` and ``provenance`` (issue 17), run as
subprocesses on a real store file: episodes mentioning entities, facts naming their episodes."""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

import pytest

from anatid_core import Edge, Node, Store
from anatid_core.cli import build_parser

from .conftest import anatid

EVIDENCE = ["--evidence-rel", "MENTIONS", "--evidence-prop", "episodes"]


@dataclass
class Memory:
    path: Path
    before_bob: str  # an instant before bob and the fact about him were written


@pytest.fixture(scope="module")
def memory(tmp_path_factory: pytest.TempPathFactory) -> Memory:
    path = tmp_path_factory.mktemp("graph-cli") / "memory.duckdb"
    with Store.open(path) as s:
        s.upsert_nodes(
            [
                Node("ep1", group="team", labels=("Episodic",), name="standup"),
                Node("alice", group="team", labels=("Entity",), name="Alice"),
                Node("acme", group="team", labels=("Entity",), name="Acme"),
                Node("vault", group="secret", labels=("Entity",), name="Vault"),
            ]
        )
        s.upsert_edges(
            [
                Edge("m1", src="ep1", dst="alice", rel="MENTIONS", group="team"),
                Edge("m2", src="ep1", dst="acme", rel="MENTIONS", group="team"),
                Edge(
                    "works",
                    src="alice",
                    dst="acme",
                    rel="WORKS_AT",
                    group="team",
                    text="Alice works at Acme",
                    props={"episodes": ["ep1"]},
                ),
                Edge("a-v", src="alice", dst="vault", rel="OPENS", group="secret"),
            ]
        )
        time.sleep(0.001)
        before = datetime.now(timezone.utc).isoformat()
        s.upsert_nodes([Node("bob", group="team", labels=("Entity",), name="Bob")])
        s.upsert_edges(
            [
                Edge("v-b", src="vault", dst="bob", rel="GUARDS", group="secret"),
                Edge(
                    "hired",
                    src="acme",
                    dst="bob",
                    rel="HIRED",
                    group="team",
                    props={"episodes": ["ep1"]},
                ),
            ]
        )
    return Memory(path, before)


@pytest.mark.parametrize("command", ["path", "explain", "neighbours", "hubs", "provenance"])
def test_every_graph_command_has_help_with_an_example(command: str, capsys) -> None:
    # In process: the subprocess runs below cover the entry point itself.
    with pytest.raises(SystemExit) as done:
        build_parser().parse_args([command, "--help"])
    out = capsys.readouterr().out
    assert done.value.code == 0
    assert "example:\n  anatid " + command in out
    assert "--as-of" in out and "--group" in out and "--json" in out


def test_path_prints_the_chain_and_respects_group_walls(memory: Memory) -> None:
    r = anatid("path", memory.path, "alice", "bob")
    assert r.code == 0, r.err
    assert r.out.splitlines() == [
        "2 hop(s): alice -[WORKS_AT]-> acme -[HIRED]-> bob",
        "2 hop(s): alice -[OPENS]-> vault -[GUARDS]-> bob",
    ]
    team = json.loads(anatid("path", memory.path, "alice", "bob", "--group", "team", "--json").out)
    assert [[n["id"] for n in p["nodes"]] for p in team] == [["alice", "acme", "bob"]]
    assert [e["id"] for e in team[0]["edges"]] == ["works", "hired"]


def test_path_as_of_before_a_node_existed_says_it_is_unknown(memory: Memory) -> None:
    r = anatid("path", memory.path, "alice", "bob", "--as-of", memory.before_bob)
    assert r.code == 1
    assert "no node 'bob'" in r.err and "at that time" in r.err


def test_explain_lists_the_facts_with_their_evidence(memory: Memory) -> None:
    r = anatid("explain", memory.path, "alice", "bob", "--group", "team", *EVIDENCE, "--json")
    assert r.code == 0, r.err
    data = json.loads(r.out)
    assert data["paths"] == [["alice", "acme", "bob"]]
    facts = {f["edge"]["id"]: [e["id"] for e in f["evidence"]] for f in data["facts"]}
    assert facts == {"works": ["ep1"], "hired": ["ep1"]}
    text = anatid("explain", memory.path, "alice", "acme", *EVIDENCE)
    assert text.code == 0, text.err
    assert "1 hop(s): alice -[WORKS_AT]-> acme" in text.out
    assert "works" in text.out and "ep1" in text.out


def test_neighbours_by_direction_and_inside_a_group(memory: Memory) -> None:
    both = json.loads(anatid("neighbours", memory.path, "alice", "--json").out)
    assert [n["id"] for n in both] == ["acme", "ep1", "vault"]
    out = anatid("neighbours", memory.path, "alice", "--direction", "out", "--group", "team")
    assert out.code == 0, out.err
    assert [line.split()[0] for line in out.out.splitlines()[1:]] == ["acme"]


def test_hubs_rank_nodes_by_degree(memory: Memory) -> None:
    r = json.loads(anatid("hubs", memory.path, "--k", "2", "--json").out)
    assert [(h["node"]["id"], h["degree"]) for h in r] == [("acme", 3), ("alice", 3)]
    past = json.loads(
        anatid("hubs", memory.path, "--as-of", memory.before_bob, "--group", "team", "--json").out
    )
    assert [(h["node"]["id"], h["degree"]) for h in past] == [
        ("acme", 2),
        ("alice", 2),
        ("ep1", 2),
    ]


def test_provenance_shows_versions_and_evidence(memory: Memory) -> None:
    r = anatid("provenance", memory.path, "works", *EVIDENCE, "--json")
    assert r.code == 0, r.err
    data = json.loads(r.out)
    assert data["kind"] == "edge" and len(data["versions"]) == 1
    assert [e["id"] for e in data["evidence"]] == ["ep1"]
    text = anatid("provenance", memory.path, "acme", *EVIDENCE)
    assert text.out.startswith("node acme: 1 version(s)")
    assert "evidence: 1 record(s)" in text.out and "standup" in text.out
    hidden = anatid("provenance", memory.path, "vault", "--group", "team")
    assert hidden.code == 1 and "vault" in hidden.err and "team" in hidden.err
