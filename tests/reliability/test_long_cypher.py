"""A long Cypher query does not lock other processes out (issue 42, point 2): while one process
runs a query given a long deadline, another process writes and runs ``anatid stats`` before the
query ends, and the query's answer is the answer of one instant (the writes made meanwhile are
not in it)."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
import time
from pathlib import Path

from anatid_core import Node, Store

NODES = 3_000
#: A query that reads every :P node in pages and does some work per node: seconds, not ms.
QUERY = (
    "MATCH (a:P) UNWIND range(1, 200) AS k WITH a, k WHERE k % 2 = 0 "
    "RETURN count(*) AS rows, count(DISTINCT a.id) AS nodes"
)

CHILD = textwrap.dedent(
    """
    import json, sys, time
    from anatid_core import Store
    store = Store.open(sys.argv[1], read_only=True)
    query = sys.argv[2]
    if query.startswith("@"):  # a text too long for a command line
        query = open(query[1:]).read()
    print("started", flush=True)
    began = time.time()
    result = store.cypher(query, timeout=600)
    out = {"rows": result.records(), "handovers": store.connection.handovers}
    print(json.dumps({**out, "began": began, "ended": time.time()}))
    store.close()
    """
)


def test_a_long_query_hands_the_file_over_and_answers_for_one_instant(tmp_path: Path) -> None:
    path = tmp_path / "m.duckdb"
    with Store.open(path) as store:
        store.upsert_nodes(Node(f"n{i:05d}", name=f"node {i}", labels=("P",)) for i in range(NODES))
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD, str(path), QUERY],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert child.stdout is not None and child.stdout.readline().strip() == "started"
        time.sleep(0.5)  # the child is inside the query: it holds the file
        # Another process's write: new :P nodes, sorted after the ones the query pages through.
        with Store.open(path) as writer:
            writer.upsert_nodes(
                Node(f"z{i:03d}", name=f"late {i}", labels=("P",)) for i in range(50)
            )
        wrote_while_running = child.poll() is None
        stats = subprocess.run(
            [sys.executable, "-m", "anatid_core.cli", "stats", str(path), "--json"],
            capture_output=True,
            text=True,
            timeout=120,
        )
        stats_while_running = child.poll() is None
        out, err = child.communicate(timeout=600)
    finally:
        if child.poll() is None:
            child.kill()
    assert child.returncode == 0, err
    assert stats.returncode == 0, stats.stderr
    assert json.loads(stats.stdout)["nodes"] == NODES + 50
    answer = json.loads(out)
    # The file was handed over during the query, the write and stats finished before it
    # did, and the query saw the nodes of one instant: none of the 50 written meanwhile.
    assert answer["handovers"] >= 1
    assert wrote_while_running and stats_while_running
    assert answer["rows"] == [{"rows": NODES * 100, "nodes": NODES}]


def test_a_long_query_text_is_read_before_the_file_is_taken(tmp_path: Path) -> None:
    # A text of megabytes takes seconds to parse (a sum of 300,000 terms: ~5 s here). The parse
    # ran inside the query's turn on the file, so a writer waited for it; it needs no file.
    path = tmp_path / "m.duckdb"
    with Store.open(path) as store:
        store.upsert_node(Node("n0", labels=("P",)))
    text = tmp_path / "query.cypher"
    text.write_text("RETURN " + " + ".join(["1"] * 300_000) + " AS total")
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD, str(path), f"@{text}"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert child.stdout is not None and child.stdout.readline().strip() == "started"
        time.sleep(0.5)  # the child is reading the text
        with Store.open(path) as writer:
            writer.upsert_node(Node("n1", labels=("P",)))
        wrote = time.time()
        out, err = child.communicate(timeout=600)
    finally:
        if child.poll() is None:
            child.kill()
    assert child.returncode == 0, err
    answer = json.loads(out)
    assert answer["rows"] == [{"total": 300_000}]
    # The write finished early in the query's call, not when the call gave the file up at
    # its end (as it did when the text was read inside the call's turn on the file).
    assert answer["began"] < wrote < answer["ended"]
    assert wrote - answer["began"] < answer["ended"] - wrote
