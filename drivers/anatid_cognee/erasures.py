"""A host's delete is an erasure (issue 15).

Inside anatid a delete ends the current version and keeps history (right for the updates and
merges Cognee's pipelines make: memify's entity consolidation, code-graph sweeps, conflict
resolution, migrations). A user who deletes through Cognee's deletion API means it gone, so
while one of those calls runs (:mod:`anatid_cognee.host_deletes` opens an :func:`erasure` scope
around each), the adapters' deletes *purge*: every version, with postings and embeddings, and a
pending receipt. When the outermost scope ends, every file that got a purge is compacted once,
so no byte of the deleted records is left in it when Cognee's call returns. Compacting after
every adapter call instead would rewrite the file five to ten times per ``delete_data`` (a
compaction costs time linear in the file's size), hence the coalescing.

``ANATID_COGNEE_KEEP_DELETED=1`` (audit setting, off by default) keeps today's soft deletes:
deleted records stay readable through ``as_of``/``history``, their bytes stay in the file, and
dataset files are kept; a warning says so once per process.
"""

from __future__ import annotations

import asyncio
import logging
import os
import warnings
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any

from . import store_registry
from .errors import cognee_errors

#: The audit setting: truthy keeps deleted data in history (no erasure).
KEEP_DELETED_ENV = "ANATID_COGNEE_KEEP_DELETED"
_TRUE = {"1", "true", "yes", "on"}

_log = logging.getLogger(__name__)


class DeletedDataKept(UserWarning):
    """Issued once per process when a Cognee deletion keeps history (the audit setting)."""


@dataclass
class _Scope:
    #: Registry keys of the files that got a purge inside the scope.
    files: set[str] = field(default_factory=set)


_scope: ContextVar[_Scope | None] = ContextVar("anatid_cognee_erasure", default=None)
_warned = False


def keep_deleted() -> bool:
    """Whether the audit setting is on (read at each deletion, so tests and servers can set it
    after import)."""
    global _warned
    on = os.environ.get(KEEP_DELETED_ENV, "").strip().lower() in _TRUE
    if on and not _warned:
        _warned = True
        warnings.warn(
            f"{KEEP_DELETED_ENV} is set: Cognee deletions through anatid keep the deleted "
            "records in history (readable with as_of/history, bytes left in the file); "
            "nothing is erased",
            DeletedDataKept,
            stacklevel=2,
        )
    return on


def erasing() -> bool:
    """Whether deletes made now are erasures: inside a scope, audit setting off."""
    return _scope.get() is not None and not keep_deleted()


def note_purged(path: str) -> None:
    """Record that ``path`` got a purge, to be compacted when the outermost scope ends."""
    scope = _scope.get()
    if scope is not None:
        scope.files.add(store_registry.store_key(path))


@asynccontextmanager
async def erasure() -> AsyncIterator[None]:
    """Deletes made inside are erasures; when the outermost scope ends, every file they
    touched is compacted (pending receipts become *gone*). Nested scopes join the outer one.

    Also for user code: ``async with anatid_cognee.erasure(): await graph.delete_nodes(...)``.
    """
    if _scope.get() is not None:
        yield
        return
    scope = _Scope()
    token = _scope.set(scope)
    try:
        yield
    except BaseException:
        # The purges that committed are still compacted; the host's error is what the
        # caller sees.
        try:
            await asyncio.to_thread(_compact_all, scope.files)
        except Exception:
            _log.exception("anatid: compaction after a failed Cognee deletion failed")
        raise
    else:
        await asyncio.to_thread(_compact_all, scope.files)
    finally:
        _scope.reset(token)


def _compact_all(files: set[str]) -> None:
    for key in sorted(files):
        compact_if_pending(key)


def compact_if_pending(key: str) -> None:
    """Compact ``key`` if it holds pending erasures: through the store this process has open,
    or opened for the purpose; a file already removed holds nothing."""
    with cognee_errors():
        store: Any = store_registry.borrow(key)
        if store is not None:
            if store.erasures(pending_only=True):
                store.compact()
            return
        if not os.path.exists(key):
            return
        store = store_registry.acquire(key)
        try:
            if store.erasures(pending_only=True):
                store.compact()
        finally:
            store_registry.release(store)


__all__ = ["KEEP_DELETED_ENV", "DeletedDataKept", "erasing", "erasure", "keep_deleted"]
