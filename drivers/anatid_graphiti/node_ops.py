"""Graphiti's node operations (``driver.entity_node_ops`` ... ``saga_node_ops``) over the store.

One generic implementation of the CRUD every node kind shares, told apart by the kind's label;
each kind adds its extras (embeddings, episode retrieval, saga queries). The ``executor`` and
``tx`` arguments of Graphiti's signatures are accepted and not needed: the operations are bound
to their driver, and a store call made inside ``driver.transaction()`` or
``session.execute_write`` joins that transaction by itself.
"""

from __future__ import annotations

import functools
from datetime import datetime
from typing import Any, Generic, TypeVar

from graphiti_core.driver.operations.community_node_ops import CommunityNodeOperations
from graphiti_core.driver.operations.entity_node_ops import EntityNodeOperations
from graphiti_core.driver.operations.episode_node_ops import EpisodeNodeOperations
from graphiti_core.driver.operations.saga_node_ops import SagaNodeOperations
from graphiti_core.driver.query_executor import QueryExecutor, Transaction
from graphiti_core.nodes import CommunityNode, EntityNode, EpisodeType, EpisodicNode, SagaNode
from graphiti_core.nodes import Node as GraphitiNode

from anatid_core import Cond, Node

from . import mapping as m
from .errors import node_not_found
from .filters import aware
from .runner import ReadTarget, StoreRunner

M = TypeVar("M", bound=GraphitiNode)

#: One extra episode fetched by retrieve_episodes shows whether valid_at ties cross the cut.
TIE_SLACK = 1


def _cursor_where(uuid_cursor: str | None) -> list[list[Cond]] | None:
    return [[Cond("id", "<", uuid_cursor)]] if uuid_cursor else None


class NodeCrud(Generic[M]):
    """save / save_bulk / delete* / get_by_* for the nodes carrying one kind label."""

    kind: str
    #: Whether getters return the name embedding (Neo4j returns it for communities only).
    with_embedding = False

    def __init__(self, db: StoreRunner) -> None:
        self._db = db

    # conversions, overridden per kind
    def to_core(self, node: M) -> Node:  # pragma: no cover - every kind overrides it
        raise TypeError(f"{type(self).__name__} does not convert nodes")

    def from_core(self, node: Node, embedding: list[float] | None) -> M:  # pragma: no cover
        raise TypeError(f"{type(self).__name__} does not convert nodes")

    def _models(self, reader: ReadTarget, nodes: list[Node]) -> list[M]:
        nodes = [n for n in nodes if self.kind in n.labels]
        vectors = reader.get_embeddings([n.id for n in nodes]) if self.with_embedding else {}
        return [self.from_core(n, vectors.get(n.id)) for n in nodes]

    # writes
    async def save(self, executor: QueryExecutor, node: M, tx: Transaction | None = None) -> None:
        await self._db.write(lambda s: s.upsert_nodes([self.to_core(node)]))

    async def save_bulk(
        self,
        executor: QueryExecutor,
        nodes: list[M],
        tx: Transaction | None = None,
        batch_size: int = 100,
    ) -> None:
        await self._db.write(lambda s: s.upsert_nodes([self.to_core(n) for n in nodes]))

    async def delete(self, executor: QueryExecutor, node: M, tx: Transaction | None = None) -> None:
        """Erase the node (every version, with its edges); see :mod:`anatid_graphiti.erasure`."""
        await self._db.remove(lambda s: ([n.id for n in s.find_nodes(ids=[node.uuid])], []))

    async def delete_by_group_id(
        self,
        executor: QueryExecutor,
        group_id: str,
        tx: Transaction | None = None,
        batch_size: int = 100,
    ) -> None:
        await self._db.remove(
            lambda s: ([n.id for n in s.find_nodes(groups=[group_id], labels=[self.kind])], [])
        )

    async def delete_by_uuids(
        self,
        executor: QueryExecutor,
        uuids: list[str],
        tx: Transaction | None = None,
        batch_size: int = 100,
    ) -> None:
        if uuids:
            await self._db.remove(
                lambda s: ([n.id for n in s.find_nodes(ids=list(uuids), labels=[self.kind])], [])
            )

    # reads
    async def get_by_uuid(self, executor: QueryExecutor, uuid: str) -> M:
        found = await self._db.small_read(
            lambda r: self._models(r, [n for n in [r.get_node(uuid)] if n]), 1
        )
        if not found:
            raise node_not_found(uuid)
        return found[0]

    async def get_by_uuids(self, executor: QueryExecutor, uuids: list[str]) -> list[M]:
        if not uuids:
            return []
        return await self._db.small_read(
            lambda r: self._models(r, r.get_nodes(list(uuids))), len(uuids)
        )

    async def get_by_group_ids(
        self,
        executor: QueryExecutor,
        group_ids: list[str],
        limit: int | None = None,
        uuid_cursor: str | None = None,
    ) -> list[M]:
        def run(r: ReadTarget) -> list[M]:
            nodes = r.find_nodes(
                groups=list(group_ids),
                labels=[self.kind],
                where=_cursor_where(uuid_cursor),
                order_by="-id",
                limit=limit,
            )
            return self._models(r, nodes)

        return await self._db.read(run)


