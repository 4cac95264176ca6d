"""``GraphitiDriver``: Graphiti's memory in one anatid (DuckDB) file, with time travel.

::

    from anatid_graphiti import GraphitiDriver
    graphiti = Graphiti(graph_driver=GraphitiDriver("memory.duckdb"), llm_client=..., embedder=...,
                        cross_encoder=...)

    past = graphiti.driver.as_of(yesterday)            # a read-only driver: the graph as it was
    await Graphiti(graph_driver=past, ...).search("...")
    versions = await graphiti.driver.history(edge_uuid)  # every saved version of a uuid

The driver implements Graphiti's operations interfaces (``entity_node_ops`` ... ``graph_ops``) and
the two legacy hook objects on top of them. It runs no Cypher: see :mod:`anatid_graphiti.cypher`.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import AsyncIterator, Coroutine
from concurrent.futures import ThreadPoolExecutor
from contextlib import asynccontextmanager
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from graphiti_core.driver.driver import GraphDriver, GraphDriverSession, GraphProvider
from graphiti_core.driver.query_executor import Transaction
from graphiti_core.nodes import EntityNode

from anatid_core import Compaction, Edge, Erasure, PageRankMethod, Store, UnsupportedOperation

from . import cypher, erasure, insight, ranking
from . import mapping as m
from .edge_ops import (
    AnatidCommunityEdgeOperations,
    AnatidEntityEdgeOperations,
    AnatidEpisodicEdgeOperations,
    AnatidHasEpisodeEdgeOperations,
    AnatidNextEpisodeEdgeOperations,
)
from .erasure import GraphitiErasure
from .filters import aware
from .graph_ops import AnatidGraphMaintenanceOperations
from .legacy import AnatidGraphOperations, AnatidSearchInterface
from .node_ops import (
    AnatidCommunityNodeOperations,
    AnatidEntityNodeOperations,
    AnatidEpisodeNodeOperations,
    AnatidSagaNodeOperations,
)
from .operations import Operations
from .runner import ReadTarget, StoreRunner
from .search_ops import AnatidSearchOperations

#: Worker threads for store calls (DuckDB releases the GIL while it works).
DEFAULT_WORKERS = min(8, (os.cpu_count() or 2) + 2)


@dataclass(frozen=True)
class Version:
    """One saved version of a Graphiti object: the object, and when the store knew it."""

    item: Any
    tx_from: datetime | None
    tx_to: datetime | None
    version: int | None


class AnatidSession(GraphDriverSession):
    """A Graphiti session: ``execute_write`` runs its function inside one store transaction."""

    provider = GraphProvider.NEO4J

    def __init__(self, driver: GraphitiDriver) -> None:
        self._driver = driver

    async def __aexit__(self, exc_type: Any, exc: Any, tb: Any) -> None:
        await self.close()

    async def run(self, query: str, **kwargs: Any) -> Any:
        return await self._driver.execute_query(query, **kwargs)

    async def close(self) -> None:
        """Nothing to release: sessions share the driver's store."""

    async def execute_write(self, func: Any, *args: Any, **kwargs: Any) -> Any:
        async with self._driver.runner.transaction():
            return await func(self, *args, **kwargs)


class _StoreTransaction(Transaction):
    def __init__(self, driver: GraphitiDriver) -> None:
        self._driver = driver

    async def run(self, query: str, **kwargs: Any) -> Any:
        return await self._driver.execute_query(query, **kwargs)


