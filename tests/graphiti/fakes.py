"""Deterministic, offline stand-ins for Graphiti's LLM, embedder and cross-encoder.

The fake LLM reads the prompt Graphiti sends and answers like a very literal model:

* entities are the capitalised words of the current message (minus a few sentence starters);
* each sentence holding two or more entities gives one fact per consecutive pair, named after
  the words between them (``Alice works at Acme`` -> ``WORKS_AT``), the fact being the sentence;
* a new fact duplicates an existing one when their texts are equal, and contradicts one when
  both say ``<same source> <same relation> <different target>`` (``Alice works at Acme`` vs
  ``Alice works at Globex``);
* a fact becomes valid at its episode's reference time.

The embedder hashes words into a small L2-normalised vector (so texts sharing words are close),
and the cross-encoder scores passages by word overlap with the query. Nothing here touches the
network or a clock.
"""

from __future__ import annotations

import ast
import hashlib
import json
import math
import re
import typing
from typing import Any

from graphiti_core.cross_encoder.client import CrossEncoderClient
from graphiti_core.embedder.client import EmbedderClient
from graphiti_core.llm_client.client import LLMClient
from graphiti_core.llm_client.config import LLMConfig

EMBEDDING_DIM = 64
_WORD = re.compile(r"\w+", re.UNICODE)
_CAPITALISED = re.compile(r"\b[A-Z][A-Za-z0-9]+\b")
_SENTENCE = re.compile(r"[^.!?\n]+")
_EPISODE_HEADER = re.compile(r"^\[(?:Episode (\d+)|CONTEXT EPISODE)\][^\n]*\n", re.M)
# Capitalised words that start sentences rather than name things.
_STOP = {
    "The",
    "A",
    "An",
    "In",
    "On",
    "At",
    "He",
    "She",
    "It",
    "They",
    "We",
    "I",
    "And",
    "But",
    "Then",
    "Now",
    "Today",
    "Yesterday",
    "This",
    "That",
    "There",
}
_MESSAGE_TAGS = ("CURRENT MESSAGES", "CURRENT MESSAGE", "CURRENT_MESSAGE", "TEXT", "JSON")


def hash_embedding(text: str, dim: int = EMBEDDING_DIM) -> list[float]:
    """A hashed bag-of-words vector, L2-normalised (empty text gives a fixed unit vector)."""
    vec = [0.0] * dim
    for word in _WORD.findall(text.lower()):
        digest = hashlib.blake2b(word.encode(), digest_size=4).digest()
        vec[int.from_bytes(digest, "little") % dim] += 1.0
    norm = math.sqrt(sum(v * v for v in vec))
    if norm == 0:
        vec[0] = 1.0
        return vec
    return [v / norm for v in vec]


def block(content: str, tag: str) -> str | None:
    """The text inside the last ``<TAG>...</TAG>`` of a prompt, stripped, or None."""
    found = re.findall(rf"<{re.escape(tag)}>(.*?)</{re.escape(tag)}>", content, re.S)
    return found[-1].strip() if found else None


def entities_in(text: str) -> list[str]:
    seen: list[str] = []
    for word in _CAPITALISED.findall(text):
        if word not in _STOP and word not in seen:
            seen.append(word)
    return seen


def parse_fact(sentence: str) -> list[tuple[str, str, str]]:
    """``(source, RELATION, target)`` for each consecutive pair of entities in a sentence."""
    found = [(m.group(0), m.start(), m.end()) for m in _CAPITALISED.finditer(sentence)]
    found = [f for f in found if f[0] not in _STOP]
    out = []
    for (a, _, a_end), (b, b_start, _) in zip(found, found[1:], strict=False):
        if a == b:
            continue
        between = [w.upper() for w in _WORD.findall(sentence[a_end:b_start])]
        out.append((a, "_".join(between) or "RELATES_TO", b))
    return out


def _episodes(text: str) -> list[tuple[int, str]]:
    """Split a (possibly multi-episode) message into ``(episode index, text)`` pieces."""
    headers = list(_EPISODE_HEADER.finditer(text))
    if not headers:
        return [(0, text)]
    pieces = []
    for i, h in enumerate(headers):
        end = headers[i + 1].start() if i + 1 < len(headers) else len(text)
        if h.group(1) is not None:  # context episodes are for reference only
            pieces.append((int(h.group(1)), text[h.end() : end]))
    return pieces


def extract(text: str) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Entities and edges of a current message, in Graphiti's response shapes."""
    entities: dict[str, list[int]] = {}
    edges: list[dict[str, Any]] = []
    for index, piece in _episodes(text):
        for sentence in _SENTENCE.findall(piece):
            sentence = sentence.strip()
            for name in entities_in(sentence):
                entities.setdefault(name, [])
                if index not in entities[name]:
                    entities[name].append(index)
            for src, rel, dst in parse_fact(sentence):
                edges.append(
                    {
                        "source_entity_name": src,
                        "target_entity_name": dst,
                        "relation_type": rel,
                        "fact": sentence,
                        "valid_at": None,
                        "invalid_at": None,
                        "episode_indices": [index],
                    }
                )
    ents = [{"name": n, "entity_type_id": 0, "episode_indices": idx} for n, idx in entities.items()]
    return ents, edges


