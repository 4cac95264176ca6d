"""Read-only views of the past: ``store.as_of(tx_time=..., valid_time=...)``."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from .codec import opt_micros
from .connection import Connection
from .errors import ReadOnlyError
from .reads import Reader
from .rows import Visibility
from .textindex import TextCache
from .vectors import VectorCache


class View(Reader):
    """Every read verb of the store, seeing the versions of one instant. Writes raise."""

    def __init__(
        self,
        connection: Connection,
        text_cache: TextCache,
        vectors: VectorCache,
        *,
        tx_time: datetime | None,
        valid_time: datetime | None,
    ) -> None:
        visibility = Visibility(
            tx_us=opt_micros(tx_time, what="as_of tx_time"),
            valid_us=opt_micros(valid_time, what="as_of valid_time"),
        )
        super().__init__(connection, text_cache, vectors, visibility)
        self.tx_time = tx_time
        self.valid_time = valid_time

    def as_of(self, tx_time: datetime | None = None, valid_time: datetime | None = None) -> View:
        return View(
            self.connection, self.text_cache, self.vectors, tx_time=tx_time, valid_time=valid_time
        )

    def __getattr__(self, name: str) -> Any:
        if name.startswith(
            ("upsert", "delete", "purge", "erase", "compact", "close_", "transaction")
        ):
            raise ReadOnlyError(
                f"{name}() is a write, and this is a read-only view of the past "
                f"(as_of tx_time={self.tx_time}, valid_time={self.valid_time}); write through the store"
            )
        raise AttributeError(name)
