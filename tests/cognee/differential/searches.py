"""Every ``SearchType`` through ``cognee.search``, on the dataset the pipeline filled.

Completion types run with ``only_context=True`` (the retrieved context is what the backend
decides; the fake LLM's answer is not), and two of them once more with the fake LLM answering.
TEMPORAL asks the LLM for the question's date window: the window is fixed here instead.
"""

from __future__ import annotations

import re
from datetime import datetime, timezone
from typing import Any

from tests.cognee.differential.encoding import unordered

_RANK = re.compile(r"^\d+\. ")
QUERY = "Where does Alice work? Who grows apples near Hamburg?"


def context_lines(results: list[Any]) -> Any:
    """Search results with each text context as the multiset of its lines.

    With hashed bag-of-words embeddings many candidates score exactly alike, and retrievers
    list tied candidates in the order storage returned them (no promised order): the lines
    of a context are compared, not their order. Non-text results are kept as they are.
    """
    out = []
    for result in results if isinstance(results, list) else [results]:
        data = result.model_dump() if hasattr(result, "model_dump") else result
        if isinstance(data, dict) and isinstance(data.get("search_result"), str):
            # GRAPH_REPORT numbers its ranking; tied entries take their number from that order.
            lines = [_RANK.sub("<rank>. ", line) for line in data["search_result"].splitlines()]
            data = {**data, "search_result": unordered(lines)}
        out.append(data)
    return out


async def _search(**kwargs: Any) -> Any:
    import cognee

    return context_lines(await cognee.search(**kwargs))


def _fix_temporal_window() -> None:
    import cognee.modules.retrieval.temporal_hybrid_retriever as temporal

    async def window(query: str) -> tuple[datetime, datetime, str | None]:
        return (
            datetime(2019, 1, 1, tzinfo=timezone.utc),
            datetime(2022, 12, 31, tzinfo=timezone.utc),
            None,
        )

    temporal.extract_query_interval = window  # type: ignore[assignment]


async def searches(rec: Any, user: Any) -> None:
    from cognee.modules.search.types import SearchType

    _fix_temporal_window()
    for kind in SearchType:
        await rec.step(
            f"search.{kind.name}",
            lambda k=kind: _search(
                query_text=QUERY, query_type=k, user=user, datasets=["notes"], only_context=True
            ),
        )
    for kind in (SearchType.GRAPH_COMPLETION, SearchType.RAG_COMPLETION):
        await rec.step(
            f"search.{kind.name}.answer",
            lambda k=kind: _search(query_text=QUERY, query_type=k, user=user, datasets=["notes"]),
        )
    await rec.step(
        "search.CHUNKS.node_set",
        lambda: _search(
            query_text=QUERY,
            query_type=SearchType.CHUNKS,
            user=user,
            datasets=["notes"],
            node_name=["bob"],
        ),
    )
