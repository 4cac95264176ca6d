"""The one place where anatid errors become Cognee errors.

Every adapter call that reaches the store goes through :func:`cognee_errors`, so a caller sees
the exception types Cognee's own code catches (``EntityNotFoundError``,
``CollectionNotFoundError``, ...). The original anatid error stays reachable as ``__cause__``.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from cognee.exceptions import (
    CogneeConfigurationError,
    CogneeSystemError,
    CogneeTransientError,
    CogneeValidationError,
)
from cognee.infrastructure.databases.exceptions import (
    EntityNotFoundError,
    UnsupportedGraphOperation,
)
from cognee.infrastructure.databases.vector.exceptions import CollectionNotFoundError

from anatid_core import (
    AnatidError,
    CypherUnsupported,
    InvalidInput,
    NotFound,
    ReadOnlyError,
    SchemaVersionError,
    StoreCorrupt,
    StoreLocked,
    UnsupportedOperation,
    WriteConflict,
)


class CypherNotSupported(UnsupportedGraphOperation, NotImplementedError):
    """``query()`` with Cypher outside anatid's read-only subset, or a write clause (CREATE,
    MERGE, SET, DELETE, ...): the message names the construct and its place in the query.

    Also a ``NotImplementedError``, which is what Cognee's SQL-backed adapters (Turso) raise, so
    callers written against either keep working.
    """


class ReadOnlyAdapter(UnsupportedGraphOperation):
    """A write through an ``as_of`` adapter, which shows the past and cannot change it."""


def collection_not_found(collection_name: str) -> CollectionNotFoundError:
    return CollectionNotFoundError(
        f"Collection '{collection_name}' not found in the anatid vector store; it is created by "
        "create_collection, create_vector_index or the first create_data_points."
    )


def read_only(what: str) -> ReadOnlyAdapter:
    return ReadOnlyAdapter(
        f"{what} is not allowed on an as_of adapter: it shows the graph as it was and is "
        "read-only. Write through the adapter you called as_of on."
    )


#: What to set when the file's location is unusable (names Cognee's own keys).
WHERE_TO_SET = (
    "Set GRAPH_DATABASE_URL and VECTOR_DB_URL to a file in a writable folder, or "
    "SYSTEM_ROOT_DIRECTORY to a writable folder (the default file and the per-dataset files "
    "live under <system root>/databases)."
)


def unusable_location(path: str, exc: BaseException) -> CogneeConfigurationError:
    """The anatid file cannot be created where the configuration puts it."""
    return CogneeConfigurationError(
        message=f"anatid cannot create its file {path}: {exc}. {WHERE_TO_SET}",
        name="AnatidUnusableLocation",
        remediation=WHERE_TO_SET,
    )


def handler_mismatch(handler: str, key: str, configured: object) -> CogneeConfigurationError:
    """An anatid dataset handler selected for a provider that is not anatid."""
    upper = key.upper()
    return CogneeConfigurationError(
        message=(
            f"The {handler} dataset handler works only with {key} 'anatid' (configured: "
            f"{configured!r}). Set {upper}=anatid, or unset the handler key to get the "
            "configured provider's own handler."
        ),
        name="AnatidHandlerMismatch",
        remediation=f"Set {upper}=anatid, or unset the dataset handler key.",
    )


def map_error(exc: AnatidError) -> Exception:
    """The Cognee exception for one anatid error, most specific first."""
    message = str(exc)
    if isinstance(exc, NotFound):
        return EntityNotFoundError(message=message)
    if isinstance(exc, ReadOnlyError):
        return ReadOnlyAdapter(message=message)
    if isinstance(exc, CypherUnsupported):
        return CypherNotSupported(message)
    if isinstance(exc, UnsupportedOperation):
        return UnsupportedGraphOperation(message=message)
    if isinstance(exc, InvalidInput):
        return CogneeValidationError(message=message, name="AnatidInvalidInput")
    if isinstance(exc, (StoreLocked, WriteConflict)):
        return CogneeTransientError(message=message, name=type(exc).__name__)
    if isinstance(exc, (StoreCorrupt, SchemaVersionError)):
        return CogneeSystemError(message=message, name=type(exc).__name__)
    return CogneeSystemError(message=message, name=type(exc).__name__)


@contextmanager
def cognee_errors() -> Iterator[None]:
    """Re-raise anatid errors as their Cognee counterparts (``raise Mapped from original``)."""
    try:
        yield
    except AnatidError as exc:
        raise map_error(exc) from exc
