"""Running out of disk, and a file on read-only storage.

A full disk: the crash-suite writers (core, GraphitiDriver, Cognee adapters) write until the
storage refuses; the error must be a typed one that says so (``StorageError``, which Cognee maps
to its ``CogneeSystemError``), and once there is space again the file must open with every
commit the writer saw return, nothing of the refused one, and a clean ``check()``. When the tests
run as root a small tmpfs is the disk; otherwise (or with ``ANATID_NO_TMPFS=1``) ``ulimit -f``
(a file size limit) stands in.

Read-only storage: writing is refused with ``ReadOnlyError`` naming the remedy, reading with
``read_only=True`` sees everything, and nothing is changed.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from anatid_core import Node, ReadOnlyError, Store

MIB = 1024 * 1024


@dataclass
class Disk:
    """A directory on a small filesystem that can be grown or made read-only (tmpfs, as root)."""

    path: Path
    mounted: bool

    def resize(self, size: int) -> None:
        _mount("-o", f"remount,size={size}", str(self.path))

    def read_only(self, on: bool) -> None:
        _mount("-o", "remount,ro" if on else "remount,rw", str(self.path))


def _mount(*args: str) -> bool:
    if shutil.which("mount") is None or os.geteuid() != 0 or os.environ.get("ANATID_NO_TMPFS"):
        return False
    return subprocess.run(["mount", *args], capture_output=True).returncode == 0


@pytest.fixture
def disk(tmp_path) -> Iterator[Disk]:
    where = tmp_path / "disk"
    where.mkdir()
    mounted = _mount("-t", "tmpfs", "-o", f"size={3 * MIB}", "tmpfs", str(where))
    yield Disk(where, mounted)
    if mounted:
        subprocess.run(["umount", str(where)], capture_output=True)


EXPECTED = {
    "core": ("StorageError", None),
    "graphiti": ("StorageError", None),
    "cognee": ("CogneeSystemError", "StorageError"),
}


@pytest.mark.parametrize("workload", ["core", "graphiti", "cognee"])
def test_a_full_disk_is_a_storage_error_and_every_commit_survives(
    workload, disk, servers, tmp_path
):
    path, log = disk.path / "store.duckdb", tmp_path / "commits.log"
    args = {"workload": workload, "path": str(path), "log": str(log)}
    if not disk.mounted:
        args["file_size_limit"] = 3 * MIB
    reply = servers[workload].send(cmd="call", func="tests.reliability.scenarios:fill", args=args)
    assert "signal" not in reply and reply.get("ok"), reply
    seen = reply["result"]
    error, cause = EXPECTED[workload]
    assert seen["type"] == error, seen
    message = seen["message"]
    if cause is not None:
        assert seen["cause"] == cause, seen
        message = seen["cause_message"]
    assert "free disk space" in message and str(path) in message, message
    if disk.mounted:
        disk.resize(64 * MIB)  # space returns
    found = servers[workload].send(cmd="verify", seed=11, path=str(path), log=str(log), sample=20)
    assert found.get("ok"), found.get("error")
    result = found["result"]
    assert result["problems"] == [], result
    assert result["logged"] > 0
    print(
        f"\n{workload}: refused after {result['logged']} commits ({'tmpfs' if disk.mounted else 'ulimit -f'})"
    )


def test_a_store_on_read_only_storage_reads_and_refuses_writes(disk, servers):
    path = disk.path / "store.duckdb"
    with Store.open(path) as store:
        store.upsert_nodes(
            [Node(f"n{i}", text=f"note {i}", embedding=[1.0, float(i)]) for i in range(50)]
        )
    before = path.read_bytes()
    if not disk.mounted and os.geteuid() == 0:
        pytest.skip("root ignores file permissions, and no read-only tmpfs could be mounted")
    if disk.mounted:
        disk.read_only(True)
    else:
        path.chmod(0o444)
        disk.path.chmod(0o555)
    try:
        with pytest.raises(ReadOnlyError, match="read_only=True"):
            Store.open(path)
        for how, server in [(h, h) for h in ("graphiti", "cognee") if h in servers]:
            reply = servers[server].send(
                cmd="call",
                func="tests.reliability.scenarios:open_store",
                args={"path": str(path), "how": how},
            )
            seen = reply["result"]
            message = seen["cause_message"] if how == "cognee" else seen["message"]
            assert not seen["opened"] and "read_only=True" in message, seen
        with Store.open(path, read_only=True) as store:
            assert store.count_nodes() == 50
            assert [h.id for h in store.search_text("note 7", k=1)] == ["n7"]
            with pytest.raises(ReadOnlyError):
                store.upsert_nodes([Node("new")])
            assert store.check() == []
    finally:
        if disk.mounted:
            disk.read_only(False)
        else:
            disk.path.chmod(0o755)
            path.chmod(0o644)
    assert path.read_bytes() == before
    with Store.open(path) as store:  # writable storage again: the file is a working store
        store.upsert_nodes([Node("new")])
        assert store.count_nodes() == 51
