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
"""

from .base.codec import decode_props, encode_props, gc_paused
from .base.errors import (
    AnatidError,
    CypherError,
    CypherSyntaxError,
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
from .cypher.run import CypherResult, RecordShape
from .cypher.run import Procedure as CypherProcedure
from .cypher.run import Shape as CypherShape
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
from .storage.lease import LEASE, lease_files
from .storage.outputs import check_output, is_duckdb_file, store_of_side_file
from .storage.schema import SCHEMA_VERSION
from .storage.scope import Scope
from .storage.store_files import remove_store, store_files
from .storage.terms import tokenize
from .storage.turns import WouldWait
from .store import SETTINGS, Store
from .view import View

__version__ = "0.1.0"

__all__ = [
    "check_names",
    "check_output",
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
    "CypherResult",
    "CypherShape",
    "CypherProcedure",
    "CypherSyntaxError",
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
