"""An OpenAI-compatible fake server on 127.0.0.1 for Cognee processes under test (no network).

Cognee's default LLM path (``litellm_native``) sends the Pydantic response model as
``response_format = {"type": "json_schema", "json_schema": {"name": <model>, "schema": ...}}``;
the fake answers by that name with a canned instance (``CANNED``), and for any other schema
with the smallest instance the schema allows, so a new Cognee prompt never hangs a test in
LLM retries. A request without a schema gets a plain-text answer. ``/v1/embeddings`` returns
the hashed bag-of-words vectors of :mod:`tests.cognee.cognee_fakes` (float or base64).

Every request is recorded (``FakeOpenAI.requests``), so a test can assert what Cognee asked.
"""

from __future__ import annotations

import base64
import hashlib
import json
import math
import re
import struct
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

DIMENSIONS = 64
_WORD = re.compile(r"\w+", re.UNICODE)

#: What the fake LLM "extracts" from any text: the facts the tests then look for in the graph.
KNOWLEDGE_GRAPH = {
    "nodes": [
        {"id": "alice", "name": "Alice", "type": "Person", "description": "Alice, an engineer."},
        {"id": "acme", "name": "Acme", "type": "Organization", "description": "Acme, a firm."},
    ],
    "edges": [
        {
            "source_node_id": "alice",
            "target_node_id": "acme",
            "relationship_name": "works_at",
            "description": "Alice works at Acme.",
        }
    ],
}
CANNED: dict[str, dict[str, Any]] = {
    "KnowledgeGraph": KNOWLEDGE_GRAPH,
    "SummarizedContent": {"summary": "Alice works at Acme.", "description": ""},
}
TEXT_ANSWER = "Alice works at Acme."


def hash_vector(text: str, dimensions: int = DIMENSIONS) -> list[float]:
    """Same vectors as ``cognee_fakes.hash_vector`` (kept import-free of Cognee)."""
    vector = [0.0] * dimensions
    for word in _WORD.findall((text or "").lower()):
        digest = hashlib.blake2b(word.encode("utf-8"), digest_size=8).digest()
        vector[int.from_bytes(digest[:4], "little") % dimensions] += 1.0 if digest[4] & 1 else -1.0
    norm = math.sqrt(sum(x * x for x in vector))
    return [x / norm for x in vector] if norm else [1.0] + [0.0] * (dimensions - 1)


def minimal_instance(schema: dict[str, Any], defs: dict[str, Any] | None = None) -> Any:
    """The smallest JSON value a (Pydantic-generated) JSON schema accepts."""
    defs = defs if defs is not None else schema.get("$defs", {})
    if "$ref" in schema:
        return minimal_instance(defs[schema["$ref"].rsplit("/", 1)[-1]], defs)
    if "default" in schema:
        return schema["default"]
    if "enum" in schema:
        return schema["enum"][0]
    if "const" in schema:
        return schema["const"]
    for key in ("anyOf", "oneOf", "allOf"):
        if key in schema:
            options = [s for s in schema[key] if s.get("type") != "null"] or schema[key]
            return minimal_instance(options[0], defs)
    kind = schema.get("type", "object")
    if kind == "object":
        props = schema.get("properties", {})
        return {
            k: minimal_instance(props[k], defs) for k in schema.get("required", []) if k in props
        }
    return {"array": [], "string": "", "integer": 0, "number": 0.0, "boolean": False}.get(kind)


@dataclass
class FakeOpenAI:
    url: str
    requests: list[dict[str, Any]] = field(default_factory=list)

    def schema_names(self) -> list[str]:
        return [r["schema"] for r in self.requests if r.get("schema")]


def _answer_chat(body: dict[str, Any], record: dict[str, Any]) -> dict[str, Any]:
    response_format = body.get("response_format") or {}
    schema = (response_format.get("json_schema") or {}) if isinstance(response_format, dict) else {}
    name = schema.get("name", "")
    record["schema"] = name or response_format.get("type", "")
    if name:
        content = json.dumps(CANNED.get(name) or minimal_instance(schema.get("schema") or {}))
    elif response_format.get("type") == "json_object":
        content = json.dumps(KNOWLEDGE_GRAPH)
    else:
        content = TEXT_ANSWER
    return {
        "id": "chatcmpl-fake",
        "object": "chat.completion",
        "created": 0,
        "model": body.get("model", "fake"),
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": content},
                "finish_reason": "stop",
            }
        ],
        "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
    }


def _answer_embeddings(body: dict[str, Any]) -> dict[str, Any]:
    texts = body.get("input")
    texts = [texts] if isinstance(texts, str) else list(texts or [])
    dimensions = int(body.get("dimensions") or DIMENSIONS)
    as_base64 = body.get("encoding_format") == "base64"
    data = []
    for index, text in enumerate(texts):
        vector = hash_vector(str(text), dimensions)
        embedding: Any = vector
        if as_base64:
            embedding = base64.b64encode(struct.pack(f"<{len(vector)}f", *vector)).decode()
        data.append({"object": "embedding", "index": index, "embedding": embedding})
    return {
        "object": "list",
        "data": data,
        "model": body.get("model", "fake"),
        "usage": {"prompt_tokens": 0, "total_tokens": 0},
    }


def _handler(state: FakeOpenAI) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802 (http.server's naming)
            length = int(self.headers.get("Content-Length") or 0)
            body = json.loads(self.rfile.read(length) or b"{}")
            record: dict[str, Any] = {"path": self.path}
            if self.path.endswith("/embeddings"):
                payload = _answer_embeddings(body)
            elif self.path.endswith("/chat/completions"):
                payload = _answer_chat(body, record)
            else:
                self.send_error(404, f"the fake OpenAI server has no {self.path}")
                return
            state.requests.append(record)
            data = json.dumps(payload).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, format: str, *args: Any) -> None:  # quiet
            pass

    return Handler


@contextmanager
def serve_fake_openai() -> Iterator[FakeOpenAI]:
    """Run the fake on a free port of 127.0.0.1 for the duration of the block."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(FakeOpenAI("")))
    state = FakeOpenAI(f"http://127.0.0.1:{server.server_address[1]}/v1")
    server.RequestHandlerClass = _handler(state)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield state
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)
