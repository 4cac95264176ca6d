"""``get_nodeset_subgraph`` from plain rows: the named nodes, their neighbours, the edges among.

Built from the core's ``node_rows``/``edge_rows`` (the current records in memory answer them
without SQL) instead of Node/Edge objects (issue 16); the exact-values adapter keeps the object
path in graph_reads.py. Both give the same nodes and edges in the same order: the named nodes
by id, then their neighbours (by id for "OR", in order of first meeting for "AND"); edges by id.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from .records import EdgeData, NodeData, plain_edge_tuple, plain_node_tuple


def common_neighbours(primary: list[str], ends: Iterable[tuple[str, str]]) -> list[str]:
    """The nodes adjacent to every one of ``primary`` over the edges ``(src, dst)`` (in edge
    order), in order of first meeting."""
    primary_set = set(primary)
    seen_by: dict[str, set[str]] = {}
    for src, dst in ends:
        for here, other in ((src, dst), (dst, src)):
            if here in primary_set:
                seen_by.setdefault(other, set()).add(here)
    return [nbr for nbr, via in seen_by.items() if len(via) == len(primary_set)]


def _any_neighbours(primary: list[str], ends: Iterable[tuple[str, str]]) -> list[str]:
    """The nodes adjacent to one of ``primary`` at least."""
    seeds = set(primary)
    others: dict[str, None] = {}
    for src, dst in ends:
        if src in seeds:
            others[dst] = None
        if dst in seeds:
            others[src] = None
    return list(others)


def plain_nodeset(
    r: Any, groups: list[str], label: str, names: list[str], operator: str
) -> tuple[list[tuple[str, NodeData]], list[EdgeData]]:
    """Nodes labelled ``label`` named in ``names`` in ``groups``, their neighbours there (with
    "AND": only those adjacent to every one of them), and the edges among all of these; nodes
    as ``(id, {id, name, type, ...})``, as LadybugDB returns them."""
    found = r.node_rows(groups=groups, labels=[label], names=names, plain_props=True)
    if not found:
        return [], []
    primary = [row[0] for row in found]
    ends = [
        (src, dst) for src, dst, _rel, _props in r.edge_rows(touching=primary, plain_props=True)
    ]
    if operator == "OR":
        # node_rows gives them by id, the order of the object path's neighbours().
        wanted = _any_neighbours(primary, ends)
        around = r.node_rows(ids=wanted, groups=groups, plain_props=True) if wanted else []
    else:
        wanted = common_neighbours(primary, ends)
        rows = r.node_rows(ids=wanted, groups=groups, plain_props=True) if wanted else []
        by_id = {row[0]: row for row in rows}
        around = [by_id[i] for i in wanted if i in by_id]
    taken = set(primary)
    nodes = [*found, *(row for row in around if row[0] not in taken)]
    edges = r.edge_rows(among=[row[0] for row in nodes], plain_props=True)
    return [(i, {"id": i, **data}) for i, data in map(plain_node_tuple, nodes)], [
        plain_edge_tuple(row) for row in edges
    ]
