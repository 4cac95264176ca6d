"""anatid_core: a bitemporal property-graph store in one DuckDB file.

Nodes and edges carry valid time (when a fact was true, given by the caller) and transaction time
(when the store learned it, set by the store). Every write is one transaction; every read can be
asked ``as_of`` a past instant. Retrieval: BM25 full text, exact cosine and graph expansion, fused
by reciprocal-rank fusion in :meth:`Store.recall`.
"""

from .adjacency import Adjacency, EdgeRef
from .codec import gc_paused
from .compaction import COMPACT
from .errors import (
    AnatidError,
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
from .evidence import EXPLAIN, Evidence, Explanation, Fact, Provenance
from .hubs import Hub
from .lease import LEASE, lease_files
from .model import (
    DEFAULT_SPACE,
    Compaction,
    Cond,
    Edge,
    Erasure,
    Hit,
    Item,
    Kind,
    Node,
    RecallHit,
    Subgraph,
    Where,
    WriteResult,
)
from .outputs import check_output, is_duckdb_file
from .paths import PATHS, Path
from .ranking import Method as PageRankMethod
from .recall import rrf
from .removal import remove_store, store_files
from .restore import restore_timeline
from .retry import RETRY, retry_delay, with_retries
from .schema import SCHEMA_VERSION
from .scope import Scope
from .store import SETTINGS, Store
from .textindex import tokenize
from .turns import WouldWait
from .view import View

__version__ = "0.1.0"

__all__ = [
    "check_output",
    "is_duckdb_file",
    "PageRankMethod",
    "WouldWait",
    "EXPLAIN",
    "PATHS",
    "Adjacency",
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
    "Compaction",
    "Cond",
    "Edge",
    "Erasure",
    "Hit",
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
