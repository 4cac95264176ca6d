"""A Graphiti memory on a file with one episode to erase, each of its records carrying unique
tokens, beside records that must stay (issue 15). Built through Graphiti's real pipeline with the
deterministic fakes, then read back as raw bytes.

Group ``g1``: the keeper episode ("Alice works at Acme.") and the victim episode, which mentions
Alice and Acme again (so they stay) and two entities only it mentions, Quorvex and Zembla, plus
``ORPHANS`` entities sharing one attribute value. Group ``g2``: a bystander episode.

The tokens: an entity name (``Quorvex``, also a full-text term), a nested attribute, a long text
(the victim's 3,000-word content, which DuckDB compresses), a value repeated in ``ORPHANS`` rows,
the source description, and the float32 bytes of two distinctive embeddings (Quorvex's name
embedding and the Quorvex-Zembla fact's), each written as a second version of its record.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from anatid_graphiti import GraphitiDriver
from graphiti_core.edges import EntityEdge, EpisodicEdge
from graphiti_core.graphiti import AddEpisodeResults
from graphiti_core.nodes import EntityNode

from tests.core.erasure_data import scan, uncompressed

from .conftest import add, make_graphiti
from .fakes import EMBEDDING_DIM

ORPHANS = 2000
FILLER = "river stone cloud house tree light north field glass paper storm".split()

NEEDLES: dict[str, bytes] = {
    "name": b"Quorvex",
    "term": b"quorvex",  # the full-text posting of the name
    "other_name": b"Zembla",
    "nested": b"zqxnestedtok",
    "long": b"zqxlongtok",
    "repeat": b"zqxrepeattok",
    "source": b"zqxsourcetok",
}


def vector(seed: float) -> np.ndarray:
    """A distinctive embedding: its float32 bytes occur nowhere else."""
    return np.asarray(
        [0.1234567 * (i + 1) ** 1.5 + seed for i in range(EMBEDDING_DIM)], dtype=np.float32
    )


def needles() -> dict[str, bytes]:
    found = dict(NEEDLES)
    found["name_vector"] = vector(7.0).tobytes()
    found["fact_vector"] = vector(9.0).tobytes()
    return found


def victim_body() -> str:
    rng = random.Random(15)
    words = lambda n: " ".join(rng.choice(FILLER) for _ in range(n))  # noqa: E731
    return (
        "Quorvex met Zembla at the harbour. Alice visited Acme. "
        f"{words(1500)} zqxlongtok {words(1500)}"
    )


@dataclass
class Built:
    path: Path
    keeper: AddEpisodeResults
    victim: AddEpisodeResults
    bystander: AddEpisodeResults
    quorvex: EntityNode
    alice: EntityNode
    acme: EntityNode
    orphans: list[str]


def _named(results: AddEpisodeResults, name: str) -> EntityNode:
    return next(n for n in results.nodes if n.name == name)


async def build(path: Path) -> Built:
    """Write the memory and close it (checkpointed: the scan reads the file as it rests)."""
    driver = GraphitiDriver(path)
    uncompressed(driver.store)
    try:
        g = make_graphiti(driver)
        keeper = await add(g, "Alice works at Acme.", 1, group_id="g1")
        victim = await g.add_episode(
            name="victim",
            episode_body=victim_body(),
            source_description="zqxsourcetok chat",
            reference_time=keeper.episode.valid_at,
            group_id="g1",
        )
        bystander = await add(g, "Bob knows Carol.", 3, group_id="g2")
        quorvex = _named(victim, "Quorvex")
        quorvex.attributes = {"address": {"street": {"line": "zqxnestedtok"}}}
        quorvex.name_embedding = vector(7.0).tolist()
        await quorvex.save(driver)  # a second version of the entity
        fact = next(e for e in victim.edges if "Zembla" in e.fact)
        fact.fact_embedding = vector(9.0).tolist()
        await fact.save(driver)
        orphans = [
            EntityNode(name=f"visitor {i}", group_id="g1", attributes={"visit": "zqxrepeattok"})
            for i in range(ORPHANS)
        ]
        await driver.entity_node_ops.save_bulk(driver, orphans)
        mentions = [
            EpisodicEdge(
                source_node_uuid=victim.episode.uuid,
                target_node_uuid=o.uuid,
                group_id="g1",
                created_at=victim.episode.created_at,
            )
            for o in orphans
        ]
        await driver.episodic_edge_ops.save_bulk(driver, mentions)
        alice = await EntityNode.get_by_uuid(driver, _named(keeper, "Alice").uuid)
        acme = await EntityNode.get_by_uuid(driver, _named(keeper, "Acme").uuid)
    finally:
        await driver.close()
    return Built(path, keeper, victim, bystander, quorvex, alice, acme, [o.uuid for o in orphans])


def facts_of(built: Built) -> set[str]:
    """The victim's facts (its only episode is the victim)."""
    return {e.uuid for e in built.victim.edges}


def found(path: Path) -> dict[str, int]:
    return scan(path, needles())


__all__ = [
    "ORPHANS",
    "Built",
    "EntityEdge",
    "build",
    "facts_of",
    "found",
    "needles",
    "vector",
]
