"""Finding nodes by what a person types: a name in any case, or the start of a name or an id
(mixed into Reader; issue 44: ``anatid show FILE Alice`` knew only ids).

Each lookup is one bounded query over the visible versions (at most ``limit`` rows come back),
so a large file is never read whole into Python; ``lower()`` on both sides is DuckDB's.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

from .base.codec import check_text
from .base.errors import InvalidInput
from .base.model import Kind, Node
from .storage.filters import SqlFilter, page_sql
from .storage.rows import cols_of, item_from_row, table_of

#: How many nodes a lookup returns unless told.
MATCH_LIMIT = 10


class _ReaderParts(Protocol):
    """What the lookup needs from the reader it is mixed into."""

    def _query(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]: ...
    def _filter(self, kind: Kind, **filters: Any) -> SqlFilter: ...


class NameLookups:
    """``nodes_named``: the visible nodes a typed name or prefix stands for."""

    def nodes_named(
        self: _ReaderParts, text: str, *, prefix: bool = False, limit: int = MATCH_LIMIT
    ) -> list[Node]:
        """Visible nodes whose name equals ``text`` ignoring case; with ``prefix``, those whose
        name or id starts with ``text`` ignoring case. In id order, at most ``limit``."""
        check_text(text, what="text")
        if not text:
            raise InvalidInput("text must not be empty")
        f = self._filter("node")
        if prefix:
            f.add(
                "starts_with(lower(r.name), lower(?)) OR starts_with(lower(r.id), lower(?))",
                text,
                text,
            )
        else:
            f.add("lower(r.name) = lower(?)", text)
        page, page_params = page_sql(limit, 0)
        sql = f"SELECT {cols_of('node')} FROM {table_of('node')} r WHERE {f.sql()} ORDER BY r.id"
        rows = self._query(sql + page, [*f.params, *page_params])
        return [n for n in (item_from_row("node", row) for row in rows) if isinstance(n, Node)]
