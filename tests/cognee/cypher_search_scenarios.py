"""Cypher through Cognee on one backend, in its own process (issue 35).

``python -m tests.cognee.cypher_search_scenarios <ladybug|anatid> <workdir> <out.json>``

``cognee.add`` + ``cognee.cognify`` on dataset "notes" with the fake OpenAI server of
:mod:`tests.cognee.fake_openai` (its canned extraction: Alice works at Acme), then every way
Cognee sends Cypher to the graph engine: ``SearchType.CYPHER``; ``NATURAL_LANGUAGE`` (its two
schema queries, then the Cypher the fake LLM writes); ``FEELING_LUCKY`` with the fake LLM
picking CYPHER; and the host functions that query the graph engine themselves (the degree
seeds of the visualisation, the namespace migration's edge listing, the health check, the
provenance re-key's writes). The queries are Cognee's own, sent by its functions; the user's
Cypher is the only text written here. Each step's result (or error) goes to the output file
for ``test_cognee_cypher_search.py`` to compare between LadybugDB and anatid.
"""

from __future__ import annotations

import asyncio
import importlib
import json
import os
import sys
from pathlib import Path
from typing import Any

from tests.cognee.differential.encoding import encode, unordered
from tests.cognee.differential.runner import Recorder, configure_environment

DOCS = [
    "Alice works at Acme in Berlin. She joined Acme on 2019-03-01.",
    "Bob grows green apples in an orchard near Hamburg since 2021.",
]
#: What a user types for SearchType.CYPHER (LadybugDB's schema: Node and EDGE tables).
USER_QUERIES = {
    "entity_names": "MATCH (n:Node) WHERE n.type = 'Entity' RETURN n.name ORDER BY n.name",
    "types": "MATCH (n:Node) RETURN n.type AS type, count(*) AS nodes ORDER BY type",
    "works_at": (
        "MATCH (a:Node)-[r:EDGE]->(b:Node) WHERE r.relationship_name = 'works_at' "
        "RETURN a.name, r.relationship_name, b.name"
    ),
    "rels": (
        "MATCH (:Node)-[r:EDGE]->(:Node) RETURN r.relationship_name AS rel, count(*) AS n "
        "ORDER BY rel"
    ),
    "entity_of_type": (
        "MATCH (e:Node {type: 'Entity'})-[:EDGE {relationship_name: 'is_a'}]->(t:Node) "
        "RETURN e.name, t.name ORDER BY e.name"
    ),
    "two_hops": (
        "MATCH (c:Node {type: 'DocumentChunk'})-[:EDGE]->(e:Node {type: 'Entity'})"
        "-[r:EDGE]->(x:Node) RETURN DISTINCT e.name, r.relationship_name, x.name "
        "ORDER BY e.name, r.relationship_name, x.name"
    ),
    "optional": (
        "MATCH (n:Node {type: 'Entity'}) OPTIONAL MATCH (n)-[r:EDGE]->(m:Node {type: 'Entity'}) "
        "RETURN n.name, collect(m.name) AS targets ORDER BY n.name"
    ),
    "unwind_keys": "MATCH (n:Node {name: 'alice'}) UNWIND keys(n) AS k RETURN k ORDER BY k",
    "properties_blob": "MATCH (n:Node {name: 'alice'}) RETURN n.properties",
    "no_rows": "MATCH (n:Node {name: 'nobody'}) RETURN n.name",
}
#: What the fake LLM writes when NATURAL_LANGUAGE asks it for Cypher.
NL_CYPHER = (
    "MATCH (p:Node)-[r:EDGE]->(o:Node) WHERE r.relationship_name = 'works_at' "
    "RETURN p.name AS person, o.name AS organisation"
)
WRITE_QUERY = "MATCH (n:Node) DETACH DELETE n"
LUCKY_CYPHER = "MATCH (n:Node {type: 'Entity'}) RETURN n.name ORDER BY n.name LIMIT 3"


def _answer_by_prompt(fake_module: Any) -> None:
    """The fake's chat answer, chosen by the system prompt: the search type selector gets
    CYPHER, the natural-language retriever gets :data:`NL_CYPHER`."""
    original = fake_module._answer_chat

    def answer(body: dict[str, Any], record: dict[str, Any]) -> dict[str, Any]:
        system = " ".join(
            str(m.get("content")) for m in body.get("messages", []) if m.get("role") == "system"
        )
        reply = original(body, record)
        text = None
        if "SearchType" in system and "GraphRAG" in system:
            text = "CYPHER"
        elif "Cypher" in system or "cypher" in system:
            text = NL_CYPHER
            record["system"] = system
        if text is not None:
            record["answered"] = text
            content = reply["choices"][0]["message"]["content"]
            if content.lstrip().startswith(("{", '"')):  # a JSON-schema request
                text = json.dumps(_wrap(body, text))
            reply["choices"][0]["message"]["content"] = text
        return reply

    fake_module._answer_chat = answer


def _wrap(body: dict[str, Any], text: str) -> Any:
    """A str response model sent as a JSON schema: the one string property it asks for."""
    schema = ((body.get("response_format") or {}).get("json_schema") or {}).get("schema") or {}
    props = list((schema.get("properties") or {}).keys())
    return {props[0]: text} if props else text


async def _search(kind: str, text: str, **kwargs: Any) -> Any:
    import cognee
    from cognee.modules.search.types import SearchType

    results = await cognee.search(query_text=text, query_type=SearchType[kind], **kwargs)
    return [r.model_dump() if hasattr(r, "model_dump") else r for r in results]


