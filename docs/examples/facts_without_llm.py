"""Many facts into Graphiti on anatid with no LLM at all, through Graphiti's public API.

Runs offline:  pip install -e ".[graphiti]" && python docs/examples/facts_without_llm.py [DIR]

``graphiti.add_triplet`` looks like the way to store facts you extracted yourself, but it asks
the LLM to de-duplicate: the first fact saves, and every later one that shares words with a
stored fact calls the LLM (``_dedupe_extracted_edge``), so with no LLM it raises. Here the
entities and facts are built as Graphiti's own models and saved in one transaction with
``graphiti_core.utils.bulk_utils.add_nodes_and_edges_bulk``, the function Graphiti's ingest
uses; the only model it calls is the embedder. You take the de-duplication on yourself: each
entity and fact gets a uuid derived from its name (``uuid5``), so saving the same fact again
writes a new version of the same record (kept in its history) instead of a duplicate.

The LLM client below refuses every call, to show that none is made.
"""

from __future__ import annotations

import asyncio
import hashlib
import math
import os
import re
import sys
import tempfile
from collections.abc import Iterable
from datetime import datetime, timezone
from pathlib import Path
from typing import Any
from uuid import NAMESPACE_URL, uuid5

os.environ.setdefault("GRAPHITI_TELEMETRY_ENABLED", "false")

from anatid_graphiti import GraphitiDriver  # noqa: E402
from graphiti_core import Graphiti  # noqa: E402
from graphiti_core.cross_encoder.client import CrossEncoderClient  # noqa: E402
from graphiti_core.edges import EntityEdge, create_entity_edge_embeddings  # noqa: E402
from graphiti_core.embedder.client import EmbedderClient  # noqa: E402
from graphiti_core.llm_client.client import LLMClient  # noqa: E402
from graphiti_core.llm_client.config import LLMConfig  # noqa: E402
from graphiti_core.nodes import EntityNode, create_entity_node_embeddings  # noqa: E402
from graphiti_core.utils.bulk_utils import add_nodes_and_edges_bulk  # noqa: E402

# ------------------------------------------------------------------------------- the recipe


def stable_uuid(*parts: str) -> str:
    """The same name always gives the same uuid: saving again updates instead of duplicating."""
    return str(uuid5(NAMESPACE_URL, "/".join(parts)))


async def save_facts(
    graphiti: Graphiti,
    facts: Iterable[tuple[str, str, str, str]],
    *,
    group_id: str = "",
    valid_at: datetime | None = None,
) -> tuple[list[EntityNode], list[EntityEdge]]:
    """Save (subject, RELATION, object, sentence) facts and their entities; no LLM call."""
    now = datetime.now(timezone.utc)
    nodes: dict[str, EntityNode] = {}
    edges: list[EntityEdge] = []

    def entity(name: str) -> EntityNode:
        if name not in nodes:
            nodes[name] = EntityNode(
                uuid=stable_uuid(group_id, name), name=name, group_id=group_id, labels=["Entity"]
            )
        return nodes[name]

    for subject, relation, obj, sentence in facts:
        source, target = entity(subject), entity(obj)
        edges.append(
            EntityEdge(
                uuid=stable_uuid(group_id, subject, relation, obj),
                source_node_uuid=source.uuid,
                target_node_uuid=target.uuid,
                name=relation,
                fact=sentence,
                group_id=group_id,
                created_at=now,
                valid_at=valid_at or now,
            )
        )
    # One embedder call per kind, then one transaction for everything.
    await create_entity_node_embeddings(graphiti.embedder, list(nodes.values()))
    await create_entity_edge_embeddings(graphiti.embedder, edges)
    await add_nodes_and_edges_bulk(
        graphiti.driver, [], [], list(nodes.values()), edges, graphiti.embedder
    )
    return list(nodes.values()), edges


# -------------------------------------------------- stand-ins for the models (no network)

DIM = 64
WORD = re.compile(r"\w+")


def hash_embedding(text: str) -> list[float]:
    """A hashed bag of words, L2-normalised: texts sharing words are close. Not a real model."""
    vec = [0.0] * DIM
    for word in WORD.findall(text.lower()):
        digest = hashlib.blake2b(word.encode(), digest_size=4).digest()
        vec[int.from_bytes(digest, "little") % DIM] += 1
    norm = math.sqrt(sum(v * v for v in vec)) or 1.0
    return [v / norm for v in vec] if any(vec) else [1.0] + [0.0] * (DIM - 1)


class NoLLM(LLMClient):
    """Refuses every call: proof that saving and searching need no LLM."""

    async def _generate_response(self, *_: Any, **__: Any) -> dict[str, Any]:  # type: ignore[override]
        raise RuntimeError("no LLM")


class HashEmbedder(EmbedderClient):
    async def create(self, input_data: Any) -> list[float]:  # type: ignore[override]
        text = input_data if isinstance(input_data, str) else " ".join(map(str, input_data))
        return hash_embedding(text)

    async def create_batch(self, input_data_list: list[str]) -> list[list[float]]:
        return [hash_embedding(t) for t in input_data_list]


class OverlapRanker(CrossEncoderClient):
    async def rank(self, query: str, passages: list[str]) -> list[tuple[str, float]]:
        q = set(WORD.findall(query.lower()))
        scored = [(p, len(q & set(WORD.findall(p.lower()))) / (len(q) or 1)) for p in passages]
        return sorted(scored, key=lambda x: -x[1])


# ------------------------------------------------------------------------------------ run

PEOPLE = ["Alice", "Bob", "Carol", "Dave", "Erin", "Frank", "Grace", "Heidi"]
COMPANIES = ["Acme", "Globex", "Initech", "Umbrella"]
CITIES = ["Hamburg", "Lisbon", "Oslo"]


def example_facts() -> list[tuple[str, str, str, str]]:
    """24 facts: where each person works, lives, and whom they know."""
    facts = []
    for i, person in enumerate(PEOPLE):
        company, city, friend = COMPANIES[i % 4], CITIES[i % 3], PEOPLE[(i + 1) % 8]
        facts.append((person, "WORKS_AT", company, f"{person} works at {company}"))
        facts.append((person, "LIVES_IN", city, f"{person} lives in {city}"))
        facts.append((person, "KNOWS", friend, f"{person} knows {friend}"))
    return facts


async def main(folder: Path) -> None:
    driver = GraphitiDriver(str(folder / "facts.duckdb"))
    graphiti = Graphiti(
        graph_driver=driver,
        llm_client=NoLLM(LLMConfig(api_key="none", model="none", small_model="none")),
        embedder=HashEmbedder(),
        cross_encoder=OverlapRanker(),
    )
    await graphiti.build_indices_and_constraints()
    facts = example_facts()
    await save_facts(graphiti, facts)
    await save_facts(graphiti, facts)  # again: same uuids, so no duplicates

    stored = await EntityEdge.get_by_group_ids(driver, [""])
    entities = await EntityNode.get_by_group_ids(driver, [""])
    print(f"facts stored: {len(stored)}, entities: {len(entities)}")
    assert len(stored) == len(facts) and len(entities) == len(PEOPLE) + len(COMPANIES) + 3
    found = await graphiti.search("Where does Alice work?", num_results=3)
    print("search 'Where does Alice work?':", [e.fact for e in found])
    assert "Alice works at Acme" in [e.fact for e in found]
    await driver.close()


if __name__ == "__main__":
    target = Path(sys.argv[1] if len(sys.argv) > 1 else tempfile.mkdtemp(prefix="anatid-facts-"))
    target.mkdir(parents=True, exist_ok=True)
    asyncio.run(main(target))
