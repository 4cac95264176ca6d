"""Closing, in an import over a restored timeline, what the server no longer holds.

The exported timeline leaves open every record that was current at the export. A record deleted
on the server afterwards would stay current in the imported file, which would then hold more
than the server does. After the restore and the copy of the server's current state, every
record still current in the new file but absent from what the server returned is deleted with
a normal core delete: its versions stay, closed at the import, so ``as_of`` before the import
still sees it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

from anatid_core import Item, Kind, Store

from .history import ROWS

#: Which groups of the file the server's state speaks for (default: every group).
InScope = Callable[[str], bool]


def _everywhere(group: str) -> bool:
    return True


def _current(store: Store, kind: Kind) -> Iterator[Item]:
    find = store.find_nodes if kind == "node" else store.find_edges
    offset = 0
    while True:
        page = find(order_by="id", limit=ROWS, offset=offset)
        if not page:
            return
        yield from page
        offset += len(page)


def absent_ids(store: Store, kind: Kind, present: set[str], in_scope: InScope) -> list[str]:
    """The current records of ``kind`` in scope whose id is not in ``present``."""
    return [i.id for i in _current(store, kind) if in_scope(i.group) and i.id not in present]


def close_absent(
    store: Store,
    nodes: set[str],
    edges: set[str],
    in_scope: InScope = _everywhere,
) -> int:
    """Delete every current record in scope that is not among ``nodes``/``edges`` (the ids the
    server returned); the number of records deleted. Both lists are read before anything is
    deleted, so the paging never shifts under the deletes."""
    gone_edges = absent_ids(store, "edge", edges, in_scope)
    gone_nodes = absent_ids(store, "node", nodes, in_scope)
    with store.transaction():  # all of it or nothing
        closed = store.delete_edges(gone_edges)
        # A node gone from the server took its edges with it; detach closes any still open.
        closed += store.delete_nodes(gone_nodes, detach=True)
    return closed


def closed_note(closed: int, where: str) -> str:
    return f"closed: {closed} records deleted on the {where} since the export"
