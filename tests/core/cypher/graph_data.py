"""The differential suite's graph: one seeded property graph, described once, loaded everywhere.

Standard library only: ``peers.py`` runs this module's output in Kuzu's own venv too (as JSON).

Shape (``SEED`` fixes every value):

* nodes, one label each: ``Person``, ``Company``, ``City``, ``Topic``; every node has ``id``,
  ``name``, ``group`` and ``text`` (strings, as anatid's default shape always has them), plus
  its label's own typed properties (``SCHEMA``), some left out (null) at random;
* relationships: ``KNOWS`` (Person-Person, with self loops and parallel edges), ``WORKS_AT``,
  ``LIVES_IN``, ``LOCATED_IN``, ``LIKES`` (Person or Company to Topic), ``RELATED_TO``
  (Topic-Topic, a ring plus chords, so variable-length paths meet cycles, and self loops);
  each has ``id``, ``name``, ``group``, ``text`` and its own typed properties.

A missing property is absent, never stored as null: Cypher (Neo4j, FalkorDB) has no null-valued
property, and anatid's ``keys()`` is the keys of ``props`` plus the four fixed ones.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

SEED = 35

#: Property types a label or relationship type has, beyond id/name/group/text (which are
#: strings on every record). Types: "string", "int", "float", "bool", "strings" (list of str).
SCHEMA: dict[str, dict[str, str]] = {
    "Person": {"age": "int", "score": "float", "active": "bool", "email": "string",
               "tags": "strings", "rank": "int"},
    "Company": {"founded": "int", "revenue": "float", "public": "bool", "sector": "string"},
    "City": {"population": "int", "country": "string", "area": "float"},
    "Topic": {"weight": "float", "level": "int", "tags": "strings"},
    "KNOWS": {"since": "int", "weight": "float", "close": "bool"},
    "WORKS_AT": {"role": "string", "since": "int", "salary": "float"},
    "LIVES_IN": {"since": "int"},
    "LOCATED_IN": {"hq": "bool"},
    "LIKES": {"rating": "int", "note": "string"},
    "RELATED_TO": {"strength": "float", "kind": "string"},
}  # fmt: skip

#: Each relationship type's (from label, to label) pairs.
ENDPOINTS: dict[str, list[tuple[str, str]]] = {
    "KNOWS": [("Person", "Person")],
    "WORKS_AT": [("Person", "Company")],
    "LIVES_IN": [("Person", "City")],
    "LOCATED_IN": [("Company", "City")],
    "LIKES": [("Person", "Topic"), ("Company", "Topic")],
    "RELATED_TO": [("Topic", "Topic")],
}

#: The properties every record has, as anatid's default shape always has them (strings).
FIXED_KEYS = ("id", "name", "group", "text")
LABELS = ("Person", "Company", "City", "Topic")
PREFIX = {"Person": "p", "Company": "co", "City": "ci", "Topic": "t"}
COUNTS = {"Person": 120, "Company": 30, "City": 20, "Topic": 40}
GROUPS = ("g1", "g2", "g3")

FIRST = ["Ada", "Bob", "Cleo", "Dan", "Eve", "Finn", "Gus", "Hana", "Ivo", "Jo", "Kai", "Lea",
         "Max", "Nia", "Oto", "Pia", "Quin", "Ria", "Sam", "Tia", "Uma", "Vic", "Wes", "Xia"]  # fmt: skip
LAST = ["Smith", "Jones", "Brown", "Lee", "Khan", "Garcia", "Muller", "Rossi", "Novak", "Silva"]
WORDS = ["graph", "store", "time", "alpha", "beta", "delta", "river", "stone", "cloud", "fire",
         "green", "blue", "north", "south", "data", "code", "music", "art", "sport", "food"]  # fmt: skip
SECTORS = ["tech", "retail", "energy", "health", "finance"]
COUNTRIES = ["FR", "DE", "IT", "ES", "PL", "NL"]
ROLES = ["engineer", "manager", "analyst", "Engineer", "intern", "CEO"]
KINDS = ["broader", "narrower", "see_also"]
TAGS = ["red", "green", "blue", "x", "y", "long tag", "Red"]


@dataclass
class Record:
    """One node or relationship: its label (or type), endpoints for a relationship, and every
    property including id/name/group/text (missing ones are simply absent)."""

    label: str
    props: dict[str, Any]
    src: str | None = None
    dst: str | None = None

    @property
    def id(self) -> str:
        return self.props["id"]


@dataclass
class Graph:
    nodes: list[Record] = field(default_factory=list)
    rels: list[Record] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {
            "fixed": list(FIXED_KEYS),
            "schema": SCHEMA,
            "endpoints": ENDPOINTS,
            "nodes": [{"label": n.label, "props": n.props} for n in self.nodes],
            "rels": [
                {"label": r.label, "src": r.src, "dst": r.dst, "props": r.props} for r in self.rels
            ],
        }


def _value(rng: random.Random, kind: str, key: str) -> Any:
    if kind == "int":
        if key == "age":
            return rng.randint(16, 90)
        if key in ("since", "founded"):
            return rng.randint(1950, 2024)
        if key == "population":
            return rng.randint(1_000, 3_000_000)
        if key == "rank":
            return rng.randint(-5, 5)
        return rng.randint(0, 10)
    if kind == "float":
        if key in ("revenue", "salary"):
            return round(rng.uniform(1e3, 1e6), 2)
        if key == "score":  # some exact halves and negatives, so rounding and signs are tested
            return rng.choice([round(rng.uniform(-10, 100), 3), rng.randint(-4, 20) / 2])
        return round(rng.uniform(0, 1), 4)
    if kind == "bool":
        return rng.random() < 0.5
    if kind == "strings":
        return rng.sample(TAGS, rng.randint(0, 3))
    # strings
    if key == "email":
        return f"{rng.choice(FIRST).lower()}{rng.randint(1, 99)}@{rng.choice(['a.org', 'b.com'])}"
    if key == "sector":
        return rng.choice(SECTORS)
    if key == "country":
        return rng.choice(COUNTRIES)
    if key == "role":
        return rng.choice(ROLES)
    if key == "kind":
        return rng.choice(KINDS)
    return " ".join(rng.sample(WORDS, rng.randint(1, 3)))


def _props(rng: random.Random, label: str, rid: str, name: str, missing: float) -> dict[str, Any]:
    props: dict[str, Any] = {
        "id": rid,
        "name": name,
        "group": rng.choice(GROUPS),
        "text": " ".join(rng.sample(WORDS, rng.randint(0, 4))),
    }
    for key, kind in SCHEMA[label].items():
        if rng.random() >= missing:
            props[key] = _value(rng, kind, key)
    return props


def _node_name(rng: random.Random, label: str, i: int) -> str:
    if label == "Person":
        # Some names repeat (grouping, DISTINCT), some have odd case/space/quotes for string ops.
        name = f"{rng.choice(FIRST)} {rng.choice(LAST)}"
        return rng.choice([name, name, name, name.upper(), f" {name} ", f"{name}'s"])
    if label == "Company":
        return f"{rng.choice(WORDS).title()} {rng.choice(['Inc', 'Ltd', 'GmbH', 'Co'])}"
    if label == "City":
        return f"City{i:02d}"
    return rng.choice(WORDS) + ("" if i % 3 else f"-{i}")


def generate(seed: int = SEED) -> Graph:
    """The graph for ``seed``: the same records, in the same order, every time."""
    rng = random.Random(seed)
    graph = Graph()
    ids: dict[str, list[str]] = {}
    for label in LABELS:
        ids[label] = []
        for i in range(COUNTS[label]):
            rid = f"{PREFIX[label]}{i:03d}"
            ids[label].append(rid)
            name = _node_name(rng, label, i)
            graph.nodes.append(Record(label, _props(rng, label, rid, name, missing=0.2)))
    # The empty string and a Cypher-looking name, as data.
    graph.nodes[3].props["name"] = ""
    graph.nodes[4].props["name"] = "x'}) DETACH DELETE n //"

    counter = 0

    def rel(rtype: str, src: str, dst: str) -> None:
        nonlocal counter
        counter += 1
        rid = f"r{counter:04d}"
        name = rtype.lower() if rng.random() < 0.7 else ""
        graph.rels.append(
            Record(rtype, _props(rng, rtype, rid, name, missing=0.25), src=src, dst=dst)
        )

    people, companies, cities, topics = (ids[x] for x in LABELS)
    for p in people:
        for q in rng.sample(people, rng.randint(0, 7)):
            rel("KNOWS", p, q)  # may pick p itself: a self loop
    for p in rng.sample(people, 6):
        rel("KNOWS", p, p)  # self loops for certain
    for _ in range(12):  # parallel edges: a second KNOWS on an existing pair
        known = rng.choice([r for r in graph.rels if r.label == "KNOWS"])
        rel("KNOWS", known.src or "", known.dst or "")
    for p in people:
        for c in rng.sample(companies, rng.choice([0, 1, 1, 1, 2])):
            rel("WORKS_AT", p, c)
        if rng.random() < 0.9:
            rel("LIVES_IN", p, rng.choice(cities))
        for t in rng.sample(topics, rng.randint(0, 4)):
            rel("LIKES", p, t)
    for c in companies:
        rel("LOCATED_IN", c, rng.choice(cities))
        for t in rng.sample(topics, rng.randint(0, 2)):
            rel("LIKES", c, t)
    for i, t in enumerate(topics):  # a ring (cycles of every length) plus random chords
        rel("RELATED_TO", t, topics[(i + 1) % len(topics)])
        if rng.random() < 0.5:
            rel("RELATED_TO", t, rng.choice(topics))
    for t in topics[:3]:
        rel("RELATED_TO", t, t)
    return graph


def check_endpoints(graph: Graph) -> None:
    """Every relationship joins labels its type allows (the Kuzu schema needs it)."""
    label_of = {n.id: n.label for n in graph.nodes}
    for r in graph.rels:
        pair = (label_of[r.src or ""], label_of[r.dst or ""])
        assert pair in ENDPOINTS[r.label], (r.label, pair)
