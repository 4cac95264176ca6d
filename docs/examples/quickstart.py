"""anatid quickstart: Graphiti and Cognee memory in one local DuckDB file each, with time travel.

Runs offline with no API key:  pip install -e ".[all]" && python docs/examples/quickstart.py

Graphiti and Cognee normally call an LLM (to extract entities and facts) and an embedding model.
Here both are replaced by small deterministic stand-ins written below, so the example shows the
storage side honestly without any network. To use real models, see "Plugging in real models"
at the end of this file: nothing else changes.

What it does:
1. Graphiti on anatid: ``add_triplet`` (facts you extracted yourself) and ``add_episode``
   (the LLM extracts them), a hybrid search, and a time-travel read with ``driver.as_of(t)``.
2. Cognee on anatid: ``add_data_points`` and ``cognee.search(..., only_context=True)``.
3. Where the files are, and the ``anatid`` commands to look inside them.

Four lines such as "sync_operations table already exists, skipping creation" appear when Cognee
sets up its new (SQLite) database: they are plain ``print`` calls in Cognee's own Alembic
migrations, which find tables its base schema already made. Harmless, and no log level or
setting of Cognee 1.6 silences them (docs/offline.md, "Lines that are not errors").
"""

from __future__ import annotations

import asyncio
import hashlib
import math
import os
import re
import sys
import tempfile
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

WORKDIR = Path(sys.argv[1] if len(sys.argv) > 1 else tempfile.mkdtemp(prefix="anatid-quickstart-"))
WORKDIR.mkdir(parents=True, exist_ok=True)

# Both frameworks read their settings from the environment when first imported: no telemetry,
# no LLM key check, and Cognee's own files under WORKDIR.
os.environ.setdefault("GRAPHITI_TELEMETRY_ENABLED", "false")
os.environ.update(
    {
        "TELEMETRY_DISABLED": "1",
        "ENABLE_BACKEND_ACCESS_CONTROL": "false",
        "COGNEE_SKIP_CONNECTION_TEST": "true",
        "CACHING": "false",
        "LLM_API_KEY": os.environ.get("LLM_API_KEY", "not-needed-offline"),
        "EMBEDDING_DIMENSIONS": "64",
        "SYSTEM_ROOT_DIRECTORY": str(WORKDIR / "cognee-system"),
        "DATA_ROOT_DIRECTORY": str(WORKDIR / "cognee-data"),
        "LOG_LEVEL": "ERROR",
    }
)

DIM = 64
WORD = re.compile(r"\w+")


def hash_embedding(text: str) -> list[float]:
    """A hashed bag of words, L2-normalised: texts sharing words are close. Not a real model."""
    vec = [0.0] * DIM
    for word in WORD.findall(text.lower()):
        vec[
            int.from_bytes(hashlib.blake2b(word.encode(), digest_size=4).digest(), "little") % DIM
        ] += 1
    norm = math.sqrt(sum(v * v for v in vec)) or 1.0
    return [v / norm for v in vec] if any(vec) else [1.0] + [0.0] * (DIM - 1)


# ------------------------------------------------------------------------------ 1. Graphiti


