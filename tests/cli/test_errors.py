"""Bad input: a non-zero exit and one line on stderr, never a traceback; a file another process
holds open is read all the same."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import duckdb
import pytest

from .conftest import Seeded, anatid

# One invocation per command that needs nothing but the file.
BASIC = [
    ["stats"],
    ["search", "Alice"],
    ["show", "alice"],
    ["history", "alice"],
    ["export", "--format", "jsonl"],
    ["check"],
    ["view", "--out", "-"],
]


def _one_line(err: str) -> str:
    assert "Traceback" not in err
    assert err.endswith("\n") and err.count("\n") == 1, err
    return err


@pytest.mark.parametrize("argv", BASIC, ids=lambda a: a[0])
def test_missing_file_exits_2_with_one_line(argv: list[str], tmp_path: Path) -> None:
    missing = tmp_path / "nope.duckdb"
    r = anatid(argv[0], missing, *argv[1:])
    assert r.code == 2
    assert "no such file" in _one_line(r.err)
    assert not missing.exists()  # read-only: never creates the file


@pytest.mark.parametrize("argv", BASIC, ids=lambda a: a[0])
def test_a_file_that_is_not_an_anatid_store_exits_2(argv: list[str], tmp_path: Path) -> None:
    text = tmp_path / "notes.duckdb"
    text.write_text("hello")
    r = anatid(argv[0], text, *argv[1:])
    assert r.code == 2 and "not a readable anatid/DuckDB file" in _one_line(r.err)
    other = tmp_path / "other.duckdb"
    con = duckdb.connect(str(other))
    con.execute("CREATE TABLE t (x INTEGER)")
    con.close()
    r = anatid(argv[0], other, *argv[1:])
    assert r.code == 2 and "not an anatid store" in _one_line(r.err)


@pytest.mark.parametrize(
    "argv, message",
    [
        (["search", "Alice", "--as-of", "yesterday"], "--as-of: cannot read 'yesterday'"),
        (["search", "Alice", "--valid-at", "2024-13-01"], "--valid-at: cannot read"),
        (["search", "Alice", "--k", "0"], "--k must be a positive number"),
        (["search", "Alice", "--k", "ten"], "invalid int value: 'ten'"),
        (["search", "   "], "the search text is empty"),
        (["search", "Alice", "--embedding", "[1, 2]"], "dimension 2"),
        (["search", "Alice", "--embedding", "not json"], "--embedding: expected a JSON array"),
        (["search", "Alice", "--embedding", '["a"]'], "non-empty JSON array of numbers"),
        (["search", "Alice", "--kind", "vertex"], "invalid choice: 'vertex'"),
        (
            ["search", "Alice", "--embedding", "[1, 0, 0]", "--space", "fact"],
            "--space 'fact': the file has no node vectors in that space (spaces: node/default)",
        ),
        (
            ["export", "--format", "jsonl", "--out", "/no/such/dir/x.jsonl"],
            "/no/such/dir does not exist",
        ),
        (["view", "--out", "/no/such/dir/x.html"], "the folder /no/such/dir does not exist"),
        (["search", "Alice", "--rel", "KNOWS"], "--rel filters edges (--kind edge)"),
        (["search", "Alice", "--graph-weight", "-1"], "--graph-weight must be a number >= 0"),
        (["export", "--format", "csv"], "invalid choice: 'csv'"),
        (["export", "--format", "graphml", "--history"], "need --format jsonl"),
        (["export", "--format", "jsonl", "--history", "--as-of", "2024-01-01"], "--history"),
        (["show"], "the following arguments are required: ID"),
        (["stats", "--bogus"], "unrecognized arguments: --bogus"),
    ],
    ids=lambda v: v if isinstance(v, str) else " ".join(v),
)
def test_bad_input_exits_2_with_one_line_reason(
    seeded: Seeded, argv: list[str], message: str
) -> None:
    r = anatid(argv[0], seeded.path, *argv[1:])
    assert r.code == 2
    assert message in _one_line(r.err)
    assert r.out == ""


def test_unknown_command_and_no_command() -> None:
    r = anatid("frobnicate")
    assert r.code == 2 and "invalid choice: 'frobnicate'" in _one_line(r.err)
    r = anatid()
    assert r.code == 2 and "usage: anatid" in r.out


_WRITER = """
import sys
from anatid_core import Node, Store
store = Store.open(sys.argv[1])
store.upsert_nodes([Node("writer", name="held by the writer")])
print("ready", flush=True)
sys.stdin.readline()  # hold the file open until the test lets go, then write again
store.upsert_nodes([Node("after", name="written after the commands")])
print(store.handovers, flush=True)
store.close()
"""


def test_commands_read_a_file_that_another_process_holds_open_for_writing(
    seeded: Seeded,
) -> None:
    """The writer hands the file over between its operations (issue 11): every command reads
    it, sees the writer's commit, and the writer goes on writing afterwards."""
    writer = subprocess.Popen(
        [sys.executable, "-c", _WRITER, str(seeded.path)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert writer.stdout is not None and writer.stdout.readline().strip() == "ready"
        for argv in BASIC:
            r = anatid(argv[0], seeded.path, *argv[1:])
            assert r.code == 0, (argv, r.err)
        r = anatid("show", seeded.path, "writer")
        assert r.code == 0 and "held by the writer" in r.out
    finally:
        assert writer.stdin is not None
        writer.stdin.write("go\n")
        writer.stdin.close()
        writer.wait(timeout=60)
    assert writer.returncode == 0
    assert writer.stdout is not None and int(writer.stdout.read().strip()) >= 1
    r = anatid("show", seeded.path, "after")
    assert r.code == 0 and "written after the commands" in r.out
