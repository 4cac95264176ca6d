"""Graph maintenance for Graphiti: clearing, communities, mentions.

``get_community_clusters`` uses label propagation like Graphiti's, but bounded: updates are
asynchronous, a node keeps its label when that label is among the best, ties go to the smallest
label, and at most ``MAX_PROPAGATION_ROUNDS`` rounds run. Graphiti's own version can oscillate for
ever on multi-edges (getzep/graphiti#1397).
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from graphiti_core.driver.operations.graph_ops import GraphMaintenanceOperations
from graphiti_core.driver.query_executor import QueryExecutor
from graphiti_core.nodes import CommunityNode, EntityNode, EpisodicNode

from anatid_core import Node, Store

from . import mapping as m
from .erasure import Removal, Targets
from .runner import ReadTarget, StoreRunner

MAX_PROPAGATION_ROUNDS = 64


def label_propagation(projection: dict[str, dict[str, int]]) -> list[list[str]]:
    """Clusters of a weighted undirected graph ``{node: {neighbour: edge count}}``; always ends."""
    order = sorted(projection)
    label = {u: i for i, u in enumerate(order)}
    for _ in range(MAX_PROPAGATION_ROUNDS):
        changed = False
        for u in order:
            weights: dict[int, int] = defaultdict(int)
            for v, count in projection[u].items():
                weights[label[v]] += count
            if not weights:
                continue
            best = max(weights.values())
            candidates = [c for c, w in weights.items() if w == best]
            new = label[u] if label[u] in candidates else min(candidates)
            if new != label[u]:
                label[u], changed = new, True
        if not changed:
            break
    clusters: dict[int, list[str]] = defaultdict(list)
    for u in order:
        clusters[label[u]].append(u)
    return list(clusters.values())


def _projection(r: ReadTarget, entities: list[Node]) -> dict[str, dict[str, int]]:
    """Entities of one group and the RELATES_TO edge counts between them (either direction)."""
    ids = {n.id for n in entities}
    projection: dict[str, dict[str, int]] = {i: defaultdict(int) for i in ids}
    for e in r.edges_of(list(ids), direction="both", rels=[m.RELATES_TO]):
        if e.src in ids and e.dst in ids and e.src != e.dst:
            projection[e.src][e.dst] += 1
            projection[e.dst][e.src] += 1
    return projection


class AnatidGraphMaintenanceOperations(GraphMaintenanceOperations):
    def __init__(self, db: StoreRunner) -> None:
        self._db = db

    async def clear_data(self, executor: QueryExecutor, group_ids: list[str] | None = None) -> None:
        """Erase everything, or every node ever in these groups with its edges (every version;
        history too unless the driver was opened with ``audit_deletes=True``)."""
        if group_ids is None:
            await self._db.remove(Removal(everything=True))
        elif group_ids:
            await self._db.remove(Removal(groups=list(group_ids)))

    async def build_indices_and_constraints(
        self, executor: QueryExecutor, delete_existing: bool = False
    ) -> None:
        """Nothing to build: the store maintains its text and vector indexes on every write."""

    async def delete_all_indexes(self, executor: QueryExecutor) -> None:
        """Nothing to drop: the store's indexes are part of its schema."""

    async def get_community_clusters(
        self, executor: QueryExecutor, group_ids: list[str] | None = None
    ) -> list[Any]:
        def run(r: ReadTarget) -> list[list[EntityNode]]:
            entities = r.find_nodes(groups=group_ids, labels=[m.ENTITY])
            by_group: dict[str, list[Node]] = defaultdict(list)
            for n in entities:
                by_group[n.group].append(n)
            clusters: list[list[EntityNode]] = []
            for group in sorted(by_group):
                nodes = {n.id: n for n in by_group[group]}
                for cluster in label_propagation(_projection(r, by_group[group])):
                    clusters.append([m.to_entity(nodes[u]) for u in cluster])
            return clusters

        return await self._db.read(run)

    async def save_nodes(self, nodes: list[Any]) -> None:
        """Save Graphiti node models of any kind."""
        await self._db.write(lambda s: s.upsert_nodes([m.to_node(n) for n in nodes]))

    async def save_edges(self, edges: list[Any]) -> None:
        """Save Graphiti edge models of any kind (dangling ones are skipped, as on Neo4j)."""
        await self._db.write(
            lambda s: s.upsert_edges([m.to_edge(e) for e in edges], missing_endpoints="skip")
        )

    async def delete_nodes(
        self, uuids: list[str], labels: list[str], group_id: str | None = None, *, step: str = ""
    ) -> None:
        """Erase the current nodes among ``uuids`` carrying any of ``labels``, with their edges
        (``step``: see :meth:`StoreRunner.remove`)."""

        def select(s: Store) -> Targets:
            groups = None if group_id is None else [group_id]
            return [n.id for n in s.find_nodes(ids=list(uuids), labels=labels, groups=groups)], []

        if uuids:
            await self._db.remove(select, step=step)

    async def delete_nodes_of_group(self, group_id: str, labels: list[str]) -> None:
        await self._db.remove(
            lambda s: ([n.id for n in s.find_nodes(groups=[group_id], labels=labels)], [])
        )

    async def delete_edges(
        self,
        uuids: list[str],
        rels: list[str] | None = None,
        group_id: str | None = None,
        *,
        step: str = "",
    ) -> None:
        """Erase the current edges among ``uuids`` of any of ``rels`` (any type if None)."""

        def select(s: Store) -> Targets:
            groups = None if group_id is None else [group_id]
            return [], [e.id for e in s.find_edges(ids=list(uuids), rels=rels, groups=groups)]

        if uuids:
            await self._db.remove(select, step=step)

    async def remove_communities(
        self, executor: QueryExecutor, group_ids: list[str] | None = None
    ) -> None:
        """Erase the communities (every version, with their HAS_MEMBER edges) before
        ``build_communities`` makes new ones: they are derived records, and their LLM-written
        summaries may quote facts that were erased since (docs/drivers/graphiti.md)."""
        groups = group_ids or None
        await self._db.remove(
            lambda s: ([n.id for n in s.find_nodes(groups=groups, labels=[m.COMMUNITY])], [])
        )

    async def determine_entity_community(  # type: ignore[override]
        self, executor: QueryExecutor, entity: EntityNode
    ) -> tuple[CommunityNode | None, bool]:
        """(community, is_new): the entity's community, else its neighbours' most common one."""

        def run(r: ReadTarget) -> tuple[CommunityNode | None, bool]:
            member_of = r.edges_of([entity.uuid], direction="in", rels=[m.HAS_MEMBER])
            if member_of:
                return self._community(r, member_of[0].src), False
            counts: dict[str, int] = defaultdict(int)
            for e in r.edges_of([entity.uuid], direction="both", rels=[m.RELATES_TO]):
                other = e.dst if e.src == entity.uuid else e.src
                for membership in r.edges_of([other], direction="in", rels=[m.HAS_MEMBER]):
                    counts[membership.src] += 1
            if not counts:
                return None, False
            best = max(counts.values())
            return self._community(r, next(c for c, n in counts.items() if n == best)), True

        return await self._db.read(run)

    @staticmethod
    def _community(r: ReadTarget, uuid: str) -> CommunityNode | None:
        node = r.get_node(uuid)
        if node is None or m.COMMUNITY not in node.labels:
            return None
        return m.to_community(node, r.get_embeddings([uuid]).get(uuid))

    async def get_mentioned_nodes(
        self, executor: QueryExecutor, episodes: list[EpisodicNode]
    ) -> list[EntityNode]:
        def run(r: ReadTarget) -> list[EntityNode]:
            mentions = r.edges_of([e.uuid for e in episodes], direction="out", rels=[m.MENTIONS])
            nodes = r.get_nodes(list(dict.fromkeys(e.dst for e in mentions)))
            return [m.to_entity(n) for n in nodes if m.ENTITY in n.labels]

        if not episodes:
            return []
        return await self._db.read(run)

    async def get_communities_by_nodes(
        self, executor: QueryExecutor, nodes: list[EntityNode]
    ) -> list[CommunityNode]:
        def run(r: ReadTarget) -> list[CommunityNode]:
            members = r.edges_of([n.uuid for n in nodes], direction="in", rels=[m.HAS_MEMBER])
            found = r.get_nodes(list(dict.fromkeys(e.src for e in members)))
            communities = [c for c in found if m.COMMUNITY in c.labels]
            vectors = r.get_embeddings([c.id for c in communities])
            return [m.to_community(c, vectors.get(c.id)) for c in communities]

        if not nodes:
            return []
        return await self._db.read(run)


__all__ = ["MAX_PROPAGATION_ROUNDS", "AnatidGraphMaintenanceOperations", "label_propagation"]