def graphiti_clients() -> tuple[Any, Any, Any]:
    """Deterministic stand-ins for Graphiti's LLM, embedder and cross-encoder."""
    from graphiti_core.cross_encoder.client import CrossEncoderClient
    from graphiti_core.embedder.client import EmbedderClient
    from graphiti_core.llm_client.client import LLMClient
    from graphiti_core.llm_client.config import LLMConfig

    def block(prompt: str, tag: str) -> str:
        found = re.findall(rf"<{tag}>(.*?)</{tag}>", prompt, re.S)
        return found[-1].strip() if found else ""

    def triples(text: str) -> list[tuple[str, str, str, str]]:
        """'Alice works at Acme.' -> (Alice, WORKS_AT, Acme, sentence): a very literal 'LLM'."""
        out = []
        for sentence in re.findall(r"[^.!?\n]+", text):
            names = re.findall(r"\b[A-Z][a-z]+\b", sentence)
            if len(names) >= 2:
                between = sentence.split(names[0], 1)[1].rsplit(names[-1], 1)[0]
                rel = "_".join(WORD.findall(between.upper())) or "RELATES_TO"
                out.append((names[0], rel, names[-1], sentence.strip()))
        return out

    class RuleLLM(LLMClient):
        async def _generate_response(
            self, messages, response_model=None, *_: Any, **__: Any
        ) -> dict:  # type: ignore[override]
            name = response_model.__name__ if response_model else ""
            prompt = messages[-1].content
            # The episode's text, under the tag the prompt for its source type uses.
            message = next(
                (
                    m
                    for t in ("CURRENT MESSAGES", "CURRENT MESSAGE", "CURRENT_MESSAGE", "TEXT")
                    if (m := block(prompt, t))
                ),
                "",
            )
            found = triples(message)
            if name in ("ExtractedEntities", "CombinedExtraction", "ExtractedEdges"):
                names = list(dict.fromkeys(n for s, _, d, _ in found for n in (s, d)))
                return {
                    "extracted_entities": [{"name": n, "entity_type_id": 0} for n in names],
                    "edges": [
                        {
                            "source_entity_name": s,
                            "target_entity_name": d,
                            "relation_type": r,
                            "fact": f,
                            "valid_at": None,
                            "invalid_at": None,
                        }
                        for s, r, d, f in found
                    ],
                }
            if name == "EdgeDuplicate":
                # A new fact contradicts an old one with the same subject and relation but
                # another object ("Alice works at Globex" ends "Alice works at Acme").
                new = triples(block(prompt, "NEW FACT"))
                old = re.findall(
                    r"'idx': (\d+).*?'fact': '([^']*)'",
                    block(prompt, "EXISTING FACTS") + block(prompt, "FACT INVALIDATION CANDIDATES"),
                )
                hit = [
                    int(i)
                    for i, fact in old
                    for s, r, d, _ in triples(fact)
                    if any(s == s2 and r == r2 and d != d2 for s2, r2, d2, _ in new)
                ]
                return {"duplicate_facts": [], "contradicted_facts": hit}
            if name == "EdgeTimestamps":
                return {"valid_at": block(prompt, "REFERENCE TIME") or None, "invalid_at": None}
            fields = response_model.model_fields if response_model else {}
            return {
                k: [] if "list" in str(f.annotation) else ""
                for k, f in fields.items()
                if f.is_required()
            }

    class HashEmbedder(EmbedderClient):
        async def create(self, input_data: Any) -> list[float]:  # type: ignore[override]
            return hash_embedding(
                input_data if isinstance(input_data, str) else " ".join(map(str, input_data))
            )

        async def create_batch(self, input_data_list: list[str]) -> list[list[float]]:
            return [hash_embedding(t) for t in input_data_list]

    class OverlapRanker(CrossEncoderClient):
        async def rank(self, query: str, passages: list[str]) -> list[tuple[str, float]]:
            q = set(WORD.findall(query.lower()))
            scored = [(p, len(q & set(WORD.findall(p.lower()))) / (len(q) or 1)) for p in passages]
            return sorted(scored, key=lambda x: -x[1])

    llm = RuleLLM(LLMConfig(api_key="offline", model="rules", small_model="rules"))
    return llm, HashEmbedder(), OverlapRanker()


async def graphiti_demo(path: Path) -> None:
    from anatid_graphiti import GraphitiDriver
    from graphiti_core import Graphiti
    from graphiti_core.edges import EntityEdge
    from graphiti_core.nodes import EntityNode, EpisodeType

    print(f"== Graphiti on anatid: {path}")
    driver = GraphitiDriver(str(path))
    llm, embedder, ranker = graphiti_clients()
    graphiti = Graphiti(
        graph_driver=driver, llm_client=llm, embedder=embedder, cross_encoder=ranker
    )
    await graphiti.build_indices_and_constraints()

    # Facts you extracted yourself: add_triplet needs no extraction.
    alice = EntityNode(name="Alice", group_id="", labels=["Person"], summary="an engineer")
    acme = EntityNode(name="Acme", group_id="", labels=["Company"], summary="makes anvils")
    jan = datetime(2024, 1, 10, tzinfo=timezone.utc)
    works = EntityEdge(
        source_node_uuid=alice.uuid,
        target_node_uuid=acme.uuid,
        name="WORKS_AT",
        fact="Alice works at Acme",
        group_id="",
        created_at=jan,
        valid_at=jan,
    )
    await graphiti.add_triplet(alice, works, acme)
    before_move = datetime.now(timezone.utc)
    await asyncio.sleep(0.01)  # the next write gets a later transaction time

    # Text the LLM reads: here the rule-based stand-in extracts "Alice -WORKS_AT-> Globex".
    await graphiti.add_episode(
        name="june update",
        episode_body="Alice works at Globex.",
        source=EpisodeType.text,
        source_description="chat",
        reference_time=datetime(2024, 6, 1, tzinfo=timezone.utc),
    )

    print("stored facts:")
    for edge in sorted(await EntityEdge.get_by_group_ids(driver, [""]), key=lambda e: e.fact):
        ended = f", invalid since {edge.invalid_at:%Y-%m-%d}" if edge.invalid_at else ""
        print(f"  {edge.fact} (valid from {edge.valid_at:%Y-%m-%d}{ended})")
    print("search 'where does Alice work':")
    for edge in await graphiti.search("where does Alice work", num_results=3):
        print(f"  {edge.fact}")

    # Time travel: a read-only driver that sees the file as it was before the move.
    past = Graphiti(
        graph_driver=driver.as_of(before_move),
        llm_client=llm,
        embedder=embedder,
        cross_encoder=ranker,
    )
    print(f"as of {before_move:%H:%M:%S.%f} UTC (before the episode):")
    for edge in await past.search("where does Alice work", num_results=3):
        print(f"  {edge.fact} (invalid_at={edge.invalid_at})")
    print(f"versions of the Acme fact: {len(await driver.history(works.uuid))}")
    await driver.close()


