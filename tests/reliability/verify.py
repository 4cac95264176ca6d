"""After a kill: reopen the store and hold it against the model.

* Every operation the side log records is there in full, and nothing else is, except possibly
  the one operation in flight when the writer died (its commit may have returned before the log
  line was written): the current records equal the model after ``n`` or ``n + 1`` operations.
* The full-text and vector arms agree with the rows: a sampled current record is found by its own
  text and by its own embedding; a sampled vanished or superseded version is not found (every hit
  is a current record, carrying its current content).
* ``Store.check()`` finds nothing.
* The driver reads back what the model says (Graphiti's own getters; Cognee's adapters).
"""

from __future__ import annotations

import asyncio
import random
from typing import Any

from anatid_core import Store

from .workloads import Rec, State, Workload, apply_effects, fingerprint, iter_lines


def observe(store: Store, workload: Workload) -> tuple[State, dict[str, Any]]:
    """The current records as the model sees them, and the records themselves by key."""
    state: State = {}
    items: dict[str, Any] = {}
    for n in store.find_nodes():
        if workload.ignored(n.group):
            continue
        state["n:" + n.id] = Rec(fingerprint(n.name, n.text))
        items["n:" + n.id] = n
    for e in store.find_edges():
        state["e:" + e.id] = Rec(fingerprint(e.name, e.text), (e.src, e.dst))
        items["e:" + e.id] = e
    return state, items


def _same(observed: State, expected: State) -> bool:
    if observed.keys() != expected.keys():
        return False
    for key, want in expected.items():
        got = observed[key]
        if want.fingerprint is not None and got.fingerprint != want.fingerprint:
            return False
        if want.ends is not None and got.ends != want.ends:
            return False
    return True


def _diff(observed: State, expected: State) -> str:
    missing = sorted(expected.keys() - observed.keys())
    extra = sorted(observed.keys() - expected.keys())
    changed = sorted(
        k
        for k in expected.keys() & observed.keys()
        if expected[k].fingerprint is not None
        and expected[k].fingerprint != observed[k].fingerprint
    )
    return f"missing {missing[:5]} ({len(missing)}), extra {extra[:5]} ({len(extra)}), changed {changed[:5]} ({len(changed)})"


def model_states(workload: Workload, logged: int) -> tuple[State, State, dict[str, Rec]]:
    """The model after ``logged`` and ``logged + 1`` operations, and every removed version."""
    state: State = {}
    ghosts: dict[str, Rec] = {}
    for j in range(logged + 1):
        if j == logged:
            before = dict(state)
        for verb, key, rec in workload.effects(j):
            old = state.get(key)
            if old is not None and (verb != "put" or old != rec):
                ghosts[key] = old
        apply_effects(state, workload.effects(j))
    return before, state, ghosts


def _text_query(rec: Rec) -> str:
    return (rec.fingerprint or "").replace("\x1f", " ").strip()


def check_arms(
    store: Store,
    observed: State,
    items: dict[str, Any],
    ghosts: dict[str, Rec],
    rng: random.Random,
    sample: int,
) -> list[str]:
    problems: list[str] = []

    def current(hit: Any, kind: str) -> bool:
        key = ("n:" if kind == "node" else "e:") + hit.id
        rec = observed.get(key)
        item = hit.item
        return rec is not None and rec.fingerprint == fingerprint(item.name, item.text)

    keys = sorted(observed)
    for key in rng.sample(keys, min(sample, len(keys))):
        kind = "node" if key[0] == "n" else "edge"
        query = _text_query(observed[key])
        if query:
            hits = store.search_text(query, kind=kind, k=50)  # type: ignore[arg-type]
            if key[2:] not in {h.id for h in hits}:
                problems.append(f"text arm: {key} not found by its own text {query[:60]!r}")
            problems += [
                f"text arm: hit {h.id} is not the current record"
                for h in hits
                if not current(h, kind)
            ]
        vectors = store.get_embeddings([key[2:]], kind=kind)  # type: ignore[arg-type]
        if vectors:
            space = items[key].space
            hits = store.search_vector(vectors[key[2:]], kind=kind, space=space, k=5)  # type: ignore[arg-type]
            # Equal embeddings tie at score 1 (the fake embedders give one-word names one-hot
            # vectors): then the top k may all be others with the very same vector.
            tied = len(hits) == 5 and hits[-1].score >= 1.0 - 1e-6
            if key[2:] not in {h.id for h in hits} and not tied:
                problems.append(f"vector arm: {key} not found by its own embedding")
            problems += [
                f"vector arm: hit {h.id} is not the current record"
                for h in hits
                if not current(h, kind)
            ]
    gone = sorted(ghosts)
    for key in rng.sample(gone, min(sample, len(gone))):
        kind = "node" if key[0] == "n" else "edge"
        query = _text_query(ghosts[key])
        if query:
            hits = store.search_text(query, kind=kind, k=50)  # type: ignore[arg-type]
            problems += [
                f"text arm: {h.id} found by the text of a removed version"
                for h in hits
                if not current(h, kind)
            ]
        for old in store.history(key[2:], kind=kind)[-2:]:  # type: ignore[arg-type]
            if old.tx_to is None:
                continue
            past = store.as_of(tx_time=old.tx_from).get_embeddings([old.id], kind=kind)  # type: ignore[arg-type]
            if old.id in past:
                hits = store.search_vector(past[old.id], kind=kind, space=old.space, k=5)  # type: ignore[arg-type]
                problems += [
                    f"vector arm: {h.id} found through a removed version"
                    for h in hits
                    if not current(h, kind)
                ]
    return problems