class AnatidEntityNodeOperations(NodeCrud[EntityNode], EntityNodeOperations):
    kind = m.ENTITY

    def to_core(self, node: EntityNode) -> Node:
        return m.entity_node(node)

    def from_core(self, node: Node, embedding: list[float] | None) -> EntityNode:
        return m.to_entity(node, embedding)

    async def save_payloads(self, payloads: list[dict[str, Any]]) -> None:
        """Save Graphiti's bulk entity dicts (attributes flattened into the top level)."""
        await self._db.write(lambda s: s.upsert_nodes([m.entity_payload_node(p) for p in payloads]))

    async def load_embeddings(self, executor: QueryExecutor, node: EntityNode) -> None:
        vectors = await self.embeddings([node.uuid], must_exist=True)
        node.name_embedding = vectors.get(node.uuid)

    async def load_embeddings_bulk(
        self, executor: QueryExecutor, nodes: list[EntityNode], batch_size: int = 100
    ) -> None:
        vectors = await self.embeddings([n.uuid for n in nodes])
        for node in nodes:
            if node.uuid in vectors:
                node.name_embedding = vectors[node.uuid]

    async def embeddings(
        self, uuids: list[str], *, must_exist: bool = False
    ) -> dict[str, list[float]]:
        """Name embeddings by uuid; with ``must_exist`` a missing node raises NodeNotFoundError."""

        def run(r: ReadTarget) -> dict[str, list[float]]:
            vectors = r.get_embeddings(list(uuids))
            if must_exist:
                for uuid in uuids:
                    if uuid not in vectors and r.get_node(uuid) is None:
                        raise node_not_found(uuid)
            return vectors

        return await self._db.read(run)

    async def get_by_names(self, names: list[str], group_ids: list[str]) -> list[EntityNode]:
        """Entities with exactly one of these names, in these groups (node dedupe's exact match)."""
        if not names or not group_ids:
            return []
        return await self._db.read(
            lambda r: self._models(
                r,
                r.find_nodes(
                    names=sorted(set(names)), groups=sorted(set(group_ids)), labels=[m.ENTITY]
                ),
            )
        )

    async def get_by_attribute_values(
        self,
        group_id: str,
        attributes: dict[str, Any],
        node_labels: list[str] | None = None,
        limit: int = 100,
    ) -> list[EntityNode]:
        """Entities of a group whose attributes equal all the given values."""
        conds = [
            Cond(f"props.attributes.{k}", "=", v) for k, v in attributes.items() if v is not None
        ]
        conds += [
            Cond(f"props.attributes.{k}", "is null") for k, v in attributes.items() if v is None
        ]

        def run(r: ReadTarget) -> list[EntityNode]:
            found = r.find_nodes(groups=[group_id], labels=node_labels or [m.ENTITY], where=[conds])
            models = self._models(r, found)
            # Equality in SQL compares JSON text; confirm on the decoded values.
            exact = [
                n for n in models if all(n.attributes.get(k) == v for k, v in attributes.items())
            ]
            return exact[:limit]

        return await self._db.read(run)


class AnatidEpisodeNodeOperations(NodeCrud[EpisodicNode], EpisodeNodeOperations):
    kind = m.EPISODIC

    def to_core(self, node: EpisodicNode) -> Node:
        return m.episode_node(node)

    def from_core(self, node: Node, embedding: list[float] | None) -> EpisodicNode:
        return m.to_episode(node)

    async def save_payloads(self, payloads: list[dict[str, Any]]) -> None:
        """Save Graphiti's bulk episode dicts (``source`` already a string)."""
        await self._db.write(
            lambda s: s.upsert_nodes([m.episode_payload_node(p) for p in payloads])
        )

    async def get_by_entity_node_uuid(
        self, executor: QueryExecutor, entity_node_uuid: str
    ) -> list[EpisodicNode]:
        def run(r: ReadTarget) -> list[EpisodicNode]:
            mentions = r.edges_of([entity_node_uuid], direction="in", rels=[m.MENTIONS])
            return self._models(r, r.get_nodes(list(dict.fromkeys(e.src for e in mentions))))

        return await self._db.read(run)

    async def retrieve_episodes(
        self,
        executor: QueryExecutor,
        reference_time: datetime,
        last_n: int = 3,
        group_ids: list[str] | None = None,
        source: str | EpisodeType | None = None,
        saga: str | None = None,
    ) -> list[EpisodicNode]:
        """The last ``last_n`` episodes valid at or before ``reference_time``, oldest first."""
        conds = [Cond("valid_from", "<=", aware(reference_time))]
        if source is not None:
            value = source.value if isinstance(source, EpisodeType) else str(source)
            conds.append(Cond("props.source", "=", value))

        def run(r: ReadTarget) -> list[EpisodicNode]:
            ids = None
            if saga is not None:
                sagas = r.find_nodes(
                    names=[saga], labels=[m.SAGA], groups=group_ids[:1] if group_ids else None
                )
                edges = r.edges_of([s.id for s in sagas], direction="out", rels=[m.HAS_EPISODE])
                ids = [e.dst for e in edges]
            if ids is not None and not ids:
                return []
            find = functools.partial(
                r.find_nodes,
                ids=ids,
                groups=list(group_ids) if group_ids and saga is None else None,
                # No label filter: of Graphiti's nodes only episodes have a valid_from, so the
                # valid_from condition already selects them (and _models checks the kind).
            )
            return self._models(r, _newest(find, conds, last_n)[::-1])

        return await self._db.small_read(run, last_n)


