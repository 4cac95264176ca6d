"""anatid_cognee: Cognee's graph and vector store in one anatid DuckDB file.

``import anatid_cognee`` registers the provider name ``"anatid"`` with Cognee's graph and vector
factories and the dataset handlers ``anatid_graph``/``anatid_vector`` (one file per dataset
under backend access control). Then select it with ``anatid_cognee.configure(path)`` or with
Cognee's own config::

    cognee.config.set_graph_db_config({"graph_database_provider": "anatid",
                                       "graph_database_url": "/data/memory.duckdb",
                                       "graph_dataset_database_handler": "anatid_graph"})
    cognee.config.set_vector_db_config({"vector_db_provider": "anatid",
                                        "vector_db_url": "/data/memory.duckdb",
                                        "vector_dataset_database_handler": "anatid_vector"})
"""

from .erasures import KEEP_DELETED_ENV, DeletedDataKept, erasure
from .errors import CypherNotSupported, ReadOnlyAdapter
from .graph_adapter import AnatidGraphAdapter
from .handlers import AnatidGraphDatasetDatabaseHandler, AnatidVectorDatasetDatabaseHandler
from .registration import configure, register
from .vector_adapter import AnatidVectorAdapter

register()

__all__ = [
    "AnatidGraphAdapter",
    "AnatidGraphDatasetDatabaseHandler",
    "AnatidVectorAdapter",
    "AnatidVectorDatasetDatabaseHandler",
    "CypherNotSupported",
    "DeletedDataKept",
    "KEEP_DELETED_ENV",
    "ReadOnlyAdapter",
    "configure",
    "erasure",
    "register",
]
