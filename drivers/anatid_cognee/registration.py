"""Registering anatid with Cognee, and a one-call configuration helper."""

from __future__ import annotations

import threading

from . import handler_defaults, host_deletes, shutdown, store_registry
from .handlers import (
    GRAPH_HANDLER,
    VECTOR_HANDLER,
    AnatidGraphDatasetDatabaseHandler,
    AnatidVectorDatasetDatabaseHandler,
)
from .paths import PROVIDER

_lock = threading.Lock()


def register() -> None:
    """Register provider ``"anatid"`` with Cognee's graph and vector factories and the two
    dataset handlers (``anatid_graph``, ``anatid_vector``), make those handlers Cognee's
    default for the anatid provider (:mod:`anatid_cognee.handler_defaults`), make Cognee's
    deletion calls erasures (:mod:`anatid_cognee.host_deletes`), and have every
    anatid file closed at exit and on SIGTERM (:mod:`anatid_cognee.shutdown`; armed here, as
    Cognee loads, so a server started later restores our handler when it stops). Idempotent."""
    from cognee.infrastructure.databases.dataset_database_handler import (
        use_dataset_database_handler,
    )
    from cognee.infrastructure.databases.graph.use_graph_adapter import use_graph_adapter
    from cognee.infrastructure.databases.vector.use_vector_adapter import use_vector_adapter

    from .graph_adapter import AnatidGraphAdapter
    from .vector_adapter import AnatidVectorAdapter

    with _lock:
        use_graph_adapter(PROVIDER, AnatidGraphAdapter)
        use_vector_adapter(PROVIDER, AnatidVectorAdapter)
        use_dataset_database_handler(GRAPH_HANDLER, AnatidGraphDatasetDatabaseHandler, PROVIDER)
        use_dataset_database_handler(VECTOR_HANDLER, AnatidVectorDatasetDatabaseHandler, PROVIDER)
        handler_defaults.install()
        host_deletes.install()
    shutdown.arm(store_registry.close_all)


def configure(path: str | None = None) -> None:
    """Point Cognee's graph and vector stores at one anatid file (``path``; default under
    Cognee's system root) and select the anatid dataset handlers, so backend access control
    (one file per dataset) works. Same as setting ``GRAPH_DATABASE_PROVIDER=anatid``,
    ``VECTOR_DB_PROVIDER=anatid``, ``GRAPH_DATASET_DATABASE_HANDLER=anatid_graph``,
    ``VECTOR_DATASET_DATABASE_HANDLER=anatid_vector`` and both URLs."""
    import cognee

    register()
    url = path or ""
    cognee.config.set_graph_db_config(
        {
            "graph_database_provider": PROVIDER,
            "graph_database_url": url,
            "graph_dataset_database_handler": GRAPH_HANDLER,
        }
    )
    cognee.config.set_vector_db_config(
        {
            "vector_db_provider": PROVIDER,
            "vector_db_url": url,
            "vector_dataset_database_handler": VECTOR_HANDLER,
        }
    )
