"""The lease between processes: exclusive for writers, shared for readers, dropped on death."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from anatid_core.storage.lease import Lease, lease_files

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="flock: Linux and macOS only")

HOLDER = textwrap.dedent(
    """
    import sys, time
    from anatid_core.storage.lease import Lease
    lease = Lease(sys.argv[1], shared=sys.argv[2] == "shared")
    assert lease.acquire(10)
    print("held", flush=True)
    while True:
        line = sys.stdin.readline()
        if not line:
            break
        if line.strip() == "waiting?":
            print("yes" if lease.others_waiting() else "no", flush=True)
        elif line.strip() == "release":
            lease.release()
            print("released", flush=True)
    """
)


def _holder(path: Path, mode: str = "exclusive") -> subprocess.Popen[str]:
    proc = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(path), mode],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None and proc.stdout.readline().strip() == "held"
    return proc


def _ask(proc: subprocess.Popen[str], line: str) -> str:
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write(line + "\n")
    proc.stdin.flush()
    return proc.stdout.readline().strip()


def _stop(proc: subprocess.Popen[str]) -> None:
    if proc.poll() is None:
        proc.kill()
    proc.wait(10)


def test_a_writer_excludes_other_writers_and_names_its_pid(tmp_path: Path) -> None:
    path = tmp_path / "m.duckdb"
    proc = _holder(path)
    try:
        other = Lease(str(path), shared=False)
        assert other.acquire(0.05) is False
        assert other.holder_pid() == proc.pid
        assert f"process {proc.pid}" in other.describe_holder()
        other.close()
    finally:
        _stop(proc)


def test_the_holder_sees_a_waiter_only_while_it_waits(tmp_path: Path) -> None:
    path = tmp_path / "m.duckdb"
    proc = _holder(path)
    try:
        assert _ask(proc, "waiting?") == "no"
        waiter = subprocess.Popen(
            [
                sys.executable,
                "-c",
                "import sys; from anatid_core.storage.lease import Lease; "
                "print(Lease(sys.argv[1], shared=False).acquire(30), flush=True)",
                str(path),
            ],
            stdout=subprocess.PIPE,
            text=True,
        )
        deadline = time.monotonic() + 20
        while _ask(proc, "waiting?") != "yes":
            assert time.monotonic() < deadline, "the holder never saw the waiting process"
            time.sleep(0.01)
        assert _ask(proc, "release") == "released"
        out, _ = waiter.communicate(timeout=20)
        assert out.strip() == "True"
        assert _ask(proc, "waiting?") == "no"
    finally:
        _stop(proc)


def test_a_killed_holder_frees_the_file_at_once(tmp_path: Path) -> None:
    path = tmp_path / "m.duckdb"
    proc = _holder(path)
    lease = Lease(str(path), shared=False)
    try:
        assert lease.acquire(0.05) is False
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(10)
        assert lease.acquire(5) is True  # the kernel dropped the dead process's lock
        assert lease.holder_pid() is None  # our own PID is written now
    finally:
        lease.close()
        _stop(proc)


def test_readers_share_and_keep_a_writer_out(tmp_path: Path) -> None:
    path = tmp_path / "m.duckdb"
    proc = _holder(path, "shared")
    reader = Lease(str(path), shared=True)
    writer = Lease(str(path), shared=False)
    try:
        assert reader.acquire(1) is True
        assert writer.acquire(0.05) is False
        reader.release()
        assert writer.acquire(0.05) is False  # the other reader still holds it
        _stop(proc)
        assert writer.acquire(5) is True
    finally:
        reader.close()
        writer.close()
        _stop(proc)


def test_lock_files_sit_beside_the_store(tmp_path: Path) -> None:
    path = tmp_path / "m.duckdb"
    lease = Lease(str(path), shared=False)
    try:
        assert lease.acquire(1)
        assert all(Path(p).exists() for p in lease_files(str(path)))
    finally:
        lease.close()
