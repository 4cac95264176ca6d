"""``anatid`` on a damaged file: a diagnosis, never an "unexpected" error (issue 32).

One small store is damaged in each way a file is met damaged: cut short (inside a header, in
the metadata, in the middle, in the last block), pages overwritten with zeros (4 KB and whole
256 KB blocks, placed on the blocks that hold the headers, the metadata and the tables), a file
of another kind in its place, and a write-ahead log beside it that another store wrote, or its
own WAL damaged. Every case runs ``anatid check`` and ``anatid stats`` as a user would (a fresh
process each) and holds each to docs/cli.md: check lists the damage as a problem (exit 1) or
says the file is no store (exit 2); every other command says the file is damaged and points at
``anatid check`` (exit 2). Then every block of the file in turn loses its first page, and every
reading command must agree with check: whatever a command meets, check has reported. Nothing
may change a byte of the file or its WAL.
"""

from __future__ import annotations

import json
import random
import sqlite3
import subprocess
import sys
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import duckdb
import pytest

from anatid_core import Edge, Node, Store
from tests.cli.conftest import Result, anatid

#: DuckDB's file layout (duckdb 1.x-2.x): three 4 KB headers, then blocks of 256 KB.
HEADERS = 3 * 4096
BLOCK = 262144
PAGE = 4096

#: What each kind of case must print: check's exit status, and the words of the diagnosis.
DAMAGED = "truncated or damaged"
FOREIGN_WAL = "is not the write-ahead log of"
DAMAGED_WAL = "write-ahead log"
NOT_A_STORE = "not a readable anatid/DuckDB file"

#: Reading commands, for the block-by-block sweep (ids from the store built below).
READERS = [
    ["check"],
    ["stats"],
    ["search", "alpha"],
    ["show", "n0-1"],
    ["history", "e1"],
    ["export", "--format", "jsonl"],
    ["view", "--out", "-"],
]


@dataclass
class Case:
    """A damaged file: check's exit status and diagnosis, and the files that must not change."""

    path: Path
    check_code: int  # 1: the file's problem; 2: not a store at all
    words: str
    before: dict[Path, bytes | None]  # file -> its bytes (None: must not exist)


def _build(path: Path) -> None:
    rng = random.Random(7)
    with Store.open(path) as store:
        for b in range(3):
            store.upsert_nodes(
                [
                    Node(
                        f"n{b}-{i}",
                        text=f"alpha word{rng.randrange(999)} " * 10,
                        embedding=[rng.random() for _ in range(8)],
                    )
                    for i in range(100)
                ]
            )
        store.upsert_edges([Edge(f"e{i}", f"n0-{i}", f"n1-{i}", "R", text="x") for i in range(50)])


def _layout(path: Path) -> tuple[dict[str, int], int]:
    """Where each table's first segment lies (table -> block id, "metadata" too), and the
    number of blocks: the damage is aimed at blocks that hold something."""
    con = duckdb.connect(str(path), read_only=True)
    try:
        blocks = {
            table: min(
                r[0]
                for r in con.execute(
                    f"SELECT block_id FROM pragma_storage_info('{table}') WHERE block_id >= 0"
                ).fetchall()
            )
            for table in ("nodes", "edges", "postings", "vec_1")
        }
        meta = con.execute("SELECT min(block_id) FROM pragma_metadata_info()").fetchall()
        blocks["metadata"] = meta[0][0]
    finally:
        con.close()
    return blocks, (path.stat().st_size - HEADERS) // BLOCK


def _start(block: int) -> int:
    return HEADERS + block * BLOCK


def _zeroed(whole: bytes, at: int, size: int) -> bytes:
    data = bytearray(whole)
    data[at : at + size] = bytes(len(data[at : at + size]))
    return bytes(data)


_KILLED_WRITER = """
import os, signal, sys
from anatid_core import Node, Store
store = Store.open(sys.argv[1])
store.upsert_nodes([Node(f"w{i}", name=f"node {i}", text="beta " * 40) for i in range(50)])
os.kill(os.getpid(), signal.SIGKILL)  # no close, no checkpoint: the commits stay in the WAL
"""


def _store_with_wal(path: Path) -> bytes:
    """Another store, whose writer was killed after its commits: they are only in its WAL."""
    subprocess.run([sys.executable, "-c", _KILLED_WRITER, str(path)], timeout=120)
    wal = Path(f"{path}.wal")
    assert wal.exists() and wal.stat().st_size > 0
    return wal.read_bytes()


