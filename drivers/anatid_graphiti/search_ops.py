"""Graphiti's searches over the store, with Neo4j's semantics.

* Full text: the store's BM25 over ``name`` + ``text`` (entity name + summary, edge name + fact,
  episode content + source description, community name + summary).
* Similarity: exact cosine; scores are reported and thresholded as Neo4j's
  ``vector.similarity.cosine`` does, ``(1 + cos) / 2``, so Graphiti's ``min_score`` means the same.
* BFS: paths of 1..depth ``RELATES_TO``/``MENTIONS`` hops directed out of the origins (entities or
  episodes); edge BFS returns the ``RELATES_TO`` edges on them, node BFS the entities reached in
  the origin's group.
* Rerankers: node distance (neighbours over ``RELATES_TO`` either way: 1, the centre: 10, others:
  0) and episode mentions (RRF, then by number of ``MENTIONS``).
"""

from __future__ import annotations

from typing import Any

from graphiti_core.driver.operations.search_ops import SearchOperations
from graphiti_core.driver.query_executor import QueryExecutor
from graphiti_core.edges import EntityEdge
from graphiti_core.nodes import CommunityNode, EntityNode, EpisodicNode
from graphiti_core.search.search_filters import SearchFilters
from graphiti_core.search.search_utils import rrf

from anatid_core import Edge, Hit, Node

from . import mapping as m
from .filters import edge_where, labels_exclude_entities
from .runner import ReadTarget, StoreRunner

#: Extra candidates fetched when a label filter is applied after the store's own label filter.
OVERFETCH = 4
#: Extra candidates of an unlabelled name-space search, room for communities among entities.
UNLABELLED_SLACK = 10


def cosine_floor(min_score: float) -> float:
    """The raw-cosine threshold equivalent to Neo4j's normalised ``(1 + cos) / 2 >= min_score``."""
    return 2.0 * min_score - 1.0


def _above(hits: list[Hit], min_score: float) -> list[Hit]:
    # Neo4j's Cypher keeps ``score > $min_score`` (strictly), on the normalised score.
    return [h for h in hits if (1.0 + h.score) / 2.0 > min_score]


def _entity_labels(search_filter: SearchFilters) -> tuple[list[str], int]:
    """Labels to ask the store for, and how many extra candidates to fetch for the post-filter."""
    labels = search_filter.node_labels
    if labels is None:
        return [m.ENTITY], 1
    return list(labels), OVERFETCH


def _entities(nodes: list[Node], limit: int) -> list[EntityNode]:
    return [m.to_entity(n) for n in nodes if m.ENTITY in n.labels][:limit]


