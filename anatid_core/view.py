"""Read-only views of the past: ``store.as_of(tx_time=..., valid_time=...)``."""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Any

import duckdb

from .codec import opt_micros
from .errors import ReadOnlyError
from .reads import Reader, Visibility

if TYPE_CHECKING:
    from .store import Store


class View(Reader):
    """Every read verb of the store, seeing the versions of one instant. Writes raise."""

    def __init__(
        self, store: Store, *, tx_time: datetime | None, valid_time: datetime | None
    ) -> None:
        self.store = store
        self.tx_time = tx_time
        self.valid_time = valid_time
        self._vis = Visibility(
            tx_us=opt_micros(tx_time, what="as_of tx_time"),
            valid_us=opt_micros(valid_time, what="as_of valid_time"),
        )
        self.vectors = store.vectors
        self.text_cache = store.text_cache

    def _cursor(self) -> duckdb.DuckDBPyConnection:
        return self.store._cursor()

    def _visibility(self) -> Visibility:
        return self._vis

    def as_of(self, tx_time: datetime | None = None, valid_time: datetime | None = None) -> View:
        return View(self.store, tx_time=tx_time, valid_time=valid_time)

    def __getattr__(self, name: str) -> Any:
        if name.startswith(("upsert", "delete", "purge", "close_", "transaction")):
            raise ReadOnlyError(
                f"{name}() is a write, and this is a read-only view of the past "
                f"(as_of tx_time={self.tx_time}, valid_time={self.valid_time}); write through the store"
            )
        raise AttributeError(name)