def _sqlite(path: Path) -> None:
    con = sqlite3.connect(path)
    con.execute("CREATE TABLE t (x)")
    con.commit()
    con.close()


def _make_cases(root: Path) -> dict[str, Case]:
    base = root / "base.duckdb"
    _build(base)
    whole = base.read_bytes()
    blocks, count = _layout(base)
    last = max(blocks.values())
    assert last < count and blocks["metadata"] < count

    made: dict[str, bytes] = {
        "cut_in_first_header": whole[:100],
        "cut_in_second_header": whole[: PAGE + 100],
        "cut_in_metadata": whole[: _start(blocks["metadata"]) + 1000],
        "cut_in_the_middle": whole[: len(whole) // 2],
        "cut_in_last_table_block": whole[: _start(last) + PAGE],
        "zero_page_first_header": _zeroed(whole, PAGE, PAGE),
        "zero_page_second_header": _zeroed(whole, 2 * PAGE, PAGE),
        "zero_page_metadata": _zeroed(whole, _start(blocks["metadata"]), PAGE),
        "zero_page_nodes": _zeroed(whole, _start(blocks["nodes"]), PAGE),
        "zero_page_vectors": _zeroed(whole, _start(blocks["vec_1"]), PAGE),
        "zero_block_edges": _zeroed(whole, _start(blocks["edges"]), BLOCK),
        "zero_block_postings": _zeroed(whole, _start(blocks["postings"]), BLOCK),
    }
    cases: dict[str, Case] = {}
    for name, data in made.items():
        path = root / f"{name}.duckdb"
        path.write_bytes(data)
        cases[name] = Case(path, 1, DAMAGED, {path: data, Path(f"{path}.wal"): None})

    foreign: dict[str, Callable[[Path], object]] = {
        "text_file": lambda p: p.write_text("name,value\nalice,1\n" * 200),
        "random_bytes": lambda p: p.write_bytes(random.Random(1).randbytes(300_000)),
        "empty_file": lambda p: p.write_bytes(b""),
        "cut_before_the_magic": lambda p: p.write_bytes(whole[:8]),
        "sqlite_file": _sqlite,
    }
    for name, make in foreign.items():
        path = root / f"{name}.duckdb"
        make(path)
        words = "not an anatid/DuckDB store" if name == "sqlite_file" else NOT_A_STORE
        cases[name] = Case(path, 2, words, {path: path.read_bytes(), Path(f"{path}.wal"): None})
    folder = root / "folder.duckdb"
    folder.mkdir()
    cases["directory"] = Case(folder, 2, "is a directory", {})

    # A WAL that another store wrote, beside this one (a store copied without its own WAL, or a
    # WAL copied beside it); and this store's own WAL, damaged in the middle of an entry.
    other = root / "other" / "other.duckdb"
    other.parent.mkdir()
    wal = _store_with_wal(other)
    alien = root / "foreign_wal.duckdb"
    alien.write_bytes(whole)
    Path(f"{alien}.wal").write_bytes(wal)
    cases["foreign_wal"] = Case(alien, 1, FOREIGN_WAL, {alien: whole, Path(f"{alien}.wal"): wal})
    own = root / "damaged_wal.duckdb"
    own.write_bytes(other.read_bytes())
    broken = _zeroed(wal, len(wal) // 2, 16)
    Path(f"{own}.wal").write_bytes(broken)
    cases["damaged_wal"] = Case(
        own, 1, DAMAGED_WAL, {own: other.read_bytes(), Path(f"{own}.wal"): broken}
    )
    return cases


#: Every case, and (check, stats) as run on it.
Damaged = tuple[dict[str, Case], dict[str, tuple[Result, Result]]]


@pytest.fixture(scope="module")
def damaged(tmp_path_factory: pytest.TempPathFactory) -> Damaged:
    """Every case, and what ``anatid check`` and ``anatid stats`` printed for it (run two at a
    time: each is a fresh interpreter, and they are most of this module's time)."""
    cases = _make_cases(tmp_path_factory.mktemp("damaged"))

    def both(name: str) -> tuple[str, Result, Result]:
        path = cases[name].path
        return name, anatid("check", path), anatid("stats", path)

    with ThreadPoolExecutor(max_workers=2) as pool:
        results = {name: (c, s) for name, c, s in pool.map(both, sorted(cases))}
    return cases, results


def _one_line(err: str) -> str:
    assert "Traceback" not in err and "unexpected" not in err, err
    assert err.endswith("\n") and err.count("\n") == 1, err
    return err


CASES = [
    "cut_in_first_header",
    "cut_in_second_header",
    "cut_in_metadata",
    "cut_in_the_middle",
    "cut_in_last_table_block",
    "zero_page_first_header",
    "zero_page_second_header",
    "zero_page_metadata",
    "zero_page_nodes",
    "zero_page_vectors",
    "zero_block_edges",
    "zero_block_postings",
    "foreign_wal",
    "damaged_wal",
    "text_file",
    "random_bytes",
    "empty_file",
    "cut_before_the_magic",
    "sqlite_file",
    "directory",
]


@pytest.mark.skipif(sys.platform == "win32", reason="the foreign WAL comes from a SIGKILL")
@pytest.mark.parametrize("name", CASES)
def test_check_and_stats_diagnose_the_damage_and_leave_the_file_as_it_was(
    name: str, damaged: Damaged
) -> None:
    cases, results = damaged
    case = cases[name]
    check, stats = results[name]
    path = str(case.path)
    if case.check_code == 1:  # the file's own problem: listed like any other problem
        assert check.code == 1, (check.out, check.err)
        assert check.err == "", check.err
        assert check.out.startswith("problem: ") and case.words in check.out, check.out
        assert check.out.splitlines()[-1].startswith(f"{path}: 1 problem(s)"), check.out
        # Every other command: the same diagnosis, and where to look further.
        line = _one_line(stats.err)
        assert stats.code == 2 and stats.out == ""
        assert case.words in line and f"run anatid check {path}" in line, line
    else:  # not a store: nothing to check
        for r in (check, stats):
            line = _one_line(r.err)
            assert r.code == 2 and r.out == "" and case.words in line and path in line, line
    if case.path.is_dir():
        assert not any(case.path.iterdir()), "files appeared in the folder"
    for file, data in case.before.items():
        if data is None:
            assert not file.exists(), f"{file} appeared"
        else:
            assert file.read_bytes() == data, f"{file} was modified"


_RUNNER = """
import contextlib, io, json, sys
from anatid_core.cli import main
out = []
for argv in json.loads(sys.argv[1]):
    o, e = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(o), contextlib.redirect_stderr(e):
        try:
            code = main(argv)
        except SystemExit as exc:
            code = exc.code
    out.append([code, o.getvalue()[-2000:], e.getvalue()])
print(json.dumps(out))
"""


def _run_in_one_process(jobs: list[list[str]]) -> list[Result]:
    """Run many command lines in one fresh interpreter (``anatid_core.cli.main`` each)."""
    proc = subprocess.run(
        [sys.executable, "-c", _RUNNER, json.dumps(jobs)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    return [Result(code, out, err) for code, out, err in json.loads(proc.stdout)]


def test_every_block_losing_its_first_page_is_reported_by_check_first(tmp_path: Path) -> None:
    """Whatever a reading command meets, check has found: a command that fails says the file
    is damaged and points at check, and check reports damage; when check finds the file whole,
    every command works. DuckDB reads lazily, and an index (the nodes' ids, the edges' ends) is
    read only by lookups through it: damage there once passed check."""
    base = tmp_path / "base.duckdb"
    _build(base)
    whole = base.read_bytes()
    _, count = _layout(base)
    files = []
    for block in range(count):
        path = tmp_path / f"block{block}.duckdb"
        path.write_bytes(_zeroed(whole, _start(block), PAGE))
        files.append(path)
    jobs = [[argv[0], str(p), *argv[1:]] for p in files for argv in READERS]
    half = len(jobs) // len(READERS) // 2 * len(READERS)
    with ThreadPoolExecutor(max_workers=2) as pool:
        first, second = pool.map(_run_in_one_process, [jobs[:half], jobs[half:]])
    results = first + second
    reported = 0
    for n, path in enumerate(files):
        check, *others = results[n * len(READERS) : (n + 1) * len(READERS)]
        assert "unexpected" not in check.err and "Traceback" not in check.err, check.err
        assert check.code in (0, 1), (path, check)
        if check.code == 0:
            assert all(r.code == 0 for r in others), (path, [r.err for r in others])
        else:
            reported += 1
            assert DAMAGED in check.out, check.out
            for r in others:
                assert r.code in (0, 2), (path, r)
                if r.code == 2:
                    line = _one_line(r.err)
                    assert DAMAGED in line and f"run anatid check {path}" in line, line
        assert path.read_bytes() == _zeroed(whole, _start(n), PAGE), f"{path} was modified"
        assert not Path(f"{path}.wal").exists()
    assert reported >= count // 2, "the sweep hit too few blocks that hold data"
