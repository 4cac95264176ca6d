"""One backend's run of every differential scenario, in its own process.

``python -m tests.cognee.differential.runner <ladybug|anatid> <workdir> <out.json>``

Cognee keeps process-wide state (cached configs and engines, context variables), so each
backend runs in a fresh interpreter with its own system root under ``workdir``. The process
configures Cognee through the environment before importing it: Cognee's defaults (LadybugDB
graph, LanceDB vectors, backend access control on) or anatid for both stores. LLM calls go to
the fake OpenAI server of :mod:`tests.cognee.fake_openai` (started in this process on
127.0.0.1), embeddings to the hash engine: nothing reaches the network. Every step's result
(or error) is written with its Python types (:mod:`.encoding`) for the comparison in
``tests/cognee/test_cognee_differential.py``.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import traceback
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from tests.cognee.differential.encoding import encode

BACKENDS = {
    # Cognee's defaults, spelled out so nothing in the runner's environment changes them.
    "ladybug": {
        "GRAPH_DATABASE_PROVIDER": "ladybug",
        "VECTOR_DB_PROVIDER": "lancedb",
        "GRAPH_DATASET_DATABASE_HANDLER": "ladybug",
        "VECTOR_DATASET_DATABASE_HANDLER": "lancedb",
    },
    "anatid": {
        "GRAPH_DATABASE_PROVIDER": "anatid",
        "VECTOR_DB_PROVIDER": "anatid",
        "GRAPH_DATASET_DATABASE_HANDLER": "anatid_graph",
        "VECTOR_DATASET_DATABASE_HANDLER": "anatid_vector",
    },
}


def configure_environment(backend: str, workdir: Path, llm_url: str) -> None:
    """Everything Cognee reads from the environment, set before it is imported."""
    from tests.cognee.cognee_processes import _litellm_tokenizers
    from tests.cognee.conftest import COGNEE_ENV

    os.environ.update(COGNEE_ENV)
    os.environ.update(BACKENDS[backend])
    os.environ.update(
        {
            "ENABLE_BACKEND_ACCESS_CONTROL": "true",  # Cognee's default for these backends
            "SYSTEM_ROOT_DIRECTORY": str(workdir / "system"),
            "DATA_ROOT_DIRECTORY": str(workdir / "data"),
            "COGNEE_LOGS_DIR": str(workdir / "logs"),
            "LLM_API_KEY": "fake-key",
            "LLM_MODEL": "openai/gpt-4o-mini",
            "LLM_ENDPOINT": llm_url,
            "LITELLM_LOCAL_MODEL_COST_MAP": "True",
            "TIKTOKEN_CACHE_DIR": _litellm_tokenizers(),
            # The API routes step logs in as the default user with this password.
            "DEFAULT_USER_PASSWORD": "anatid-differential-password",
        }
    )


class Recorder:
    """Collects each step's encoded result, or the error it raised (errors are results too)."""

    def __init__(self) -> None:
        self.results: dict[str, Any] = {}

    async def step(self, name: str, call: Callable[[], Awaitable[Any]]) -> Any:
        try:
            value = await call()
        except Exception as exc:  # a step's error is part of what is compared
            self.results[name] = {"$error": type(exc).__name__, "message": str(exc)[:500]}
            cause = exc.__cause__
            if cause is not None:  # what a host's generic error wraps (raise ... from)
                self.results[name]["cause"] = f"{type(cause).__name__}: {cause}"[:500]
            if os.environ.get("ANATID_DIFF_TRACE"):
                traceback.print_exc()
            return None
        self.results[name] = encode(value)
        return value


async def run(backend: str) -> dict[str, Any]:
    if backend == "anatid":
        import anatid_cognee  # noqa: F401  (registers the "anatid" provider)

    from tests.cognee.cognee_fakes import install_hash_embeddings
    from tests.cognee.differential import scenarios

    install_hash_embeddings()
    recorder = Recorder()
    await scenarios.run_all(recorder)
    return recorder.results


def main() -> None:
    backend, workdir, out = sys.argv[1], Path(sys.argv[2]), Path(sys.argv[3])
    from tests.cognee.fake_openai import serve_fake_openai

    with serve_fake_openai() as fake:
        configure_environment(backend, workdir, fake.url)
        results = asyncio.run(run(backend))
    out.write_text(
        json.dumps(
            {"backend": backend, "root": str(workdir), "results": results}, ensure_ascii=False
        )
    )


if __name__ == "__main__":
    main()
