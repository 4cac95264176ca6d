"""Each ``anatid`` command, run as a subprocess on a real store file."""

from __future__ import annotations

import json
import os
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import duckdb
import pytest

from anatid_core import SCHEMA_VERSION, Edge, Node, Store

from .conftest import Seeded, anatid, build

COMMANDS = ["stats", "search", "show", "history", "export", "check", "view"]


@pytest.mark.parametrize("command", COMMANDS)
def test_every_command_has_help_with_an_example(command: str) -> None:
    r = anatid(command, "--help")
    assert r.code == 0
    assert "example:\n  anatid " + command in r.out


def test_console_script_is_installed_and_runs(seeded: Seeded) -> None:
    import shutil
    import subprocess

    beside = Path(sys.executable).with_name("anatid" + (".exe" if os.name == "nt" else ""))
    script = str(beside) if beside.exists() else shutil.which("anatid")
    assert script, "pip install -e . should have installed the anatid script"

    proc = subprocess.run([script, "check", str(seeded.path)], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert ": ok (" in proc.stdout


def test_stats_counts_current_records_versions_groups_labels_and_rels(seeded: Seeded) -> None:
    r = anatid("stats", seeded.path)
    assert r.code == 0, r.err
    assert "nodes           4 current, 6 versions" in r.out
    assert "edges           3 current, 5 versions" in r.out
    assert "health          ok (text index, vectors and versions agree)" in r.out
    assert "WORKS_AT        2" in r.out  # the Acme job is closed in valid time, still current
    data = json.loads(anatid("stats", seeded.path, "--json").out)
    assert data["nodes_by_label"] == {"City": 1, "Company": 2, "Person": 1}
    assert data["edges_by_rel"] == {"LOCATED_IN": 1, "WORKS_AT": 2}
    assert data["vector_spaces"] == [{"kind": "node", "space": "default", "dim": 3, "vectors": 6}]


def test_search_shows_which_arm_found_each_hit(seeded: Seeded) -> None:
    r = anatid("search", seeded.path, "Globex")
    assert r.code == 0, r.err
    lines = r.out.splitlines()
    assert lines[0].split()[:4] == ["#", "score", "found", "by"]
    rows = {line.split()[3]: line for line in lines[1:] if line[:1].isdigit()}
    assert "text#1" in rows["globex"]
    # alice's text mentions Globex too; acme is only reached through the graph
    assert "graph#" in rows["acme"] and "text#" not in rows["acme"]
    as_json = json.loads(anatid("search", seeded.path, "Globex", "--json").out)
    arms = {h["item"]["id"]: h["arms"] for h in as_json}
    # the seeds of the graph arm are the best text matches; their neighbours are its hits
    assert arms["globex"] == {"text": 1} and arms["alice"] == {"text": 2}
    assert arms["acme"] == {"graph": 1}


def test_search_uses_the_vector_arm_with_an_embedding_from_json_or_file(
    seeded: Seeded, tmp_path: Path
) -> None:
    r = anatid("search", seeded.path, "city", "--embedding", "[0, 0, 1]", "--json")
    hits = json.loads(r.out)
    assert hits[0]["item"]["id"] == "paris"
    assert hits[0]["arms"] == {"text": 1, "vector": 1}
    query = tmp_path / "q.json"
    query.write_text("[1, 0, 0]")
    hits = json.loads(anatid("search", seeded.path, "nothing", "--embedding", query, "--json").out)
    assert hits[0]["item"]["id"] == "alice" and hits[0]["arms"] == {"vector": 1}


def test_search_as_of_sees_the_old_name_and_edges_by_kind(seeded: Seeded) -> None:
    now = json.loads(anatid("search", seeded.path, "Alice", "--json").out)
    then = json.loads(
        anatid("search", seeded.path, "Alice", "--as-of", seeded.before_update, "--json").out
    )
    assert [h["item"]["name"] for h in now if h["item"]["id"] == "alice"] == ["Alice Smith"]
    assert [h["item"]["name"] for h in then if h["item"]["id"] == "alice"] == ["Alice"]
    assert "globex" not in {h["item"]["id"] for h in then}
    edges = json.loads(anatid("search", seeded.path, "works", "--kind", "edge", "--json").out)
    assert {h["item"]["id"] for h in edges} >= {"e-globex", "e-acme"}
    companies = json.loads(
        anatid("search", seeded.path, "Alice Acme Globex", "--label", "Company", "--json").out
    )
    assert {h["item"]["id"] for h in companies} == {"acme", "globex"}
    located = json.loads(
        anatid("search", seeded.path, "Acme", "--kind", "edge", "--rel", "LOCATED_IN", "--json").out
    )
    assert [h["item"]["id"] for h in located] == ["e-paris"]
    in_g2 = json.loads(anatid("search", seeded.path, "Acme city", "--group", "g2", "--json").out)
    assert [h["item"]["id"] for h in in_g2] == ["paris"]


def test_show_prints_a_node_with_props_embedding_and_edges(seeded: Seeded) -> None:
    r = anatid("show", seeded.path, "alice")
    assert r.code == 0, r.err
    assert "node alice" in r.out and "Alice Smith" in r.out
    assert "3 dims in space 'default'" in r.out
    assert "WORKS_AT  e-globex" in r.out
    old = anatid("show", seeded.path, "alice", "--as-of", seeded.before_update)
    assert "name       Alice\n" in old.out and '"age": 31' in old.out
    edge = anatid("show", seeded.path, "e-acme", "--json")
    (block,) = json.loads(edge.out)
    assert block["kind"] == "edge" and block["item"]["valid_to"] == "2024-06-01T00:00:00+00:00"


def test_show_unknown_or_deleted_id_exits_1_with_one_line(seeded: Seeded) -> None:
    r = anatid("show", seeded.path, "nobody")
    assert r.code == 1 and r.out == ""
    assert r.err.count("\n") == 1 and "no node or edge 'nobody'" in r.err
    gone = anatid("show", seeded.path, "bob")
    assert gone.code == 1 and "see anatid history" in gone.err
    then = anatid("show", seeded.path, "bob", "--as-of", seeded.before_update)
    assert then.code == 0 and "Bob likes coffee" in then.out


def test_history_lists_versions_with_changes_and_deletion(seeded: Seeded) -> None:
    r = anatid("history", seeded.path, "alice")
    assert r.code == 0, r.err
    assert "node alice: 2 version(s)" in r.out
    assert "created" in r.out and "name, text, props" in r.out
    edge = anatid("history", seeded.path, "e-acme")
    assert "valid_to" in edge.out and "2024-06-01T00:00:00Z" in edge.out
    bob = anatid("history", seeded.path, "bob")
    assert "deleted at" in bob.out
    versions = json.loads(anatid("history", seeded.path, "e-acme", "--json").out)
    assert [v["item"]["valid_to"] for v in versions] == [None, "2024-06-01T00:00:00+00:00"]
    assert [v["ordinal"] for v in versions] == [1, 2]
    assert anatid("history", seeded.path, "nobody").code == 1


def _graphiti_fact(path: Path) -> None:
    """A fact as Graphiti stores it: a RELATES_TO edge named by its relation, the sentence as
    text; written twice, with another record's version in between."""
    with Store.open(path) as s:
        s.upsert_nodes([Node("alice", name="Alice"), Node("acme", name="Acme")])
        fact = Edge(
            "f1", "alice", "acme", "RELATES_TO", name="WORKS_AT", text="Alice works at Acme"
        )
        s.upsert_edges([fact])
        s.upsert_nodes([Node("acme", name="Acme", text="makes anvils")])
        s.upsert_edges([Edge("f1", "alice", "acme", "RELATES_TO", name="WORKS_AT",
                             text="Alice works at Acme as a chemist")])  # fmt: skip


def test_history_shows_a_facts_text_and_counts_the_records_own_versions(tmp_path: Path) -> None:
    """Issue 36: the text column showed WORKS_AT, and the only number was the file's version id
    (here 3 and 5), which read as a count of the fact's versions."""
    path = tmp_path / "graphiti.duckdb"
    _graphiti_fact(path)
    r = anatid("history", path, "f1")
    assert r.code == 0, r.err
    header, first, second = r.out.splitlines()[1:4]
    assert header.split()[:3] == ["#", "version", "id"] and header.rstrip().endswith("(or name)")
    assert first.split()[:2] == ["1", "3"] and first.rstrip().endswith("Alice works at Acme")
    assert second.split()[:2] == ["2", "5"] and "as a chemist" in second
    assert "WORKS_AT" not in r.out.split("(or name)")[1]
    node = anatid("history", path, "alice")
    assert node.out.splitlines()[2].rstrip().endswith("Alice")  # no text: the name
    show = anatid("show", path, "f1")
    assert "version    2 of 2, version id 5 (numbered across the whole file)" in show.out


def test_export_without_format_writes_jsonl(seeded: Seeded) -> None:
    r = anatid("export", seeded.path)
    assert r.code == 0, r.err
    assert r.out == anatid("export", seeded.path, "--format", "jsonl").out
    assert json.loads(r.out.splitlines()[0])["kind"] == "node"
    assert "jsonl (the default)" in anatid("export", "--help").out


def test_export_jsonl_now_as_of_and_every_version(seeded: Seeded, tmp_path: Path) -> None:
    r = anatid("export", seeded.path, "--format", "jsonl")
    assert r.code == 0, r.err
    recs = [json.loads(line) for line in r.out.splitlines()]
    assert [x["id"] for x in recs if x["kind"] == "node"] == ["acme", "alice", "globex", "paris"]
    # e-knows went with bob (deleting a node detaches it); e-acme is closed, still current
    assert {x["id"] for x in recs if x["kind"] == "edge"} == {"e-acme", "e-globex", "e-paris"}
    then = [
        json.loads(line)
        for line in anatid(
            "export", seeded.path, "--format", "jsonl", "--as-of", seeded.before_update
        ).out.splitlines()
    ]
    assert {x["id"] for x in then if x["kind"] == "node"} == {"alice", "bob", "acme", "paris"}
    out = tmp_path / "all.jsonl"
    r = anatid("export", seeded.path, "--format", "jsonl", "--history", "--out", out)
    assert r.code == 0 and "wrote 6 nodes and 5 edges" in r.err
    assert len(out.read_text().splitlines()) == 11
    vec = anatid("export", seeded.path, "--format", "jsonl", "--embeddings", "--group", "g2")
    (paris, located_in) = [json.loads(line) for line in vec.out.splitlines()]
    assert paris["embedding"] == [0.0, 0.0, 1.0] and located_in["id"] == "e-paris"


def test_export_graphml_is_valid_xml_with_every_endpoint(seeded: Seeded) -> None:
    r = anatid("export", seeded.path, "--format", "graphml", "--group", "g2")
    assert r.code == 0, r.err
    ns = {"g": "http://graphml.graphdrawing.org/xmlns"}
    root = ET.fromstring(r.out)
    nodes = {n.get("id") for n in root.iterfind(".//g:node", ns)}
    edges = [(e.get("source"), e.get("target")) for e in root.iterfind(".//g:edge", ns)]
    assert edges == [("acme", "paris")]
    assert nodes == {"acme", "paris"}  # acme is in g1, added as the edge's endpoint
    full = ET.fromstring(anatid("export", seeded.path, "--format", "graphml").out)
    texts = [d.text for d in full.iterfind(".//g:data[@key='n_text']", ns)]
    assert "Globex <b>makes</b> </script> things" in texts


def test_check_ok_then_a_broken_file_exits_1(tmp_path: Path) -> None:
    seeded = build(tmp_path / "m.duckdb")
    r = anatid("check", seeded.path)
    assert r.code == 0 and f"ok (4 nodes, 3 edges, 11 versions, schema {SCHEMA_VERSION})" in r.out
    con = duckdb.connect(str(seeded.path))
    con.execute("DELETE FROM postings WHERE vid IN (SELECT vid FROM nodes WHERE id = 'acme')")
    con.close()
    r = anatid("check", seeded.path)
    assert r.code == 1
    stats = anatid("stats", seeded.path)
    assert stats.code == 0 and "health          1 problem(s): run anatid check" in stats.out
    assert "not checked" in anatid("stats", seeded.path, "--no-check").out
    assert (
        "problem: nodes: full-text postings disagree with the document length (e.g. acme)" in r.out
    )


_KILLED_WRITER = """
import os, signal, sys
from anatid_core import Node, Store
store = Store.open(sys.argv[1])
store.upsert_nodes([Node(f"n{i}", name=f"node {i}") for i in range(50)])
store.upsert_nodes([Node("late", name="written last")])
os.kill(os.getpid(), signal.SIGKILL)  # no close, no checkpoint: the commits are in the WAL
"""


@pytest.mark.skipif(sys.platform == "win32", reason="SIGKILL is POSIX")
def test_reads_a_file_whose_writer_was_killed_without_touching_it(tmp_path: Path) -> None:
    import subprocess

    path = tmp_path / "crashed.duckdb"
    subprocess.run([sys.executable, "-c", _KILLED_WRITER, str(path)], timeout=120)
    wal = Path(str(path) + ".wal")
    assert wal.exists()
    before = (path.read_bytes(), wal.read_bytes())
    r = anatid("show", path, "late")
    assert r.code == 0 and "written last" in r.out, r.err
    check = anatid("check", path)
    assert check.code == 0 and "ok (51 nodes" in check.out
    assert (path.read_bytes(), wal.read_bytes()) == before  # read-only: nothing replayed to disk