# -------------------------------------------------------------------------------- 2. Cognee


class HashEmbeddingEngine:
    """Cognee's EmbeddingEngine protocol over hash_embedding (no model, no network)."""

    model, dimensions, batch_size, max_completion_tokens = "hash", DIM, 36, 8191

    async def embed_text(self, text: list[str]) -> Any:
        from cognee.infrastructure.databases.vector.embeddings.EmbeddingEngine import (
            EmbeddingResult,
        )

        return EmbeddingResult([hash_embedding(t) for t in text], tokens=0)

    def get_vector_size(self) -> int:
        return DIM

    def get_batch_size(self) -> int:
        return self.batch_size

    async def input_limit(self) -> int | None:
        return None


async def cognee_demo(path: Path) -> None:
    import anatid_cognee
    import cognee
    import cognee.infrastructure.databases.vector.create_vector_engine as vector_factory
    from cognee.infrastructure.databases.graph import get_graph_engine
    from cognee.low_level import setup
    from cognee.modules.chunking.models.DocumentChunk import DocumentChunk
    from cognee.modules.data.processing.document_types.TextDocument import TextDocument
    from cognee.modules.engine.models import Entity, EntityType
    from cognee.modules.search.types import SearchType
    from cognee.tasks.storage import add_data_points

    print(f"\n== Cognee on anatid: {path}")
    vector_factory.get_embedding_engine = lambda: HashEmbeddingEngine()  # type: ignore[assignment]
    anatid_cognee.configure(str(path))  # graph and vectors in this one file
    await setup()  # prints Cognee's "... table already exists, skipping creation" (see top)

    # DataPoints you built yourself (cognee.cognify would have an LLM build them from text).
    person = EntityType(name="person", description="a person")
    company = EntityType(name="company", description="a company")
    docs = {
        "alice.txt": ("Alice works at Globex in Berlin.", ["Alice", "Globex"]),
        "bob.txt": ("Bob grows apples near Hamburg.", ["Bob"]),
    }
    chunks = []
    for name, (text, names) in docs.items():
        doc = TextDocument(
            name=name,
            raw_data_location=f"/dev/null/{name}",
            external_metadata=None,
            mime_type="text/plain",
        )
        entities = [
            Entity(
                name=n.lower(),
                description=f"{n} from {name}",
                is_a=company if n == "Globex" else person,
            )
            for n in names
        ]
        chunks.append(
            DocumentChunk(
                text=text,
                chunk_size=len(text.split()),
                chunk_index=0,
                cut_type="sentence_end",
                is_part_of=doc,
                contains=entities,
            )
        )
    await add_data_points(chunks)

    graph = await get_graph_engine()
    nodes, edges = await graph.get_graph_data()
    print(f"stored {len(nodes)} nodes and {len(edges)} edges")
    found = await cognee.search(query_text="who grows apples", query_type=SearchType.CHUNKS)
    print("CHUNKS search 'who grows apples':", [r.get("text") for r in _flat(found)][:1])
    context = await cognee.search(
        query_text="Where does Alice work?",
        query_type=SearchType.GRAPH_COMPLETION,
        only_context=True,
    )
    # The context Cognee would hand the LLM: the triplets its graph retriever found in anatid.
    text = str(_flat(context)[0]) if _flat(context) else ""
    triplets = text.split("Connections:", 1)[-1].strip().strip("`").splitlines()
    print("GRAPH_COMPLETION context for 'Where does Alice work?' (no LLM asked):")
    for line in triplets[:4]:
        print("  " + line.split("  (")[0])


def _flat(results: Any) -> list[Any]:
    """cognee.search returns results per dataset in some modes; flatten them to one list."""
    out: list[Any] = []
    for r in results if isinstance(results, list) else [results]:
        inner = r.get("search_result") if isinstance(r, dict) and "search_result" in r else r
        out.extend(inner if isinstance(inner, list) else [inner])
    return out


async def main() -> None:
    await graphiti_demo(WORKDIR / "graphiti.duckdb")
    await cognee_demo(WORKDIR / "cognee.duckdb")
    print(f"\nLook inside the files: anatid stats {WORKDIR / 'graphiti.duckdb'}")
    print(f"                       anatid view {WORKDIR / 'graphiti.duckdb'} --out graph.html")


# Plugging in real models: pass Graphiti(graph_driver=GraphitiDriver("memory.duckdb")) its usual
# OpenAIClient / OpenAIEmbedder / OpenAIRerankerClient (or any other provider) instead of the
# stand-ins, and for Cognee set LLM_API_KEY and your embedding settings and drop the
# get_embedding_engine override; then cognee.add(...) + cognee.cognify() extract the DataPoints.
# For a local model server (Ollama, llama.cpp, vLLM) and no network: docs/offline.md.

if __name__ == "__main__":
    asyncio.run(main())