class GraphitiDriver(GraphDriver):
    """A Graphiti ``GraphDriver`` over one anatid store file (``":memory:"`` for a private one).

    Options: ``read_only`` (open the file read-only), ``workers`` (threads running store calls),
    ``database`` (the name Graphiti sees; one file holds every group, partitioned by group_id),
    ``audit_deletes`` (Graphiti's deletes end versions and keep them in history, readable with
    ``as_of``/``history``; by default every delete is an erasure that leaves no byte of the
    deleted records in the file, see :mod:`anatid_graphiti.erasure`).
    """

    # GraphProvider is a closed enum with no registry, so the driver must claim a member. NEO4J is
    # Graphiti's reference backend: no provider-specific test skips, no FalkorDB per-group routing,
    # '' as the default group id, and Neo4j-shaped records (attributes arrive flattened into bulk
    # payloads; mapping.split_attributes separates them again).
    provider = GraphProvider.NEO4J

    def __init__(
        self,
        path: str | os.PathLike[str] = ":memory:",
        *,
        read_only: bool = False,
        workers: int = DEFAULT_WORKERS,
        database: str = "default",
        store: Store | None = None,
        audit_deletes: bool = False,
        cypher_timeout: float | None = None,
    ) -> None:
        """``cypher_timeout`` (seconds) bounds each raw Cypher query (``execute_query``,
        ``session().run``); None leaves it to ``ANATID_CYPHER_TIMEOUT``, else 30 s. Past it,
        ``CypherTimeout``."""
        owns = store is None
        store = store if store is not None else Store.open(path, read_only=read_only)
        pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="anatid-graphiti")
        reason = f"{store.path} was opened read_only" if store.read_only else None
        runner = StoreRunner(store, pool, read_only_reason=reason, audit_deletes=audit_deletes)
        self._setup(runner, owns=owns, database=database, cypher_timeout=cypher_timeout)
        self._owns_threads = True

    def _setup(
        self, runner: StoreRunner, *, owns: bool, database: str, cypher_timeout: float | None
    ) -> None:
        self.runner = runner
        self.cypher_timeout = cypher_timeout
        self._owns_store = owns
        self._owns_threads = False  # as_of views share their driver's threads
        self._database = database
        self._closed = False
        self.operations = Operations.over(runner)
        self.graph_operations_interface = AnatidGraphOperations(self.operations)
        self.search_interface = AnatidSearchInterface(self.operations)

    # ------------------------------------------------------------------------ the store

    @property
    def store(self) -> Store:
        """The anatid store behind this driver (shared by its ``as_of`` views)."""
        return self.runner.store

    @property
    def reader(self) -> ReadTarget:
        """What this driver reads: the store, or a view of its past for ``as_of`` drivers."""
        return self.runner.reader

    # ------------------------------------------------------------------- GraphDriver API

    def execute_query(self, cypher_query_: str, **kwargs: Any) -> Coroutine[Any, Any, Any]:
        """Run a read-only Cypher query (``anatid_core``'s engine, Graphiti's property names:
        see :mod:`anatid_graphiti.cypher`); returns ``(records, None, keys)`` with each record a
        dict. ``as_of_=<datetime>`` asks it of the graph as the store knew it then;
        ``timeout_=<seconds>`` bounds this query (else the driver's ``cypher_timeout``); a write
        clause raises ``CypherWriteRefused``."""
        reserved = ("routing_", "database_", "params", "as_of_", "timeout_")
        params = {k: v for k, v in kwargs.items() if k not in reserved}
        params.update(kwargs.get("params") or {})

        async def run() -> tuple[list[dict[str, Any]], None, list[str]]:
            timeout = kwargs.get("timeout_")
            records = await cypher.answer(
                self.runner,
                cypher_query_,
                params,
                kwargs.get("as_of_"),
                self.cypher_timeout if timeout is None else timeout,
            )
            return records, None, list(records[0]) if records else []

        return run()

    def session(self, database: str | None = None) -> GraphDriverSession:
        return AnatidSession(self)

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[Transaction]:
        """One store transaction: committed on a clean exit, rolled back on an exception."""
        async with self.runner.transaction():
            yield _StoreTransaction(self)

    async def close(self) -> None:
        """Close the file (idempotent). ``as_of`` drivers leave the store and threads open; a
        driver given a ``store=`` leaves that store open."""
        if self._closed:
            return
        self._closed = True
        if self._owns_threads:
            await self.runner.finish_erasures()
            await asyncio.to_thread(self.runner.shutdown)
        if self._owns_store:
            await asyncio.to_thread(self.runner.store.close)  # a checkpoint can take a while

    def delete_all_indexes(self) -> Coroutine[Any, Any, None]:
        return self.operations.graph.delete_all_indexes(self)

    async def build_indices_and_constraints(self, delete_existing: bool = False) -> None:
        await self.operations.graph.build_indices_and_constraints(self, delete_existing)

    def clone(self, database: str) -> GraphDriver:
        """The same driver: one file holds every group, partitioned by group_id."""
        return self

    def with_database(self, database: str) -> GraphDriver:
        return self

    # ----------------------------------------------------------------------- time travel

    def as_of(
        self, tx_time: datetime | None = None, valid_time: datetime | None = None
    ) -> GraphitiDriver:
        """A read-only driver seeing the graph as the store knew it at ``tx_time`` (and, if
        given, only what was valid at ``valid_time``). Graphiti's search, retrieve_episodes and
        getters work on it; any write raises ``ReadOnlyDriverError``."""
        tx = None if tx_time is None else aware(tx_time)
        valid = None if valid_time is None else aware(valid_time)
        view = self.store.as_of(tx_time=tx, valid_time=valid)
        past = object.__new__(GraphitiDriver)
        reason = f"this driver is a view of the past (as_of tx_time={tx}, valid_time={valid})"
        past._setup(
            self.runner.view(view, reason),
            owns=False,
            database=self._database,
            cypher_timeout=self.cypher_timeout,
        )
        return past

    async def history(self, uuid: str) -> list[Version]:
        """Every version of a node or edge ever saved (oldest first), as Graphiti objects."""

        def run(r: ReadTarget) -> list[Version]:
            out = []
            for item in r.history(uuid):
                kind = "edge" if isinstance(item, Edge) else "node"
                vectors = r.as_of(tx_time=item.tx_from).get_embeddings([uuid], kind=kind)  # type: ignore[arg-type]
                model = (
                    m.from_edge(item, vectors.get(uuid))
                    if isinstance(item, Edge)
                    else m.from_node(item, vectors.get(uuid))  # type: ignore[arg-type]
                )
                out.append(Version(model, item.tx_from, item.tx_to, item.version))
            return out

        return await self.runner.read(run)

    # ------------------------------------------------------------- graph verbs (issue 17)

    async def shortest_path(
        self,
        src_uuid: str,
        dst_uuid: str,
        *,
        max_depth: int = 6,
        group_ids: list[str] | None = None,
        rels: list[str] | None = None,
    ) -> list[insight.GraphitiPath]:
        """The shortest chains between two nodes as Graphiti models (``group_ids``: a wall)."""
        return await self.runner.read(
            lambda r: insight.shortest_path(
                r, src_uuid, dst_uuid, max_depth=max_depth, group_ids=group_ids, rels=rels
            )
        )

    async def explain(
        self, a_uuid: str, b_uuid: str, *, max_depth: int = 3, group_ids: list[str] | None = None
    ) -> insight.GraphitiExplanation:
        """The facts (``EntityEdge``) on chains of at most ``max_depth`` facts between two
        entities, each with the ``EpisodicNode`` records it came from."""
        return await self.runner.read(
            lambda r: insight.explain(r, a_uuid, b_uuid, max_depth=max_depth, group_ids=group_ids)
        )

    async def hubs(
        self, k: int = 10, *, group_ids: list[str] | None = None
    ) -> list[tuple[EntityNode, int]]:
        """The ``k`` entities with the most facts, with their fact counts."""
        return await self.runner.read(lambda r: insight.hubs(r, k, group_ids=group_ids))

    async def pagerank(
        self,
        seeds: list[str],
        *,
        group_ids: list[str] | None = None,
        damping: float = 0.85,
        k: int = 20,
        method: PageRankMethod = "iterate",
        tolerance: float = 1e-6,
    ) -> list[tuple[EntityNode, float]]:
        """Entities by personalized PageRank from the ``seeds`` (entity uuids) over the facts
        between entities, best first, with their scores (the seeds among them).
        ``method="push"`` answers from the seeds' neighbourhood, for big graphs (each score
        within ``tolerance`` x its entity's fact count below the exact one: see
        ``anatid_core`` ``Store.pagerank``)."""
        return await ranking.pagerank(
            self.runner,
            seeds,
            group_ids=group_ids,
            damping=damping,
            k=k,
            method=method,
            tolerance=tolerance,
        )

    async def communities(self, *, group_ids: list[str] | None = None) -> list[list[EntityNode]]:
        """A deterministic partition of the entities by the facts between them (Louvain),
        largest community first."""
        return await ranking.communities(self.runner, group_ids=group_ids)

    # -------------------------------------------------------------------------- erasure

    @property
    def audit_deletes(self) -> bool:
        """Whether Graphiti's deletes keep history (the opt-in) rather than erase."""
        return self.runner.audit_deletes

    async def erase_episode(self, uuid: str) -> GraphitiErasure:
        """Erase an episode and everything that exists only because of it: the facts whose only
        episode it is, the entities only it mentions, every version of them and their
        embeddings. When this returns no byte of them is in the file. Entities mentioned
        elsewhere stay with their other facts; ``kept_entities`` lists those whose summaries
        may still mention the erased facts. Raises ``NodeNotFoundError`` for an unknown uuid."""
        self._refuse_in_transaction("erase_episode")
        return await self.runner.write(lambda s: erasure.erase_episode(s, uuid))

    async def erase_group(self, group_id: str) -> GraphitiErasure:
        """Erase every node and edge ever in the group, every version and embedding; gone from
        the file when this returns."""
        self._refuse_in_transaction("erase_group")
        return await self.runner.write(lambda s: erasure.erase_group(s, group_id))

    async def erasures(self, *, pending_only: bool = False) -> list[Erasure]:
        """The store's erasure receipts, oldest first (``anatid erasures FILE`` lists them too)."""
        return await self.runner.read(lambda r: self.store.erasures(pending_only=pending_only))

    async def compact(self) -> Compaction:
        """Complete every pending erasure (a purge inside ``transaction()``, or a
        ``remove_episode`` that failed half-way): no byte of it stays in the file."""
        self._refuse_in_transaction("compact")
        return await self.runner.write(lambda s: s.compact())

    def _refuse_in_transaction(self, what: str) -> None:
        if self.runner.in_transaction():
            raise UnsupportedOperation(
                f"{what}() compacts the file and cannot run inside driver.transaction(); call it "
                "after the block (deletes inside the block are erased at its commit)"
            )

    async def purge(self, group_ids: list[str] | None = None) -> None:
        """Purge these groups (or everything) with all their history, leaving the erasure
        *pending* until :meth:`compact` (see :meth:`erase_group` for the complete erasure)."""
        if group_ids is None:
            await self.runner.write(lambda s: s.purge_all())
        else:
            await self.runner.write(lambda s: s.purge_where("node", groups=group_ids))

    # ------------------------------------------------------------------ operations (new API)
    # Graphiti's ``*_ops`` properties: the objects of ``self.operations``, which the legacy
    # hooks delegate to as well.

    @property
    def entity_node_ops(self) -> AnatidEntityNodeOperations:
        return self.operations.entity_node

    @property
    def episode_node_ops(self) -> AnatidEpisodeNodeOperations:
        return self.operations.episode_node

    @property
    def community_node_ops(self) -> AnatidCommunityNodeOperations:
        return self.operations.community_node

    @property
    def saga_node_ops(self) -> AnatidSagaNodeOperations:
        return self.operations.saga_node

    @property
    def entity_edge_ops(self) -> AnatidEntityEdgeOperations:
        return self.operations.entity_edge

    @property
    def episodic_edge_ops(self) -> AnatidEpisodicEdgeOperations:
        return self.operations.episodic_edge

    @property
    def community_edge_ops(self) -> AnatidCommunityEdgeOperations:
        return self.operations.community_edge

    @property
    def has_episode_edge_ops(self) -> AnatidHasEpisodeEdgeOperations:
        return self.operations.has_episode_edge

    @property
    def next_episode_edge_ops(self) -> AnatidNextEpisodeEdgeOperations:
        return self.operations.next_episode_edge

    @property
    def search_ops(self) -> AnatidSearchOperations:
        return self.operations.search

    @property
    def graph_ops(self) -> AnatidGraphMaintenanceOperations:
        return self.operations.graph


__all__ = ["AnatidSession", "GraphitiDriver", "Version"]