def _norm(fact: str) -> str:
    return " ".join(_WORD.findall(fact.lower()))


def _facts(text: str | None) -> list[dict[str, Any]]:
    if not text:
        return []
    try:
        value = ast.literal_eval(text)
    except (ValueError, SyntaxError):
        value = json.loads(text)
    return list(value)


def resolve_edge(content: str) -> dict[str, Any]:
    """Duplicates: equal text. Contradictions: same source and relation, another target."""
    existing = _facts(block(content, "EXISTING FACTS"))
    candidates = _facts(block(content, "FACT INVALIDATION CANDIDATES"))
    new = block(content, "NEW FACT") or ""
    new_triples = parse_fact(new)
    duplicates = [f["idx"] for f in existing if _norm(f["fact"]) == _norm(new)]
    contradicted = []
    for f in existing + candidates:
        for src, rel, dst in parse_fact(f["fact"]):
            if any(s == src and r == rel and d != dst for s, r, d in new_triples):
                contradicted.append(f["idx"])
                break
    return {"duplicate_facts": duplicates, "contradicted_facts": contradicted}


def _summaries(content: str) -> str:
    """The JSON payload a summarising prompt ends with (what follows its first ``[`` or ``{``)."""
    starts = [i for i in (content.find("["), content.find('"')) if i >= 0]
    return content[min(starts) :] if starts else ""


def _message_text(content: str) -> str:
    for tag in _MESSAGE_TAGS:
        found = block(content, tag)
        if found is not None:
            return found
    return ""


class FakeLLMClient(LLMClient):
    """A deterministic LLM; ``calls`` lists the response model names it was asked for."""

    def __init__(self) -> None:
        super().__init__(LLMConfig(api_key="x", model="fake", small_model="fake"))
        self.calls: list[str] = []

    async def _generate_response(  # type: ignore[override]
        self, messages, response_model=None, max_tokens=0, model_size=None, **_: Any
    ) -> dict[str, typing.Any]:
        name = response_model.__name__ if response_model is not None else ""
        self.calls.append(name)
        content = messages[-1].content
        if name in ("ExtractedEntities", "ExtractedEdges", "CombinedExtraction"):
            ents, edges = extract(_message_text(content))
            return {"extracted_entities": ents, "edges": edges}
        if name == "EdgeDuplicate":
            return resolve_edge(content)
        if name == "EdgeTimestamps":
            return {"valid_at": block(content, "REFERENCE TIME"), "invalid_at": None}
        if name == "BatchEdgeTimestamps":
            facts = _facts(block(content, "FACTS"))
            return {
                "timestamps": [
                    {
                        "valid_at": f.get("reference_time") if isinstance(f, dict) else None,
                        "invalid_at": None,
                    }
                    for f in facts
                ]
            }
        if name == "NodeResolutions":
            return {"entity_resolutions": []}
        if name == "SummarizedEntities":
            return {"summaries": []}
        if name in ("Summary", "EntitySummary", "SagaSummary"):
            # Prompts without a message block (pair summaries of a community): the names in it.
            text = _message_text(content) or " ".join(entities_in(_summaries(content)))
            return {"summary": "Summary: " + " ".join(_WORD.findall(text))[:80]}
        if name == "SummaryDescription":
            # Distinct summaries get distinct descriptions (they name communities).
            return {"description": "About " + " ".join(_WORD.findall(_summaries(content)))[:60]}
        return _defaults(response_model)


def _defaults(model: Any) -> dict[str, Any]:
    """Default values for any other response model (lists empty, optionals None)."""
    if model is None:
        return {}
    out: dict[str, Any] = {}
    for key, field in model.model_fields.items():
        if not field.is_required():
            continue
        ann = str(field.annotation)
        if "list" in ann:
            out[key] = []
        elif "str" in ann:
            out[key] = "x"
        elif "int" in ann:
            out[key] = -1
        elif "float" in ann:
            out[key] = 0.0
        elif "bool" in ann:
            out[key] = False
        else:
            out[key] = None
    return out


class FakeEmbedder(EmbedderClient):
    """Hashed bag-of-words embeddings; implements ``create_batch`` (Graphiti needs it)."""

    def __init__(self, dim: int = EMBEDDING_DIM) -> None:
        self.dim = dim

    async def create(self, input_data: Any) -> list[float]:  # type: ignore[override]
        if isinstance(input_data, str):
            return hash_embedding(input_data, self.dim)
        return hash_embedding(" ".join(str(x) for x in input_data), self.dim)

    async def create_batch(self, input_data_list: list[str]) -> list[list[float]]:
        return [hash_embedding(t, self.dim) for t in input_data_list]


class FakeCrossEncoder(CrossEncoderClient):
    """Scores a passage by the share of query words it contains; best first."""

    async def rank(self, query: str, passages: list[str]) -> list[tuple[str, float]]:
        q = set(_WORD.findall(query.lower()))
        scored = [(p, len(q & set(_WORD.findall(p.lower()))) / (len(q) or 1)) for p in passages]
        return sorted(scored, key=lambda ps: -ps[1])
