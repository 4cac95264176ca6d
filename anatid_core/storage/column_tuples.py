"""The tuples of some columns of rows: what the column reads (``find_edge_columns``) give.

A read of columns picks a few of each row's columns into a tuple, and turns the microseconds of
its time columns into datetimes. Cypher reads a scan's page in chunks and stops at its LIMIT:
in the filtered LIMIT 10 at 10k facts it built ~300 tuples a query to use ~100 (a sixth of
the query's time; issue 42). :class:`ColumnTuples` builds each chunk's tuples as it is read.
"""

from __future__ import annotations

import operator
from collections.abc import Iterator, Sequence
from typing import Any, overload

from ..base.codec import from_micros


def with_times(found: list[tuple[Any, ...]], at: list[int]) -> list[tuple[Any, ...]]:
    """``found`` with the microseconds at positions ``at`` as datetimes (null kept)."""
    if len(at) == 1:  # (a generator per row was a third of a fact scan's columns)
        i = at[0]
        return [t if t[i] is None else (*t[:i], from_micros(t[i]), *t[i + 1 :]) for t in found]
    out = []
    for values in found:
        if any(values[i] is not None for i in at):
            changed = list(values)
            for i in at:
                changed[i] = from_micros(values[i])
            values = tuple(changed)
        out.append(values)
    return out


class ColumnTuples(Sequence[tuple[Any, ...]]):
    """The tuples of the columns at ``positions`` of ``rows`` (their time columns, at
    ``times`` in the tuple, as datetimes), each slice's built when it is read. The rows are
    the in-memory records' immutable tuples, so building later reads what was read."""

    __slots__ = ("_rows", "_get", "_one", "_times")

    def __init__(self, rows: Sequence[tuple[Any, ...]], positions: list[int], times: list[int]):
        self._rows = rows
        self._get = operator.itemgetter(*positions)
        self._one = len(positions) == 1  # (itemgetter of one position gives the value)
        self._times = times

    def __len__(self) -> int:
        return len(self._rows)

    @overload
    def __getitem__(self, at: int) -> tuple[Any, ...]: ...

    @overload
    def __getitem__(self, at: slice) -> list[tuple[Any, ...]]: ...

    def __getitem__(self, at: int | slice) -> tuple[Any, ...] | list[tuple[Any, ...]]:
        if isinstance(at, slice):
            return self._built(self._rows[at])
        return self._built([self._rows[at]])[0]

    def __iter__(self) -> Iterator[tuple[Any, ...]]:
        return iter(self._built(self._rows))

    def built(self) -> list[tuple[Any, ...]]:
        """Every tuple, as a list."""
        return self._built(self._rows)

    def _built(self, rows: Sequence[tuple[Any, ...]]) -> list[tuple[Any, ...]]:
        get = self._get
        found = [(get(r),) for r in rows] if self._one else [get(r) for r in rows]
        return with_times(found, self._times) if self._times else found


__all__ = ["ColumnTuples", "with_times"]
