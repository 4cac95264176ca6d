"""A generated memory and a labelled set of queries over it, for the ranking check of ``anatid
search`` (issue 36; tests/cli/test_search_ranking.py runs it).

The memory is shaped like a Graphiti file: entity nodes with uuid-like ids, a name and a one-line
summary; facts on ``RELATES_TO`` edges named by their relation, with the fact as text. Who works
where, lives where and knows whom is drawn with a fixed seed; each query's expected top results
are computed from what was drawn, so the set stays right if the draw changes.

    python -m tests.cli.ranking_memory        # the figures: queries answered as labelled
"""

from __future__ import annotations

import contextlib
import io
import json
import random
import tempfile
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from anatid_core import Edge, Node, Store
from anatid_core.cli import main

PEOPLE = [
    ("Alice", "Moreau", "chemist"),
    ("Bruno", "Keller", "pilot"),
    ("Chloe", "Dubois", "architect"),
    ("Dmitri", "Volkov", "violinist"),
    ("Emma", "Larsen", "nurse"),
    ("Farid", "Haddad", "baker"),
    ("Greta", "Novak", "judge"),
    ("Hiro", "Tanaka", "surgeon"),
    ("Ines", "Ortega", "geologist"),
    ("Jonas", "Berg", "carpenter"),
    ("Kofi", "Mensah", "editor"),
    ("Lena", "Fischer", "botanist"),
]
COMPANIES = [
    ("Acme", "anvils"),
    ("Globex", "turbines"),
    ("Initech", "printers"),
    ("Umbrella", "vaccines"),
    ("Hooli", "phones"),
]
CITIES = ["Paris", "Berlin", "Lisbon", "Oslo"]


def uid(name: str) -> str:
    """A uuid, as Graphiti gives every node and fact (so ties broken by id fall anywhere)."""
    return str(uuid.uuid5(uuid.NAMESPACE_URL, f"anatid-ranking/{name}"))


@dataclass(frozen=True)
class Memory:
    path: Path
    nodes: dict[str, str]  # name -> id
    edges: list[Edge]

    def neighbours(self, name: str) -> set[str]:
        """The ids of the nodes one fact away."""
        me = self.nodes[name]
        return {e.dst if e.src == me else e.src for e in self.edges if me in (e.src, e.dst)}

    def facts(self, relation: str, *names: str) -> set[str]:
        """The facts of this relation that involve every one of ``names``."""
        ids = {self.nodes[n] for n in names}
        return {e.id for e in self.edges if e.name == relation and ids <= {e.src, e.dst}}


def build(path: Path, seed: int = 36) -> Memory:
    rng = random.Random(seed)
    nodes: list[Node] = []
    for first, last, job in PEOPLE:
        name = f"{first} {last}"
        nodes.append(
            Node(uid(name), labels=("Entity", "Person"), name=name, text=f"{name} is a {job}")
        )
    for company, product in COMPANIES:
        nodes.append(
            Node(
                uid(company),
                labels=("Entity", "Company"),
                name=company,
                text=f"{company} makes {product}",
            )
        )
    for city in CITIES:
        nodes.append(
            Node(uid(city), labels=("Entity", "City"), name=city, text=f"{city} is a city")
        )
    ids = {n.name: n.id for n in nodes}
    edges: list[Edge] = []

    def fact(src: str, relation: str, dst: str, text: str) -> None:
        edges.append(
            Edge(
                uid(f"{src} {relation} {dst}"),
                ids[src],
                ids[dst],
                "RELATES_TO",
                name=relation,
                text=text,
            )
        )

    people = [f"{first} {last}" for first, last, _ in PEOPLE]
    for company, _ in COMPANIES:
        fact(company, "BASED_IN", city := rng.choice(CITIES), f"{company} is based in {city}")
    for person in people:
        fact(person, "WORKS_AT", firm := rng.choice(COMPANIES)[0], f"{person} works at {firm}")
        fact(person, "LIVES_IN", city := rng.choice(CITIES), f"{person} lives in {city}")
        for friend in rng.sample([p for p in people if p != person], 2):
            fact(person, "KNOWS", friend, f"{person} knows {friend}")
    with Store.open(path) as store:
        store.upsert_nodes(nodes)
        store.upsert_edges(edges)
    return Memory(path, ids, edges)


