"""Running Cognee's own entry points (``cognee-cli``, the API server) as real processes.

Each process starts in a project directory whose ``.env`` is the whole configuration, as a
user's would be: the two provider keys plus the settings that keep Cognee offline (LLM and
embeddings pointed at the fake OpenAI server, telemetry off, litellm's bundled model table and
tokenizers). The process environment is the test runner's minus every key Cognee reads, so
nothing set by ``conftest.py`` for the in-process tests leaks in.
"""

from __future__ import annotations

import importlib.util
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx

BIN = Path(sys.executable).parent
#: Prefixes of the environment variables Cognee (or litellm) reads: stripped from children.
_COGNEE_KEYS = (
    "GRAPH_",
    "VECTOR_",
    "LLM_",
    "EMBEDDING_",
    "ENABLE_BACKEND_ACCESS_CONTROL",
    "TELEMETRY_",
    "COGNEE_",
    "CACHING",
    "CACHE_",
    "AUTO_FEEDBACK",
    "SYSTEM_ROOT_DIRECTORY",
    "DATA_ROOT_DIRECTORY",
    "LOG_LEVEL",
    "DB_",
    "MOCK_EMBEDDING",
    "ANATID_COGNEE_HOOK",
    "DEFAULT_USER_",
    "REQUIRE_AUTHENTICATION",
)


def _litellm_tokenizers() -> str:
    """litellm ships tiktoken's encodings; pointing tiktoken there keeps it off the network."""
    spec = importlib.util.find_spec("litellm")
    assert spec is not None and spec.submodule_search_locations
    return os.path.join(
        list(spec.submodule_search_locations)[0], "litellm_core_utils", "tokenizers"
    )


def offline_dotenv(project: Path, fake_url: str, **extra: str) -> dict[str, str]:
    """Write ``project/.env``: the two provider keys, offline settings, and ``extra``."""
    settings = {
        "GRAPH_DATABASE_PROVIDER": "anatid",
        "VECTOR_DB_PROVIDER": "anatid",
        # Offline: every LLM and embedding call goes to the fake server on 127.0.0.1.
        "LLM_API_KEY": "fake-key",
        "LLM_MODEL": "openai/gpt-4o-mini",
        "LLM_ENDPOINT": fake_url,
        "EMBEDDING_PROVIDER": "openai",
        "EMBEDDING_MODEL": "openai/text-embedding-3-small",
        "EMBEDDING_ENDPOINT": fake_url,
        "EMBEDDING_API_KEY": "fake-key",
        "EMBEDDING_DIMENSIONS": "64",
        "TELEMETRY_DISABLED": "1",
        "LITELLM_LOCAL_MODEL_COST_MAP": "True",
        "TIKTOKEN_CACHE_DIR": _litellm_tokenizers(),
        "SYSTEM_ROOT_DIRECTORY": str(project / "system"),
        "DATA_ROOT_DIRECTORY": str(project / "data"),
        "COGNEE_LOGS_DIR": str(project / "logs"),
        **extra,
    }
    (project / ".env").write_text("".join(f"{k}={v}\n" for k, v in settings.items()))
    return settings


def child_env(**extra: str) -> dict[str, str]:
    """The runner's environment without any key Cognee reads, plus ``extra``."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(_COGNEE_KEYS)}
    env.update(extra)
    env["PYTHONUNBUFFERED"] = "1"
    return env


def run_cli(
    project: Path, *args: str, timeout: float = 600, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """Run ``cognee-cli ARGS`` in ``project`` (its ``.env`` is found in the working dir)."""
    return subprocess.run(
        [str(BIN / "cognee-cli"), *args],
        cwd=project,
        env=env if env is not None else child_env(),
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def anatid_files(project: Path) -> list[Path]:
    """Every anatid DuckDB file Cognee created under the project's system root."""
    return sorted((project / "system" / "databases").rglob("*.duckdb"))


def check_file(path: Path) -> subprocess.CompletedProcess[str]:
    """``anatid check FILE`` in a fresh process."""
    return subprocess.run(
        [str(BIN / "anatid"), "check", str(path)], capture_output=True, text=True, timeout=300
    )


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class Server:
    def __init__(self, project: Path, command: list[str]) -> None:
        self.port = _free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log = project / "server.log"
        with self.log.open("w") as log:
            self.process = subprocess.Popen(
                [part.format(port=self.port) for part in command],
                cwd=project,
                env=child_env(),
                stdout=log,
                stderr=subprocess.STDOUT,
            )

    def wait_ready(self, timeout: float = 300) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise AssertionError(f"server exited early:\n{self.output()[-4000:]}")
            try:
                if httpx.get(f"{self.url}/health", timeout=5).status_code == 200:
                    return
            except httpx.TransportError:
                pass
            time.sleep(1)
        raise AssertionError(f"server not healthy in {timeout}s:\n{self.output()[-4000:]}")

    def terminate(self, sig: int = signal.SIGTERM, timeout: float = 120) -> int:
        self.process.send_signal(sig)
        try:
            return self.process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
            raise

    def output(self) -> str:
        return self.log.read_text(errors="replace")


UVICORN = [str(BIN / "uvicorn"), "cognee.api.client:app", "--host", "127.0.0.1", "--port", "{port}"]
GUNICORN = [
    str(BIN / "gunicorn"),
    "cognee.api.client:app",
    "--worker-class",
    "uvicorn.workers.UvicornWorker",
    "--workers",
    "1",  # one process per file (several processes on one file: issue 11)
    "--bind",
    "127.0.0.1:{port}",
]
