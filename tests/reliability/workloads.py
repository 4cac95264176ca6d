"""Deterministic write workloads for the crash tests, and the model that predicts their result.

A workload is a numbered sequence of operations; operation ``j`` is one committed transaction and
depends only on ``(seed, j)``, so a writer can stop anywhere and a later writer can go on from the
next number. :meth:`Workload.effects` describes what an operation does to the set of current
records (puts and deletes, keyed ``n:<id>`` / ``e:<id>``), so replaying the effects of operations
``0..n-1`` on a plain dict gives the exact state the store must show after ``n`` commits.

Three workloads: the core store itself (inserts, updates, detach deletes, edge deletes, purges,
several write verbs in one transaction), GraphitiDriver (Graphiti's own
``add_nodes_and_edges_bulk``, the path ``add_episode`` takes) and the Cognee adapters
(``add_nodes``, ``add_edges`` and the vector adapter's ``create_data_points``).
"""

from __future__ import annotations

import random
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from typing import Any


#: What one record looks like to the model: a fingerprint (``None``: presence only) and, for
#: edges, its endpoints (a detach delete of a node removes the edges that touch it).
@dataclass(frozen=True)
class Rec:
    fingerprint: str | None
    ends: tuple[str, str] | None = None


State = dict[str, Rec]
T0 = datetime(2025, 1, 1, tzinfo=timezone.utc)
DIM = 8


def fingerprint(name: str, text: str) -> str:
    return f"{name}\x1f{text}"


def _rng(seed: int, j: int, salt: str = "") -> random.Random:
    return random.Random(f"{seed}:{j}:{salt}")


def _vector(rng: random.Random, dim: int = DIM) -> list[float]:
    return [rng.uniform(-1.0, 1.0) for _ in range(dim)]


def apply_effects(state: State, effects: list[tuple[str, str, Rec | None]]) -> None:
    """Apply one operation's effects: ``("put", key, rec)``, ``("del", key)``, ``("detach", key)``."""
    for verb, key, rec in effects:
        if verb == "put":
            assert rec is not None
            state[key] = rec
        elif verb == "del":
            state.pop(key, None)
        elif verb == "detach":
            state.pop(key, None)
            node_id = key[2:]
            for k in [k for k, r in state.items() if r.ends and node_id in r.ends]:
                del state[k]
        else:  # pragma: no cover - a workload bug
            raise AssertionError(verb)


class Workload:
    """Base class: ``effects(j)`` for the model, ``run(target, j)`` for the writer."""

    name = "base"
    #: Modules the fork server imports once, so each writer starts in milliseconds.
    preload: tuple[str, ...] = ("anatid_core",)

    def __init__(self, seed: int) -> None:
        self.seed = seed

    def effects(self, j: int) -> list[tuple[str, str, Rec | None]]:
        raise NotImplementedError

    def state(self, n: int) -> State:
        state: State = {}
        for j in range(n):
            apply_effects(state, self.effects(j))
        return state

    def ignored(self, node_group: str) -> bool:
        """Records outside the model (bookkeeping a driver keeps for itself)."""
        return False


# ------------------------------------------------------------------------------------- core


