"""The test side of the fork server: start it, send commands, kill writers."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import IO, Any

REPO = Path(__file__).resolve().parents[2]


class ForkServer:
    """One ``tests.reliability.forkserver`` process for one workload."""

    def __init__(self, workload: str, stderr_path: Path) -> None:
        self._stderr: IO[bytes] = open(stderr_path, "wb")  # noqa: SIM115 - closed in close()
        self.stderr_path = stderr_path
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "tests.reliability.forkserver", workload],
            cwd=REPO,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self._stderr,
            text=True,
        )
        self._ready = False

    def _reply(self) -> dict[str, Any]:
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()
        if not line:
            raise RuntimeError(f"the fork server died; its stderr:\n{self.stderr_tail()}")
        return json.loads(line)

    def ready(self) -> None:
        if not self._ready:
            assert self._reply().get("ready"), self.stderr_tail()
            self._ready = True

    def send(self, **cmd: Any) -> dict[str, Any]:
        self.ready()
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps(cmd) + "\n")
        self.proc.stdin.flush()
        return self._reply()

    def stderr_tail(self) -> str:
        self._stderr.flush()
        return self.stderr_path.read_text(errors="replace")[-4000:]

    def close(self) -> None:
        if self.proc.stdin is not None:
            self.proc.stdin.close()
        try:
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self._stderr.close()


def log_length(path: Path) -> int:
    try:
        return path.stat().st_size
    except FileNotFoundError:
        return 0


def wait_for_growth(path: Path, size: int, err: Path, timeout: float = 120.0) -> bool:
    """Wait until the side log grows past ``size`` (a commit landed); False if the writer failed
    (it leaves its traceback in ``err``) or nothing happened within ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if log_length(path) > size:
            return True
        if log_length(err) > 0:
            return False
        time.sleep(0.005)
    return False


def kill(pid: int) -> None:
    try:
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