class AnatidSearchOperations(SearchOperations):
    def __init__(self, db: StoreRunner) -> None:
        self._db = db

    # ------------------------------------------------------------------------------- nodes

    async def node_fulltext_search(
        self,
        executor: QueryExecutor,
        query: str,
        search_filter: SearchFilters,
        group_ids: list[str] | None = None,
        limit: int = 10,
    ) -> list[EntityNode]:
        labels, factor = _entity_labels(search_filter)

        def run(r: ReadTarget) -> list[EntityNode]:
            hits = r.search_text(
                query, kind="node", k=limit * factor, groups=group_ids, labels=labels
            )
            return _entities([h.item for h in hits], limit)  # type: ignore[misc]

        return await self._db.read(run)

    async def node_similarity_search(
        self,
        executor: QueryExecutor,
        search_vector: list[float],
        search_filter: SearchFilters,
        group_ids: list[str] | None = None,
        limit: int = 10,
        min_score: float = 0.6,
    ) -> list[EntityNode]:
        labels = search_filter.node_labels

        def search(r: ReadTarget, k: int, with_labels: list[str] | None) -> list[Hit]:
            return _above(
                r.search_vector(
                    search_vector,
                    kind="node",
                    space=m.NAME_SPACE,
                    k=k,
                    groups=group_ids,
                    labels=with_labels,
                    min_score=cosine_floor(min_score),
                ),
                min_score,
            )

        def run(r: ReadTarget) -> list[EntityNode]:
            if labels is not None:
                hits = search(r, limit * OVERFETCH, list(labels))
            else:
                # Entities share the 'name' space with the (few) communities. An unlabelled
                # search is much cheaper for the store; fall back to the labelled one only if
                # communities crowded entities out of the candidates.
                hits = search(r, limit + UNLABELLED_SLACK, None)
                kept = [h for h in hits if m.ENTITY in getattr(h.item, "labels", ())]
                if len(kept) < limit and len(hits) == limit + UNLABELLED_SLACK:
                    hits = search(r, limit, [m.ENTITY])
            return _entities([h.item for h in hits], limit)  # type: ignore[misc]

        return await self._db.read(run)

    async def node_bfs_search(
        self,
        executor: QueryExecutor,
        origin_uuids: list[str],
        search_filter: SearchFilters,
        max_depth: int,
        group_ids: list[str] | None = None,
        limit: int = 10,
    ) -> list[EntityNode]:
        if not origin_uuids or max_depth < 1:
            return []
        labels = search_filter.node_labels

        def run(r: ReadTarget) -> list[EntityNode]:
            origins: dict[str, list[str]] = {}
            # The store filters by group (and so checks the names, issue 32); the origins keep
            # the order they were given in.
            wanted = list(dict.fromkeys(origin_uuids))
            kept = (
                r.get_nodes(wanted)
                if group_ids is None
                else r.find_nodes(ids=wanted, groups=group_ids)
            )
            by_id = {n.id: n for n in kept}
            for o in (by_id[i] for i in wanted if i in by_id):
                origins.setdefault(o.group, []).append(o.id)
            found: dict[str, Node] = {}
            # A reached node must share its origin's group: expand one origin group at a time.
            for group, seeds in origins.items():
                sub = r.expand(
                    seeds, depth=max_depth, direction="out", rels=[m.RELATES_TO, m.MENTIONS]
                )
                entered = {e.dst for e in sub.edges}  # an origin counts only if a path re-enters it
                for node in sorted(sub.nodes, key=lambda n: sub.distance[n.id]):
                    if node.id not in entered or node.group != group or m.ENTITY not in node.labels:
                        continue
                    if labels is not None and not set(labels) & set(node.labels):
                        continue
                    found.setdefault(node.id, node)
            return [m.to_entity(n) for n in found.values()][:limit]

        return await self._db.read(run)

    # ------------------------------------------------------------------------------- edges

    def _edge_where(
        self,
        r: ReadTarget,
        search_filter: SearchFilters,
        source: str | None = None,
        target: str | None = None,
    ) -> Any:
        endpoints = None
        if labels_exclude_entities(search_filter.node_labels):
            endpoints = [n.id for n in r.find_nodes(labels=list(search_filter.node_labels or []))]
        return edge_where(
            search_filter, source_uuid=source, target_uuid=target, endpoint_ids=endpoints
        )

    async def edge_fulltext_search(
        self,
        executor: QueryExecutor,
        query: str,
        search_filter: SearchFilters,
        group_ids: list[str] | None = None,
        limit: int = 10,
    ) -> list[EntityEdge]:
        def run(r: ReadTarget) -> list[EntityEdge]:
            # Only RELATES_TO edges carry text, so no relationship filter is needed (and the
            # store answers unfiltered searches faster).
            hits = r.search_text(
                query,
                kind="edge",
                k=limit,
                groups=group_ids,
                where=self._edge_where(r, search_filter),
            )
            return [m.to_entity_edge(h.item) for h in hits]  # type: ignore[arg-type]

        return await self._db.read(run)

    async def edge_similarity_search(
        self,
        executor: QueryExecutor,
        search_vector: list[float],
        source_node_uuid: str | None,
        target_node_uuid: str | None,
        search_filter: SearchFilters,
        group_ids: list[str] | None = None,
        limit: int = 10,
        min_score: float = 0.6,
    ) -> list[EntityEdge]:
        def run(r: ReadTarget) -> list[EntityEdge]:
            hits = r.search_vector(
                search_vector,
                kind="edge",
                space=m.FACT_SPACE,  # holds RELATES_TO edges only: no relationship filter
                k=limit,
                groups=group_ids,
                where=self._edge_where(r, search_filter, source_node_uuid, target_node_uuid),
                min_score=cosine_floor(min_score),
            )
            return [m.to_entity_edge(h.item) for h in _above(hits, min_score)]  # type: ignore[arg-type]

        return await self._db.read(run)

    async def edge_bfs_search(
        self,
        executor: QueryExecutor,
        origin_uuids: list[str],
        max_depth: int,
        search_filter: SearchFilters,
        group_ids: list[str] | None = None,
        limit: int = 10,
    ) -> list[EntityEdge]:
        if not origin_uuids or max_depth < 1:
            return []

        def run(r: ReadTarget) -> list[EntityEdge]:
            sub = r.expand(
                list(origin_uuids),
                depth=max_depth,
                direction="out",
                rels=[m.RELATES_TO, m.MENTIONS],
            )
            on_paths = [e.id for e in sub.edges if e.rel == m.RELATES_TO]
            if not on_paths:
                return []
            kept: dict[str, Edge] = {
                e.id: e
                for e in r.find_edges(
                    ids=on_paths,
                    groups=group_ids,
                    rels=[m.RELATES_TO],
                    where=self._edge_where(r, search_filter),
                )
            }
            ordered = [kept[i] for i in on_paths if i in kept][:limit]
            return [m.to_entity_edge(e) for e in ordered]

        return await self._db.read(run)

    # ---------------------------------------------------------------- episodes, communities

    async def episode_fulltext_search(
        self,
        executor: QueryExecutor,
        query: str,
        search_filter: SearchFilters,
        group_ids: list[str] | None = None,
        limit: int = 10,
    ) -> list[EpisodicNode]:
        def run(r: ReadTarget) -> list[EpisodicNode]:
            hits = r.search_text(query, kind="node", k=limit, groups=group_ids, labels=[m.EPISODIC])
            return [m.to_episode(h.item) for h in hits]  # type: ignore[arg-type]

        return await self._db.read(run)

    def _communities(self, r: ReadTarget, hits: list[Hit]) -> list[CommunityNode]:
        vectors = r.get_embeddings([h.id for h in hits])
        return [m.to_community(h.item, vectors.get(h.id)) for h in hits]  # type: ignore[arg-type]

    async def community_fulltext_search(
        self,
        executor: QueryExecutor,
        query: str,
        group_ids: list[str] | None = None,
        limit: int = 10,
    ) -> list[CommunityNode]:
        return await self._db.read(
            lambda r: self._communities(
                r,
                r.search_text(query, kind="node", k=limit, groups=group_ids, labels=[m.COMMUNITY]),
            )
        )

    async def community_similarity_search(
        self,
        executor: QueryExecutor,
        search_vector: list[float],
        group_ids: list[str] | None = None,
        limit: int = 10,
        min_score: float = 0.6,
    ) -> list[CommunityNode]:
        def run(r: ReadTarget) -> list[CommunityNode]:
            hits = r.search_vector(
                search_vector,
                kind="node",
                space=m.NAME_SPACE,
                k=limit,
                groups=group_ids,
                labels=[m.COMMUNITY],
                min_score=cosine_floor(min_score),
            )
            return self._communities(r, _above(hits, min_score))

        return await self._db.read(run)

    # ---------------------------------------------------------------------------- rerankers

    async def node_distance_scores(
        self, node_uuids: list[str], center_node_uuid: str, min_score: float = 0
    ) -> tuple[list[str], list[float]]:
        """Graphiti's node-distance reranker: ``(uuids, 1/distance)``, neighbours first."""
        others = [u for u in node_uuids if u != center_node_uuid]

        def neighbours(r: ReadTarget) -> set[str]:
            edges = r.edges_between([center_node_uuid], others, rels=[m.RELATES_TO], directed=False)
            return {e.dst if e.src == center_node_uuid else e.src for e in edges}

        near = await self._db.read(neighbours) if others else set()
        distance = {u: 1.0 if u in near else float("inf") for u in others}
        ordered = sorted(others, key=lambda u: distance[u])
        if center_node_uuid in node_uuids:
            distance[center_node_uuid] = 0.1
            ordered = [center_node_uuid, *ordered]
        kept = [u for u in ordered if 1 / distance[u] >= min_score]
        return kept, [1 / distance[u] for u in kept]

    async def episode_mentions_scores(
        self, node_uuids: list[list[str]], min_score: float = 0
    ) -> tuple[list[str], list[float]]:
        """Graphiti's episode-mentions reranker: RRF, then by MENTIONS count, most first."""
        ranked, _ = rrf(node_uuids)
        counts = (
            await self._db.read(lambda r: r.degrees(ranked, direction="in", rels=[m.MENTIONS]))
            if ranked
            else {}
        )
        ordered = sorted(ranked, key=lambda u: counts.get(u, 0), reverse=True)
        kept = [u for u in ordered if counts.get(u, 0) >= min_score]
        return kept, [float(counts.get(u, 0)) for u in kept]

    async def _entities_in_order(self, uuids: list[str]) -> list[EntityNode]:
        nodes = await self._db.read(lambda r: r.get_nodes(uuids))
        return [m.to_entity(n) for n in nodes if m.ENTITY in n.labels]

    async def node_distance_reranker(
        self,
        executor: QueryExecutor,
        node_uuids: list[str],
        center_node_uuid: str,
        min_score: float = 0,
    ) -> list[EntityNode]:
        uuids, _ = await self.node_distance_scores(node_uuids, center_node_uuid, min_score)
        return await self._entities_in_order(uuids)

    async def episode_mentions_reranker(
        self, executor: QueryExecutor, node_uuids: list[str], min_score: float = 0
    ) -> list[EntityNode]:
        uuids, _ = await self.episode_mentions_scores([list(node_uuids)], min_score)
        return await self._entities_in_order(uuids)

    # -------------------------------------------------------------------- filter builders

    def build_node_search_filters(self, search_filters: SearchFilters) -> Any:
        """The labels the node searches ask the store for."""
        return _entity_labels(search_filters)[0]

    def build_edge_search_filters(self, search_filters: SearchFilters) -> Any:
        """The store ``where`` the edge searches use (node-label endpoints resolved at search time)."""
        return edge_where(search_filters)

    def build_fulltext_query(
        self, query: str, group_ids: list[str] | None = None, max_query_length: int = 8000
    ) -> str:
        """BM25 takes the text as it is: no Lucene syntax to build or escape."""
        return query[:max_query_length]


__all__ = ["AnatidSearchOperations", "cosine_floor"]