def _newest(find: Any, conds: list[Cond], last_n: int) -> list[Node]:
    """The ``last_n`` episodes latest by (valid_at, created_at), newest first.

    Sorting by the valid_from column alone is much cheaper for the store than also sorting by a
    JSON property; created_at only breaks ties, so fetch a few extra rows and, should the ties
    run past them, every episode at the boundary instant.
    """
    if last_n <= 0:
        return []
    fetched = find(where=[conds], order_by="-valid_from", limit=last_n + TIE_SLACK)
    if (
        len(fetched) == last_n + TIE_SLACK
        and fetched[-1].valid_from == fetched[last_n - 1].valid_from
    ):
        boundary = fetched[last_n - 1].valid_from
        above = [n for n in fetched if n.valid_from != boundary]
        fetched = above + find(where=[[*conds, Cond("valid_from", "=", boundary)]])
    fetched.sort(key=lambda n: (n.valid_from, aware(n.props["created_at"])), reverse=True)
    return fetched[:last_n]


class AnatidCommunityNodeOperations(NodeCrud[CommunityNode], CommunityNodeOperations):
    kind = m.COMMUNITY
    with_embedding = True

    def to_core(self, node: CommunityNode) -> Node:
        return m.community_node(node)

    def from_core(self, node: Node, embedding: list[float] | None) -> CommunityNode:
        return m.to_community(node, embedding)

    async def load_name_embedding(self, executor: QueryExecutor, node: CommunityNode) -> None:
        def run(r: ReadTarget) -> list[float] | None:
            vectors = r.get_embeddings([node.uuid])
            if node.uuid not in vectors and r.get_node(node.uuid) is None:
                raise node_not_found(node.uuid)
            return vectors.get(node.uuid)

        node.name_embedding = await self._db.read(run)

    async def embeddings(self, uuids: list[str]) -> dict[str, list[float]]:
        return await self._db.read(lambda r: r.get_embeddings(list(uuids)))


class AnatidSagaNodeOperations(NodeCrud[SagaNode], SagaNodeOperations):
    kind = m.SAGA

    def to_core(self, node: SagaNode) -> Node:
        return m.saga_node(node)

    def from_core(self, node: Node, embedding: list[float] | None) -> SagaNode:
        return m.to_saga(node)

    async def get_by_name(self, name: str, group_id: str) -> list[SagaNode]:
        return await self._db.read(
            lambda r: self._models(
                r, r.find_nodes(names=[name], groups=[group_id], labels=[m.SAGA])
            )
        )

    def _episodes(
        self,
        r: ReadTarget,
        saga_uuid: str,
        where: list[list[Cond]] | None,
        order: list[str],
        limit: int | None,
    ) -> list[Node]:
        edges = r.edges_of([saga_uuid], direction="out", rels=[m.HAS_EPISODE])
        if not edges:
            return []
        return r.find_nodes(
            ids=[e.dst for e in edges],
            labels=[m.EPISODIC],
            where=where,
            order_by=order,
            limit=limit,
        )

    async def previous_episode_uuid(self, saga_uuid: str, current_episode_uuid: str) -> str | None:
        """The newest episode of a saga other than the current one."""
        where = [[Cond("id", "!=", current_episode_uuid)]]
        found = await self._db.read(
            lambda r: self._episodes(r, saga_uuid, where, ["-valid_from", "-props.created_at"], 1)
        )
        return found[0].id if found else None

    async def episode_contents(
        self, saga_uuid: str, since: datetime | None = None, limit: int = 200
    ) -> list[tuple[str, datetime | None, datetime]]:
        """(content, valid_at, created_at) of a saga's episodes ingested after ``since``."""
        conds = [Cond("props.created_at", "is not null")]
        if since is not None:
            conds.append(Cond("props.created_at", ">", aware(since)))
        nodes = await self._db.read(
            lambda r: self._episodes(
                r, saga_uuid, [conds], ["props.created_at", "valid_from"], limit
            )
        )
        out = []
        for node in nodes:
            episode = m.to_episode(node)
            if episode.content:
                out.append((episode.content, episode.valid_at, episode.created_at))
        return out


__all__ = [
    "AnatidCommunityNodeOperations",
    "AnatidEntityNodeOperations",
    "AnatidEpisodeNodeOperations",
    "AnatidSagaNodeOperations",
    "NodeCrud",
]
