"""remove_store: a store's file goes with its WAL and lock files, never from under a user."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from anatid_core import InvalidInput, Node, Store, StoreLocked, remove_store, store_files

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="flock: Linux and macOS only")

# Another process that opens the store and keeps it until its stdin closes.
HOLDER = textwrap.dedent(
    """
    import sys
    from anatid_core import Store
    store = Store.open(sys.argv[1])
    print("open", flush=True)
    sys.stdin.readline()
    store.close()
    """
)


def _written(path: Path) -> Path:
    with Store.open(str(path)) as store:
        store.upsert_node(Node(id="a", labels=("Note",), text="hello"))
    return path


def _on_disk(path: Path) -> list[str]:
    return sorted(Path(p).name for p in store_files(path) if Path(p).exists())


def test_a_closed_store_is_removed_with_every_file_beside_it(tmp_path: Path) -> None:
    path = _written(tmp_path / "memory.duckdb")
    before = _on_disk(path)
    assert "memory.duckdb" in before and "memory.duckdb.anatid-lease" in before
    removed = remove_store(path)
    assert sorted(Path(p).name for p in removed) == before
    assert _on_disk(path) == []
    assert list(tmp_path.iterdir()) == []


def test_a_wal_left_by_a_crash_goes_too_and_a_new_store_of_that_name_starts_empty(
    tmp_path: Path,
) -> None:
    path = _written(tmp_path / "memory.duckdb")
    Path(f"{path}.wal").write_bytes(b"stale")
    remove_store(path)
    assert not Path(f"{path}.wal").exists()
    with Store.open(str(path)) as store:
        assert store.count_nodes() == 0


def test_a_store_open_in_this_process_is_not_removed(tmp_path: Path) -> None:
    path = _written(tmp_path / "memory.duckdb")
    store = Store.open(str(path))
    try:
        with pytest.raises(StoreLocked, match="open"):
            remove_store(path)
        assert store.get_node("a") is not None
    finally:
        store.close()
    assert remove_store(path)


def test_a_store_open_in_another_process_is_not_removed(tmp_path: Path) -> None:
    path = _written(tmp_path / "memory.duckdb")
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(path)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "open"
        with pytest.raises(StoreLocked, match="in use by process"):
            remove_store(path)
        assert path.exists()
    finally:
        assert holder.stdin is not None
        holder.stdin.close()
        holder.wait(60)
    with Store.open(str(path)) as store:
        assert store.get_node("a") is not None


def test_nothing_on_disk_removes_nothing_and_memory_has_no_files(tmp_path: Path) -> None:
    assert remove_store(tmp_path / "absent.duckdb") == []
    assert list(tmp_path.iterdir()) == []
    with pytest.raises(InvalidInput):
        remove_store(":memory:")
