"""What a framework-specific migration plan provides to the pipeline, and shared helpers."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import Any, Protocol

from anatid_core import Cond, Store

from .report import MigrationReport
from .source import Batch, Catalog

READ_BACK_PAGE = 5000


class Plan(Protocol):
    """Maps one framework's source tables onto anatid through that framework's driver."""

    kind: str
    #: tables the reader must stream first, in this order (the rest follow in catalog order)
    order: tuple[str, ...]

    def check_catalog(self, catalog: Catalog, report: MigrationReport) -> None:
        """Raise UnknownSchema if this is not the framework's graph; note extra tables/columns."""
        ...

    def load(self, store: Store | None, batch: Batch, report: MigrationReport) -> None:
        """Map one batch to host records, tally them, and write them (``store`` None: dry run)."""
        ...

    def finish(self, store: Store | None, report: MigrationReport) -> None:
        """Write whatever had to wait for later tables."""
        ...

    def read_back(self, store: Store, report: MigrationReport) -> None:
        """Read the target through the driver's mapping and fill ``report.target_tally``."""
        ...


def pages(
    find: Callable[..., Sequence[Any]], *, page: int = READ_BACK_PAGE, **filters: Any
) -> Iterator[list[Any]]:
    """Every current record matching ``filters``, in id order, a page at a time (keyset)."""
    last: str | None = None
    while True:
        where = [[Cond("id", ">", last)]] if last is not None else None
        got = list(find(where=where, order_by="id", limit=page, **filters))
        if not got:
            return
        yield got
        last = got[-1].id
        if len(got) < page:
            return


def column(batch: Batch, name: str) -> list[Any]:
    """One column of a batch as Python values (None-filled when the source lacks it)."""
    if name in batch.data.column_names:
        return batch.data.column(name).to_pylist()
    return [None] * batch.data.num_rows
