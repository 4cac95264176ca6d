"""What tests/docs/test_offline_recipe.py needs to run docs/offline.md as written.

* :func:`recipe_blocks`: the fenced blocks of docs/offline.md marked ``<!-- recipe: NAME -->``,
  by name, so the test runs the page's own text (docs and test cannot drift).
* :func:`serve_local_model`: the tests' fake OpenAI server (``tests/cognee/fake_openai.py``)
  answering as a local model server does. Two additions: a ``json_object`` request (what
  Cognee's litellm path sends for a model litellm does not know, as every local model is) is
  answered by the schema that Cognee writes into the system prompt, as a local model would;
  and Graphiti's extraction schemas get canned answers (Alice works at Acme) instead of the
  smallest valid instance, so a search has a fact to find.
* :func:`network_guard`: a ``sitecustomize`` for the child processes that refuses, and
  records, every name lookup or connection to anything but the loopback interface.
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import ThreadingHTTPServer
from pathlib import Path
from typing import Any

from tests.cognee import fake_openai

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "offline.md"

#: The address the recipe is written for (Ollama's); the test puts the fake's there.
DOCUMENTED_URL = "http://127.0.0.1:11434/v1"
#: The vector size of the recipe's embedding model (nomic-embed-text).
EMBEDDING_SIZE = 768

_BLOCK = re.compile(r"<!-- recipe: ([\w-]+) -->\s*\n```[\w-]*\n(.*?)\n```", re.S)


def recipe_blocks(page: Path = PAGE) -> dict[str, str]:
    found: dict[str, str] = {}
    for name, code in _BLOCK.findall(page.read_text(encoding="utf-8")):
        assert name not in found, f"{page.name}: two blocks named {name!r}"
        found[name] = code
    return found


#: Graphiti's extraction answers: what a model would extract from "Alice works at Acme."
GRAPHITI_CANNED: dict[str, Any] = {
    "ExtractedEntities": {
        "extracted_entities": [
            {"name": "Alice", "entity_type_id": 0},
            {"name": "Acme", "entity_type_id": 0},
        ]
    },
    "ExtractedEdges": {
        "edges": [
            {
                "source_entity_name": "Alice",
                "target_entity_name": "Acme",
                "relation_type": "WORKS_AT",
                "fact": "Alice works at Acme.",
            }
        ]
    },
}

_SCHEMA_IN_PROMPT = re.compile(r"```json\n(\{.*?\})\n```", re.S)


def _as_named_schema(body: dict[str, Any]) -> dict[str, Any]:
    """A ``json_object`` request whose system prompt carries a JSON schema (Cognee's
    litellm_native fallback) becomes the ``json_schema`` request the fake answers by name."""
    response_format = body.get("response_format")
    if not isinstance(response_format, dict) or response_format.get("type") != "json_object":
        return body
    prompt = " ".join(
        str(m.get("content", "")) for m in body.get("messages", []) if m.get("role") == "system"
    )
    match = _SCHEMA_IN_PROMPT.search(prompt)
    if not match:
        return body
    schema = json.loads(match.group(1))
    named = {"name": schema.get("title", ""), "schema": schema}
    return {**body, "response_format": {"type": "json_schema", "json_schema": named}}


def _handler(state: fake_openai.FakeOpenAI):
    base = fake_openai._handler(state)

    class Handler(base):  # type: ignore[misc,valid-type]
        def do_POST(self) -> None:  # noqa: N802 (http.server's naming)
            length = int(self.headers.get("Content-Length") or 0)
            body = _as_named_schema(json.loads(self.rfile.read(length) or b"{}"))
            if self.path.endswith("/embeddings"):
                # A local model answers in its own size; the fake, unasked, in 64.
                body.setdefault("dimensions", EMBEDDING_SIZE)
            data = json.dumps(body).encode()
            # Hand the (rewritten) request to the fake's own handler.
            self.headers.replace_header("Content-Length", str(len(data)))
            self.rfile = _Replay(data)
            super().do_POST()

    return Handler


class _Replay:
    def __init__(self, data: bytes) -> None:
        self._data = data

    def read(self, n: int = -1) -> bytes:
        chunk, self._data = (self._data, b"") if n < 0 else (self._data[:n], self._data[n:])
        return chunk


@contextmanager
def serve_local_model() -> Iterator[fake_openai.FakeOpenAI]:
    """The fake on a free port of 127.0.0.1 for the block; stopped after."""
    added = {k: v for k, v in GRAPHITI_CANNED.items() if k not in fake_openai.CANNED}
    fake_openai.CANNED.update(added)
    server = ThreadingHTTPServer(("127.0.0.1", 0), fake_openai._handler(fake_openai.FakeOpenAI("")))
    state = fake_openai.FakeOpenAI(f"http://127.0.0.1:{server.server_address[1]}/v1")
    server.RequestHandlerClass = _handler(state)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield state
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)
        for key in added:
            fake_openai.CANNED.pop(key, None)


_GUARD = '''\
"""Written by tests/docs/offline_support.py: no network but the loopback interface."""
import os
import socket
import sys

_LOG = os.environ.get("ANATID_TEST_NETLOG", "")
_LOCAL = {"127.0.0.1", "::1", "localhost", "", None}


def _refuse(what):
    if _LOG:
        with open(_LOG, "a", encoding="utf-8") as log:
            log.write(f"{os.getpid()} {sys.argv[:2]} {what}\\n")
    raise OSError(f"network refused by the offline recipe test: {what}")


def _hook(event, args):
    if event in ("socket.getaddrinfo", "socket.gethostbyname", "socket.gethostbyname_ex"):
        host = args[0].decode() if isinstance(args[0], bytes) else args[0]
        if host not in _LOCAL:
            _refuse(f"{event} {host!r}")
    elif event == "socket.connect":
        sock, address = args
        if sock.family in (socket.AF_INET, socket.AF_INET6) and address[0] not in _LOCAL:
            _refuse(f"connect {address!r}")


sys.addaudithook(_hook)
'''


def network_guard(directory: Path) -> dict[str, str]:
    """Write the guard into ``directory``; the environment entries that load it in a child
    (``PYTHONPATH``) and where it records what it refused (``ANATID_TEST_NETLOG``)."""
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "sitecustomize.py").write_text(_GUARD, encoding="utf-8")
    log = directory / "refused.log"
    log.touch()
    return {"PYTHONPATH": str(directory), "ANATID_TEST_NETLOG": str(log)}