@dataclass(frozen=True)
class Query:
    """``anatid search FILE TEXT --kind KIND --k K``: the first ``len(top)`` hits must be the
    records of ``top`` (in any order), and the next ``len(then)`` those of ``then``."""

    what: str
    text: str
    kind: str
    top: frozenset[str]
    then: frozenset[str] = frozenset()

    @property
    def k(self) -> int:
        return len(self.top) + len(self.then)


def queries(m: Memory) -> list[Query]:
    """The labelled set: names, facts and graph neighbours."""
    n = m.nodes

    def q(what: str, text: str, kind: str, top: set[str], then: set[str] = set()) -> Query:  # noqa: B006
        return Query(what, text, kind, frozenset(top), frozenset(then))

    return [
        q("a full name", "Alice Moreau", "node", {n["Alice Moreau"]}),
        q("a surname", "Keller", "node", {n["Bruno Keller"]}),
        q("a city", "Lisbon", "node", {n["Lisbon"]}),
        q(
            "a person and a company (issue 36)",
            "Alice Globex",
            "node",
            {n["Alice Moreau"], n["Globex"]},
        ),
        q("three companies", "Acme Initech Hooli", "node", {n["Acme"], n["Initech"], n["Hooli"]}),
        q("an occupation", "surgeon", "node", {n["Hiro Tanaka"]}),
        q("the facts of a company", "works at Globex", "edge", m.facts("WORKS_AT", "Globex")),
        q("one fact", "Alice Moreau lives", "edge", m.facts("LIVES_IN", "Alice Moreau")),
        q("whom a person knows", "Dmitri Volkov knows", "edge", m.facts("KNOWS", "Dmitri Volkov")),
        q(
            "a person, then its neighbours",
            "Greta Novak",
            "node",
            {n["Greta Novak"]},
            m.neighbours("Greta Novak"),
        ),
        q("a city, then its neighbours", "Oslo", "node", {n["Oslo"]}, m.neighbours("Oslo")),
    ]


def search(path: Path, query: Query, *extra: str, k: int | None = None) -> list[dict[str, Any]]:
    """The hits of ``anatid search ... --json`` (``--k`` the query's, or ``k``), through the
    command's own entry point."""
    out = io.StringIO()
    k = query.k if k is None else k
    args = ["search", str(path), query.text, "--kind", query.kind, "--k", str(k), "--json"]
    with contextlib.redirect_stdout(out):
        code = main([*args, *extra])
    assert code == 0, f"anatid {' '.join(args)} exited {code}"
    return json.loads(out.getvalue())


def answered(query: Query, hits: list[dict[str, Any]]) -> bool:
    ids = [h["item"]["id"] for h in hits]
    head, tail = ids[: len(query.top)], ids[len(query.top) : query.k]
    return set(head) == query.top and set(tail) == query.then


def precision(query: Query, hits: list[dict[str, Any]]) -> float:
    """The share of the first len(top) hits that are labelled top."""
    head = {h["item"]["id"] for h in hits[: len(query.top)]}
    return len(head & query.top) / len(query.top)


def figures(path: Path) -> list[tuple[Query, bool, float, list[dict[str, Any]]]]:
    memory = build(path)
    rows = []
    for query in queries(memory):
        hits = search(path, query)
        rows.append((query, answered(query, hits), precision(query, hits), hits))
    return rows


if __name__ == "__main__":
    with tempfile.TemporaryDirectory() as tmp:
        rows = figures(Path(tmp) / "memory.duckdb")
    for query, ok, p, hits in rows:
        first = ", ".join(f"{h['item']['name']}[{'+'.join(h['arms'])}]" for h in hits[:3])
        print(f"{'ok  ' if ok else 'MISS'} p@top {p:.2f}  {query.what}: {query.text!r} -> {first}")
    mean = sum(p for _, _, p, _ in rows) / len(rows)
    print(
        f"{sum(ok for _, ok, _, _ in rows)}/{len(rows)} queries as labelled; mean p@top {mean:.2f}"
    )
