"""Generated memories for the viewer's browser tests: people, companies, places, projects and
topics in a few groups, linked the way a memory grows (a newcomer links mostly to its own
community, and to the already well-connected), written over several transactions with facts
ended and nodes deleted, so the slider has a history to move through. Fixed seed."""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path

from anatid_core import Edge, Node, Store

FIRST = "Ada Ben Chloe Dev Emil Fatima Goran Hana Ivo Jun Kofi Lena Mateo Nia Omar Priya".split()
LAST = "Okafor Silva Nakamura Novak Haddad Larsen Mensah Rossi Kowalski Tan Dubois Ivanova".split()
WORDS = "Acme Globex Initech Umbra Vertex Nimbus Quill Aster Borealis Cobalt Delta Ember".split()
KINDS = ("Person", "Person", "Person", "Company", "Place", "Project", "Topic")
# (label of src, label of dst) -> relation, and the fact's wording
RELATIONS = {
    ("Person", "Company"): ("WORKS_AT", "works at"),
    ("Person", "Person"): ("KNOWS", "knows"),
    ("Person", "Project"): ("WORKS_ON", "works on"),
    ("Company", "Place"): ("LOCATED_IN", "is located in"),
    ("Project", "Company"): ("OWNED_BY", "is owned by"),
    ("Person", "Place"): ("LIVES_IN", "lives in"),
}


@dataclass
class Memory:
    path: Path
    nodes: dict[str, tuple[str, str, str]] = field(
        default_factory=dict
    )  # id -> (name, label, group)
    edges: dict[str, tuple[str, str, str]] = field(default_factory=dict)  # id -> (src, dst, rel)
    deleted: list[str] = field(default_factory=list)
    _adjacent: dict[str, set[str]] = field(default_factory=dict, repr=False)

    def neighbours(self, node: str) -> set[str]:
        """Every node an edge (of any version) ever joined to ``node``."""
        if not self._adjacent:
            for src, dst, _ in self.edges.values():
                if src != dst:
                    self._adjacent.setdefault(src, set()).add(dst)
                    self._adjacent.setdefault(dst, set()).add(src)
        return set(self._adjacent.get(node, ()))

    def by_degree(self) -> list[str]:
        """Node ids, the best-connected first (ties by id), as the page ranks them."""
        return sorted(self.nodes, key=lambda n: (-len(self.neighbours(n)), n))


def build(path: Path, nodes: int, edges: int, *, seed: int = 36) -> Memory:
    rnd = random.Random(seed)
    memory = Memory(path)
    communities = max(3, nodes // 60)
    groups = ("team-a", "team-b", "public")
    names: set[str] = set()
    ends: list[int] = []  # every edge end so far: a pick from it prefers the well-connected
    members: dict[int, list[int]] = {}
    node_records, edge_records = [], []
    per_node = max(1, round(edges / nodes))
    for i in range(nodes):
        kind = rnd.choice(KINDS)
        if kind == "Person":
            name = f"{rnd.choice(FIRST)} {rnd.choice(LAST)}"
        elif kind == "Company":
            name = f"{rnd.choice(WORDS)} {rnd.choice(['Ltd', 'Labs', 'Group', 'Bank'])}"
        elif kind == "Place":
            name = f"{rnd.choice(['Port', 'Lake', 'Mount', 'New'])} {rnd.choice(WORDS)}"
        else:
            name = f"{rnd.choice(WORDS)} {rnd.choice(['Launch', 'Review', 'Study', 'Rollout'])}"
        base, n = name, 2
        while name in names:
            name, n = f"{base} {n}", n + 1
        names.add(name)
        community = rnd.randrange(communities)
        group = groups[community % len(groups)]
        nid = f"n{i:05d}"
        memory.nodes[nid] = (name, kind, group)
        node_records.append(
            Node(
                nid,
                group=group,
                labels=("Entity", kind),
                name=name,
                text=f"{name}, a {kind.lower()}",
            )
        )
        mates = members.setdefault(community, [])
        for _ in range(per_node if i else 0):
            if mates and rnd.random() < 0.7:
                j = rnd.choice(mates)
            elif ends:
                j = rnd.choice(ends)
            else:
                j = rnd.randrange(i)
            if j == i:
                continue
            a, b = f"n{i:05d}", f"n{j:05d}"
            ka, kb = kind, memory.nodes[b][1]
            if (ka, kb) not in RELATIONS and (kb, ka) in RELATIONS:
                a, b, ka, kb = b, a, kb, ka
            rel, verb = RELATIONS.get((ka, kb), ("RELATED_TO", "is related to"))
            eid = f"e{len(memory.edges):05d}"
            memory.edges[eid] = (a, b, rel)
            text = f"{memory.nodes[a][0]} {verb} {memory.nodes[b][0]}"
            edge_records.append(Edge(eid, a, b, rel, group=group, text=text))
            ends += [i, j]
        mates.append(i)
        if len(edge_records) >= edges:
            per_node = 0
    with Store.open(path) as store:
        # Four transactions of growth (the slider's steps), then facts ended, then deletions.
        written: set[str] = set()
        for part in range(4):
            lo, hi = part * len(node_records) // 4, (part + 1) * len(node_records) // 4
            store.upsert_nodes(node_records[lo:hi])
            known = {r.id for r in node_records[:hi]}
            batch = [e for e in edge_records if e.id not in written and {e.src, e.dst} <= known]
            store.upsert_edges(batch)
            written |= {e.id for e in batch}
        ended = edge_records[:: max(1, len(edge_records) // 20)]
        store.close_edges([e.id for e in ended], valid_to=datetime(2025, 1, 1, tzinfo=timezone.utc))
        memory.deleted = [r.id for r in node_records[-max(1, nodes // 50) :]]
        store.delete_nodes(memory.deleted)
    return memory
