"""A store is known by what it is, not by how it was named (issue 32).

Every path shape a user meets (relative, ``..``, a symlink, a chain of symlinks, a symlinked
folder, a relative link) goes through open, a second process, erase, compact, export and view,
and each time the *real* file is checked: the erased bytes gone from it, its mode and owner
kept, both processes' writes in it, and an output aimed at it refused with the file unchanged.
"""

from __future__ import annotations

import hashlib
import os
import stat
import subprocess
import sys
import textwrap
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from anatid_core import InvalidInput, Node, Store, StoreLocked, remove_store
from anatid_core.storage import compaction
from tests.cli.conftest import anatid

SECRET = "zqxprivatetokenq"


@dataclass
class Shape:
    """A store file reached through ``given`` (relative to ``cwd`` when relative)."""

    real: Path
    given: str
    cwd: Path


def _plain(root: Path) -> Shape:
    return Shape(root / "real" / "mem.duckdb", str(root / "real" / "mem.duckdb"), root)


def _relative(root: Path) -> Shape:
    return Shape(root / "real" / "mem.duckdb", "real/mem.duckdb", root)


def _dotdot(root: Path) -> Shape:
    (root / "other").mkdir()
    return Shape(root / "real" / "mem.duckdb", "other/../real/./mem.duckdb", root)


def _symlink(root: Path) -> Shape:
    (root / "link.duckdb").symlink_to(root / "real" / "mem.duckdb")
    return Shape(root / "real" / "mem.duckdb", str(root / "link.duckdb"), root)


def _relative_link(root: Path) -> Shape:
    (root / "link.duckdb").symlink_to(Path("real") / "mem.duckdb")
    return Shape(root / "real" / "mem.duckdb", "link.duckdb", root)


def _chain(root: Path) -> Shape:
    (root / "a.duckdb").symlink_to(root / "real" / "mem.duckdb")
    (root / "b.duckdb").symlink_to(root / "a.duckdb")
    (root / "c.duckdb").symlink_to(root / "b.duckdb")
    return Shape(root / "real" / "mem.duckdb", str(root / "c.duckdb"), root)


def _linked_folder(root: Path) -> Shape:
    (root / "home").mkdir()
    (root / "home" / "memories").symlink_to(root / "real", target_is_directory=True)
    return Shape(root / "real" / "mem.duckdb", str(root / "home" / "memories" / "mem.duckdb"), root)


SHAPES: dict[str, Callable[[Path], Shape]] = {
    "plain": _plain,
    "relative": _relative,
    "dotdot": _dotdot,
    "symlink": _symlink,
    "relative-symlink": _relative_link,
    "chain-of-symlinks": _chain,
    "symlinked-folder": _linked_folder,
}


