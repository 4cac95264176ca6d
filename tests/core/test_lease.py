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
        lease_file, wait_file, background_file = map(Path, lease_files(str(path)))
        assert lease_file.exists() and wait_file.exists()
        assert not background_file.exists()  # made by the first background process only
    finally:
        lease.close()


BACKGROUND = textwrap.dedent(
    """
    import os, sys
    from anatid_core.storage.lease import Lease, wait_in_background
    wait_in_background()
    lease = Lease(sys.argv[1], shared=False)
    print("ready", flush=True)
    turns = 0
    while not os.path.exists(sys.argv[2]):
        assert lease.acquire(30)
        turns += 1
        lease.release()
    print(turns, flush=True)
    """
)


def test_a_background_waiter_gets_the_file_when_the_holder_pauses_and_now_and_then_meanwhile(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The index builder waits as a background process: a busy writer hands it the file only
    every WATCH["background_every"] (where any other waiter would have it after each of a few
    operations), and at once when the writer pauses."""
    from anatid_core import Node, Store
    from anatid_core.storage.turns import WATCH

    path, stop = tmp_path / "m.duckdb", tmp_path / "stop"
    monkeypatch.setitem(WATCH, "background_idle", 30.0)  # the busy phase: no pause counts
    monkeypatch.setitem(WATCH, "background_every", 0.25)
    with Store.open(str(path)) as store:
        store.upsert_nodes([Node("n0", name="first")])
        child = subprocess.Popen(
            [sys.executable, "-c", BACKGROUND, str(path), str(stop)],
            stdout=subprocess.PIPE,
            text=True,
        )
        try:
            assert child.stdout is not None and child.stdout.readline().strip() == "ready"
            before, writes, started = store.handovers, 0, time.monotonic()
            while time.monotonic() - started < 1.5 or store.handovers == before:
                store.upsert_nodes([Node("n0", name=f"write {writes}")])
                writes += 1
            busy_seconds = time.monotonic() - started
            busy_handovers = store.handovers - before
            # At most one handover per background_every while busy (and at least the one the
            # loop waited for: the build moves on), however many writes there were.
            assert 1 <= busy_handovers <= busy_seconds / 0.25 + 2
            assert writes > 3 * busy_handovers
            monkeypatch.setitem(WATCH, "background_idle", 0.05)
            paused = store.handovers
            # the busy loop may end on a handover, the file the waiter's: a write takes it
            # back, then the writer pauses holding it (counted from before the write: its own
            # end may already hand over)
            store.upsert_nodes([Node("n0", name="last write")])
            deadline = time.monotonic() + 30
            while store.handovers == paused and time.monotonic() < deadline:
                time.sleep(0.05)  # the writer pauses: the background process has its turn
            assert store.handovers > paused
            assert store.get_node("n0") is not None  # and the writer has the file back
        finally:
            stop.touch()
            assert child.stdout is not None
            turns = int(child.stdout.read().strip() or 0)
            child.wait(30)
    assert turns >= 2


def test_a_fifo_under_the_background_wait_files_name_never_hangs_the_holder(
    tmp_path: Path,
) -> None:
    """Holders open the background wait file only if it is there, read-only: a FIFO planted
    under its name would block that open forever (the watcher thread, then every handover)."""
    path = tmp_path / "m.duckdb"
    os.mkfifo(lease_files(str(path))[2])
    look = textwrap.dedent(
        """
        import sys
        from anatid_core.storage.lease import Lease
        lease = Lease(sys.argv[1], shared=False)
        assert lease.acquire(5)
        print(lease.background_waiting(), flush=True)
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", look, str(path)], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "False"
