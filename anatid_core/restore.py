"""Restore a timeline: write versions with the transaction times they were recorded at.

The write verbs stamp every version with the time of the transaction that writes it. Moving a
store's history out and back (``anatid-migrate export`` keeps it as Parquet beside a server that
holds only the current state, issue 18) needs the recorded stamps instead. ``restore_timeline``
writes versions exactly as given, on both time axes, into a new, empty store file, and closes
it: nothing in memory was built from the file yet, and its indexes are built from the restored
rows when it is next opened.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from itertools import islice

import numpy as np

from .base.codec import opt_micros, to_micros
from .base.errors import InvalidInput
from .base.model import Edge, Item, Kind, Node
from .storage.connection import Tx
from .storage.embeddings import ensure_space, insert_vectors
from .storage.prepare import Prepared, prepare
from .storage.version_rows import insert_postings, insert_versions
from .store import Store

#: Versions per transaction while restoring.
BATCH = 10_000


def restore_timeline(
    path: str | os.PathLike[str], nodes: Iterable[Node], edges: Iterable[Edge]
) -> dict[str, int]:
    """Write ``nodes`` then ``edges`` (every version, each with its ``tx_from`` and ``tx_to``)
    into the new or empty store at ``path``; the number of versions written per kind."""
    store = Store.open(path)
    try:
        held = store.stats()
        if held["node_versions"] or held["edge_versions"]:
            raise InvalidInput(
                f"restore_timeline writes into an empty store; {store.path} already holds "
                f"{held['node_versions']} node and {held['edge_versions']} edge versions"
            )
        counts: dict[str, int] = {"node": 0, "edge": 0}
        kinds: tuple[tuple[Kind, Iterable[Item]], ...] = (("node", nodes), ("edge", edges))
        for kind, items in kinds:
            for chunk in _chunks(items):
                with store.connection.transaction() as tx:  # writes through the cursor
                    _write(store, tx, kind, chunk)
                counts[kind] += len(chunk)
        return counts
    finally:
        store.close()


def _chunks(items: Iterable[Item]) -> Iterator[list[Item]]:
    it = iter(items)
    while chunk := list(islice(it, BATCH)):
        yield chunk


def _tx_times(kind: Kind, items: list[Item]) -> tuple[list[int], list[int | None]]:
    starts: list[int] = []
    ends: list[int | None] = []
    for item in items:
        what = f"{kind} {item.id!r:.60}"
        if item.tx_from is None:
            raise InvalidInput(f"{what}: a restored version needs its tx_from")
        start = to_micros(item.tx_from, what=f"{what} tx_from")
        end = opt_micros(item.tx_to, what=f"{what} tx_to")
        if end is not None and end < start:
            raise InvalidInput(f"{what} has tx_to ({item.tx_to}) before tx_from ({item.tx_from})")
        starts.append(start)
        ends.append(end)
    return starts, ends


def _write(store: Store, tx: Tx, kind: Kind, items: list[Item]) -> None:
    prepared = [prepare(item, kind, i) for i, item in enumerate(items)]
    starts, ends = _tx_times(kind, items)
    first = store.connection.allocate_vids(len(prepared))
    vids = np.arange(first, first + len(prepared), dtype=np.int64)
    cur = tx.cursor
    insert_versions(cur, kind, prepared, vids, starts, ends)
    insert_postings(cur, prepared, vids)  # the rows' postings; no index is built yet
    _vectors(tx, kind, prepared, vids)


def _vectors(tx: Tx, kind: Kind, prepared: list[Prepared], vids: np.ndarray) -> None:
    by_space: dict[str, list[int]] = {}
    for i, p in enumerate(prepared):
        if p.vector is not None:
            by_space.setdefault(p.item.space, []).append(i)
    for space, idx in by_space.items():
        mat = np.stack([prepared[i].vector for i in idx])  # type: ignore[misc]
        tbl = ensure_space(tx.cursor, kind, space, int(mat.shape[1]))
        insert_vectors(tx.cursor, tbl, vids[idx], mat)
