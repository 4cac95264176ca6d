"""Random bitemporal graphs for the graph-algorithm tests, with a plain model of each instant.

``build`` writes a random history (nodes in groups, edges with rels and groups, node deletes that
detach their edges, more edges) and returns, for every step, the instant just after it and what
was visible then. The oracle (networkx) is run on that model, never on what the store reads.
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass, field
from datetime import datetime, timezone

import networkx as nx

from anatid_core import Edge, Node, Store

GROUPS = ("g0", "g1", "g2")
RELS = ("R", "S")


@dataclass
class Snapshot:
    at: datetime
    nodes: dict[str, str] = field(default_factory=dict)  # id -> group
    edges: dict[str, tuple[str, str, str, str]] = field(
        default_factory=dict
    )  # src, dst, rel, group

    def graph(
        self, groups: set[str] | None = None, rels: set[str] | None = None
    ) -> tuple[list[str], list[tuple[str, str]]]:
        """Nodes in ``groups`` and the edges (``rels``, ``groups``) between two of them."""
        nodes = sorted(i for i, g in self.nodes.items() if groups is None or g in groups)
        keep = set(nodes)
        edges = [
            (s, d)
            for s, d, rel, g in self.edges.values()
            if s in keep
            and d in keep
            and (rels is None or rel in rels)
            and (groups is None or g in groups)
        ]
        return nodes, edges


def _mark(snaps: list[Snapshot], nodes: dict[str, str], edges: dict) -> None:
    snaps.append(Snapshot(datetime.now(timezone.utc), dict(nodes), dict(edges)))
    time.sleep(0.002)  # the next transaction gets a later instant than this mark


def build(store: Store, seed: int, n: int, m: int) -> list[Snapshot]:
    rng = random.Random(seed)
    nodes = {f"n{i:03d}": rng.choice(GROUPS) for i in range(n)}
    store.upsert_nodes([Node(i, group=g) for i, g in nodes.items()])
    snaps: list[Snapshot] = []
    edges: dict[str, tuple[str, str, str, str]] = {}
    _mark(snaps, nodes, edges)
    ids = sorted(nodes)

    def add(count: int, start: int) -> None:
        new = {
            f"e{start + j}": (
                rng.choice(ids),
                rng.choice(ids),
                rng.choice(RELS),
                rng.choice(GROUPS),
            )
            for j in range(count)
        }
        new = {k: v for k, v in new.items() if v[0] in nodes and v[1] in nodes}
        store.upsert_edges([Edge(k, s, d, rel, group=g) for k, (s, d, rel, g) in new.items()])
        edges.update(new)

    add(m, 0)
    _mark(snaps, nodes, edges)
    gone = rng.sample(ids, k=min(len(ids) - 1, max(1, n // 6)))
    store.delete_nodes(gone)
    for i in gone:
        del nodes[i]
    for k in [k for k, v in edges.items() if v[0] in gone or v[1] in gone]:
        del edges[k]
    _mark(snaps, nodes, edges)
    add(m // 2, m)
    _mark(snaps, nodes, edges)
    return snaps


def nx_pagerank(
    nodes: list[str],
    edges: list[tuple[str, str]],
    seeds: list[str],
    damping: float,
    direction: str,
) -> dict[str, float]:
    g = nx.MultiDiGraph()
    g.add_nodes_from(nodes)
    for s, d in edges:
        if direction in ("out", "both"):
            g.add_edge(s, d)
        if direction in ("in", "both"):
            g.add_edge(d, s)
    return nx.pagerank(
        g, alpha=damping, personalization=dict.fromkeys(seeds, 1.0), tol=1e-15, max_iter=10_000
    )


def nx_weighted(nodes: list[str], edges: list[tuple[str, str]]) -> nx.Graph:
    """The undirected graph with parallel edges as weight (what communities() partitions)."""
    g = nx.Graph()
    g.add_nodes_from(nodes)
    for s, d in edges:
        if g.has_edge(s, d):
            g[s][d]["weight"] += 1
        else:
            g.add_edge(s, d, weight=1)
    return g
