"""anatid_core: a bitemporal property-graph store in one DuckDB file.

Nodes and edges carry valid time (when a fact was true, given by the caller) and transaction time
(when the store learned it, set by the store). Every write is one transaction; every read can be
asked ``as_of`` a past instant. Retrieval: BM25 full text, exact cosine and graph expansion, fused
by reciprocal-rank fusion in :meth:`Store.recall`.

These names are the whole public surface: the drivers, ``anatid-migrate`` and the ``anatid``
command import nothing else of the core (``tests/core/test_layering.py``). The package's folders,
bottom to top: ``base`` (values every layer shares), ``storage`` (the file), ``indexes`` (what is
derived from it in memory), ``graph`` (graph algorithms and verbs), ``cypher`` (read-only Cypher over the read verbs), the API at this level
(``Store``, ``View`` and their verbs), ``cli`` (the command line) on top.

Importing the package loads only its light names (errors, the record model, settings); the store,
its views and the rest are imported on first use (PEP 562), so that a command that needs none of
them (``anatid --help``) pays for none of them: duckdb, numpy and pyarrow are imported with the
``Store`` (issue 44).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from .base.codec import decode_props, encode_props, gc_paused
from .base.errors import (
    AnatidError,
    CypherError,
    CypherLimitExceeded,
    CypherSyntaxError,
    CypherTimeout,
    CypherUnsupported,
    CypherWriteRefused,
    IdempotencyConflict,
    InvalidInput,
    NotFound,
    ReadOnlyError,
    SchemaVersionError,
    StorageError,
    StoreCorrupt,
    StoreLocked,
    UnsupportedOperation,
    WriteConflict,
)
from .base.identifiers import check_names
from .base.model import (
    DEFAULT_SPACE,
    BuildProgress,
    Compaction,
    Cond,
    Edge,
    Erasure,
    Hit,
    IndexBuild,
    IndexState,
    Item,
    Kind,
    Node,
    RecallHit,
    Subgraph,
    Where,
    WriteResult,
)
from .base.settings import SETTINGS
from .storage.lease import LEASE, lease_files

if TYPE_CHECKING:
    from .cypher.limits import timeout_seconds as cypher_timeout_seconds
    from .cypher.run import CypherResult, RecordShape
    from .cypher.run import Procedure as CypherProcedure
    from .cypher.run import Shape as CypherShape
    from .cypher.shape import WHOLE_MAP as CYPHER_WHOLE_MAP
    from .graph.adjacency import Adjacency, EdgeRef
    from .graph.distances import Distances
    from .graph.evidence import EXPLAIN, Evidence, Explanation, Fact, Provenance
    from .graph.hubs import Hub
    from .graph.pagerank import Method as PageRankMethod
    from .graph.shortest_paths import PATHS, Path
    from .rank_fusion import rrf
    from .restore import restore_timeline
    from .retry import RETRY, retry_delay, with_retries
    from .storage.compaction import COMPACT
    from .storage.outputs import check_output, is_duckdb_file, store_of_side_file
    from .storage.schema import SCHEMA_VERSION
    from .storage.scope import Scope
    from .storage.store_files import remove_store, store_files
    from .storage.terms import tokenize
    from .storage.turns import WouldWait
    from .store import Store
    from .view import View

#: The names imported on first use: name -> (module, its name there).
_LAZY = {
    "cypher_timeout_seconds": (".cypher.limits", "timeout_seconds"),
    "CypherResult": (".cypher.run", "CypherResult"),
    "RecordShape": (".cypher.run", "RecordShape"),
    "CypherProcedure": (".cypher.run", "Procedure"),
    "CypherShape": (".cypher.run", "Shape"),
    "CYPHER_WHOLE_MAP": (".cypher.shape", "WHOLE_MAP"),
    "Adjacency": (".graph.adjacency", "Adjacency"),
    "EdgeRef": (".graph.adjacency", "EdgeRef"),
    "Distances": (".graph.distances", "Distances"),
    "EXPLAIN": (".graph.evidence", "EXPLAIN"),
    "Evidence": (".graph.evidence", "Evidence"),
    "Explanation": (".graph.evidence", "Explanation"),
    "Fact": (".graph.evidence", "Fact"),
    "Provenance": (".graph.evidence", "Provenance"),
    "Hub": (".graph.hubs", "Hub"),
    "PageRankMethod": (".graph.pagerank", "Method"),
    "PATHS": (".graph.shortest_paths", "PATHS"),
    "Path": (".graph.shortest_paths", "Path"),
    "rrf": (".rank_fusion", "rrf"),
    "restore_timeline": (".restore", "restore_timeline"),
    "RETRY": (".retry", "RETRY"),
    "retry_delay": (".retry", "retry_delay"),
    "with_retries": (".retry", "with_retries"),
    "COMPACT": (".storage.compaction", "COMPACT"),
    "check_output": (".storage.outputs", "check_output"),
    "is_duckdb_file": (".storage.outputs", "is_duckdb_file"),
    "store_of_side_file": (".storage.outputs", "store_of_side_file"),
    "SCHEMA_VERSION": (".storage.schema", "SCHEMA_VERSION"),
    "Scope": (".storage.scope", "Scope"),
    "remove_store": (".storage.store_files", "remove_store"),
    "store_files": (".storage.store_files", "store_files"),
    "tokenize": (".storage.terms", "tokenize"),
    "WouldWait": (".storage.turns", "WouldWait"),
    "Store": (".store", "Store"),
    "View": (".view", "View"),
}


def __getattr__(name: str) -> Any:
    """A lazy name's value, imported on first use and kept (the next lookup is plain)."""
    where = _LAZY.get(name)
    if where is None:
        raise AttributeError(f"module 'anatid_core' has no attribute {name!r}")
    value = getattr(importlib.import_module(where[0], __name__), where[1])
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_LAZY})


__version__ = "0.1.0"

__all__ = [
    "check_names",
    "check_output",
    "cypher_timeout_seconds",
    "decode_props",
    "encode_props",
    "is_duckdb_file",
    "store_of_side_file",
    "PageRankMethod",
    "WouldWait",
    "EXPLAIN",
    "PATHS",
    "Adjacency",
    "Distances",
    "EdgeRef",
    "Evidence",
    "Explanation",
    "Fact",
    "Hub",
    "Path",
    "Provenance",
    "COMPACT",
    "DEFAULT_SPACE",
    "LEASE",
    "RETRY",
    "SCHEMA_VERSION",
    "SETTINGS",
    "AnatidError",
    "BuildProgress",
    "Compaction",
    "Cond",
    "Edge",
    "Erasure",
    "Hit",
    "IndexBuild",
    "IndexState",
    "IdempotencyConflict",
    "InvalidInput",
    "Item",
    "Kind",
    "Node",
    "NotFound",
    "ReadOnlyError",
    "RecallHit",
    "SchemaVersionError",
    "Scope",
    "Store",
    "StoreCorrupt",
    "StorageError",
    "StoreLocked",
    "Subgraph",
    "UnsupportedOperation",
    "CypherError",
    "CypherLimitExceeded",
    "CypherResult",
    "CypherShape",
    "CYPHER_WHOLE_MAP",
    "CypherProcedure",
    "CypherSyntaxError",
    "CypherTimeout",
    "CypherUnsupported",
    "CypherWriteRefused",
    "RecordShape",
    "View",
    "Where",
    "WriteConflict",
    "WriteResult",
    "gc_paused",
    "lease_files",
    "remove_store",
    "restore_timeline",
    "retry_delay",
    "rrf",
    "store_files",
    "tokenize",
    "with_retries",
]
