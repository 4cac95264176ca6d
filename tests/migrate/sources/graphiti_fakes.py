"""Deterministic, offline stand-ins for Graphiti's LLM, embedder and cross-encoder.

Used by the source generators (run in the kuzu 0.11.3 venv) and by the migrate tests, so both
sides embed and extract identically. Only graphiti_core and the standard library are imported.
"""

from __future__ import annotations

import hashlib
import math
import re
import typing
from typing import Any

from graphiti_core.cross_encoder.client import CrossEncoderClient
from graphiti_core.embedder.client import EmbedderClient
from graphiti_core.llm_client.client import LLMClient
from graphiti_core.llm_client.config import LLMConfig

EMBEDDING_DIM = 32
_WORD = re.compile(r"\w+", re.UNICODE)
_BLOCK = re.compile(r"<(CURRENT[ _]MESSAGE|TEXT|JSON)>(.*?)</\1>", re.S)


def hash_embedding(text: str, dim: int = EMBEDDING_DIM) -> list[float]:
    """A hashed bag-of-words vector, L2-normalised (zero text gives a fixed unit vector)."""
    vec = [0.0] * dim
    for word in _WORD.findall(text.lower()):
        digest = hashlib.blake2b(word.encode(), digest_size=4).digest()
        vec[int.from_bytes(digest, "little") % dim] += 1.0
    norm = math.sqrt(sum(v * v for v in vec))
    if norm == 0:
        vec[0] = 1.0
        return vec
    return [v / norm for v in vec]


def _episode_text(messages: list[Any]) -> str:
    content = messages[-1].content
    found = _BLOCK.findall(content)
    return found[-1][1] if found else ""


def _entities(text: str) -> list[str]:
    seen: list[str] = []
    for word in re.findall(r"\b[A-Z][a-z]+\b", text):
        if word not in seen:
            seen.append(word)
    return seen


class FakeLLMClient(LLMClient):
    """Extracts capitalised words as entities and links consecutive ones by one fact."""

    def __init__(self) -> None:
        super().__init__(LLMConfig(api_key="x", model="fake", small_model="fake"))

    async def _generate_response(  # type: ignore[override]
        self, messages, response_model=None, max_tokens=0, model_size=None, **_: Any
    ) -> dict[str, typing.Any]:
        name = response_model.__name__ if response_model is not None else ""
        text = _episode_text(messages)
        ents = _entities(text)
        edges = [
            {
                "source_entity_name": a,
                "target_entity_name": b,
                "relation_type": "RELATED_TO",
                "fact": f"{a} and {b}: {text.strip()[:80]}",
                "valid_at": None,
                "invalid_at": None,
            }
            for a, b in zip(ents, ents[1:], strict=False)
        ]
        if name == "ExtractedEntities":
            return {"extracted_entities": [{"name": e, "entity_type_id": 0} for e in ents]}
        if name == "ExtractedEdges":
            return {"edges": edges}
        if name == "CombinedExtraction":
            return {
                "extracted_entities": [{"name": e, "entity_type_id": 0} for e in ents],
                "edges": edges,
            }
        if name == "NodeResolutions":
            return {"entity_resolutions": []}
        if name == "EdgeDuplicate":
            return {"duplicate_facts": [], "contradicted_facts": []}
        if name == "SummarizedEntities":
            return {"summaries": []}
        if name in ("Summary", "SummaryDescription", "SagaSummary", "EntitySummary"):
            return {"summary": "A summary.", "description": "A description."}
        return _defaults(response_model)


def _defaults(model: Any) -> dict[str, Any]:
    """All-default values for any other response model (lists empty, optionals None)."""
    if model is None:
        return {}
    out: dict[str, Any] = {}
    for key, field in model.model_fields.items():
        ann = str(field.annotation)
        if not field.is_required():
            continue
        if "list" in ann:
            out[key] = []
        elif "str" in ann:
            out[key] = "x"
        elif "int" in ann or "float" in ann:
            out[key] = 0
        elif "bool" in ann:
            out[key] = False
        else:
            out[key] = None
    return out


class FakeEmbedder(EmbedderClient):
    async def create(self, input_data: Any) -> list[float]:  # type: ignore[override]
        if isinstance(input_data, str):
            return hash_embedding(input_data)
        return hash_embedding(" ".join(str(x) for x in input_data))

    async def create_batch(self, input_data_list: list[str]) -> list[list[float]]:
        return [hash_embedding(t) for t in input_data_list]


class FakeCrossEncoder(CrossEncoderClient):
    async def rank(self, query: str, passages: list[str]) -> list[tuple[str, float]]:
        q = set(_WORD.findall(query.lower()))
        scored = [(p, len(q & set(_WORD.findall(p.lower()))) / (len(q) or 1)) for p in passages]
        return sorted(scored, key=lambda ps: -ps[1])
