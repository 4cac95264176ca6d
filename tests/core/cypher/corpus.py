"""The differential suite's queries: hand-written ones by feature, then seeded generated ones.

Each :class:`Q` says how its answer compares:

* ``ordered``: compared as lists; set only where ``ORDER BY`` makes the order total (every sort
  ends on a unique key), else compared as multisets;
* ``bags``: lists inside values (``collect``) are compared as multisets, their order being
  whatever order rows arrived in;
* ``peers``: the peers whose semantics are standard openCypher (Neo4j's) for this query; by
  default both. A query narrowed to one peer names the ``why``: a section of ``DIFFERENCES.md``;
* ``peer_text``: the query the peers run instead, where both peers depart from openCypher the
  same way and the standard meaning can be spelled out in their dialect (relationship
  uniqueness within a pattern: ``WHERE r1.id <> r2.id``).
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

from .graph_data import SCHEMA, SEED, generate

BOTH = ("kuzu", "falkordb")
KUZU = ("kuzu",)
FALKOR = ("falkordb",)

# The why of a narrowed query: a section title of DIFFERENCES.md.
W_LABELS = "Kuzu: labels() is a string"
W_FUNCS = "Kuzu: functions missing or renamed"
W_KEYS = "Kuzu: keys() lists the table's columns, properties() is not a function"
W_INDEX = "Kuzu: lists and substring() are 1-based"
W_COMPREHENSION = "Kuzu: no list comprehension"
W_REGEX = "FalkorDB: no =~"
W_PARALLEL = "FalkorDB: parallel edges collapse when the relationship is not used"
W_VARLEN = "FalkorDB: variable-length patterns miss paths"
W_SELF_LOOP = "Kuzu: an undirected pattern matches a self loop twice"
W_EMPTY_AGG = "Kuzu: sum() and collect() of no values are null"
W_DISTINCT_AGG = "Kuzu: a DISTINCT aggregate spoils the aggregates beside it"
W_UNKNOWN = "Kuzu: an unknown relationship type is an error"
W_TRIM = "Kuzu: trim() of a stored string returns garbage"
W_PROCEDURES = "Kuzu: no db.labels() procedures"
W_PATHS = "Kuzu: paths are not comparable"
W_NESTED_CASE = "Kuzu: a CASE inside a CASE"
W_WITH_ORDER = "Kuzu: WITH ... ORDER BY needs SKIP or LIMIT"
W_NULL_IN = "Kuzu: IN with a null element"
W_EMPTY_CONTAINS = "Kuzu: '' CONTAINS ''"
W_MIXED_LIST = "Kuzu: lists are typed"
W_ISOMORPHISM = "Both: relationship uniqueness within a pattern"


@dataclass(frozen=True)
class Q:
    text: str
    params: dict[str, Any] = field(default_factory=dict)
    ordered: bool = False
    bags: bool = False
    peers: tuple[str, ...] = BOTH
    why: str = ""
    peer_text: str | None = None
    name: str = ""
    #: Where neither peer is standard: the rows Neo4j answers (its manual), checked directly.
    expected: list[tuple[Any, ...]] | None = None


def _q(text: str, **kw: Any) -> Q:
    return Q(" ".join(text.split()), **kw)


# ------------------------------------------------------------------------------ hand-written

MATCHING = [
    _q("MATCH (n:Person) RETURN n.id"),
    _q("MATCH (n) RETURN n.id"),
    _q("MATCH (n:Company) RETURN n"),
    _q("MATCH (n:City {country: 'FR'}) RETURN n.name"),
    _q("MATCH (n:Person {active: true, group: 'g1'}) RETURN n.id"),
    _q("MATCH (n {id: 'p007'}) RETURN n.name, n.age, n.score, n.email"),
    _q("MATCH (n:Person {id: $id}) RETURN n.name", params={"id": "p011"}),
    _q("MATCH (n:Person {age: 30}) RETURN n.id"),
    _q("MATCH (n:Topic {level: 3, group: 'g2'}) RETURN n.id, n.weight"),
    _q("MATCH (n:Person {name: ''}) RETURN n.id"),
    _q("MATCH (n:Company {public: false}) RETURN n.id, n.sector"),
    _q("MATCH (a:Person)-[:KNOWS]->(b:Person) RETURN a.id, b.id", peers=KUZU, why=W_PARALLEL),
    _q("MATCH (a:Person)<-[:KNOWS]-(b) RETURN a.id, b.id", peers=KUZU, why=W_PARALLEL),
    _q("MATCH (a:Person {id: 'p001'})-[:KNOWS]-(b) RETURN b.id"),
    _q("MATCH (a:Person {id: 'p001'})-[r]-(b) RETURN r.id, b.id"),
    _q("MATCH (a)-[r]->(b) RETURN r.id, a.id, b.id"),
    _q("MATCH ()-[r:LOCATED_IN]->() RETURN r"),
    _q("MATCH (a:Company)-[r:LOCATED_IN]->(c:City) RETURN a, r, c"),
    _q(
        "MATCH (a:Person)-[:WORKS_AT]->(c:Company)-[:LOCATED_IN]->(city:City) RETURN a.id, c.id, city.name"
    ),
    _q("MATCH (a:Person)-[:LIVES_IN]->(c:City)<-[:LOCATED_IN]-(co:Company) RETURN a.id, co.id"),
    _q("MATCH (a:Person)-[:LIKES]->(t:Topic), (a)-[:LIVES_IN]->(c) RETURN a.id, t.id, c.id"),
    _q("MATCH (a:Person {id: 'p002'}), (b:Company {id: 'co003'}) RETURN a.name, b.name"),
    _q(
        "MATCH (a:Person)-[:WORKS_AT]->(c), (b:Person)-[:WORKS_AT]->(c) WHERE a.id < b.id RETURN a.id, b.id, c.id"
    ),
    _q("MATCH (c:City), (t:Topic) WHERE c.id = 'ci001' AND t.level = 2 RETURN c.id, t.id"),
    _q("MATCH (a:Person)-[:KNOWS|LIKES]->(b) WHERE a.id = 'p003' RETURN b.id"),
    _q("MATCH (a:Person)-[r:KNOWS {close: true}]->(b) RETURN r.id"),
    _q("MATCH (a)-[r]->(b:Topic {level: 3}) RETURN a.id, r.id"),
    _q("MATCH (a)-[r:KNOWS]->(a) RETURN a.id, r.id"),
    _q("MATCH (a:Person)-[r:KNOWS]-(a) RETURN r.id", peers=FALKOR, why=W_SELF_LOOP),
    _q("MATCH (a)-[r:KNOWS]->(b) WITH a, b, count(r) AS c WHERE c > 1 RETURN a.id, b.id, c"),
    _q(
        "MATCH (a:Topic)-[r:RELATED_TO]->(b:Topic)-[s:RELATED_TO]->(a) RETURN a.id, b.id, r.id, s.id",
        peer_text="MATCH (a:Topic)-[r:RELATED_TO]->(b:Topic)-[s:RELATED_TO]->(a) WHERE r.id <> s.id RETURN a.id, b.id, r.id, s.id",
        why=W_ISOMORPHISM,
    ),
    _q(
        "MATCH (a:Person {id: 'p010'})-[r:KNOWS]-(b)-[s:KNOWS]-(c) RETURN r.id, s.id, c.id",
        peer_text="MATCH (a:Person {id: 'p010'})-[r:KNOWS]-(b)-[s:KNOWS]-(c) WHERE r.id <> s.id RETURN r.id, s.id, c.id",
        why=W_ISOMORPHISM,
    ),
    _q(
        "MATCH (a:Person)-[:WORKS_AT]->(c:Company)<-[:WORKS_AT]-(b:Person) WHERE a.id = 'p005' RETURN b.id",
        peer_text="MATCH (a:Person)-[r:WORKS_AT]->(c:Company)<-[s:WORKS_AT]-(b:Person) WHERE a.id = 'p005' AND r.id <> s.id RETURN b.id",
        why=W_ISOMORPHISM,
    ),
    _q("MATCH (p:Person)-[:LIVES_IN]->(c:City {country: 'DE'}) RETURN p.name, c.name"),
    _q(
        "MATCH (p:Person)-[w:WORKS_AT]->(c:Company) WHERE w.role = 'engineer' RETURN p.id, c.id, w.since"
    ),
    _q("MATCH (x:Company)-[:LIKES]->(t:Topic)<-[:LIKES]-(p:Person) RETURN x.id, t.id, p.id"),
    _q("MATCH (n:Person) MATCH (n)-[:LIVES_IN]->(c) RETURN n.id, c.id"),
    _q("MATCH (n:Person {id: 'p004'}) RETURN n.name"),
    _q("MATCH (n:Person {name: $name}) RETURN n.id", params={"name": "x'}) DETACH DELETE n //"}),
]

VARIABLE_LENGTH = [
    _q(
        "MATCH (t:Topic {id: 't000'})-[:RELATED_TO*1..3]->(u) RETURN u.id", peers=KUZU, why=W_VARLEN
    ),
    _q("MATCH (t:Topic {id: 't005'})-[:RELATED_TO*2]->(u) RETURN u.id", peers=KUZU, why=W_VARLEN),
    _q(
        "MATCH (t:Topic {id: 't001'})-[:RELATED_TO*0..2]->(u) RETURN u.id", peers=KUZU, why=W_VARLEN
    ),
    _q(
        "MATCH (t:Topic {id: 't010'})-[:RELATED_TO*1..4]-(u) RETURN count(*)",
        peers=KUZU,
        why=W_VARLEN,
    ),
    _q(
        "MATCH (p:Person {id: 'p000'})-[:KNOWS*1..2]->(q) RETURN DISTINCT q.id",
        peers=KUZU,
        why=W_VARLEN,
    ),
    _q("MATCH (p:Person {id: 'p010'})-[:KNOWS*1..2]-(q) RETURN q.id", peers=KUZU, why=W_VARLEN),
    _q("MATCH (a:Topic)-[:RELATED_TO*3..3]->(a) RETURN a.id", peers=KUZU, why=W_VARLEN),
    _q("MATCH (a:Topic)-[:RELATED_TO*1..1]->(b) RETURN a.id, b.id", peers=KUZU, why=W_VARLEN),
    _q("MATCH (p:Person {id: 'p005'})-[:KNOWS*..2]->(q) RETURN q.id", peers=KUZU, why=W_VARLEN),
    _q("MATCH (p:Person {id: 'p005'})-[*1..2]->(q) RETURN q.id", peers=KUZU, why=W_VARLEN),
    _q(
        "MATCH (p:Person {id: 'p033'})-[:KNOWS*1..3]->(q:Person) WHERE q.age > 50 RETURN DISTINCT q.id",
        peers=KUZU,
        why=W_VARLEN,
    ),
    _q(
        "MATCH (c:City {id: 'ci003'})<-[:LIVES_IN]-(p)-[:KNOWS*1..2]->(q) RETURN p.id, q.id",
        peers=KUZU,
        why=W_VARLEN,
    ),
    _q(
        "MATCH (t:Topic {id: 't010'})-[:RELATED_TO*2..3]->(u:Topic) RETURN u.id, u.level",
        peers=KUZU,
        why=W_VARLEN,
    ),
    _q(
        "MATCH (t:Topic {id: 't020'})<-[:RELATED_TO*1..3]-(u) RETURN u.id", peers=KUZU, why=W_VARLEN
    ),
    _q(
        "MATCH (p:Person {id: 'p001'})-[:KNOWS*2..2]->(q) RETURN q.id, count(*)",
        peers=KUZU,
        why=W_VARLEN,
    ),
    _q("MATCH (p:Person)-[:KNOWS*1..2]->(p) RETURN p.id", peers=KUZU, why=W_VARLEN),
    _q(
        "MATCH (p:Person {id: 'p090'})-[:WORKS_AT|LOCATED_IN*1..2]->(x) RETURN x.id",
        peers=KUZU,
        why=W_VARLEN,
    ),
    _q(
        "MATCH (a:Topic {id: 't000'})-[:RELATED_TO*1..5]->(b:Topic {id: 't004'}) RETURN count(*)",
        peers=KUZU,
        why=W_VARLEN,
    ),
]

OPTIONAL = [
    _q("MATCH (p:Person) OPTIONAL MATCH (p)-[:WORKS_AT]->(c) RETURN p.id, c.id"),
    _q(
        "MATCH (p:Person) OPTIONAL MATCH (p)-[:WORKS_AT]->(c:Company {public: true}) RETURN p.id, c.name"
    ),
    _q("MATCH (c:City) OPTIONAL MATCH (c)<-[:LIVES_IN]-(p) RETURN c.id, count(p)"),
    _q("OPTIONAL MATCH (n:Person {id: 'nope'}) RETURN n"),
    _q("OPTIONAL MATCH (n:Person {id: 'nope'}) RETURN n.name"),
    _q(
        "MATCH (p:Person) WHERE p.id < 'p010' OPTIONAL MATCH (p)-[r:LIKES]->(t) WHERE t.weight > 0.5 RETURN p.id, t.id"
    ),
    _q(
        "MATCH (p:Person {id: 'p001'}) OPTIONAL MATCH (p)-[:WORKS_AT]->(c) OPTIONAL MATCH (c)-[:LOCATED_IN]->(city) RETURN p.id, c.id, city.id"
    ),
    _q(
        "MATCH (t:Topic) OPTIONAL MATCH (t)<-[l:LIKES]-(x) RETURN t.id, count(l), collect(x.id)",
        bags=True,
    ),
    _q(
        "MATCH (c:Company) OPTIONAL MATCH (c)<-[w:WORKS_AT]-(p) RETURN c.id, count(*), count(p), sum(w.salary)",
        peers=FALKOR,
        why=W_EMPTY_AGG,
    ),
    _q("MATCH (p:Person) WHERE p.age > 85 OPTIONAL MATCH (p)-[:KNOWS]->(q) RETURN p.id, q.id"),
    _q(
        "MATCH (p:Person {id: 'p002'}) OPTIONAL MATCH (p)-[:NOPE]->(x) RETURN p.id, x",
        peers=FALKOR,
        why=W_UNKNOWN,
    ),
    _q(
        "MATCH (p:Person) OPTIONAL MATCH (p)-[:WORKS_AT]->(c) WITH p, c WHERE c IS NULL RETURN p.id"
    ),
]

NUM_OPS = ["=", "<>", "<", "<=", ">", ">="]
WHERE = [
    *[_q(f"MATCH (n:Person) WHERE n.age {op} 40 RETURN n.id") for op in NUM_OPS],
    *[_q(f"MATCH (n:Person) WHERE n.score {op} 2.5 RETURN n.id, n.score") for op in NUM_OPS],
    *[_q(f"MATCH (n:Company) WHERE n.sector {op} 'health' RETURN n.id") for op in NUM_OPS],
    *[_q(f"MATCH (n:Person) WHERE n.active {op} true RETURN n.id") for op in ("=", "<>")],
    _q("MATCH (n:Person) WHERE NOT n.age > 30 RETURN n.id"),
    _q("MATCH (n:Person) WHERE n.age > 30 AND n.active RETURN n.id"),
    _q("MATCH (n:Person) WHERE n.age > 80 OR n.age < 20 RETURN n.id, n.age"),
    _q("MATCH (n:Person) WHERE n.active XOR n.age > 50 RETURN n.id"),
    _q("MATCH (n:Person) WHERE NOT n.active RETURN n.id"),
    _q("MATCH (n:Person) WHERE (n.age < 20 OR n.age > 80) AND NOT n.active RETURN n.id"),
    _q("MATCH (n:Person) WHERE n.age IS NULL RETURN n.id"),
    _q("MATCH (n:Person) WHERE n.email IS NOT NULL AND n.tags IS NULL RETURN n.id"),
    _q("MATCH (n:Person) WHERE n.id IN ['p001', 'p002', 'zzz'] RETURN n.id"),
    _q("MATCH (n:Person) WHERE n.age IN [20, 30, 40, 50] RETURN n.id, n.age"),
    _q("MATCH (n:Person) WHERE n.group IN $groups RETURN n.id", params={"groups": ["g1", "g3"]}),
    _q("MATCH (n:Person) WHERE NOT n.group IN $groups RETURN n.id", params={"groups": ["g1"]}),
    _q(
        "MATCH (n:Person) WHERE n.age > $min AND n.age <= $max RETURN n.id",
        params={"min": 30, "max": 45},
    ),
    _q("MATCH (n:Person) WHERE n.email STARTS WITH 'a' RETURN n.email"),
    _q("MATCH (n:Person) WHERE n.name ENDS WITH 's' RETURN n.name"),
    _q('MATCH (n:Person) WHERE n.name CONTAINS "\'" RETURN n.name'),
    _q("MATCH (n:Person) WHERE n.name CONTAINS ' ' RETURN n.id"),
    _q("MATCH (n:Person) WHERE n.name STARTS WITH ' ' RETURN n.id"),
    _q("MATCH (n:Person) WHERE toLower(n.name) CONTAINS 'smith' RETURN n.name"),
    _q("MATCH (n:Person) WHERE n.name STARTS WITH $p RETURN n.name", params={"p": "Ada"}),
    _q("MATCH (n:Topic) WHERE n.text CONTAINS 'graph' AND n.text ENDS WITH 'e' RETURN n.id"),
    _q("MATCH (n:Person) WHERE n.name =~ 'A.*' RETURN n.name", peers=KUZU, why=W_REGEX),
    _q(
        "MATCH (n:Person) WHERE n.email =~ '[a-e].*@a[.]org' RETURN n.email",
        peers=KUZU,
        why=W_REGEX,
    ),
    _q("MATCH (n:Person) WHERE 'red' IN n.tags RETURN n.id"),
    _q("MATCH (n:Topic) WHERE size(n.tags) > 1 RETURN n.id, n.tags"),
    _q(
        "MATCH (a:Person)-[:KNOWS]->(b:Person) WHERE a.age > b.age + 30 RETURN a.id, b.id",
        peers=KUZU,
        why=W_PARALLEL,
    ),
    _q("MATCH (n:Person) WHERE n.score >= 2.5 AND n.score < 10 RETURN n.id"),
    _q("MATCH (n:Person) WHERE n.rank < 0 RETURN n.id, n.rank"),
    _q("MATCH (n:Person) WHERE n.text = '' RETURN n.id"),
    _q("MATCH (a)-[r:KNOWS]->(b) WHERE r.since > 2000 AND r.weight < 0.5 RETURN r.id"),
    _q("MATCH (a)-[r:KNOWS]->(b) WHERE r.close IS NULL RETURN r.id"),
    _q("MATCH (a)-[r:WORKS_AT]->(b) WHERE r.role IN ['engineer', 'Engineer'] RETURN a.id, r.role"),
    _q("MATCH (n:City) WHERE n.population > 1000000 RETURN n.id, n.population"),
    _q("MATCH (n:City) WHERE n.area < 0.5 OR n.country = 'IT' RETURN n.id"),
    _q("MATCH (n) WHERE n.group = 'g2' RETURN n.id"),
    _q("MATCH (n) WHERE n.age > 60 RETURN n.id"),
    _q(
        "MATCH (n:Person) WHERE n.name = $name RETURN n.id",
        params={"name": "x'}) DETACH DELETE n //"},
    ),
    _q("MATCH (n:Person) WHERE n.id = $id RETURN n.name", params={"id": "' OR 1=1 --"}),
    _q("MATCH (n:Person) WHERE n.age IN [30, null] RETURN n.id"),
    _q("MATCH (n:Person) WHERE n.score < n.age RETURN n.id"),
    _q("MATCH (n:Person) WHERE n.name >= 'M' AND n.name < 'T' RETURN n.name"),
    _q("MATCH (n:Person) WHERE n.name = n.name RETURN count(*)"),
    _q("MATCH (n:Person) WHERE n.age = n.rank RETURN n.id"),
    _q("MATCH (n:Person) WHERE n.tags = [] RETURN n.id"),
]

WITH = [
    _q(
        "MATCH (p:Person)-[:WORKS_AT]->(c) WITH c, count(p) AS staff WHERE staff > 4 RETURN c.id, staff"
    ),
    _q("MATCH (p:Person) WITH p.group AS g, avg(p.age) AS a RETURN g, a"),
    _q("MATCH (p:Person) WITH p ORDER BY p.age DESC, p.id LIMIT 5 RETURN p.id", ordered=True),
    _q("MATCH (p:Person) WITH p WHERE p.age > 50 MATCH (p)-[:LIVES_IN]->(c) RETURN p.id, c.id"),
    _q("MATCH (p:Person) WITH DISTINCT p.group AS g RETURN g"),
    _q("WITH 1 AS x RETURN x"),
    _q("WITH 2 AS x, 'a' AS y RETURN x * 3, y + 'b'"),
    _q(
        "MATCH (p:Person)-[:KNOWS]->(q) WITH p, collect(q.id) AS friends RETURN p.id, size(friends)",
        peers=KUZU,
        why=W_PARALLEL,
    ),
    _q(
        "MATCH (p:Person) WITH p.age AS age WHERE age IS NOT NULL WITH age, count(*) AS n WHERE n > 2 RETURN age, n"
    ),
    _q("MATCH (p:Person) WITH p, p.age * 2 AS double WHERE double > 150 RETURN p.id, double"),
    _q(
        "MATCH (p:Person)-[:LIVES_IN]->(c:City) WITH c.country AS country, count(*) AS people RETURN country, people"
    ),
    _q("MATCH (p:Person) WITH count(*) AS total MATCH (c:Company) RETURN total, count(c)"),
    _q(
        "MATCH (c:Company) WITH c ORDER BY c.revenue DESC, c.id LIMIT 3 MATCH (c)<-[:WORKS_AT]-(p) RETURN c.id, p.id"
    ),
    _q("MATCH (p:Person) WITH p.group AS g, collect(p.age) AS ages RETURN g, size(ages)"),
    _q("MATCH (p:Person) WITH p SKIP 100 RETURN count(*)"),
    _q("MATCH (t:Topic) WITH t.level AS level, max(t.weight) AS w WHERE w > 0.5 RETURN level, w"),
    _q(
        "MATCH (a:Person)-[:KNOWS]->(b) WITH a, count(b) AS out WITH max(out) AS top RETURN top",
        peers=KUZU,
        why=W_PARALLEL,
    ),
    _q("UNWIND [3, 1, 2] AS x WITH x WHERE x > 1 RETURN x"),
    _q(
        "MATCH (n:City) WITH n.country AS c, sum(n.population) AS pop ORDER BY pop DESC, c RETURN c, pop",
        ordered=True,
        peers=FALKOR,
        why=W_WITH_ORDER,
    ),
]

UNWIND = [
    _q("UNWIND [1, 2, 3] AS x RETURN x"),
    _q(
        "UNWIND $ids AS i MATCH (n {id: i}) RETURN n.name",
        params={"ids": ["p001", "co002", "t003", "zz"]},
    ),
    _q("MATCH (p:Person) UNWIND p.tags AS t RETURN t, count(*)"),
    _q("UNWIND [] AS x RETURN x"),
    _q("UNWIND [1, null, 2] AS x RETURN x"),
    _q("UNWIND range(1, 5) AS x RETURN x, x * x"),
    _q("UNWIND ['a', 'b'] AS x UNWIND [1, 2] AS y RETURN x, y"),
    _q("UNWIND [[1, 2], [3]] AS l UNWIND l AS x RETURN x"),
    _q(
        "UNWIND $rows AS r RETURN r.k, r.v",
        params={"rows": [{"k": "a", "v": 1}, {"k": "b", "v": 2}]},
    ),
    _q("UNWIND ['p001', 'p002'] AS i MATCH (p:Person {id: i})-[:LIVES_IN]->(c) RETURN i, c.id"),
    _q("UNWIND [5, 3, 9] AS x RETURN min(x), max(x), sum(x), count(x)"),
    _q("UNWIND [1, 1, 2, null] AS x RETURN count(DISTINCT x), count(x), count(*)"),
]

RETURNING = [
    _q("MATCH (n:City) RETURN n"),
    _q("MATCH ()-[r:LIVES_IN]->() RETURN r"),
    _q("MATCH (n:Topic) RETURN n.id, n.tags, n.weight, n.level"),
    _q("MATCH (n:Person) RETURN n.id, n.active, n.score, n.rank, n.email"),
    _q("MATCH (n:Person) RETURN n.nonexistent", peers=FALKOR, why=W_KEYS),
    _q("MATCH (n:City) RETURN labels(n)", peers=FALKOR, why=W_LABELS),
    _q(
        "MATCH (n) WHERE n.id IN ['p001', 'co001'] RETURN n.id, labels(n)",
        peers=FALKOR,
        why=W_LABELS,
    ),
    _q("MATCH (n:City) RETURN keys(n)", bags=True, peers=FALKOR, why=W_KEYS),
    _q("MATCH (n:Company) RETURN properties(n)", peers=FALKOR, why=W_KEYS),
    _q("MATCH ()-[r]->() RETURN type(r), count(r)", peers=FALKOR, why=W_FUNCS),
    _q("MATCH ()-[r:LOCATED_IN]->() RETURN properties(r)", peers=FALKOR, why=W_KEYS),
    _q("MATCH ()-[r:LIKES]->() RETURN keys(r)", bags=True, peers=FALKOR, why=W_KEYS),
    _q("MATCH (n:Person) RETURN DISTINCT n.group"),
    _q("MATCH (n:Person)-[:LIVES_IN]->(c) RETURN DISTINCT c.id, n.group"),
    _q("MATCH (n:Person) RETURN DISTINCT n.age > 50"),
    _q("MATCH (n:Person) RETURN n.id AS id, n.name AS name"),
    _q(
        "MATCH (n:Person {id: 'p001'}) RETURN n.age + 1, n.age - 1, n.age * 2, n.age / 2, n.age % 7, -n.age"
    ),
    _q(
        "MATCH (n:Person) WHERE n.score IS NOT NULL RETURN n.id, n.score * 2, n.score / 4, n.score + n.age"
    ),
    _q("MATCH (n:City) RETURN n.id, n.population / 1000, n.population % 1000, n.area ^ 2"),
    _q("MATCH (n:Person) RETURN n.id, n.name + '!' , 'x' + n.id"),
    _q("MATCH (n:Person) RETURN n.id, coalesce(n.age, -1), coalesce(n.email, n.name)"),
    _q(
        "MATCH (p:Person) RETURN p.id, CASE WHEN p.age > 50 THEN 'old' WHEN p.age > 30 THEN 'mid' ELSE 'young' END"
    ),
    _q("MATCH (p:Person) RETURN p.id, CASE p.group WHEN 'g1' THEN 1 WHEN 'g2' THEN 2 ELSE 0 END"),
    _q("MATCH (p:Person) RETURN p.id, CASE WHEN p.age IS NULL THEN null ELSE p.age END"),
    _q("MATCH (n:Person) RETURN n.id, toLower(n.name), toUpper(n.name), size(n.name)"),
    _q(
        "MATCH (n:Person) RETURN n.id, trim(n.name), ltrim(n.name), rtrim(n.name)",
        peers=FALKOR,
        why=W_TRIM,
    ),
    _q("RETURN trim('  a b '), ltrim('  a '), rtrim(' a  '), trim('')"),
    _q("MATCH (n:Person) RETURN n.id, left(n.name, 3), right(n.name, 2)"),
    _q("MATCH (n:Person) RETURN n.id, reverse(n.name)"),
    _q("MATCH (n:Person) RETURN n.id, substring(n.name, 1, 3)", peers=FALKOR, why=W_INDEX),
    _q("MATCH (n:Person) RETURN n.id, substring(n.name, 2)", peers=FALKOR, why=W_INDEX),
    _q(
        "MATCH (n:Person) WHERE n.email IS NOT NULL RETURN n.id, split(n.email, '@')",
        peers=FALKOR,
        why=W_FUNCS,
    ),
    _q("MATCH (n:Person) RETURN n.id, replace(n.name, 'a', 'A')", peers=FALKOR, why=W_FUNCS),
    _q("MATCH (n:Person) RETURN n.id, toString(n.age)", peers=FALKOR, why=W_FUNCS),
    _q(
        "MATCH (n:Person) WHERE n.score >= 0 RETURN n.id, toInteger(n.score), toFloat(n.age)",
        peers=FALKOR,
        why=W_FUNCS,
    ),
    _q("MATCH (n:Person) RETURN n.id, n.tags[0]", peers=FALKOR, why=W_INDEX),
    _q("MATCH (n:Person) RETURN n.id, size(n.tags)"),
    _q("MATCH (n:Person) RETURN n.id, head(n.tags), last(n.tags)", peers=FALKOR, why=W_FUNCS),
    _q("MATCH (n:Person) RETURN n.id, abs(n.rank), sign(n.rank), floor(n.score), ceil(n.score)"),
    _q("MATCH (n:Person) RETURN n.id, sqrt(n.age)"),
    _q("MATCH (n:Person) RETURN n.id, round(n.score)", peers=FALKOR, why=W_FUNCS),
    _q(
        "MATCH (n:Person) RETURN n.id, [x IN n.tags WHERE x <> 'red' | toUpper(x)]",
        peers=FALKOR,
        why=W_COMPREHENSION,
    ),
    _q("MATCH (n:Person) RETURN n.id, [x IN n.tags | size(x)]", peers=FALKOR, why=W_COMPREHENSION),
    _q("RETURN [x IN range(1, 10) WHERE x % 2 = 0]", peers=FALKOR, why=W_COMPREHENSION),
    _q("RETURN 1, 2.5, 'a', true, null"),
    _q("RETURN [1, 2, 3], ['a'], []"),
    _q("RETURN [1, 'a', null, 2.5]", peers=FALKOR, why=W_MIXED_LIST),
    _q("RETURN {a: 1, b: 'x', c: [1, 2], d: {e: true}}"),
    _q("RETURN $x, $y", params={"x": [1, 2], "y": "s"}),
    _q("RETURN 7 / 2, -7 / 2, 7 % 3, -7 % 3, 7.5 % 2, 2 ^ 3, 7 / 2.0"),
    _q("RETURN 1 + 2 * 3 - 4 / 2, (1 + 2) * 3"),
    _q("RETURN 'a' + 'b', [1] + [2], 'a' < 'B', 1 = 1.0, null = null"),
    _q("RETURN true AND null, false AND null, true OR null, NOT null, true XOR null"),
    _q("RETURN 2 IN [1, null], 1 IN [1, null]", peers=FALKOR, why=W_NULL_IN),
    _q("RETURN '' CONTAINS '', 'abc' CONTAINS ''", peers=FALKOR, why=W_EMPTY_CONTAINS),
    _q("RETURN range(1, 4), range(0, 10, 3), size([1, 2]), coalesce(null, null, 3)"),
    _q("RETURN toLower(null), size(null), null + 1, null STARTS WITH 'a'"),
    _q("RETURN abs(-2.5), floor(2.7), ceil(2.1), sqrt(16), sign(-3)"),
]

AGGREGATION = [
    _q("MATCH (n:Person) RETURN count(*)"),
    _q("MATCH (n:Person) RETURN count(n), count(n.age), count(n.email), count(DISTINCT n.group)"),
    _q("MATCH (n:Person) RETURN min(n.age), max(n.age), sum(n.age), avg(n.age)"),
    _q("MATCH (n:Person) RETURN min(n.score), max(n.score), sum(n.score), avg(n.score)"),
    _q("MATCH (n:Person) RETURN min(n.name), max(n.name)"),
    _q("MATCH (n:Person) RETURN n.group, count(*), avg(n.age), min(n.score), max(n.email)"),
    _q("MATCH (n:Person) RETURN n.group, n.active, count(*)"),
    _q("MATCH (n:Person) RETURN n.group, collect(n.id)", bags=True),
    _q("MATCH (n:Person) RETURN collect(DISTINCT n.group)", bags=True),
    _q("MATCH (n:Company) RETURN n.sector, collect(n.founded)", bags=True),
    _q(
        "MATCH (n:Person {id: 'nope'}) RETURN count(*), count(n), sum(n.age), avg(n.age), min(n.age), collect(n.id)",
        peers=FALKOR,
        why=W_EMPTY_AGG,
    ),
    _q(
        "MATCH (a:Person)-[r:KNOWS]->(b) RETURN a.id, count(r), sum(r.weight)",
        peers=FALKOR,
        why=W_EMPTY_AGG,
    ),
    _q("MATCH (a:Person)-[r:KNOWS]->(b) RETURN count(*)", peers=KUZU, why=W_PARALLEL),
    _q("MATCH (a)-[r]->(b) RETURN count(*)", peers=KUZU, why=W_PARALLEL),
    _q("MATCH (a)-[r]->(b) RETURN count(r), count(DISTINCT a), count(DISTINCT b)"),
    _q("MATCH (a:Person)-[:KNOWS]->(b) RETURN a.id, count(DISTINCT b)"),
    _q("MATCH (p:Person)-[:LIKES]->(t:Topic) RETURN t.id, count(p) AS fans, avg(p.age)"),
    _q("MATCH (p:Person) RETURN count(*) > 100"),
    _q("MATCH (c:City) RETURN sum(c.population), avg(c.area), max(c.country)"),
    _q("MATCH (n:Person) RETURN n.age, count(*)"),
    _q(
        "MATCH (n:Topic) RETURN n.level, sum(n.weight), collect(DISTINCT n.group)",
        bags=True,
        peers=FALKOR,
        why=W_EMPTY_AGG,
    ),
    _q("MATCH (n:Person) RETURN avg(n.rank), sum(n.rank), count(DISTINCT n.rank)"),
    _q("MATCH (n:Person) WHERE n.age > 200 RETURN n.group, count(*)"),
    _q("MATCH (n:Person) RETURN n.active, max(n.age) - min(n.age)"),
    _q("MATCH (n:Company) RETURN n.public, sum(n.revenue) / count(*)"),
]

ORDERING = [
    _q("MATCH (n:Person) RETURN n.id ORDER BY n.id", ordered=True),
    _q("MATCH (n:Person) RETURN n.id ORDER BY n.id DESC", ordered=True),
    _q("MATCH (n:Person) RETURN n.id, n.age ORDER BY n.age, n.id", ordered=True),
    _q("MATCH (n:Person) RETURN n.id, n.age ORDER BY n.age DESC, n.id", ordered=True),
    _q("MATCH (n:Person) RETURN n.id, n.score ORDER BY n.score ASC, n.id DESC", ordered=True),
    _q("MATCH (n:Person) RETURN n.name, n.id ORDER BY n.name, n.id", ordered=True),
    _q(
        "MATCH (n:Person) RETURN n.group, n.active, n.id ORDER BY n.group DESC, n.active, n.id",
        ordered=True,
    ),
    _q("MATCH (n:Person) RETURN n.id ORDER BY n.id LIMIT 5", ordered=True),
    _q("MATCH (n:Person) RETURN n.id ORDER BY n.id SKIP 10 LIMIT 5", ordered=True),
    _q("MATCH (n:Person) RETURN n.id ORDER BY n.id SKIP 118", ordered=True),
    _q("MATCH (n:Person) RETURN n.id ORDER BY n.id SKIP 500", ordered=True),
    _q("MATCH (n:Person) RETURN n.id ORDER BY n.id LIMIT 0", ordered=True),
    _q(
        "MATCH (n:Person) RETURN n.id ORDER BY n.id SKIP $s LIMIT $l",
        params={"s": 3, "l": 4},
        ordered=True,
    ),
    _q("MATCH (n:Person) RETURN n.group, count(*) AS c ORDER BY c DESC, n.group", ordered=True),
    _q("MATCH (n:Person) RETURN n.id AS i ORDER BY i DESC LIMIT 3", ordered=True),
    _q(
        "MATCH (c:Company) RETURN c.id, c.revenue ORDER BY c.revenue DESC, c.id LIMIT 10",
        ordered=True,
    ),
    _q(
        "MATCH (a:Person)-[:KNOWS]->(b) RETURN a.id, count(*) AS c ORDER BY c DESC, a.id LIMIT 10",
        ordered=True,
        peers=KUZU,
        why=W_PARALLEL,
    ),
    _q("MATCH (n:Person) RETURN n.id ORDER BY n.age + n.rank, n.id", ordered=True),
    _q("MATCH (n:Person) RETURN n.id, n.email ORDER BY n.email DESC, n.id LIMIT 20", ordered=True),
    _q("MATCH (n:Topic) RETURN n.id ORDER BY n.weight DESC, n.id SKIP 5 LIMIT 10", ordered=True),
    _q("MATCH (n:Person) RETURN DISTINCT n.group ORDER BY n.group", ordered=True),
    _q("MATCH (n) RETURN n.id ORDER BY n.name, n.id LIMIT 15", ordered=True),
    _q("MATCH ()-[r:KNOWS]->() RETURN r.id, r.since ORDER BY r.since, r.id LIMIT 25", ordered=True),
    _q("MATCH (n:City) RETURN n ORDER BY n.population DESC, n.id", ordered=True),
    _q("UNWIND [3, null, 1, 2] AS x RETURN x ORDER BY x", ordered=True),
    _q("UNWIND [3, null, 1, 2] AS x RETURN x ORDER BY x DESC", ordered=True),
    _q("UNWIND ['b', 'B', 'a', 'A', ''] AS x RETURN x ORDER BY x", ordered=True),
    _q("MATCH (n:Person) RETURN n.id LIMIT 0"),
]

MORE = [
    _q("CALL db.labels()", peers=FALKOR, why=W_PROCEDURES),
    _q("CALL db.relationshipTypes()", peers=FALKOR, why=W_PROCEDURES),
    _q(
        "CALL db.labels() YIELD label RETURN label ORDER BY label",
        ordered=True,
        peers=FALKOR,
        why=W_PROCEDURES,
    ),
    _q("MATCH p = (a:Person {id: 'p001'})-[:KNOWS]->(b) RETURN length(p), b.id"),
    _q("MATCH p = (a:Company)-[:LOCATED_IN]->(c) RETURN p", peers=FALKOR, why=W_PATHS),
    _q(
        "MATCH p = (a:Person {id: 'p001'})-[:KNOWS*1..2]->(b) RETURN length(p), b.id",
        peers=KUZU,
        why=W_VARLEN,
    ),
    _q(
        "MATCH p = (a:Company {id: 'co001'})-[:LOCATED_IN]->(c) RETURN nodes(p), relationships(p)",
        peers=FALKOR,
        why=W_PATHS,
    ),
    _q("MATCH (n:Person) RETURN *"),
    _q("MATCH (n:Person)-[r:LIVES_IN]->(c) WITH * RETURN n.id, r.id, c.id"),
    _q("MATCH (n:Person)-[:LIVES_IN]->(c) RETURN DISTINCT c"),
    _q(
        "MATCH (p:Person)-[:LIKES]->(t) WITH t, collect(p.id) AS fans UNWIND fans AS f RETURN t.id, f"
    ),
    _q(
        "MATCH (p:Person) WITH p.group AS g, count(*) AS c RETURN g, c ORDER BY c DESC, g",
        ordered=True,
    ),
    _q(
        "MATCH (p:Person) RETURN p.group AS g, max(p.age) AS oldest ORDER BY oldest DESC, g",
        ordered=True,
    ),
    _q(
        "MATCH (p:Person) RETURN p.id, CASE WHEN p.active THEN CASE WHEN p.age > 50 THEN 'a' ELSE 'b' END ELSE 'c' END",
        peers=FALKOR,
        why=W_NESTED_CASE,
    ),
    _q(
        "MATCH (p:Person) WHERE p.tags IS NOT NULL AND 'blue' IN p.tags AND NOT 'red' IN p.tags RETURN p.id"
    ),
    _q("MATCH (a:Person)-[k:KNOWS]->(b:Person) WHERE k.since > a.age + 1950 RETURN k.id"),
    _q("MATCH (a:Person {id: 'p003'})-[:KNOWS]->(b)-[:LIVES_IN]->(c) RETURN b.id, c.id"),
    _q(
        "MATCH (a:Person)-[:LIVES_IN]->(c:City), (b:Person)-[:LIVES_IN]->(c) WHERE a.id = 'p007' AND b.id <> a.id RETURN b.id"
    ),
    _q("MATCH (c:City) WHERE NOT c.country IN ['FR', 'DE'] RETURN c.id"),
    _q("MATCH (n) WHERE n:Person AND n.age > 70 RETURN n.id", peers=FALKOR, why=W_FUNCS),
    _q("MATCH (n:Person) WHERE n.age > 30 WITH n.group AS g, count(*) AS c WHERE c > 10 RETURN g"),
    _q("UNWIND [1, 2, 3] AS x WITH x, x * 2 AS y WHERE y > 2 RETURN collect(x)", bags=True),
    _q("MATCH (n:Topic) RETURN n.id, n.weight ORDER BY n.weight DESC, n.id LIMIT 1", ordered=True),
    _q("MATCH (n:Company) RETURN avg(n.founded), min(n.revenue), max(n.public), count(n.sector)"),
    _q(
        "MATCH (n:Person {id: 'p001'}) RETURN n.age > 30 AND n.score < 50, n.age IS NULL OR n.active"
    ),
]

#: Neither peer is standard here: anatid is checked against Neo4j's documented answers.
NEO4J_ONLY = [
    _q(
        "RETURN toString(2.5), toString(1), toString(true)",
        expected=[("2.5", "1", "true")],
        peers=(),
        why="Neither: toString() of a float",
    ),
    _q(
        "RETURN toInteger(-1.5), toInteger(1.9), toInteger('42')",
        expected=[(-1, 1, 42)],
        peers=(),
        why="Neither: toInteger() of a negative float",
    ),
    _q(
        "RETURN round(-2.5), round(2.5), round(-0.5)",
        expected=[(-2.0, 3.0, -0.0)],
        peers=(),
        why="Neither: round() of a negative half",
    ),
    _q(
        "RETURN 2 > 1 > 0, 1 < 2 = true, 1 < 3 > 2",
        expected=[(True, False, True)],
        peers=(),
        why="Neither: chained comparisons",
    ),
    _q(
        "MATCH (n:Person) WHERE n.age > 40 = true RETURN n.id",
        expected=[],
        peers=(),
        why="Neither: chained comparisons",
    ),
    _q(
        "MATCH (t:Topic {id: 't000'})-[r:RELATED_TO]-(u) RETURN r.id, u.id",
        expected=[("r0954", "t001"), ("r1007", "t000"), ("r1006", "t039")],
        peers=(),
        why="Kuzu: an undirected pattern matches a self loop twice",
    ),
]

#: reduce() and pattern comprehensions (issue 42: they were syntax errors). Kuzu has neither.
W_NO_REDUCE = "Kuzu: no reduce() and no pattern comprehension"
FOLDS = [
    _q("RETURN reduce(acc = 0, x IN range(1, 10) | acc + x * x)", peers=FALKOR, why=W_NO_REDUCE),
    _q(
        "MATCH (n:Person) RETURN n.id, reduce(s = '', t IN n.tags | s + t)",
        peers=FALKOR,
        why=W_NO_REDUCE,
    ),
    _q(
        "MATCH (n:Person) RETURN n.id, size([(n)-[:KNOWS]->(m) | m.id])",
        peers=FALKOR,
        why=W_NO_REDUCE,
    ),
    _q(
        "MATCH (n:Person) RETURN n.id, size([(n)-[:KNOWS]-(m:Person) WHERE m.age > 40 | m.id])",
        peers=FALKOR,
        why=W_NO_REDUCE,
    ),
    _q(
        "MATCH (n:Person) RETURN n.id, "
        "reduce(total = 0, a IN [(n)-[:KNOWS]->(m) | coalesce(m.age, 0)] | total + a)",
        peers=FALKOR,
        why=W_NO_REDUCE,
    ),
    _q(
        "MATCH (c:Company) WITH c, size([(c)<-[:WORKS_AT]-(p) | p]) AS staff "
        "WHERE staff > 2 RETURN c.id, staff",
        peers=FALKOR,
        why=W_NO_REDUCE,
    ),
    _q(
        "RETURN reduce(acc = 1, x IN null | acc * x), reduce(acc = 1, x IN [] | acc * x)",
        expected=[(None, 1)],
        peers=(),
        why="Neither: reduce() over null and over an empty list",
    ),
]

HAND = (
    MATCHING
    + VARIABLE_LENGTH
    + OPTIONAL
    + WHERE
    + WITH
    + UNWIND
    + RETURNING
    + AGGREGATION
    + ORDERING
    + MORE
    + NEO4J_ONLY
    + FOLDS
)


# -------------------------------------------------------------------------------- generated

_NODE_LABELS = ("Person", "Company", "City", "Topic")
_EDGES = [("Person", "KNOWS", "Person"), ("Person", "WORKS_AT", "Company"),
          ("Person", "LIVES_IN", "City"), ("Company", "LOCATED_IN", "City"),
          ("Person", "LIKES", "Topic"), ("Company", "LIKES", "Topic"),
          ("Topic", "RELATED_TO", "Topic")]  # fmt: skip


def _literal(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):  # the graph's strings hold no backslash and no double quote
        return f'"{value}"' if "'" in value else f"'{value}'"
    if isinstance(value, list):
        return "[" + ", ".join(_literal(v) for v in value) + "]"
    return repr(value)


class _Gen:
    """Random predicates over a label's properties, with values drawn from the graph itself."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        graph = generate()
        self.values: dict[tuple[str, str], list[Any]] = {}
        for record in graph.nodes + graph.rels:
            for key, value in record.props.items():
                self.values.setdefault((record.label, key), []).append(value)

    def keys(self, label: str) -> list[tuple[str, str]]:
        own = [(k, t) for k, t in SCHEMA[label].items() if t != "strings"]
        return [("id", "string"), ("name", "string"), ("group", "string"), *own]

    def atom(self, var: str, label: str) -> str:
        rng = self.rng
        key, kind = rng.choice(self.keys(label))
        seen = self.values.get((label, key)) or [None]
        value = rng.choice(seen)
        if rng.random() < 0.1:
            return f"{var}.{key} IS {rng.choice(['', 'NOT '])}NULL"
        if kind == "bool":
            return f"{var}.{key} = {_literal(rng.choice([True, False]))}"
        if kind == "string" and rng.random() < 0.4 and isinstance(value, str) and value:
            op = rng.choice(["STARTS WITH", "ENDS WITH", "CONTAINS"])
            cut = rng.randint(1, min(3, len(value)))
            part = (
                value[:cut]
                if op == "STARTS WITH"
                else value[-cut:]
                if op == "ENDS WITH"
                else value[1 : 1 + cut]
            )
            return f"{var}.{key} {op} {_literal(part)}"
        if rng.random() < 0.15:
            picks = rng.sample(seen, min(3, len(seen)))
            return f"{var}.{key} IN {_literal(picks)}"
        if kind == "float" and isinstance(value, float) and rng.random() < 0.5:
            value = round(value * rng.uniform(0.5, 1.5), 3)
        op = rng.choice(NUM_OPS)
        return f"{var}.{key} {op} {_literal(value)}"

    def predicate(self, var: str, label: str) -> str:
        rng = self.rng
        n = rng.choice([1, 1, 2, 2, 3])
        expr = self.atom(var, label)
        for _ in range(n - 1):
            joiner = rng.choice(["AND", "AND", "OR", "XOR"])
            atom = self.atom(var, label)
            if rng.random() < 0.2:
                atom = f"NOT {atom}"
            expr = f"({expr}) {joiner} {atom}" if rng.random() < 0.5 else f"{expr} {joiner} {atom}"
        return expr

    def prop(self, label: str, kinds: tuple[str, ...]) -> str:
        return self.rng.choice([k for k, t in SCHEMA[label].items() if t in kinds])

    def node_filter(self) -> Q:
        label = self.rng.choice(_NODE_LABELS)
        key = self.prop(label, ("int", "float", "string", "bool"))
        return _q(f"MATCH (n:{label}) WHERE {self.predicate('n', label)} RETURN n.id, n.{key}")

    def edge_filter(self) -> Q:
        src, rtype, dst = self.rng.choice(_EDGES)
        where = self.rng.choice([("a", src), ("r", rtype), ("b", dst)])
        pred = self.predicate(*where)
        if self.rng.random() < 0.5:
            pred = f"{pred} AND {self.atom('r', rtype)}"
        arrow = self.rng.choice(["-[r:{t}]->", "<-[r:{t}]-"])
        if arrow.startswith("<"):
            return _q(
                f"MATCH (b:{dst}){arrow.format(t=rtype)}(a:{src}) WHERE {pred} RETURN a.id, r.id, b.id"
            )
        return _q(
            f"MATCH (a:{src}){arrow.format(t=rtype)}(b:{dst}) WHERE {pred} RETURN a.id, r.id, b.id"
        )

    def aggregate(self) -> Q:
        label = self.rng.choice(_NODE_LABELS)
        num = self.prop(label, ("int", "float"))
        key = self.rng.choice(["group", self.prop(label, ("string", "bool", "int"))])
        where = f" WHERE {self.predicate('n', label)}" if self.rng.random() < 0.6 else ""
        aggs = self.rng.sample(["count(*)", f"count(n.{num})", f"min(n.{num})", f"max(n.{num})",
                                f"sum(n.{num})", f"avg(n.{num})", f"count(DISTINCT n.{key})"], 3)  # fmt: skip
        text = f"MATCH (n:{label}){where} RETURN n.{key}, {', '.join(aggs)}"
        if any("DISTINCT" in a for a in aggs):
            return _q(text, peers=FALKOR, why=W_DISTINCT_AGG)
        if any(a.startswith("sum") for a in aggs):  # a group may have no value to sum
            return _q(text, peers=FALKOR, why=W_EMPTY_AGG)
        return _q(text)

    def ordered(self) -> Q:
        label = self.rng.choice(_NODE_LABELS)
        key = self.prop(label, ("int", "float", "string", "bool"))
        direction = self.rng.choice(["", " ASC", " DESC"])
        skip = self.rng.choice(["", f" SKIP {self.rng.randint(0, 20)}"])
        limit = self.rng.choice(["", f" LIMIT {self.rng.randint(1, 15)}"])
        where = f" WHERE {self.predicate('n', label)}" if self.rng.random() < 0.5 else ""
        return _q(f"MATCH (n:{label}){where} RETURN n.id, n.{key} ORDER BY n.{key}{direction}, n.id{skip}{limit}",
                  ordered=True)  # fmt: skip

    def two_hop(self) -> Q:
        a, r, b = self.rng.choice([e for e in _EDGES if e[1] != "KNOWS" and e[1] != "RELATED_TO"])
        nexts = [e for e in _EDGES if e[0] == b]
        if not nexts:
            return self.edge_filter()
        _, s, c = self.rng.choice(nexts)
        pred = self.predicate("c", c)
        # Relationships named and returned: FalkorDB collapses parallel ones otherwise.
        return _q(
            f"MATCH (a:{a})-[r:{r}]->(b:{b})-[s:{s}]->(c:{c}) WHERE {pred} RETURN a.id, r.id, s.id, c.id"
        )

    def var_length(self) -> Q:
        lo = self.rng.randint(1, 2)
        hi = lo + self.rng.randint(0, 2)
        start = f"t{self.rng.randrange(40):03d}"
        arrow = self.rng.choice(["-[:RELATED_TO*{lo}..{hi}]->", "<-[:RELATED_TO*{lo}..{hi}]-"])
        pred = self.predicate("u", "Topic")
        return _q(f"MATCH (t:Topic {{id: '{start}'}}){arrow.format(lo=lo, hi=hi)}(u:Topic) WHERE {pred} RETURN u.id",
                  peers=KUZU, why=W_VARLEN)  # fmt: skip

    def optional(self) -> Q:
        src, rtype, dst = self.rng.choice(_EDGES)
        pred = self.predicate("b", dst)
        return _q(
            f"MATCH (a:{src}) WHERE {self.predicate('a', src)} OPTIONAL MATCH (a)-[r:{rtype}]->(b:{dst}) WHERE {pred} RETURN a.id, r.id, b.id"
        )


def generated(count: int = 240, seed: int = SEED) -> list[Q]:
    gen = _Gen(seed)
    makers = [gen.node_filter, gen.node_filter, gen.edge_filter, gen.aggregate, gen.ordered,
              gen.two_hop, gen.var_length, gen.optional]  # fmt: skip
    return [gen.rng.choice(makers)() for _ in range(count)]


def corpus() -> list[Q]:
    """Every query, each named (``h###`` hand-written, ``g###`` generated) for test ids."""
    hand = [Q(**{**q.__dict__, "name": f"h{i:03d}"}) for i, q in enumerate(HAND)]
    gen = [Q(**{**q.__dict__, "name": f"g{i:03d}"}) for i, q in enumerate(generated())]
    return hand + gen