@pytest.fixture(params=list(SHAPES))
def shape(request: pytest.FixtureRequest, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Shape:
    (tmp_path / "real").mkdir()
    made = SHAPES[request.param](tmp_path)
    monkeypatch.chdir(made.cwd)
    with Store.open(made.real) as s:
        s.upsert_nodes(
            [
                Node("secret", name=f"Secret {SECRET}", text=f"the {SECRET} text"),
                Node("keep", name="Keep", text="stays"),
            ]
        )
    os.chmod(made.real, 0o600)
    return made


def _links_intact(root: Path) -> None:
    """Every symlink the shape made is still a symlink (nothing replaced a link by a file)."""
    for p in root.rglob("*"):
        if p.name.endswith(".duckdb") and p.parent.name != "real":
            assert p.is_symlink(), f"{p} was replaced by a regular file"


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _real_files(shape: Shape) -> list[Path]:
    return sorted(p for p in shape.real.parent.iterdir() if p.is_file())


def test_open_through_any_path_names_the_real_file(shape: Shape) -> None:
    with Store.open(shape.given) as s:
        assert s.path == str(shape.real.resolve())
        s.upsert_nodes([Node("new", name="New")])
    with Store.open(shape.real, read_only=True) as s:
        assert s.get_node("new").name == "New"
    _links_intact(shape.cwd)
    assert stat.S_IMODE(shape.real.stat().st_mode) == 0o600


def test_erase_through_any_path_removes_the_bytes_from_the_real_file(shape: Shape) -> None:
    r = anatid("erase", shape.given, "--node", "secret", "--json")
    assert r.code == 0, r.err
    assert '"gone"' in r.out
    _links_intact(shape.cwd)
    for f in _real_files(shape):
        assert SECRET.encode() not in f.read_bytes(), f"{f.name} still holds the erased text"
    with Store.open(shape.real, read_only=True) as s:  # the receipt, read by the real path
        assert [e.state for e in s.erasures()] == ["gone"]
        assert s.get_node("keep").name == "Keep"
    assert not compaction.leftovers(str(shape.real))


def test_compaction_keeps_mode_and_owner_of_the_real_file(shape: Shape) -> None:
    for mode in (0o600, 0o640):
        os.chmod(shape.real, mode)
        before = shape.real.stat()
        r = anatid("compact", shape.given)
        assert r.code == 0, r.err
        after = shape.real.stat()
        assert stat.S_IMODE(after.st_mode) == mode
        assert (after.st_uid, after.st_gid) == (before.st_uid, before.st_gid)
        _links_intact(shape.cwd)


@pytest.mark.parametrize("command", ["export", "view"])
def test_an_output_over_the_store_is_refused_and_the_store_unchanged(
    shape: Shape, command: str
) -> None:
    before = _digest(shape.real)
    names = {shape.given, str(shape.real), os.path.relpath(shape.real, shape.cwd)}
    for out in sorted(names) + [str(shape.real) + ".wal", str(shape.real) + ".anatid-lease"]:
        extra = ["--format", "jsonl"] if command == "export" else []
        r = anatid(command, shape.given, *extra, "--out", out)
        assert r.code == 2, (out, r.out, r.err)
        assert "anatid: the output" in r.err and "Traceback" not in r.err
        assert _digest(shape.real) == before
    with Store.open(shape.real, read_only=True) as s:
        assert s.get_node("secret").name.startswith("Secret")


def test_an_output_over_another_store_is_refused(tmp_path: Path) -> None:
    a, b = tmp_path / "a.duckdb", tmp_path / "b.duckdb"
    for p in (a, b):
        with Store.open(p) as s:
            s.upsert_nodes([Node("x", name=p.name)])
    before = _digest(b)
    r = anatid("export", a, "--format", "graphml", "--out", b)
    assert r.code == 2 and "is a DuckDB/anatid store" in r.err
    assert _digest(b) == before


def test_an_ordinary_output_is_replaced_and_no_more_open_than_the_store(tmp_path: Path) -> None:
    store = tmp_path / "m.duckdb"
    with Store.open(store) as s:
        s.upsert_nodes([Node("x", name="X")])
    os.chmod(store, 0o600)
    new = tmp_path / "new.jsonl"
    assert anatid("export", store, "--format", "jsonl", "--out", new).code == 0
    assert stat.S_IMODE(new.stat().st_mode) == 0o600  # an export of a private memory stays so
    old = tmp_path / "old.jsonl"
    old.write_text("previous export\n")
    os.chmod(old, 0o644)
    assert anatid("export", store, "--format", "jsonl", "--out", old).code == 0
    assert '"id": "x"' in old.read_text() and stat.S_IMODE(old.stat().st_mode) == 0o644


def test_view_default_name_never_is_the_store(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    store = tmp_path / "memory.html"  # a store whose name ends in .html
    with Store.open(store) as s:
        s.upsert_nodes([Node("x", name="X")])
    before = _digest(store)
    r = anatid("view", "memory.html")
    assert r.code == 0, r.err
    assert _digest(store) == before
    assert (tmp_path / "memory.html.html").exists()


_WRITER = textwrap.dedent(
    """
    import sys
    from anatid_core import Node, Store
    path, tag, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
    with Store.open(path) as s:
        for i in range(n):
            s.upsert_nodes([Node(f"{tag}{i}", name=f"{tag} {i}")])
    print("done")
    """
)


def test_two_processes_by_different_paths_take_turns(shape: Shape) -> None:
    n = 15
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", _WRITER, path, tag, str(n)],
            cwd=shape.cwd,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for path, tag in ((str(shape.real), "real"), (shape.given, "given"))
    ]
    for p in procs:
        out, err = p.communicate(timeout=120)
        assert p.returncode == 0 and "StoreLocked" not in err, err
    with Store.open(shape.real, read_only=True) as s:
        ids = {
            x.id for x in s.find_nodes(ids=[f"{t}{i}" for t in ("real", "given") for i in range(n)])
        }
    assert len(ids) == 2 * n


def test_a_second_store_in_one_process_by_another_name_is_refused(shape: Shape) -> None:
    with Store.open(shape.real):
        with pytest.raises(StoreLocked):
            Store.open(shape.given)


def test_remove_store_through_a_link_removes_the_real_files(shape: Shape) -> None:
    removed = remove_store(shape.given)
    assert str(shape.real.resolve()) in removed
    assert not shape.real.exists() and not Path(str(shape.real) + ".anatid-lease").exists()
    assert not os.path.lexists(shape.given)


def test_a_hard_linked_store_is_refused_for_writing(tmp_path: Path) -> None:
    store = tmp_path / "m.duckdb"
    with Store.open(store) as s:
        s.upsert_nodes([Node("x", name=f"X {SECRET}")])
    os.link(store, tmp_path / "twin.duckdb")
    for name in (store, tmp_path / "twin.duckdb"):
        with pytest.raises(InvalidInput, match="hard links"):
            Store.open(name)
        with Store.open(name, read_only=True) as s:  # reading by either name is fine
            assert s.get_node("x").name.endswith(SECRET)
    r = anatid("erase", store, "--node", "x")
    assert r.code == 2 and "hard links" in r.err
    # Nothing pretended to erase: the bytes are where they were, under both names.
    assert SECRET.encode() in (tmp_path / "twin.duckdb").read_bytes()


def test_the_wal_of_a_private_store_is_private(tmp_path: Path) -> None:
    store = tmp_path / "m.duckdb"
    with Store.open(store) as s:
        s.upsert_nodes([Node("x", name="X")])
    os.chmod(store, 0o600)
    with Store.open(store) as s:
        s.upsert_nodes([Node("y", name=f"Y {SECRET}")])
        wal = Path(str(store) + ".wal")
        assert wal.exists() and SECRET.encode() in wal.read_bytes()
        assert stat.S_IMODE(wal.stat().st_mode) & 0o077 == 0


def test_the_mcp_journal_is_as_private_as_the_memory(tmp_path: Path) -> None:
    pytest.importorskip("mcp", reason="the mcp extra is not installed")
    from anatid_mcp.queue import Journal, Ticket

    store = tmp_path / "m.duckdb"
    with Store.open(store) as s:
        s.upsert_nodes([Node("x", name="X")])
    os.chmod(store, 0o600)
    journal = Journal(str(store))
    journal.recover()
    journal.write(
        "queued",
        Ticket(
            id="t1", group_id="g", name="private episode name", queued_at="2026-01-01T00:00:00Z"
        ),
    )
    assert journal.dir is not None and journal.file is not None
    assert stat.S_IMODE(journal.dir.stat().st_mode) == 0o700
    assert stat.S_IMODE(journal.file.stat().st_mode) == 0o600


def test_the_mcp_journal_never_writes_into_a_store(tmp_path: Path) -> None:
    pytest.importorskip("mcp", reason="the mcp extra is not installed")
    from anatid_mcp.queue import Journal

    store = tmp_path / "m.duckdb"
    other = tmp_path / "m.duckdb.mcp-queue"  # a store that happens to have the journal's name
    for p in (store, other):
        with Store.open(p) as s:
            s.upsert_nodes([Node("x", name="X")])
    before = _digest(other)
    with pytest.raises(InvalidInput, match="DuckDB/anatid store"):
        Journal(str(store))
    assert _digest(other) == before