def _driver_reads(workload: Workload, path: str, observed: State) -> list[str]:
    if workload.name == "graphiti":
        return asyncio.run(_graphiti_reads(workload, path, observed))
    if workload.name == "cognee":
        return asyncio.run(_cognee_reads(path, observed))
    return []


async def _graphiti_reads(workload: Workload, path: str, observed: State) -> list[str]:
    from anatid_graphiti import GraphitiDriver
    from graphiti_core.edges import EntityEdge
    from graphiti_core.nodes import EntityNode, EpisodicNode

    driver = GraphitiDriver(path)
    try:
        problems = []
        nodes = {k[2:] for k in observed if k[0] == "n"}
        edges = {k[2:] for k in observed if k[0] == "e"}
        episodes = await EpisodicNode.get_by_uuids(driver, sorted(nodes))
        entities = await EntityNode.get_by_uuids(driver, sorted(nodes))
        if len(episodes) + len(entities) != len(nodes):
            problems.append(
                f"graphiti getters return {len(episodes)} episodes + {len(entities)} entities "
                f"for {len(nodes)} stored nodes"
            )
        facts = await EntityEdge.get_by_uuids(driver, sorted(edges))
        expected_facts = sum(
            1
            for k, r in observed.items()
            if k[0] == "e" and r.fingerprint and r.fingerprint != "\x1f"
        )
        if len(facts) != expected_facts:
            problems.append(
                f"graphiti EntityEdge.get_by_uuids returned {len(facts)} of {expected_facts}"
            )
        return problems
    finally:
        await driver.close()


async def _cognee_reads(path: str, observed: State) -> list[str]:
    from anatid_cognee import AnatidGraphAdapter, AnatidVectorAdapter
    from anatid_cognee.vector_adapter import ROW_GROUP_PREFIX  # noqa: F401 - documents the id shape

    from tests.cognee.cognee_fakes import HashEmbeddingEngine

    from .workloads import CogneeWorkload

    graph = AnatidGraphAdapter(graph_database_url=path)
    vector = AnatidVectorAdapter(url=path, embedding_engine=HashEmbeddingEngine())
    try:
        problems = []
        prefix = CogneeWorkload.COLLECTION + ":"
        rows = [k[2:] for k in observed if k.startswith("n:" + prefix)]
        graph_nodes = [k[2:] for k in observed if k[0] == "n" and not k.startswith("n:" + prefix)]
        got = await graph.get_nodes(graph_nodes)
        if len(got) != len(graph_nodes):
            problems.append(f"cognee get_nodes returned {len(got)} of {len(graph_nodes)}")
        _, edges = await graph.get_graph_data()
        want_edges = sum(1 for k in observed if k[0] == "e")
        if len(edges) != want_edges:
            problems.append(f"cognee get_graph_data has {len(edges)} edges, expected {want_edges}")
        if rows:
            found = await vector.retrieve(
                CogneeWorkload.COLLECTION, [r[len(prefix) :] for r in rows]
            )
            if len(found) != len(rows):
                problems.append(f"cognee vector retrieve returned {len(found)} of {len(rows)}")
        return problems
    finally:
        await graph.close()
        await vector.close()


def verify(workload: Workload, path: str, log: str, *, sample: int = 40) -> dict[str, Any]:
    """Reopen ``path`` and compare it with the model; returns the committed count and problems."""
    logged = max(iter_lines(log), default=-1) + 1
    before, after, ghosts = model_states(workload, logged)
    problems: list[str] = []
    with Store.open(path) as store:
        observed, items = observe(store, workload)
        if _same(observed, before):
            committed = logged
        elif _same(observed, after):
            committed = logged + 1
        else:
            committed = -1
            problems.append(
                f"after {logged} logged operations the store matches neither the model after "
                f"{logged} ({_diff(observed, before)}) nor after {logged + 1} ({_diff(observed, after)})"
            )
        problems += [f"check(): {p}" for p in store.check()]
        problems += check_arms(store, observed, items, ghosts, random.Random(logged), sample)
    problems += _driver_reads(workload, path, observed)
    return {
        "logged": logged,
        "committed": committed,
        "records": len(observed),
        "problems": problems,
    }
