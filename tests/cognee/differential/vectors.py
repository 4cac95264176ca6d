"""The vector adapter's reads, called the same way on LanceDB and on anatid.

Scores are cosine distances of float vectors: LanceDB keeps float32, so they are compared to
six decimals (the ranking and everything else exactly). Hits with equal scores are tied: the
API promises no order among them (hashed bag-of-words embeddings tie often), so limits are
above the collection sizes: a limit cutting through a tie would pick an arbitrary member.
"""

from __future__ import annotations

from typing import Any

from tests.cognee.differential.encoding import unordered


def _scored(results: list[Any]) -> list[Any]:
    """Hits grouped by score, best first; hits with equal scores are tied (no promised order)."""
    groups: list[dict[str, Any]] = []
    for r in results:
        score = round(float(r.score), 6)
        if not groups or groups[-1]["score"] != score:
            groups.append({"score": score, "hits": unordered([])})
        groups[-1]["hits"].append({"id": r.id, "payload": r.payload})
    return groups


async def vector_reads(rec: Any, prefix: str, vector: Any, ids: list[str]) -> None:
    p = prefix
    await rec.step(f"{p}.has_collection", lambda: vector.has_collection("Entity_name"))
    await rec.step(f"{p}.has_collection_missing", lambda: vector.has_collection("Nope_name"))
    await rec.step(
        f"{p}.search",
        lambda: _async_scored(
            vector.search("Entity_name", query_text="alice berlin", limit=20, include_payload=True)
        ),
    )
    await rec.step(
        f"{p}.search_chunks",
        lambda: _async_scored(
            vector.search(
                "DocumentChunk_text", query_text="green apples", limit=5, include_payload=True
            )
        ),
    )
    await rec.step(
        f"{p}.batch_search",
        lambda: _batch(vector.batch_search("Entity_name", ["alice", "hamburg"], limit=20)),
    )
    await rec.step(f"{p}.retrieve", lambda: _unordered_scored(vector.retrieve("Entity_name", ids)))


async def _async_scored(call: Any) -> Any:
    return _scored(await call)


async def _unordered_scored(call: Any) -> Any:
    return unordered({"id": r.id, "score": r.score, "payload": r.payload} for r in await call)


async def _batch(call: Any) -> Any:
    return [_scored(r) for r in await call]