async def run(rec: Recorder, fake: Any) -> None:
    import cognee
    from cognee.context_global_variables import set_database_global_context_variables
    from cognee.infrastructure.databases.graph import get_graph_engine
    from cognee.low_level import setup
    from cognee.modules.users.methods import get_default_user

    await setup()  # a fresh system root: nothing to prune
    await cognee.add(DOCS, dataset_name="notes")
    await rec.step("cognify", lambda: _ok(cognee.cognify(datasets=["notes"])))

    for name, query in USER_QUERIES.items():
        await rec.step(f"cypher.{name}", lambda q=query: _search("CYPHER", q, datasets=["notes"]))

    start = len(fake.requests)
    await rec.step(
        "natural_language",
        lambda: _search("NATURAL_LANGUAGE", "Who works where?", datasets=["notes"]),
    )
    asked = [r for r in fake.requests[start:] if "answered" in r]
    rec.results["natural_language.llm"] = encode([r.get("system", "") for r in asked])

    start = len(fake.requests)
    await rec.step(
        "feeling_lucky", lambda: _search("FEELING_LUCKY", LUCKY_CYPHER, datasets=["notes"])
    )
    rec.results["feeling_lucky.llm"] = encode(
        [r["answered"] for r in fake.requests[start:] if "answered" in r]
    )

    user = await get_default_user()
    (dataset,) = await cognee.datasets.list_datasets(user=user)
    async with set_database_global_context_variables(dataset.id, dataset.owner_id):
        graph = await get_graph_engine()
        await host_queries(rec, graph)
    # Last: LadybugDB runs the write (and empties the graph); anatid refuses it.
    await rec.step("cypher.write", lambda: _search("CYPHER", WRITE_QUERY, datasets=["notes"]))
    await rec.step(
        "cypher.after_write", lambda: _search("CYPHER", USER_QUERIES["types"], datasets=["notes"])
    )


async def host_queries(rec: Recorder, graph: Any) -> None:
    """Cognee's own functions that send Cypher to ``graph_engine.query``."""
    from cognee.infrastructure.databases.graph.degree_seeds import cypher_degree_seeds
    from cognee.modules.migrations.versions import namespace_entity_type_node_ids as namespace
    from cognee.modules.migrations.versions import rekey_fork_document_ids as rekey
    from cognee.modules.retrieval.natural_language_retriever import NaturalLanguageRetriever

    # The graph as Cognee's own reads see it (not Cypher): the oracle for the degree seeds.
    await rec.step("graph.nodes", lambda: _nodes(graph))
    await rec.step("graph.edges", lambda: _edges(graph))
    await rec.step("host.nl_schema", lambda: NaturalLanguageRetriever()._get_graph_schema(graph))
    await rec.step("host.degree_seeds", lambda: cypher_degree_seeds(graph, 4, typed=True))
    await rec.step("host.degree_seeds_all", lambda: cypher_degree_seeds(graph, 500, typed=True))
    edges = await graph.query(
        "MATCH (a:Node)-[r:EDGE]->(b:Node) RETURN a.id, b.id, r.relationship_name"
    )
    at_risk = [(str(a), str(b), rel) for a, b, rel in edges][:3] + [("x", "y", "gone")]
    await rec.step(
        "host.edges_needing_reassert",
        lambda: namespace._edges_needing_reassert(graph, at_risk),
    )
    await rec.step(
        "host.rekey_fast_move",
        lambda: rekey._fast_move_provenance_ladybug(graph, "no-such-key", "other-key"),
    )
    await rec.step("host.health", lambda: _health(graph))


async def _nodes(graph: Any) -> Any:
    nodes, _ = await graph.get_graph_data()
    return unordered([str(i), d.get("type"), d.get("name")] for i, d in nodes)


async def _edges(graph: Any) -> Any:
    _, edges = await graph.get_graph_data()
    return unordered([str(e[0]), str(e[1]), e[2]] for e in edges)


async def _health(graph: Any) -> Any:
    """The health check's graph query: it sends it to an engine that has no ``is_empty``."""
    from cognee.api.v1.health.health import HealthChecker

    # The package re-exports the function under the module's name: fetch the module itself.
    factory = importlib.import_module("cognee.infrastructure.databases.graph.get_graph_engine")

    class QueryOnly:
        async def query(self, query: str, params: dict | None = None) -> Any:
            return await graph.query(query, params)

    async def engine() -> QueryOnly:
        return QueryOnly()

    real = factory.get_graph_engine
    factory.get_graph_engine = engine  # type: ignore[assignment]
    try:
        health = await HealthChecker().check_graph_db()
    finally:
        factory.get_graph_engine = real  # type: ignore[assignment]
    return health.status.value


async def _ok(call: Any) -> str:
    await call
    return "ok"


def main() -> None:
    backend, workdir, out = sys.argv[1], Path(sys.argv[2]), Path(sys.argv[3])
    from tests.cognee import fake_openai

    _answer_by_prompt(fake_openai)
    with fake_openai.serve_fake_openai() as fake:
        configure_environment(backend, workdir, fake.url)
        # Cognee refuses CYPHER and NATURAL_LANGUAGE searches unless the deployment opts in.
        os.environ["ALLOW_CYPHER_QUERY"] = "true"

        async def go() -> dict[str, Any]:
            if backend == "anatid":
                import anatid_cognee  # noqa: F401  (registers the "anatid" provider)
            from tests.cognee.cognee_fakes import install_hash_embeddings

            install_hash_embeddings()
            rec = Recorder()
            await run(rec, fake)
            return rec.results

        results = asyncio.run(go())
    out.write_text(json.dumps({"backend": backend, "results": results}, ensure_ascii=False))


if __name__ == "__main__":
    main()