class CoreWorkload(Workload):
    """Batches of nodes and edges through the core verbs, several verbs per transaction."""

    name = "core"

    def _kind(self, j: int) -> str:
        if j < 3:
            return "insert"
        roll = _rng(self.seed, j, "kind").random()
        for kind, upto in (("insert", 0.55), ("update", 0.7), ("delete", 0.82), ("unlink", 0.9)):
            if roll < upto:
                return kind
        return "purge"

    def _batch(self, j: int) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
        rng = _rng(self.seed, j, "batch")
        size = rng.randint(5, 60)
        nodes = [
            {
                "id": f"b{j}-{i}",
                "group": f"g{j % 3}",
                "name": f"batch{j} node{i}",
                "text": f"tok{j}x{i} "
                + " ".join(rng.choice(WORDS) for _ in range(rng.randint(0, 12))),
                "embedding": _vector(rng),
                "props": {"batch": j, "i": i, "size": size},
            }
            for i in range(size)
        ]
        edges = [
            {
                "id": f"e{j}-{i}",
                "src": f"b{j}-{i}",
                "dst": f"b{j}-{i + 1}",
                "text": f"link{j}x{i} " + rng.choice(WORDS),
                "embedding": _vector(rng, 4),
            }
            for i in range(size - 1)
        ]
        return nodes, edges

    def _target(self, j: int) -> int:
        """The earlier batch an update, delete or purge touches."""
        return _rng(self.seed, j, "target").randrange(0, j)

    def _update(self, j: int) -> list[dict[str, Any]]:
        target = self._target(j)
        nodes, _ = self._batch(target)
        rng = _rng(self.seed, j, "update")
        return [
            {**n, "text": f"upd{j}x{n['props']['i']} rewritten", "embedding": _vector(rng)}
            for n in nodes[: len(nodes) // 2 + 1]
        ]

    def effects(self, j: int) -> list[tuple[str, str, Rec | None]]:
        kind = self._kind(j)
        if kind == "insert":
            nodes, edges = self._batch(j)
            return [
                ("put", "n:" + n["id"], Rec(fingerprint(n["name"], n["text"]))) for n in nodes
            ] + [
                ("put", "e:" + e["id"], Rec(fingerprint("", e["text"]), (e["src"], e["dst"])))
                for e in edges
            ]
        if kind == "update":
            return [
                ("put", "n:" + n["id"], Rec(fingerprint(n["name"], n["text"])))
                for n in self._update(j)
            ]
        nodes, edges = self._batch(self._target(j))
        if kind == "delete":
            return [("detach", "n:" + n["id"], None) for n in nodes[::2]]
        if kind == "unlink":
            return [("del", "e:" + e["id"], None) for e in edges]
        return [("detach", "n:" + n["id"], None) for n in nodes]  # purge

    def run(self, store: Any, j: int) -> None:
        from anatid_core import Edge, Node

        kind = self._kind(j)
        with store.transaction():
            if kind == "insert":
                nodes, edges = self._batch(j)
                half = len(nodes) // 2
                # Two upserts and an edge upsert: a crash between them must leave nothing.
                store.upsert_nodes([Node(**n) for n in nodes[:half]])
                store.upsert_nodes([Node(**n) for n in nodes[half:]])
                store.upsert_edges([Edge(rel="NEXT", **e) for e in edges])
            elif kind == "update":
                store.upsert_nodes([Node(**n) for n in self._update(j)])
            else:
                nodes, edges = self._batch(self._target(j))
                if kind == "delete":
                    store.delete_nodes([n["id"] for n in nodes[::2]], detach=True)
                elif kind == "unlink":
                    store.delete_edges([e["id"] for e in edges])
                else:
                    store.purge_nodes([n["id"] for n in nodes])


WORDS = (
    "alpha beta gamma delta river mountain coffee anvil meeting project deadline budget "
    "graph memory episode agent fact summary Ünïcödé 東京 naïve café"
).split()


# ---------------------------------------------------------------------------------- graphiti


def _uuid(*parts: object) -> str:
    return str(uuid.uuid5(uuid.NAMESPACE_URL, "anatid-reliability/" + "/".join(map(str, parts))))


class GraphitiWorkload(Workload):
    """One episode with its entities and facts per operation, saved the way add_episode saves
    them (``add_nodes_and_edges_bulk``: one ``session.execute_write``); every fourth operation
    also re-saves an earlier episode's entities with new summaries."""

    name = "graphiti"
    preload = (
        "anatid_core",
        "anatid_graphiti",
        "graphiti_core.utils.bulk_utils",
        "tests.graphiti.fakes",
    )

    def _records(self, j: int) -> dict[str, Any]:
        rng = _rng(self.seed, j, "graphiti")
        size = rng.randint(2, 8)
        group = f"grp{j % 4}"
        when = T0 + timedelta(minutes=j)
        names = [f"Entity{j}x{i}" for i in range(size)]
        entities = [
            {
                "uuid": _uuid(self.seed, "ent", j, i),
                "name": names[i],
                "group_id": group,
                "summary": f"{names[i]} summary {rng.choice(WORDS)}",
                "created_at": when,
            }
            for i in range(size)
        ]
        facts = [
            {
                "uuid": _uuid(self.seed, "fact", j, i),
                "src": entities[i]["uuid"],
                "dst": entities[i + 1]["uuid"],
                "name": "RELATES_TO",
                "fact": f"{names[i]} relates to {names[i + 1]} fact{j}x{i}",
                "group_id": group,
                "created_at": when,
            }
            for i in range(size - 1)
        ]
        episode = {
            "uuid": _uuid(self.seed, "ep", j),
            "name": f"episode{j}",
            "group_id": group,
            "content": f"Episode {j}: " + " ".join(names),
            "created_at": when,
        }
        mentions = [
            {
                "uuid": _uuid(self.seed, "mention", j, i),
                "src": episode["uuid"],
                "dst": e["uuid"],
                "group_id": group,
                "created_at": when,
            }
            for i, e in enumerate(entities)
        ]
        resaved: list[dict[str, Any]] = []
        if j >= 4 and j % 4 == 0:
            earlier = self._records(_rng(self.seed, j, "resave").randrange(0, j))["entities"]
            resaved = [{**e, "summary": f"{e['name']} revised in op{j}"} for e in earlier]
        return {
            "episode": episode,
            "entities": entities,
            "facts": facts,
            "mentions": mentions,
            "resaved": resaved,
        }

    def effects(self, j: int) -> list[tuple[str, str, Rec | None]]:
        r = self._records(j)
        ep = r["episode"]
        out: list[tuple[str, str, Rec | None]] = [
            ("put", "n:" + ep["uuid"], Rec(fingerprint(ep["name"], ep["content"])))
        ]
        for e in [*r["entities"], *r["resaved"]]:
            out.append(("put", "n:" + e["uuid"], Rec(fingerprint(e["name"], e["summary"]))))
        for f in r["facts"]:
            out.append(
                (
                    "put",
                    "e:" + f["uuid"],
                    Rec(fingerprint(f["name"], f["fact"]), (f["src"], f["dst"])),
                )
            )
        for m in r["mentions"]:
            out.append(("put", "e:" + m["uuid"], Rec(fingerprint("", ""), (m["src"], m["dst"]))))
        return out

    def models(self, j: int) -> tuple[list[Any], list[Any], list[Any], list[Any]]:
        from graphiti_core.edges import EntityEdge, EpisodicEdge
        from graphiti_core.nodes import EntityNode, EpisodeType, EpisodicNode

        r = self._records(j)
        ep = r["episode"]
        episode = EpisodicNode(
            uuid=ep["uuid"],
            name=ep["name"],
            group_id=ep["group_id"],
            source=EpisodeType.text,
            source_description="",
            content=ep["content"],
            created_at=ep["created_at"],
            valid_at=ep["created_at"],
            entity_edges=[f["uuid"] for f in r["facts"]],
        )
        entities = [
            EntityNode(
                uuid=e["uuid"],
                name=e["name"],
                group_id=e["group_id"],
                summary=e["summary"],
                created_at=e["created_at"],
                labels=["Entity"],
            )
            for e in [*r["entities"], *r["resaved"]]
        ]
        facts = [
            EntityEdge(
                uuid=f["uuid"],
                source_node_uuid=f["src"],
                target_node_uuid=f["dst"],
                name=f["name"],
                fact=f["fact"],
                group_id=f["group_id"],
                created_at=f["created_at"],
                valid_at=f["created_at"],
                episodes=[ep["uuid"]],
            )
            for f in r["facts"]
        ]
        mentions = [
            EpisodicEdge(
                uuid=m["uuid"],
                source_node_uuid=m["src"],
                target_node_uuid=m["dst"],
                group_id=m["group_id"],
                created_at=m["created_at"],
            )
            for m in r["mentions"]
        ]
        return [episode], mentions, entities, facts

    async def run_async(self, driver: Any, embedder: Any, j: int) -> None:
        from graphiti_core.utils.bulk_utils import add_nodes_and_edges_bulk

        episodes, mentions, entities, facts = self.models(j)
        await add_nodes_and_edges_bulk(driver, episodes, mentions, entities, facts, embedder)


# ------------------------------------------------------------------------------------ cognee


class CogneeWorkload(Workload):
    """Three operations per round ``k``: graph ``add_nodes`` (DataPoints), graph ``add_edges``
    between them, and the vector adapter's ``create_data_points`` for the same points."""

    name = "cognee"
    preload = (
        "anatid_core",
        "anatid_cognee",
        "tests.cognee.cognee_fakes",
        "tests.reliability.cognee_points",
    )
    COLLECTION = "Person_name"

    def _round(self, k: int) -> tuple[list[dict[str, Any]], list[tuple[str, str, str]]]:
        rng = _rng(self.seed, k, "cognee")
        size = rng.randint(2, 10)
        people = [
            {"id": _uuid(self.seed, "person", k, i), "name": f"person{k}x{i} {rng.choice(WORDS)}"}
            for i in range(size)
        ]
        links = [(people[i]["id"], people[i + 1]["id"], f"knows_{k % 3}") for i in range(size - 1)]
        return people, links

    def effects(self, j: int) -> list[tuple[str, str, Rec | None]]:
        from anatid_cognee.records import edge_id
        from anatid_cognee.vector_adapter import row_id

        k, phase = divmod(j, 3)
        people, links = self._round(k)
        if phase == 0:
            return [("put", "n:" + p["id"], Rec(None)) for p in people]
        if phase == 1:
            return [("put", "e:" + edge_id(*link), Rec(None, (link[0], link[1]))) for link in links]
        return [("put", "n:" + row_id(self.COLLECTION, p["id"]), Rec(None)) for p in people]

    def ignored(self, node_group: str) -> bool:
        from anatid_cognee.vector_adapter import COLLECTIONS_GROUP

        return node_group == COLLECTIONS_GROUP

    async def run_async(self, graph: Any, vector: Any, j: int) -> None:
        from tests.reliability.cognee_points import Person

        k, phase = divmod(j, 3)
        people, links = self._round(k)
        points = [Person(id=uuid.UUID(p["id"]), name=p["name"]) for p in people]
        if phase == 0:
            await graph.add_nodes(points)
        elif phase == 1:
            await graph.add_edges([(a, b, rel, {"weight": 1.0}) for a, b, rel in links])
        else:
            await vector.create_data_points(self.COLLECTION, points)


WORKLOADS: dict[str, type[Workload]] = {
    w.name: w for w in (CoreWorkload, GraphitiWorkload, CogneeWorkload)
}


def iter_lines(path: str) -> Iterator[int]:
    """The operation numbers a side log records (a torn last line is ignored)."""
    try:
        with open(path, encoding="utf-8") as fh:
            for line in fh:
                if line.endswith("\n") and line.strip():
                    yield int(line)
    except FileNotFoundError:
        return
