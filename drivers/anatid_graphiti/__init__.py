"""anatid_graphiti: Graphiti's graph memory in one embedded anatid (DuckDB) file.

``Graphiti(graph_driver=GraphitiDriver("memory.duckdb"), llm_client=..., embedder=...,
cross_encoder=...)``: every Graphiti feature on one local file, offline, with time travel
(``driver.as_of(t)``, ``driver.history(uuid)``) on top. The record mapping used to store Graphiti's
objects is public in :mod:`anatid_graphiti.mapping`.
"""

from . import mapping
from .driver import AnatidSession, GraphitiDriver, Version
from .erasure import GraphitiErasure
from .errors import ReadOnlyDriverError

__all__ = [
    "AnatidSession",
    "GraphitiDriver",
    "GraphitiErasure",
    "ReadOnlyDriverError",
    "Version",
    "mapping",
]
