"""Random graph histories for the scope and graph-verb tests: writes committed one batch at a
time, with a plain-Python model of the graph after each commit (the oracle's input)."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from datetime import datetime, timezone

import networkx as nx
from hypothesis import strategies as st

from anatid_core import Edge, Node, Scope, Store, View

GROUPS = ["g1", "g2", "g3"]
LABELS = ["A", "B", "C"]
NODE_IDS = [f"n{i}" for i in range(9)]
EDGE_IDS = [f"e{i}" for i in range(16)]

NODE_OP = st.tuples(
    st.just("node"),
    st.sampled_from(NODE_IDS),
    st.sampled_from(GROUPS),
    st.lists(st.sampled_from(LABELS), max_size=2, unique=True),
)
EDGE_OP = st.tuples(
    st.just("edge"),
    st.sampled_from(EDGE_IDS),
    st.tuples(st.sampled_from(NODE_IDS), st.sampled_from(NODE_IDS)),
    st.sampled_from(GROUPS),
)
DELETE_OP = st.tuples(
    st.sampled_from(["drop_node", "drop_edge"]), st.sampled_from(NODE_IDS + EDGE_IDS)
)
BATCHES = st.lists(
    st.lists(
        st.one_of(NODE_OP, NODE_OP, EDGE_OP, EDGE_OP, EDGE_OP, DELETE_OP), min_size=1, max_size=6
    ),
    min_size=1,
    max_size=5,
)

_names = st.lists(st.sampled_from(GROUPS), min_size=1, max_size=2, unique=True)
_labels = st.lists(st.sampled_from(LABELS), min_size=1, max_size=2, unique=True)


def _scope(groups, exclude_groups, labels, exclude_labels) -> Scope | None:
    if groups is None and labels is None and not exclude_groups and not exclude_labels:
        return None  # a scope naming nothing is refused: the tests pass no scope instead
    return Scope.of(
        groups=groups, exclude_groups=exclude_groups, labels=labels, exclude_labels=exclude_labels
    )


#: Random scopes, or None (no wall).
SCOPES = st.builds(
    _scope, st.none() | _names, st.just([]) | _names, st.none() | _labels, st.just([]) | _labels
)


@dataclass
class Model:
    """The graph as the writes so far left it."""

    nodes: dict[str, tuple[str, tuple[str, ...]]] = field(default_factory=dict)
    edges: dict[str, tuple[str, str, str]] = field(default_factory=dict)

    def copy(self) -> Model:
        return Model(dict(self.nodes), dict(self.edges))

    def visible(self, scope: Scope | None) -> Model:
        """What a reader inside ``scope`` sees: nodes passing it, edges in a visible group
        between two visible nodes."""
        nodes = {
            i: v for i, v in self.nodes.items() if scope is None or scope.node_visible(v[0], v[1])
        }
        edges = {
            i: (s, d, g)
            for i, (s, d, g) in self.edges.items()
            if s in nodes and d in nodes and (scope is None or scope.group_visible(g))
        }
        return Model(nodes, edges)

    def graph(self, directed: bool = False) -> nx.MultiGraph:
        g = nx.MultiDiGraph() if directed else nx.MultiGraph()
        g.add_nodes_from(self.nodes)
        for i, (s, d, _) in sorted(self.edges.items()):
            g.add_edge(s, d, key=i)
        return g


def write_history(store: Store, batches: list) -> list[tuple[datetime, Model]]:
    """Commit each batch (one transaction), returning (an instant after it, the model then);
    the first entry is before any write."""
    model = Model()
    out = [(datetime.now(timezone.utc), model.copy())]
    for batch in batches:
        with store.transaction():
            for op in batch:
                _apply(store, model, op)
        time.sleep(0.000002)  # a distinct microsecond after each commit
        out.append((datetime.now(timezone.utc), model.copy()))
    return out


def view_at_drawn_instant(
    store: Store, batches: list, scope: Scope | None, data: st.DataObject
) -> tuple[View, Model]:
    """Write ``batches`` (:func:`write_history`), then the store ``as_of`` an instant drawn
    from that history behind ``scope``, and the model of what that view sees."""
    instant, model = data.draw(st.sampled_from(write_history(store, batches)))
    return store.as_of(tx_time=instant, scope=scope), model.visible(scope)


def _apply(store: Store, model: Model, op: tuple) -> None:
    kind = op[0]
    if kind == "node":
        _, nid, group, labels = op
        vec = [1.0 + NODE_IDS.index(nid), 1.0]
        store.upsert_nodes(
            [Node(nid, group=group, labels=tuple(labels), name=nid, text="word", embedding=vec)]
        )
        model.nodes[nid] = (group, tuple(labels))
    elif kind == "edge":
        _, eid, (src, dst), group = op
        if src in model.nodes and dst in model.nodes:
            store.upsert_edges([Edge(eid, src=src, dst=dst, rel="R", group=group, text="word")])
            model.edges[eid] = (src, dst, group)
    elif kind == "drop_node":
        if op[1] in model.nodes:
            store.delete_nodes([op[1]])  # detach: its edges go too
            del model.nodes[op[1]]
            model.edges = {i: v for i, v in model.edges.items() if op[1] not in (v[0], v[1])}
    elif op[1] in model.edges:
        store.delete_edges([op[1]])
        del model.edges[op[1]]
