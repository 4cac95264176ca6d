"""What one transaction wrote, by version: the record every derived structure follows.

A write verb inserts version rows with their postings and embeddings, ends current versions
(``tx_to``) and, purging, deletes versions. Beside the rows it notes each of these on its
transaction's :class:`Changes`. After COMMIT the connection hands that record to its listeners
(the in-memory indexes, :mod:`anatid_core.indexes`), which apply the whole transaction in one
step; a rolled-back transaction's record is dropped with it. Nothing here is written to the file.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

import numpy as np

from ..base.model import Kind
from .prepare import Prepared

#: Postings as inserted: terms (sorted, runs of one term contiguous), version ids, frequencies.
Postings = tuple[list[str], np.ndarray, np.ndarray]

_NONE = np.zeros(0, dtype=np.int64)


@dataclass
class Added:
    """Versions one write inserted: their version ids and records (as prepared, in the same
    order), their postings, and the embeddings of each vector space they carry (positions into
    ``records``, and those records' float32 rows)."""

    kind: Kind
    vids: np.ndarray
    records: list[Prepared]
    postings: Postings
    embeddings: dict[str, tuple[np.ndarray, np.ndarray]] = field(default_factory=dict)


class Changes:
    """The versions a transaction added and removed, the vector spaces it looked up or made,
    and whether it emptied the store (a purge of everything), in the order they happened."""

    def __init__(self, time_us: int) -> None:
        #: The transaction's instant: the ``tx_from`` of every version it added.
        self.time_us = time_us
        self._added: list[Added] = []
        self._removed: dict[Kind, list[int]] = {"node": [], "edge": []}
        self._sorted: dict[Kind, np.ndarray] = {}  # removed(kind), read by every index
        #: (kind, space) -> (table, dimension) of the vector spaces the transaction looked up
        #: or created.
        self.spaces: dict[tuple[Kind, str], tuple[str, int]] = {}
        #: Every table was emptied (``purge_all``); what is noted here came after.
        self.emptied = False

    # ------------------------------------------------------------------------- noting

    def add(
        self, kind: Kind, vids: np.ndarray, records: list[Prepared], postings: Postings
    ) -> Added:
        """Note versions inserted (their embeddings are noted on the result, by space)."""
        added = Added(kind, vids, records, postings)
        self._added.append(added)
        return added

    def remove(self, kind: Kind, vids: Iterable[int]) -> None:
        """Note versions that stop being current: ended in transaction time, or deleted."""
        self._removed[kind].extend(vids)
        self._sorted.pop(kind, None)

    def use_space(self, kind: Kind, space: str, table: str, dim: int) -> None:
        self.spaces[(kind, space)] = (table, dim)

    def empty(self) -> None:
        """Note that every table was emptied: what was noted before is gone with it."""
        self._added.clear()
        for vids in self._removed.values():
            vids.clear()
        self._sorted.clear()
        self.spaces.clear()
        self.emptied = True

    # ------------------------------------------------------------------------- reading

    def added(self, kind: Kind) -> list[Added]:
        """The insertions of ``kind``, in version-id order. A version removed later in the same
        transaction is among them and among :meth:`removed` as well: apply additions first."""
        return [a for a in self._added if a.kind == kind]

    def embedded(
        self, kind: Kind, space: str
    ) -> list[tuple[np.ndarray, np.ndarray, list[Prepared]]]:
        """The embeddings of vector space ``space`` the transaction inserted, per insertion:
        (version ids, float32 rows, the records carrying them). A removed version is noted by
        kind only (its space is not looked up): an index of one space drops those it holds."""
        out = []
        for added in self.added(kind):
            found = added.embeddings.get(space)
            if found is not None:
                positions, matrix = found
                records = [added.records[i] for i in positions.tolist()]
                out.append((added.vids[positions], matrix, records))
        return out

    def removed(self, kind: Kind) -> np.ndarray:
        """The version ids of ``kind`` that stopped being current, sorted."""
        found = self._sorted.get(kind)
        if found is None:
            vids = self._removed[kind]
            found = np.unique(np.asarray(vids, dtype=np.int64)) if vids else _NONE
            self._sorted[kind] = found
        return found

    def __bool__(self) -> bool:
        return bool(self._added or any(self._removed.values()) or self.spaces or self.emptied)


__all__ = ["Added", "Changes", "Postings"]
