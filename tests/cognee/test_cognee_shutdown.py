"""SIGTERM closes every anatid file, in any process that uses Cognee (issue 12).

Cognee's own API server closes the files in its lifespan shutdown (test_cognee_api_server.py).
These processes have no such shutdown: a uvicorn server that embeds Cognee the way
``cognee-mcp --transport http`` does, and a process stopped while idle. After SIGTERM the
process must still die by SIGTERM (what its supervisor sees), and every file must be closed
(no WAL) and pass ``anatid check``. A program's own SIGTERM handler is left in charge.
"""

from __future__ import annotations

import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import httpx
import pytest

pytest.importorskip("cognee", reason="needs the cognee extra")

from anatid_cognee import shutdown  # noqa: E402

from tests.cognee.cognee_processes import check_file, child_env  # noqa: E402

REPO = Path(__file__).resolve().parents[2]


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _start(mode: str, workdir: Path, port: int) -> subprocess.Popen[str]:
    env = child_env(
        GRAPH_DATABASE_PROVIDER="anatid",
        VECTOR_DB_PROVIDER="anatid",
        ENABLE_BACKEND_ACCESS_CONTROL="false",
        TELEMETRY_DISABLED="1",
        COGNEE_SKIP_CONNECTION_TEST="true",
        CACHING="false",
        LLM_API_KEY="dummy",
        EMBEDDING_DIMENSIONS="64",
        LOG_LEVEL="ERROR",
        SYSTEM_ROOT_DIRECTORY=str(workdir / "system"),
        DATA_ROOT_DIRECTORY=str(workdir / "data"),
        PYTHONPATH=str(REPO),
    )
    with (workdir / "child.err").open("w") as err:
        return subprocess.Popen(
            [sys.executable, "-m", "tests.cognee.shutdown_child", mode, str(workdir), str(port)],
            cwd=REPO,
            env=env,
            stdout=subprocess.PIPE,
            stderr=err,
            text=True,
        )


def _wait_ready(child: subprocess.Popen[str], workdir: Path, port: int | None) -> None:
    assert child.stdout is not None
    line = child.stdout.readline()  # "ready", or "" when the child died
    if line.strip() != "ready":
        child.kill()
        child.wait()
        raise AssertionError((workdir / "child.err").read_text()[-4000:])
    if port is None:
        return
    for _ in range(120):
        try:
            if httpx.get(f"http://127.0.0.1:{port}/", timeout=2).status_code == 200:
                return
        except httpx.TransportError:
            time.sleep(0.5)
    raise AssertionError("the server never answered")


def _stop(child: subprocess.Popen[str]) -> int:
    child.send_signal(signal.SIGTERM)
    try:
        return child.wait(timeout=120)
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()


def _assert_closed_and_healthy(workdir: Path) -> None:
    files = sorted((workdir / "system" / "databases").rglob("*.duckdb"))
    assert files, "the child wrote no anatid file"
    for path in files:
        assert not Path(f"{path}.wal").exists(), f"{path.name} left open: WAL after SIGTERM"
        checked = check_file(path)
        assert checked.returncode == 0, checked.stdout + checked.stderr


@pytest.mark.parametrize("mode", ["uvicorn", "idle"])
def test_sigterm_closes_every_file_and_the_process_still_dies_by_sigterm(tmp_path: Path, mode: str):
    port = _free_port()
    child = _start(mode, tmp_path, port)
    _wait_ready(child, tmp_path, port if mode == "uvicorn" else None)
    # The file is open (its WAL holds the writes) until the signal.
    assert list((tmp_path / "system" / "databases").rglob("*.duckdb.wal"))
    assert _stop(child) == -signal.SIGTERM
    _assert_closed_and_healthy(tmp_path)


def test_a_programs_own_sigterm_handler_stays_in_charge(tmp_path: Path):
    child = _start("own-handler", tmp_path, 0)
    _wait_ready(child, tmp_path, None)
    # Its handler exits normally (status 3); atexit then closes the files.
    assert _stop(child) == 3
    _assert_closed_and_healthy(tmp_path)


def test_the_handler_is_installed_only_over_the_default_and_only_from_the_main_thread(
    monkeypatch: pytest.MonkeyPatch,
):
    previous = signal.getsignal(signal.SIGTERM)
    try:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        assert shutdown.install_sigterm_handler() is False
        assert signal.getsignal(signal.SIGTERM) is signal.SIG_IGN

        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        from_thread: list[bool] = []
        worker = threading.Thread(
            target=lambda: from_thread.append(shutdown.install_sigterm_handler())
        )
        worker.start()
        worker.join()
        assert from_thread == [False]
        assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL

        assert shutdown.install_sigterm_handler() is True
        assert signal.getsignal(signal.SIGTERM) is not signal.SIG_DFL
        assert shutdown.install_sigterm_handler() is True  # idempotent
    finally:
        signal.signal(signal.SIGTERM, previous)
