"""Dataset database handlers: one anatid file per dataset under backend access control.

Cognee's access control gives every dataset its own graph and vector databases, created through
the handler named by ``graph_dataset_database_handler`` / ``vector_dataset_database_handler``.
Both anatid handlers name the same file, ``<system_root>/databases/<owner id>/<dataset
id>.anatid.duckdb``, so a dataset's graph and vectors share one DuckDB database.

Deleting a dataset's graph erases the graph records and deleting its vectors erases the vector
records (Cognee's ``prune_system`` may delete one side only); whichever leaves the file empty
removes it, with its WAL and lock files, as LadybugDB's and LanceDB's handlers remove theirs;
a file that stays is compacted when Cognee's deletion call returns (issue 15).
Both first evict the dataset's engines from Cognee's caches, which closes their adapters; an
adapter still held elsewhere in the process keeps the file until it lets go, and the file is
removed then (issue 14).
"""

from __future__ import annotations

import os
from typing import Any
from uuid import UUID

from cognee.infrastructure.databases.dataset_database_handler import (
    DatasetDatabaseHandlerInterface,
)

from . import erasures, store_registry
from .errors import cognee_errors, handler_mismatch, unusable_location
from .paths import PROVIDER, databases_directory, dataset_filename
from .records import GRAPH_GROUP, META_GROUP

GRAPH_HANDLER = "anatid_graph"
VECTOR_HANDLER = "anatid_vector"


def dataset_file(owner_id: Any, dataset_id: Any) -> str:
    return os.path.join(databases_directory(), str(owner_id), dataset_filename(dataset_id))


class AnatidGraphDatasetDatabaseHandler(DatasetDatabaseHandlerInterface):
    """Graph side of a dataset's anatid file."""

    @classmethod
    async def create_dataset(cls, dataset_id: UUID | None, user: Any | None) -> dict:
        from cognee.infrastructure.databases.graph.config import get_graph_config

        config = get_graph_config()
        if config.graph_database_provider != PROVIDER:
            raise handler_mismatch(
                GRAPH_HANDLER, "graph_database_provider", config.graph_database_provider
            )
        owner_id = user.id if user is not None else "shared"
        return {
            "graph_database_name": dataset_filename(dataset_id),
            "graph_database_url": dataset_file(owner_id, dataset_id),
            "graph_database_provider": PROVIDER,
            "graph_database_key": "",
            "graph_dataset_database_handler": GRAPH_HANDLER,
            "graph_database_connection_info": {},
        }

    @classmethod
    async def delete_dataset(cls, dataset_database: Any) -> None:
        from cognee.infrastructure.databases.graph.get_graph_engine import graph_engine_cache

        await graph_engine_cache.aevict_for_database(dataset_database.graph_database_name)
        path = _graph_file(dataset_database)
        if path:
            await _erase(path, [GRAPH_GROUP, META_GROUP], graph=True)


class AnatidVectorDatasetDatabaseHandler(DatasetDatabaseHandlerInterface):
    """Vector side of a dataset's anatid file."""

    @classmethod
    async def create_dataset(cls, dataset_id: UUID | None, user: Any | None) -> dict:
        from cognee.infrastructure.databases.vector import get_vectordb_config

        config = get_vectordb_config()
        if config.vector_db_provider != PROVIDER:
            raise handler_mismatch(VECTOR_HANDLER, "vector_db_provider", config.vector_db_provider)
        owner_id = user.id if user is not None else "shared"
        path = dataset_file(owner_id, dataset_id)
        try:
            os.makedirs(os.path.dirname(path), exist_ok=True)
        except OSError as exc:
            raise unusable_location(path, exc) from exc
        return {
            "vector_database_provider": PROVIDER,
            "vector_database_url": path,
            "vector_database_key": "",
            "vector_database_name": dataset_filename(dataset_id),
            "vector_dataset_database_handler": VECTOR_HANDLER,
        }

    @classmethod
    async def delete_dataset(cls, dataset_database: Any) -> None:
        from cognee.infrastructure.databases.vector.create_vector_engine import (
            vector_engine_cache,
        )

        await vector_engine_cache.aevict_for_database(dataset_database.vector_database_name)
        path = dataset_database.vector_database_url
        if path:
            await _erase(path, None, graph=False)


def _graph_file(dataset_database: Any) -> str:
    owner_path = os.path.join(
        databases_directory(), str(dataset_database.owner_id), dataset_database.graph_database_name
    )
    return owner_path if os.path.exists(owner_path) else (dataset_database.graph_database_url or "")


async def _erase(path: str, groups: list[str] | None, *, graph: bool) -> None:
    import asyncio

    async with erasures.erasure():
        keep = erasures.keep_deleted()
        await asyncio.to_thread(_erase_sync, path, groups, graph, keep)
        if not keep:
            erasures.note_purged(path)  # compacted when Cognee's deletion call returns


def _erase_sync(path: str, groups: list[str] | None, graph: bool, keep: bool) -> None:
    """Erase one side of a dataset file; remove the file once nothing is left in it. Under
    the audit setting the records are deleted with their history kept, and so is the file."""
    if not os.path.exists(path):
        return
    store = store_registry.acquire(path)
    try:
        with cognee_errors(), store.transaction():
            if not graph:
                groups = [g for g in _groups(store) if g.startswith("cognee.vector")]
            if groups:
                _remove_groups(store, groups, graph=graph, keep=keep)
        empty = store.count_nodes() == 0 and store.count_edges() == 0
    finally:
        store_registry.release(store)
    if empty and not keep:
        store_registry.remove_when_released(path)


def _remove_groups(store: Any, groups: list[str], *, graph: bool, keep: bool) -> None:
    if keep:
        if graph:
            store.delete_where("edge", groups=groups)
        store.delete_where("node", groups=groups)
        return
    store.purge_where("node", groups=groups)
    if graph:
        store.purge_where("edge", groups=groups)


def _groups(store: Any) -> list[str]:
    from .vector_adapter import COLLECTIONS_GROUP, row_group

    names = [n.name for n in store.find_nodes(groups=[COLLECTIONS_GROUP])]
    return [COLLECTIONS_GROUP, *(row_group(n) for n in names)]
