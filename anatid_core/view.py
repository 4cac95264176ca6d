"""Read-only views of the past: ``store.as_of(tx_time=..., valid_time=...)``."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from .base.codec import opt_micros
from .base.errors import InvalidInput, ReadOnlyError
from .indexes.registry import Indexes
from .reads import Reader
from .storage.connection import Connection
from .storage.rows import Visibility
from .storage.scope import Scope


class View(Reader):
    """Every read verb of the store, seeing the versions of one instant (and, with a
    ``scope``, only what its wall lets through: :mod:`anatid_core.storage.scope`). Writes raise."""

    def __init__(
        self,
        connection: Connection,
        indexes: Indexes,
        *,
        tx_time: datetime | None,
        valid_time: datetime | None,
        scope: Scope | None = None,
    ) -> None:
        if scope is not None and not isinstance(scope, Scope):
            raise InvalidInput(f"scope must be a Scope, got {type(scope).__name__}")
        visibility = Visibility(
            tx_us=opt_micros(tx_time, what="as_of tx_time"),
            valid_us=opt_micros(valid_time, what="as_of valid_time"),
            scope=scope,
        )
        super().__init__(connection, indexes, visibility)
        self.tx_time = tx_time
        self.valid_time = valid_time
        self.scope = scope

    @classmethod
    def over(
        cls,
        reader: Reader,
        tx_time: datetime | None,
        valid_time: datetime | None,
        scope: Scope | None,
    ) -> View:
        """A view of ``reader``'s file at that instant, keeping the reader's evidence rule."""
        view = cls(
            reader.connection,
            reader.indexes,
            tx_time=tx_time,
            valid_time=valid_time,
            scope=scope,
        )
        view.evidence = reader.evidence
        return view

    def as_of(
        self,
        tx_time: datetime | None = None,
        valid_time: datetime | None = None,
        *,
        scope: Scope | None = None,
    ) -> View:
        """Another instant; a scoped view stays inside its wall (a further ``scope`` narrows it)."""
        if scope is not None and not isinstance(scope, Scope):
            raise InvalidInput(f"scope must be a Scope, got {type(scope).__name__}")
        narrowed = scope if self.scope is None else self.scope.narrowed(scope)
        return View.over(self, tx_time, valid_time, narrowed)

    def scoped(self, scope: Scope) -> View:
        """This instant, seen through ``scope`` as well."""
        return self.as_of(self.tx_time, self.valid_time, scope=scope)

    def __getattr__(self, name: str) -> Any:
        if name.startswith(
            ("upsert", "delete", "purge", "erase", "compact", "close_", "transaction")
        ):
            raise ReadOnlyError(
                f"{name}() is a write, and this is a read-only view of the past "
                f"(as_of tx_time={self.tx_time}, valid_time={self.valid_time}); write through the store"
            )
        raise AttributeError(name)
