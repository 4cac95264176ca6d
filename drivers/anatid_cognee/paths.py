"""Where the adapters' DuckDB file lives.

Cognee's factories pass registered adapters only a URL and a database name, never the
``graph_file_path`` it derives for its built-in file databases, so the file is resolved here:

* with a ``database_name`` (backend access control: one file per dataset), the dataset's
  ``graph_file_path`` from Cognee's database context when it names that database, else the URL
  the dataset handler stored;
* otherwise the configured URL;
* otherwise ``<system_root>/databases/cognee_graph_anatid.duckdb``, shared by the graph and the
  vector adapter.
"""

from __future__ import annotations

import os

PROVIDER = "anatid"
DEFAULT_FILENAME = "cognee_graph_anatid.duckdb"
#: Suffix of the per-dataset files the dataset handlers create.
DATASET_SUFFIX = ".anatid.duckdb"
#: The URL Cognee's vector config falls back to when none is set (a LanceDB folder).
_LANCEDB_DEFAULT_NAME = "cognee.lancedb"


def databases_directory() -> str:
    from cognee.base_config import get_base_config

    return os.path.join(get_base_config().system_root_directory, "databases")


def default_path() -> str:
    """The single-user file: the configured anatid graph URL if any, else the default name."""
    from cognee.infrastructure.databases.graph.config import get_graph_config

    graph_config = get_graph_config()
    if graph_config.graph_database_provider == PROVIDER and graph_config.graph_database_url:
        return graph_config.graph_database_url
    return os.path.join(databases_directory(), DEFAULT_FILENAME)


def dataset_filename(dataset_id: object) -> str:
    return f"{dataset_id}{DATASET_SUFFIX}"


def graph_path(graph_database_url: str = "", database_name: str = "") -> str:
    """The graph adapter's file for the arguments Cognee's graph factory passes."""
    if database_name:
        from cognee.context_global_variables import graph_db_config

        context = graph_db_config.get() or {}
        if context.get("graph_database_name") == database_name and context.get("graph_file_path"):
            return str(context["graph_file_path"])
    if graph_database_url:
        return graph_database_url
    return default_path()


def vector_path(url: str = "") -> str:
    """The vector adapter's file for the URL Cognee's vector factory passes.

    An empty URL, or Cognee's LanceDB default that its config fills in when none is set, means
    "not configured": the vector rows then go into the graph's file.
    """
    if not url or os.path.basename(url.rstrip("/\\")) == _LANCEDB_DEFAULT_NAME:
        return default_path()
    return url
