"""The one error hierarchy of anatid.

::

    AnatidError
    ├── NotFound              (.id)
    ├── InvalidInput          (dimension mismatch, NaN, bad time interval, unserialisable value, ...)
    ├── StoreLocked           (another process holds the file; message names the file)
    ├── WriteConflict         (.retryable)
    │   └── IdempotencyConflict   (.key, .existing_id; never retryable)
    ├── SchemaVersionError
    ├── StoreCorrupt          (.damaged; not a DuckDB file, truncated file, a WAL not its own)
    ├── ReadOnlyError         (a write through a read-only store or an as_of view)
    ├── StorageError          (disk full, file size limit, failing storage; also an OSError)
    ├── UnsupportedOperation  (an operation anatid does not offer; the message says what does)
    │   └── CypherUnsupported     (.construct, .position: outside the read-only Cypher subset)
    │       └── CypherWriteRefused    (CREATE, MERGE, SET, DELETE, REMOVE: names the clause)
    └── (InvalidInput)
        ├── CypherSyntaxError     (.position, .line, .column: the query does not parse)
        └── CypherError           (a query that parses but cannot run: a missing $parameter,
            │                      a type error such as 'a' * 2)
            ├── CypherTimeout         (.seconds: the query ran past its deadline)
            └── CypherLimitExceeded   (.limit: it would hold more rows, list items or
                                       nesting than anatid_core.cypher.limits.LIMITS allows)

Every message says what was wrong and what to do. Drivers map these onto the host's own error
types in one place each.
"""

from __future__ import annotations


class AnatidError(Exception):
    """Base class of every error anatid raises on purpose."""


class NotFound(AnatidError):
    """An object with this id does not exist (in the view that was asked)."""

    def __init__(self, message: str, *, id: str | None = None) -> None:
        super().__init__(message)
        self.id = id


class InvalidInput(AnatidError, ValueError):
    """The caller passed something the store cannot hold; nothing was written."""


class StoreLocked(AnatidError):
    """Another process holds the file open for writing."""

    def __init__(self, message: str, *, path: str | None = None) -> None:
        super().__init__(message)
        self.path = path


class WriteConflict(AnatidError):
    """A concurrent transaction touched the same rows; ``retryable`` says whether a retry may work."""

    def __init__(self, message: str, *, retryable: bool = True) -> None:
        super().__init__(message)
        self.retryable = retryable


class IdempotencyConflict(WriteConflict):
    """An idempotency key already bound to a different payload (issue 17). Not retryable: the
    same call fails the same way. ``existing_id`` is the first record the earlier write named
    (``existing_ids`` all of them)."""

    def __init__(self, message: str, *, key: str, existing_ids: tuple[str, ...] = ()) -> None:
        super().__init__(message, retryable=False)
        self.key = key
        self.existing_ids = existing_ids
        self.existing_id = existing_ids[0] if existing_ids else None


class SchemaVersionError(AnatidError):
    """The file was written by a newer anatid, or its schema cannot be migrated."""


class StoreCorrupt(AnatidError):
    """The file is not an anatid/DuckDB file, is truncated, or failed an integrity check.

    ``damaged``: the file is a DuckDB file whose bytes DuckDB could not read (truncated,
    overwritten, or beside a write-ahead log that is not its own), rather than a file of another
    kind; ``anatid check`` reports it as a problem of the file (issue 32).
    """

    def __init__(self, message: str, *, damaged: bool = False) -> None:
        super().__init__(message)
        self.damaged = damaged


class ReadOnlyError(AnatidError):
    """A write was attempted through a read-only store or a historical (``as_of``) view."""


class StorageError(AnatidError, OSError):
    """The file could not be written or read: disk full, file size limit, failing storage.

    The transaction that hit it was rolled back; nothing of it is in the file. Free space (or fix
    the storage) and retry: every earlier commit is intact.
    """


class UnsupportedOperation(AnatidError):
    """The operation is not supported by anatid; the message says what to use instead."""


class CypherUnsupported(UnsupportedOperation):
    """A Cypher construct outside the read-only subset anatid runs (docs/cypher.md lists it).

    ``construct`` names it (``"CALL apoc.path.expand"``, ``"shortestPath"``); ``position`` is its
    offset in the query, and the message shows the line with a caret under it."""

    def __init__(self, message: str, *, construct: str = "", position: int | None = None) -> None:
        super().__init__(message)
        self.construct = construct
        self.position = position


class CypherWriteRefused(CypherUnsupported):
    """A Cypher write clause (CREATE, MERGE, SET, DELETE, REMOVE, FOREACH, LOAD CSV): anatid's
    Cypher only reads; the message names the clause and the API that writes instead. Nothing
    was written."""


class CypherSyntaxError(InvalidInput):
    """The query is not Cypher anatid can parse; ``position`` (offset), ``line`` and ``column``
    (1-based) say where."""

    def __init__(self, message: str, *, position: int = 0, line: int = 1, column: int = 1) -> None:
        super().__init__(message)
        self.position = position
        self.line = line
        self.column = column


class CypherError(InvalidInput):
    """A query that parses but cannot run as asked: a $parameter not given, a value of the
    wrong type for an operator or function (``'a' * 2``), an unknown variable."""


class CypherTimeout(CypherError):
    """The query ran past its deadline (``timeout=`` of ``cypher()``, a driver's
    ``cypher_timeout``, ``ANATID_CYPHER_TIMEOUT``, else 30 s) and was stopped; ``seconds`` is
    the deadline it had. Nothing was written; narrow the query or give it more time."""

    def __init__(self, message: str, *, seconds: float = 0.0) -> None:
        super().__init__(message)
        self.seconds = seconds


class CypherLimitExceeded(CypherError):
    """The query would hold more than a bound of ``anatid_core.cypher.limits.LIMITS`` allows
    (rows, list items, path steps, nesting depth); ``limit`` names the bound. It stopped
    before filling the memory of the process that holds the store."""

    def __init__(self, message: str, *, limit: str = "") -> None:
        super().__init__(message)
        self.limit = limit


__all__ = [
    "AnatidError",
    "CypherError",
    "CypherLimitExceeded",
    "CypherTimeout",
    "CypherSyntaxError",
    "CypherUnsupported",
    "CypherWriteRefused",
    "IdempotencyConflict",
    "InvalidInput",
    "NotFound",
    "ReadOnlyError",
    "SchemaVersionError",
    "StoreCorrupt",
    "StorageError",
    "StoreLocked",
    "UnsupportedOperation",
    "WriteConflict",
]
