"""Deterministic stand-ins for the services Cognee would call over the network.

``HashEmbeddingEngine`` embeds text as a hashed bag of words (L2-normalised), so texts that
share words are close in cosine distance and the same text always gets the same vector: search
rankings in these tests mean something and never depend on a model or the network.
"""

from __future__ import annotations

import hashlib
import math
import re

from cognee.infrastructure.databases.vector.embeddings.EmbeddingEngine import EmbeddingResult

DIMENSIONS = 64
_WORD = re.compile(r"\w+", re.UNICODE)


def hash_vector(text: str, dimensions: int = DIMENSIONS) -> list[float]:
    vector = [0.0] * dimensions
    for word in _WORD.findall((text or "").lower()):
        digest = hashlib.blake2b(word.encode("utf-8"), digest_size=8).digest()
        index = int.from_bytes(digest[:4], "little") % dimensions
        vector[index] += 1.0 if digest[4] & 1 else -1.0
    norm = math.sqrt(sum(x * x for x in vector))
    if norm == 0.0:
        # Empty text: a fixed unit vector rather than zeros (cosine needs a norm).
        return [1.0] + [0.0] * (dimensions - 1)
    return [x / norm for x in vector]


class HashEmbeddingEngine:
    """Cognee ``EmbeddingEngine`` protocol: embed_text, get_vector_size, get_batch_size."""

    model = "anatid-test-hash"
    dimensions = DIMENSIONS
    batch_size = 36
    max_completion_tokens = 8191

    async def embed_text(self, text: list[str]) -> EmbeddingResult:
        return EmbeddingResult([hash_vector(t) for t in text], tokens=0)

    def get_vector_size(self) -> int:
        return self.dimensions

    def get_batch_size(self) -> int:
        return self.batch_size

    async def input_limit(self) -> int | None:
        return None


def install_hash_embeddings() -> None:
    """Make Cognee's vector factory hand every adapter the hash engine."""
    import cognee.infrastructure.databases.vector.create_vector_engine as factory

    factory.get_embedding_engine = lambda: HashEmbeddingEngine()  # type: ignore[assignment]
