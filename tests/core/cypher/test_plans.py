"""The plans that read less (issue 42) answer what the plain plans answer.

A pattern whose relationship has an equality on a field the store narrows by (``WHERE
r.group = $g``) starts from those relationships; the same query with the equality hidden from
the planner (``r.group + '' = $g``) starts from a node and is the reference. Label and column
scans come from the in-memory current records on the current state and from SQL as of a past
instant; DISTINCT without ORDER BY streams. Each is checked on the current state, after writes,
after another process's commit and as of the past.
"""

from __future__ import annotations

import random
import re
import subprocess
import sys
import textwrap
import time
from collections import Counter
from collections.abc import Callable, Iterator
from datetime import datetime, timezone
from pathlib import Path

import pytest

from anatid_core import AnatidError, Cond, CypherTimeout, Edge, InvalidInput, Node, Store

#: (query with a narrowing the planner sees, the same query with it hidden).
PAIRS = [
    (
        "MATCH (a:A)-[r:R]->(b) WHERE r.group = $g RETURN a.id, r.id, b.id",
        "MATCH (a:A)-[r:R]->(b) WHERE r.group + '' = $g RETURN a.id, r.id, b.id",
    ),
    (
        "MATCH (a)-[r:R]-(b:B) WHERE r.group = $g RETURN a.id, r.id, b.id",
        "MATCH (a)-[r:R]-(b:B) WHERE r.group + '' = $g RETURN a.id, r.id, b.id",
    ),
    (
        "MATCH (a)<-[r {group: $g}]-(b) RETURN a.id, r.id, b.id",
        "MATCH (a)<-[r]-(b) WHERE r.group + '' = $g RETURN a.id, r.id, b.id",
    ),
    (
        "MATCH (x)-[s]->(a)-[r:R]->(b)-[t]-(c:A) WHERE r.group = $g "
        "RETURN x.id, s.id, a.id, b.id, t.id, c.id",
        "MATCH (x)-[s]->(a)-[r:R]->(b)-[t]-(c:A) WHERE r.group + '' = $g "
        "RETURN x.id, s.id, a.id, b.id, t.id, c.id",
    ),
    (
        "MATCH (a)-[r]-(a) WHERE r.group = $g RETURN a.id, r.id",
        "MATCH (a)-[r]-(a) WHERE r.group + '' = $g RETURN a.id, r.id",
    ),
    (
        "MATCH (a:A)-[r:R|S]->(b:A) WHERE r.group IN [$g, 'g2'] AND b.group = 'g1' "
        "RETURN count(*) AS n",
        "MATCH (a:A)-[r:R|S]->(b:A) WHERE r.group + '' IN [$g, 'g2'] AND b.group + '' = 'g1' "
        "RETURN count(*) AS n",
    ),
    (
        "MATCH (n:A) WHERE n.group = $g RETURN n.id",
        "MATCH (n:A) WHERE n.group + '' = $g RETURN n.id",
    ),
    (
        "MATCH (n:B {name: 'n7'}) RETURN n.id",
        "MATCH (n:B) WHERE n.name + '' = 'n7' RETURN n.id",
    ),
]
#: Counts per node from the adjacency (``count(r)``; the plain plan: ``count(r.id)``, which
#: reads the relationship). Self loops, parallel relationships, both directions, a far label.
COUNTS = [
    "MATCH (a:A)-[r:R]-(b:B) RETURN a.id, count(r) AS n",
    "MATCH (a)-[r]->(b) WHERE a.group = $g RETURN a.group, count(r) AS n ORDER BY n DESC",
    "MATCH (a {group: $g})<-[r:R|S]-(b:A) RETURN a.id AS id, count(r) AS n "
    "ORDER BY n DESC, id LIMIT 5",
    "MATCH (a)-[r:R]-(b) RETURN a.id, count(r) AS n, count(r) * 2 AS twice",
    "MATCH (b)-[r:R]->(a:A {group: $g}) RETURN a.id, count(r) AS n",
    "MATCH (a:A)-[r]-(b) WITH a, count(r) AS c WHERE c > 2 RETURN a.id, c",
    "MATCH (a)-[r:R]-(b:A:B) RETURN count(r) AS n",
    "MATCH (a {group: 'none'})-[r]-(b) RETURN count(r) AS n",
    "MATCH (a:A)-[r:S]->(b) WHERE a.name STARTS WITH 'n1' RETURN DISTINCT count(r) AS n",
    # no node named: counted from one end all the same (a self loop, parallel relationships)
    "MATCH ()-[r]->() RETURN count(r) AS n",
    "MATCH ()-[r:R]-() RETURN count(r) AS n, count(r) + 1 AS m",
    "MATCH (:A)<-[r:R|S]-() RETURN count(r) AS n",
    "MATCH ({group: $g})-[r]->(:B) RETURN count(r) AS n",
    "MATCH ()-[r]-(b:B) RETURN b.id, count(r) AS n",
    # by the relationship's type: a row per node and type
    "MATCH ()-[r]->() RETURN type(r) AS t, count(r) AS n",
    "MATCH (a:A)-[r]-() RETURN a.id, type(r), count(r) AS n",
    "MATCH ()-[r:R|S]-(:B) RETURN toLower(type(r)) AS t, count(r) AS n ORDER BY t",
    "MATCH ({group: $g})<-[r]-() RETURN type(r) AS t, count(r) * 2 AS n",
    # by the ends' labels: the far label sets from the counts, the near node's from its record
    "MATCH (a)-[r]->(b) RETURN labels(a) AS la, type(r) AS t, labels(b) AS lb, count(r) AS n",
    "MATCH (a:A)-[r:R|S]-(b) RETURN labels(b) AS lb, count(r) AS n",
    "MATCH (a)<-[r]-(b:B) RETURN a.id, labels(b) AS lb, count(r) AS n",
    "MATCH (a)-[r]-() WHERE a.group = $g RETURN labels(a) AS la, count(r) AS n",
    "MATCH (a)-[r]->(b) RETURN size(labels(b)) AS k, count(r) AS n",
]
PAIRS += [(query, query.replace("count(r)", "count(r.id)")) for query in COUNTS]
PAIRS.append(
    ("MATCH ()-[r]->(:A) RETURN count(*) AS n", "MATCH ()-[r]->(:A) RETURN count(r.id) AS n")
)
#: Nodes counted by their labels, a row per stored label set (the plain plan: ``count(n.id)``,
#: which reads the node). Stored label sets here: A, B, and A with B.
BY_LABELS = [
    "MATCH (n:A) WHERE n.group = $g UNWIND labels(n) AS l RETURN l, count(*) AS c ORDER BY l",
    "MATCH (n) UNWIND labels(n) AS l RETURN l, count(n) AS c, count(l) AS d",
    "MATCH (n {group: $g}) RETURN labels(n) AS l, count(*) AS c",
    "MATCH (n:B) WHERE n.name STARTS WITH 'n1' RETURN count(n) AS c",
    "MATCH (n) WITH labels(n) AS l, count(*) AS c WHERE c > 3 RETURN l, c",
    "MATCH (n) UNWIND labels(n) AS l WITH l, count(*) AS c RETURN l, c * 2 AS d ORDER BY d DESC, l",
    "MATCH (n) RETURN size(labels(n)) AS k, count(*) AS c ORDER BY k",
    "MATCH (n {group: 'none'}) RETURN count(*) AS c",
    "MATCH (n:A:B) UNWIND labels(n) AS l RETURN DISTINCT count(*) AS c",
]
PAIRS += [
    (q, q.replace("count(*)", "count(n.id)").replace("count(n)", "count(n.id)")
     .replace("count(l)", "count(n.id)"))
    for q in BY_LABELS
]  # fmt: skip
#: WHERE conjuncts checked as soon as their variables are bound (filter push-down); the plain
#: plan: the same conditions after the MATCH (``WITH *``), where nothing is pushed.
EARLY = [
    "MATCH (a:A)-[r]->(b)-[s]->(c) WHERE b.group = $g AND c.name STARTS WITH 'n1' "
    "RETURN a.id, b.id, c.id",
    "MATCH (a {group: $g})-[r]-(b)-[s]-(c) WHERE a.name <> 'n3' AND type(r) = 'R' AND s.id <> r.id "
    "RETURN a.id, r.id, c.id",
    "MATCH (a)-[:R*1..2]->(b), (b)-[s:S]->(c) WHERE b.group = $g AND c:A RETURN a.id, b.id, c.id",
    "MATCH (x {group: $g}) MATCH (x)-->(y)-->(z) WHERE x.name = y.name OR y:B RETURN x.id, z.id",
    "MATCH (a:B)-[r]->(b)-[s]->(c) WHERE (b)-[:S]->(:A) AND $g <> 'g9' RETURN a.id, c.id",
    # one relationship read by its group: its own conjuncts, then its near node's, as it binds
    "MATCH (a:A)-[r:R]->(b) WHERE r.group = $g AND r.name = '' AND a.name STARTS WITH 'n1' "
    "RETURN a.id, r.id, b.id",
    "MATCH (a)-[r {group: $g}]-(b:B) WHERE a.id < 'n2' AND b.id > r.id RETURN a.id, r.id, b.id",
    "MATCH (a)<-[r:R|S]-(b) WHERE r.group = $g AND (a.name ENDS WITH '1' OR type(r) = 'S') "
    "RETURN a.id, r.id, b.id LIMIT 50",
]
PAIRS += [(q, q.replace(" WHERE ", " WITH * WHERE ", 1)) for q in EARLY]
#: A chain of equalities of one property, read as an IN of its values (cypher/rewrite.py);
#: the plain plan: the same chain with one equality hidden, which leaves it a chain of ORs.
PAIRS += [
    (
        "MATCH (n) WHERE n.name = 'n3' OR n.name = 'n7' OR n.name = $g RETURN n.id",
        "MATCH (n) WHERE n.name + '' = 'n3' OR n.name = 'n7' OR n.name = $g RETURN n.id",
    ),
    (
        "MATCH (n:A) WHERE n.group = 'g1' OR $g = n.group OR n.group IN ['g9', null] RETURN n.id",
        "MATCH (n:A) WHERE n.group + '' = 'g1' OR $g = n.group OR n.group IN ['g9', null] "
        "RETURN n.id",
    ),
    (
        "MATCH (a)-[r]->(b) WHERE r.group = $g OR r.group = 'g2' RETURN a.id, r.id, b.id",
        "MATCH (a)-[r]->(b) WHERE r.group + '' = $g OR r.group = 'g2' RETURN a.id, r.id, b.id",
    ),
    (
        "MATCH (a:A)-[r:R]->(b) WHERE (a.name = 'n1' OR a.name = 'n2') AND b.group = $g "
        "RETURN a.id, r.id, b.id",
        "MATCH (a:A)-[r:R]->(b) WHERE (a.name + '' = 'n1' OR a.name = 'n2') AND b.group = $g "
        "RETURN a.id, r.id, b.id",
    ),
]
#: A WHERE's OR whose every part narrows the pattern's first read, read from each part's start
#: in turn, a match found twice kept once (matching.Matcher._split_starts); the plain plan: one
#: part hidden from the planner, so every node is read.
SPLITS = [
    "MATCH (a)-[r]->(b) WHERE a.name = 'n1' OR b.name = $g RETURN a.id, r.id, b.id",
    "MATCH (a)-[r]-(b) WHERE a.id = 'n1' OR b.id = 'n1' OR a.id = 'n2' RETURN a.id, r.id, b.id",
    "MATCH (a)-->()-->(b) WHERE a.id = 'n2' OR b.id = 'n3' RETURN a.id, b.id",
    "MATCH (a:A)-[r]->(b) WHERE r.id = 'e7' OR (a.name = 'n4' AND b.group = $g) "
    "RETURN a.id, r.id, b.id",
    "MATCH (a)-[r:R*1..2]->(b) WHERE a.id = 'n1' OR b.id = 'n1' RETURN a.id, b.id, size(r)",
    "MATCH (a)-[r]->(b) WHERE (a.id = 'n2' OR b.id = 'n3') AND r.group <> 'g9' RETURN count(*)",
    "MATCH (a)-[r]->(a) WHERE a.id = 'n1' OR a.name = 'n5' RETURN a.id, r.id",
]
PAIRS += [(q, q.replace(".id = 'n", ".id + '' = 'n", 1).replace(".name = 'n", ".name + '' = 'n", 1)
           .replace("r.id = 'e7' OR", "r.id + '' = 'e7' OR")) for q in SPLITS]  # fmt: skip
#: A lone node read by an exact field (the core's own shape: every field is): the WHERE
#: equality it was narrowed by is not checked again; the rest of the WHERE is, in its order.
EXACT = [
    "MATCH (n:A) WHERE n.id IN [$g, 'n3', 'n4', null] AND n.name <> 'n4' RETURN n.id",
    "MATCH (n) WHERE n.name <> 'n5' AND n.group = $g RETURN n.id, n.name",
    "UNWIND ['g0', 'g1', 'g1', $g, null] AS g MATCH (n:B) WHERE n.group = g RETURN g, n.id",
    "MATCH (m {id: 'n2'}) MATCH (n:A) WHERE n.group = m.group AND n.id <> m.id RETURN n.id",
    "MATCH (n:A) WHERE n.group = $g AND n.group = 'g1' RETURN n.id",
    "MATCH (n) WHERE n.name STARTS WITH 'n1' AND n.group = $g AND n.name ENDS WITH '0' RETURN n.id",
    "MATCH (n:A) WHERE n.group = $g RETURN labels(n) AS l, count(*) AS c",
]
PAIRS += [
    (q, q.replace("n.id IN", "n.id + '' IN").replace("n.group =", "n.group + '' =", 1))
    for q in EXACT
]
#: The same for a pattern map's key (the map's other keys are compared).
PAIRS += [
    (
        "MATCH (n:A {group: $g, name: 'n3'}) RETURN n.id",
        "MATCH (n:A) WHERE n.group + '' = $g AND n.name + '' = 'n3' RETURN n.id",
    ),
    (
        "UNWIND ['g0', 'g1', $g] AS g MATCH (n:B {group: g}) RETURN g, n.id",
        "UNWIND ['g0', 'g1', $g] AS g MATCH (n:B) WHERE n.group + '' = g RETURN g, n.id",
    ),
    (
        "MATCH (n:A {group: 'g1', group: $g}) RETURN n.id",  # a key twice: its last value
        "MATCH (n:A) WHERE n.group + '' = $g RETURN n.id",
    ),
    (
        "MATCH (n:A {id: $g}) RETURN n.id",
        "MATCH (n:A) WHERE n.id + '' = $g RETURN n.id",
    ),
]
PAIRS += [
    (
        "MATCH (a:B)-[r]-(b:A) RETURN a.id AS id, count(*) AS n, count(b) AS m ORDER BY id",
        "MATCH (a:B)-[r]-(b:A) RETURN a.id AS id, count(r.id) AS n, count(b.id) AS m ORDER BY id",
    ),
]

#: A lone node's columns read alone, no record (.columns); the plain plan binds the node whole
#: first (``WITH n``).
COLUMNS = [
    "MATCH (n:A) WHERE n.group = $g RETURN n.id, n.name",
    "MATCH (n:A:B) RETURN n.id AS id ORDER BY id DESC",
    "MATCH (n:A|B {group: $g}) RETURN n.name AS name, n.text AS text ORDER BY n.id LIMIT 5",
    "MATCH (n) WHERE n.name STARTS WITH 'n1' AND n.group = $g RETURN n.id",
    "MATCH (n {group: $g, name: 'n3'}) RETURN n.id",
    "MATCH (n:B) WHERE n.id IN [$g, 'n3', 'n4', null] RETURN DISTINCT n.group AS g ORDER BY g",
    "MATCH (n) RETURN n.group AS g, count(*) AS c, collect(n.id) AS ids ORDER BY g",
    "MATCH (n:A) WITH n.group AS g, n.id AS id WHERE id > 'n2' RETURN g, count(id) AS c ORDER BY g",
    "MATCH (n) WHERE n.text = '' RETURN n.id SKIP 2 LIMIT 3",
    "MATCH (n) WHERE n.name = $g OR n.group = $g RETURN n.id",
    "MATCH (n) RETURN n.id ORDER BY n.name DESC, n.id LIMIT 7",
    "MATCH (n) RETURN DISTINCT n.group ORDER BY n.group",
    "MATCH (n {text: $g}) RETURN n.id",
    "MATCH (n:A) WHERE n.text = 'about n5' OR n.text IS NULL OR n.text = '' AND n.group = $g "
    "RETURN n.id, n.text",
    "MATCH (n:Nope) RETURN n.id",
    "MATCH (n {group: $g}) RETURN n.id, [(m)-[:R]->(k) WHERE k.id = n.id | m.id] AS x",
]
PAIRS += [
    (q, re.sub(r"(?<!STARTS)(?<!ENDS) (RETURN|WITH) ", r" WITH n \1 ", q, count=1)) for q in COLUMNS
]

#: One relationship's and its two nodes' columns read alone, no record (.rel_columns); the
#: plain plan binds them whole first (``WITH *``). Both directions, self loops, parallel
#: relationships, unnamed patterns, maps, stages of the WHERE, aggregates, a LIMIT's order.
REL_COLUMNS = [
    "MATCH (a:A)-[r:R]->(b) WHERE r.group = $g RETURN a.id, r.id, b.id",
    "MATCH (a)-[r {group: $g}]-(b:B) RETURN a.name, r.id, b.text ORDER BY r.id, a.name",
    "MATCH (a:A)<-[r:R|S]-(b:A) WHERE r.group IN [$g, 'g2'] AND a.name STARTS WITH 'n1' "
    "RETURN a.id, b.id LIMIT 5",
    "MATCH (a)-[{group: $g}]->(b) RETURN a.id, b.id",
    "MATCH (:A)-[r:R]->(:B) WHERE r.group = $g RETURN r.id, r.name",
    "MATCH (a)-[r]->(b) WHERE r.group = $g AND (b.text = '' OR b.text IS NULL) RETURN a.id, b.id",
    "MATCH (a)-[r:R]-(b) WHERE r.group = $g RETURN a.group AS g, count(*) AS c, "
    "collect(b.id) AS ids ORDER BY g",
    "MATCH (a)-[r]->(b) WHERE r.group = $g WITH a.id AS x, b.name AS y WHERE y > 'n2' "
    "RETURN x, count(y) AS c ORDER BY x",
    "MATCH (a)-[r]-(b) WHERE r.group = $g RETURN DISTINCT b.group AS g ORDER BY g",
    "MATCH (a)-[r]->(b) WHERE r.group = $g AND b.id > r.id AND a.id <> 'n4' "
    "RETURN a.id, r.id, b.id",
    "MATCH (a:B {group: 'g1'})-[r:S {group: $g}]-(b {name: 'n7'}) RETURN a.id, r.id",
    "MATCH (a)-[r]-(b) WHERE r.group = $g AND r.name = '' RETURN a.id, b.id SKIP 3 LIMIT 4",
    "MATCH (a {group: 'g1'})-[r]-(b:B {text: ''}) WHERE r.id IN ["
    + ", ".join(f"'e{i}'" for i in range(0, 120, 2))
    + ", $g] RETURN a.id, r.id, b.id",
    "MATCH (a:Nope)-[r]->(b) WHERE r.group = $g RETURN a.id",
    "MATCH (a)-[r:Nope]->(b) WHERE r.group = $g RETURN a.id",
    "MATCH (a)-[r]-(b) WHERE r.group = $g RETURN a.id, [(a)-[:R]->(k) WHERE k.id = b.id | k.id] "
    "AS x",
    # conjuncts decided on the column tuples (column_tests), and others beside them
    "MATCH (a)-[r]->(b:A) WHERE r.group = $g AND r.name <> 'x' AND b.name ENDS WITH '1' "
    "AND a.id CONTAINS 'n' AND '' = r.name RETURN a.id, r.id, b.id",
    "MATCH (a:B)-[r:R]-(b) WHERE r.group = $g AND r.id IN ['e1', 'e7', 'par', $g, 'loop'] "
    "AND a.text IS NOT NULL AND b.id <> a.id AND NOT b.id IN ['n3'] RETURN a.id, r.id, b.id",
    "MATCH (a)-[r]-(b) WHERE r.group = $g AND a.name STARTS WITH 'n2' AND a.text IS NULL "
    "RETURN a.id, b.id",
]
PAIRS += [
    (q, re.sub(r"(?<!STARTS)(?<!ENDS) (RETURN|WITH) ", r" WITH * \1 ", q, count=1))
    for q in REL_COLUMNS
]
#: Those read from the relationship (the one with a name narrows b's read more; the last reads
#: its nodes inside a pattern).
REL_TAKEN = [q for q in REL_COLUMNS if "{name: 'n7'}" not in q and "| k.id]" not in q]

#: A variable-length relationship walked for the nodes it reaches, each once (DISTINCT rows,
#: the start node ruled out), against the same query with the rule-out hidden (every path).
REACH = [
    "MATCH (a:A {group: $g})-[*1..3]-(b) WHERE b.id <> a.id RETURN DISTINCT a.id, b.id",
    "MATCH (a {group: $g})-[:R*1..2]->(b) WHERE a <> b RETURN DISTINCT a.id, b.id",
    "MATCH (a:A {group: $g})<-[:S*..4]-(b:B) WHERE b <> a RETURN DISTINCT b.id",
    "MATCH (a {group: $g})-[*1..2 {group: 'g1'}]-(b) WHERE b.name <> a.name "
    "RETURN DISTINCT a.name, b.name",
    "MATCH (a:B {group: $g})-[*..2]-(b:A) WHERE a.id <> b.id WITH DISTINCT b RETURN b.id",
    "MATCH (b)-[*1..2]-(a {id: 'n2'}) WHERE a.group = $g AND a <> b RETURN DISTINCT b.id AS id "
    "ORDER BY id DESC LIMIT 4",
    # read by their columns alone (.reach_columns)
    "MATCH (a {group: $g})-[:R*1..2]->(b:B) WHERE a.id <> b.id AND b.name STARTS WITH 'n1' "
    "RETURN DISTINCT b.id, b.name",
    "MATCH (a:A {group: $g})<-[:S*..4]-(b:B {group: 'g1'}) WHERE b.id <> a.id AND a.name <> 'n3' "
    "RETURN DISTINCT b.id ORDER BY b.id LIMIT 5",
    "MATCH (a {id: 'n2'})-[:R|S*1..3]-(b) WHERE b.id <> a.id AND a.group <> $g "
    "RETURN DISTINCT b.group AS g, b.id",
    "MATCH (a:A:B {group: $g})-[*1..2]->(b:A) WHERE a.id <> b.id RETURN DISTINCT a.name, b.text",
    "MATCH (a {id: 'n1'})-[*1..5]-(b {group: 'g1'}) WHERE b.name <> a.name RETURN DISTINCT b.id "
    "LIMIT 3",
    "MATCH (a:B {id: 'n1'})-[*1..2]-(b:A) WHERE a.id <> b.id RETURN DISTINCT b.id, b.name",
]
#: Those read by their columns alone (.reach_columns): every read of the two a property.
REACH_TAKEN = [q for q in REACH[-6:]] + [REACH[0]]
#: Two fixed relationships walked as sets of nodes (DISTINCT rows, the start ruled out, the
#: relationships and the middle node unnamed); the plain plan: the rule-out hidden.
TWO_HOPS = [
    "MATCH (a {group: $g})-[:R]-(:A)-[:R]-(b) WHERE b.id <> a.id RETURN DISTINCT a.id, b.id",
    "MATCH (a:A {group: $g})-->()<--(b:B) WHERE a <> b RETURN DISTINCT b.id",
    "MATCH (a {group: $g})-[:R|S]->(:B)-[:S]->(b) WHERE a.id <> b.id RETURN DISTINCT a.name, b.name",
    "MATCH (a {id: 'n2'})<-[]-(:A:B)-[:R]-(b:A) WHERE a <> b AND b.group = $g "
    "RETURN DISTINCT b.id AS id ORDER BY id DESC LIMIT 4",
    "MATCH (a {id: 'n1'})-[:R]-()-[:R]-(b) WHERE a <> b WITH DISTINCT b RETURN b.id",
    "MATCH (a:A {group: $g})-[:R]-(:B)-[:S]-(b:A) WHERE a.id <> b.id AND b.name STARTS WITH 'n' "
    "RETURN DISTINCT b.id ORDER BY b.id LIMIT 5",
    "MATCH (a {id: 'n2'})-[:R|S]-(:A)-[]->(b {group: 'g1'}) WHERE b.id <> a.id "
    "RETURN DISTINCT b.id, b.name LIMIT 3",
]
REACH += TWO_HOPS
#: (two hops read by their columns alone too)
REACH_TAKEN += [TWO_HOPS[0], TWO_HOPS[2], TWO_HOPS[5], TWO_HOPS[6]]
REACH_PAIRS = [
    (
        q,
        q.replace("WHERE b.id <> a.id", "WHERE NOT b.id = a.id")
        .replace("WHERE a <> b", "WHERE NOT a = b")
        .replace("WHERE b <> a", "WHERE NOT b = a")
        .replace("WHERE b.name <> a.name", "WHERE NOT b.name = a.name")
        .replace("WHERE a.id <> b.id", "WHERE NOT a.id = b.id")
        .replace("AND a <> b", "AND NOT a = b"),
    )
    for q in REACH
]
PAIRS += REACH_PAIRS


def fill(store: Store, seed: int = 5) -> None:
    rng = random.Random(seed)
    store.upsert_nodes(
        [
            Node(f"n{i}", group=f"g{i % 3}", labels=rng.choice([("A",), ("B",), ("A", "B")]), name=f"n{i}",
                 text=f"about n{i}" if i % 4 else "")
            for i in range(30)
        ]
    )  # fmt: skip
    edges = [
        Edge(f"e{i}", f"n{rng.randrange(30)}", f"n{rng.randrange(30)}", rng.choice("RS"),
             group=f"g{rng.randrange(3)}")
        for i in range(120)
    ]  # fmt: skip
    edges += [Edge("loop", "n1", "n1", "R", group="g0"), Edge("par", "n2", "n3", "R", group="g0")]
    edges.append(Edge("par2", "n2", "n3", "R", group="g0"))
    store.upsert_edges(edges)


def answers(reader: object, query: str) -> list[Counter[str]]:
    return [
        Counter(map(repr, reader.cypher(query, {"g": g}).rows))  # type: ignore[attr-defined]
        for g in ("g0", "g1", "nowhere")
    ]


def check(reader: object) -> None:
    for fast, plain in PAIRS:
        assert answers(reader, fast) == answers(reader, plain), fast
    limited = "MATCH (a:A)-[r:R]->(b) WHERE r.group = $g RETURN a.id, r.id, b.id LIMIT 4"
    whole = limited.rsplit(" LIMIT", 1)[0]
    for part, full in zip(answers(reader, limited), answers(reader, whole), strict=True):
        assert not part - full and part.total() == min(4, full.total())


def spy_on_matcher(
    monkeypatch: pytest.MonkeyPatch, method: str, note: Callable[..., object]
) -> list[object]:
    """What ``note`` makes of the arguments of each call of ``Matcher.<method>``."""
    from anatid_core.cypher import matching

    seen: list[object] = []
    original = getattr(matching.Matcher, method)
    monkeypatch.setattr(
        matching.Matcher,
        method,
        lambda self, *a: seen.append(note(*a)) or original(self, *a),
    )
    return seen


@pytest.fixture
def without_column_plans(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Every node bound by the matcher: no query reads its nodes' columns alone (.columns)."""
    from anatid_core.cypher import engine, run

    monkeypatch.setattr(engine, "column_plan", lambda clauses, matcher, **_: None)
    monkeypatch.setattr(engine, "rel_column_plan", lambda clauses, matcher: None)
    monkeypatch.setattr(engine, "reach_plan", lambda clauses, matcher, distinct: None)
    run.forget_parsed()  # no plan kept from an earlier run...
    yield
    run.forget_parsed()  # ...nor from this one for a later test


@pytest.fixture
def filled(tmp_path: Path) -> Store:
    store = Store.open(tmp_path / "plans.duckdb")
    fill(store)
    yield store  # type: ignore[misc]
    store.close()


def test_narrowed_plans_answer_as_the_plain_plans(
    filled: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    from anatid_core.cypher import engine

    started = spy_on_matcher(monkeypatch, "_start_rels", lambda part, *a: part)
    original = engine.rel_column_rows
    monkeypatch.setattr(
        engine, "rel_column_rows", lambda p, *a: started.append(p) or original(p, *a)
    )
    check(filled)
    assert len(started) >= 6 * 3  # the first six pairs' narrowed queries began at r
    assert filled.indexes.current.loaded("edge") is not None  # scans came from memory


def check_plan_runs(
    filled: Store,
    monkeypatch: pytest.MonkeyPatch,
    rows_of_plan: str,
    taken: list[str],
    not_taken: tuple[str, ...],
) -> None:
    """The engine's ``rows_of_plan`` runs for each query of ``taken`` and for none of
    ``not_taken`` (each refused or answered: the plan must not have run)."""
    from anatid_core import AnatidError
    from anatid_core.cypher import engine

    planned: list[object] = []
    original = getattr(engine, rows_of_plan)
    monkeypatch.setattr(
        engine, rows_of_plan, lambda plan, *a: planned.append(plan) or original(plan, *a)
    )
    for query in taken:
        planned.clear()
        filled.cypher(query, {"g": "g0"})
        assert planned, query
    for query in not_taken:
        planned.clear()
        try:
            filled.cypher(query)
        except AnatidError:
            pass
        assert not planned, query


def test_counts_per_node_come_from_the_adjacency(
    filled: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    not_taken = (  # the relationship or the far node read beyond a count: rows as before
        "MATCH (a)-[r]-(b) RETURN a.id, count(r), collect(r.id)",
        "MATCH (a)-[r]-(b) WHERE r.group = 'g0' RETURN a.id, count(r)",
        "MATCH (a)-[r]-(b) RETURN a.id, b.id, count(r)",
        "MATCH (a)-[r]-(b {group: 'g0'}) RETURN a.id, count(r)",
        "MATCH (a)-[r*1..2]-(b) RETURN a.id, count(r)",
        "MATCH (a)-[r]-(b) RETURN a.id, count(DISTINCT b)",
        "MATCH ()-[r]->() RETURN type(r), r.group, count(r)",
        "MATCH ()-[r]->() WHERE type(r) = 'R' RETURN type(r), count(r)",
        "MATCH ()-[r]->() RETURN type(r), count(r) ORDER BY type(r)",
        "MATCH (a)-[r]->(b) RETURN labels(b), a.id, b.id, count(r)",
    )
    check_plan_runs(filled, monkeypatch, "counted_rows", COUNTS, not_taken)
    schema = filled.cypher("MATCH (a)-[r]->(b) RETURN labels(a), type(r), labels(b), count(*)")
    assert schema.columns == ["labels(a)", "type(r)", "labels(b)", "count(*)"]
    nodes = {n.id: sorted(n.labels) for n in filled.find_nodes()}
    wanted = Counter((repr(nodes[e.src]), e.rel, repr(nodes[e.dst])) for e in filled.find_edges())
    assert {(repr(sorted(a)), t, repr(sorted(b))): n for a, t, b, n in schema.rows} == wanted
    typed = filled.cypher("MATCH ()-[r]->() RETURN type(r), count(*)")
    assert typed.columns == ["type(r)", "count(*)"]
    assert sorted(typed.rows) == sorted(  # (the relationships of the filled store, by type)
        Counter(e.rel for e in filled.find_edges()).items()
    )
    # the counted node read by its columns where the query reads no more of it (.columns)
    from anatid_core.cypher import counting

    by_columns: list[object] = []
    original = counting.column_rows
    monkeypatch.setattr(
        counting, "column_rows", lambda p, *a: by_columns.append(p) or original(p, *a)
    )
    for query, taken in (
        (COUNTS[2], True),
        (COUNTS[1], True),
        ("MATCH (a:A)-[r]-(b) WITH a, count(r) AS c WHERE c > 2 RETURN a.id, c", False),
        ("MATCH (a:A)-[r]-(b) RETURN labels(a) AS l, count(r) AS c", False),
    ):
        by_columns.clear()
        filled.cypher(query, {"g": "g0"})
        assert bool(by_columns) is taken, query


def test_an_or_of_narrowed_parts_reads_from_each_part(
    filled: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    split = spy_on_matcher(monkeypatch, "_union_of_starts", lambda clause, *a: clause)
    for query in SPLITS:
        split.clear()
        filled.cypher(query, {"g": "g0"})
        assert split, query
    for query in (
        # a part that narrows nothing: every node is read once, as before
        "MATCH (a)-[r]->(b) WHERE a.name = 'n1' OR b.name STARTS WITH 'n' RETURN a.id",
        # a part read by its group alone (most of a memory: read again per part)
        "MATCH (a)-[r]->(b) WHERE a.group = 'g0' OR b.group = 'g1' RETURN a.id",
        "MATCH (a)-[r]->(b) WHERE r.group = 'g0' OR a.id = 'n1' RETURN a.id",
        # the WHERE narrows the read already
        "MATCH (a {id: 'n1'})-[r]->(b) WHERE a.name = 'n1' OR b.name = 'n2' RETURN a.id",
        # a lone node, an OPTIONAL MATCH
        "MATCH (a) WHERE a.name = 'n1' OR a.id = 'n2' RETURN a.id",
        "OPTIONAL MATCH (a)-[r]->(b) WHERE a.name = 'n1' OR b.name = 'n2' RETURN a.id",
    ):
        split.clear()
        filled.cypher(query)
        assert not split, query
    # past SPLIT_DISJUNCTS parts: one read of everything
    many = " OR ".join(f"a.id = 'n{i}' OR b.name = 'n{i}'" for i in range(20))
    split.clear()
    filled.cypher(f"MATCH (a)-[r]->(b) WHERE {many} RETURN count(*)")
    assert not split


def test_counts_by_label_take_a_row_per_label_set(
    filled: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    not_taken = (  # the node read beyond its labels, or not a plain count: rows as before
        "MATCH (n) UNWIND labels(n) AS l RETURN l, count(*), collect(n.id)",
        "MATCH (n) RETURN labels(n), n.group, count(*)",
        "MATCH (n) RETURN labels(n), count(DISTINCT n)",
        "MATCH (n) UNWIND labels(n) AS l RETURN l, count(*) ORDER BY n.id",
        "MATCH (n) UNWIND n.tags AS l RETURN l, count(*)",
        "MATCH (n) UNWIND labels(n) AS n RETURN n, count(*)",
        "OPTIONAL MATCH (n:Nope) RETURN labels(n), count(*)",
        "MATCH (n), (m) RETURN labels(n), count(*)",
        "MATCH (n) RETURN [n IN [1] | n] AS x, count(*)",
        "MATCH (n) RETURN labels(n)",
    )
    check_plan_runs(filled, monkeypatch, "label_set_rows", BY_LABELS, not_taken)
    # a WHERE the store cannot count by (STARTS WITH): the nodes' columns read, no record bound
    from anatid_core.cypher import counting

    by_columns: list[object] = []
    original = counting.column_rows
    monkeypatch.setattr(
        counting, "column_rows", lambda p, *a: by_columns.append(p) or original(p, *a)
    )
    for query, taken in (
        ("MATCH (n:B) WHERE n.name STARTS WITH 'n1' RETURN count(n) AS c", True),
        ("MATCH (n) WHERE n.name ENDS WITH '1' RETURN labels(n) AS l, count(*) AS c", True),
        ("MATCH (n) WHERE n.group = 'g1' RETURN count(n) AS c", False),  # the store counts
        ("MATCH (n) WHERE size(labels(n)) = 2 RETURN count(n) AS c", False),  # reads n whole
    ):
        by_columns.clear()
        got = filled.cypher(query).rows
        assert bool(by_columns) is taken, query
        plain = filled.cypher(
            query.replace("count(n)", "count(n.id)").replace("count(*)", "count(n.id)")
        )
        assert sorted(map(repr, got)) == sorted(map(repr, plain.rows)), query
    # the answer the plan gives: every node once, under each of its labels
    rows = filled.cypher("MATCH (n) UNWIND labels(n) AS l RETURN l, count(*) AS c ORDER BY l")
    nodes = filled.find_nodes(limit=None)
    assert [tuple(r) for r in rows.rows] == [
        (label, sum(label in n.labels for n in nodes)) for label in ("A", "B")
    ]


def test_columns_alone_are_read_for_a_lone_node_read_by_its_columns(
    filled: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    not_taken = (  # the node read beyond its columns, or a pattern beyond one node
        "MATCH (n) RETURN n",
        "MATCH (n) RETURN n.id, labels(n)",
        "MATCH (n) WHERE n:A RETURN n.id",
        "MATCH (n) RETURN n.tag",  # a props key: not a column
        "MATCH (n {tag: 'x'}) RETURN n.id",
        "MATCH (n $map) RETURN n.id",
        "OPTIONAL MATCH (n) RETURN n.id",
        "MATCH (n), (m) RETURN n.id",
        "MATCH (n)-->(m) RETURN n.id",
        "MATCH p = (n) RETURN n.id",
        "MATCH (n) RETURN count(n)",
        "MATCH (n) RETURN *",
        "MATCH (n) RETURN [n IN [1] | n] AS x",
        "MATCH (n) RETURN [(n)-->(m) | m.id] AS x",
        "MATCH (n) WITH n.id AS id WHERE n.group = 'g0' RETURN id",
        "MATCH (n) RETURN DISTINCT n.id ORDER BY n.name",
        "MATCH (n) RETURN n.id AS n ORDER BY n",
    )
    check_plan_runs(filled, monkeypatch, "column_rows", COLUMNS, not_taken)
    # the errors of the plain plan stay its own
    for query in not_taken[-3:-1]:
        with pytest.raises(AnatidError, match="not defined|DISTINCT|ORDER BY"):
            filled.cypher(query)


def test_columns_alone_through_a_view_scoped_to_some_groups(filled: Store) -> None:
    # a scoped view reads by SQL, its wall applied: the columns of the nodes it sees
    from anatid_core.storage.scope import Scope

    scoped = filled.scoped(Scope.of(groups=["g0", "g2"]))
    pairs = [p for p in PAIRS if p[0] in COLUMNS]
    assert len(pairs) == len(COLUMNS)
    for fast, plain in pairs:
        assert answers(scoped, fast) == answers(scoped, plain), fast
    seen = {row[0] for row in scoped.cypher("MATCH (n) RETURN n.group").rows}
    assert seen == {"g0", "g2"}


def test_relationship_columns_alone_are_read_where_the_scan_starts_at_it(
    filled: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    not_taken = (  # read beyond their columns, another pattern, or not read from r
        "MATCH (a)-[r]->(b) WHERE r.group = 'g0' RETURN r",
        "MATCH (a)-[r]->(b) WHERE r.group = 'g0' RETURN type(r)",
        "MATCH (a)-[r]->(b) WHERE r.group = 'g0' RETURN a.id, labels(b)",
        "MATCH (a)-[r]->(b) WHERE r.group = 'g0' RETURN a.tag",  # a props key
        "MATCH (a)-[r]->(b) WHERE r.group = 'g0' RETURN r.weight",
        "MATCH (a)-[r]->(b) WHERE r.group = 'g0' RETURN *",
        "MATCH (a)-[r]->(b) RETURN a.id",  # no narrowing: read from a node
        "MATCH (a {id: 'n1'})-[r]->(b) WHERE r.group = 'g0' RETURN b.id",
        "MATCH (a)-[r*1..2]->(b) WHERE a.group = 'g0' RETURN b.id",
        "MATCH (a)-[r]->(b)-[s]->(c) WHERE r.group = 'g0' RETURN a.id",
        "MATCH (a)-[r]-(a) WHERE r.group = 'g0' RETURN a.id",
        "MATCH p = (a)-[r]->(b) WHERE r.group = 'g0' RETURN a.id",
        "OPTIONAL MATCH (a)-[r]->(b) WHERE r.group = 'g0' RETURN a.id",
        "MATCH (a)-[r]->(b {name: a.name}) WHERE r.group = 'g0' RETURN a.id",
        "MATCH (a)-[r $map]->(b) RETURN a.id",
        "MATCH (a)-[r]->(b) WHERE r.group = 'g0' AND (a)-->(b) RETURN a.id",
        "MATCH (a)-[r]->(b) WHERE r.group = 'g0' WITH a.id AS x WHERE b.id > '' RETURN x",
        "MATCH (a)-[r]->(b) WHERE r.group = 'g0' RETURN DISTINCT a.id ORDER BY b.id",
        next(q for q in REL_COLUMNS if "| k.id]" in q),  # b read inside a pattern
    )
    check_plan_runs(filled, monkeypatch, "rel_column_rows", REL_TAKEN, not_taken)
    # a value the store refuses narrows nothing: every relationship read and compared here
    for query in (
        "MATCH (a)-[r]->(b) WHERE r.group = $g RETURN a.id",
        "MATCH (a)-[r {id: $g}]-(b) RETURN a.id",
    ):
        assert filled.cypher(query, {"g": "a\x00b"}).rows == [], query
    query = "MATCH (a)-[r]->(b) WHERE r.id IN [$g, 'e1'] RETURN a.id, b.id"
    assert (
        filled.cypher(query, {"g": "a\x00b"}).rows
        == filled.cypher(query.replace(" RETURN", " WITH * RETURN"), {"g": "a\x00b"}).rows
        == [
            tuple(e)
            for e in filled.find_edge_columns(["src", "dst"], where=[[Cond("id", "=", "e1")]])
        ]
    )
    # the errors of the WHERE stay its own, in its order
    from anatid_core import CypherError

    with pytest.raises(CypherError):
        filled.cypher("MATCH (a)-[r]->(b) WHERE r.group = 'g0' AND a.id * 2 > 0 RETURN a.id")
    quiet = "MATCH (a)-[r]->(b) WHERE r.group = 'g0' AND r.name = 'x' AND a.id * 2 > 0 RETURN a.id"
    assert filled.cypher(quiet).rows == []


def test_relationship_columns_through_a_shape_that_cannot_narrow_by_type(
    filled: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A shape that cannot say which stored rels a type is (``store_rels`` None) has every
    relationship read: the plan checks each one's type, as the matcher does."""
    from anatid_core.cypher import engine
    from anatid_core.cypher.shape import RecordShape

    class Wide(RecordShape):
        def store_rels(self, types: object) -> None:
            return None

    planned: list[object] = []
    original = engine.rel_column_rows
    monkeypatch.setattr(
        engine, "rel_column_rows", lambda p, *a: planned.append(p) or original(p, *a)
    )
    shape = Wide()
    pairs = [p for p in PAIRS if p[0] in REL_TAKEN and ":R" in p[0] and "WITH *" in p[1]]
    assert len(pairs) >= 4
    for fast, plain in pairs:
        for g in ("g0", "g1"):
            planned.clear()
            rows = filled.cypher(fast, {"g": g}, shape=shape).rows
            assert planned and rows == filled.cypher(plain, {"g": g}, shape=shape).rows, fast
            assert rows == filled.cypher(fast, {"g": g}).rows, fast


def test_plans_are_chosen_once_per_text_and_shape(
    filled: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A text's plans are made on its first run with a shape and kept with its parse; another
    shape gets its own (whether a key is a column is the shape's to say)."""
    from anatid_core.cypher import engine, run
    from anatid_core.cypher.shape import RecordShape

    class Inexact(RecordShape):
        def exact_field(self, kind: str, key: str, among: object) -> bool:
            return False  # no column is a property exactly: nodes are bound

    run.forget_parsed()
    made: list[object] = []
    original_plans, original_rows = engine.make_plans, engine.column_rows
    monkeypatch.setattr(
        engine, "make_plans", lambda q, m: made.append(m.graph.shape) or original_plans(q, m)
    )
    by_columns: list[object] = []
    monkeypatch.setattr(
        engine, "column_rows", lambda p, *a: by_columns.append(p) or original_rows(p, *a)
    )
    query = "MATCH (n:A) WHERE n.group = $g RETURN n.id"
    answers = [filled.cypher(query, {"g": "g0"}).rows for _ in range(3)]
    assert len(made) == 1 and len(by_columns) == 3 and answers[0] == answers[2]
    by_columns.clear()
    shape = Inexact()
    assert filled.cypher(query, {"g": "g0"}, shape=shape).rows == answers[0]
    assert filled.cypher(query, {"g": "g0"}, shape=shape).rows == answers[0]
    assert len(made) == 2 and not by_columns  # its own plans, made once: no column read
    assert filled.cypher(query, {"g": "g0"}).rows == answers[0]
    assert len(made) == 2 and by_columns  # the first shape's plans still kept


def test_columns_alone_check_the_whole_where_where_the_store_refuses_a_value(
    filled: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A value the store refuses (a control character in an id) narrows nothing: every node
    is read and the whole WHERE and map checked, as the matcher does."""
    for query in (
        "MATCH (n:A) WHERE n.id = $g RETURN n.id",
        "MATCH (n:A {id: $g}) RETURN n.id",
        "MATCH (n:A) WHERE n.id IN [$g] AND n.group <> '' RETURN n.id",
    ):
        assert filled.cypher(query, {"g": "a\x00b"}).rows == [], query
    # the read narrowed, the equality it holds is not checked again
    from anatid_core.cypher import matching

    original = matching.Matcher.first_read
    reads: list[object] = []
    monkeypatch.setattr(
        matching.Matcher,
        "first_read",
        lambda self, *a: reads.append(r := original(self, *a)) or r,
    )
    query = "MATCH (n {group: $g}) WHERE n.name STARTS WITH 'n3' RETURN n.id"
    assert filled.cypher(query, {"g": "g0"}).rows == [("n3",)]
    assert [r.known for r in reads] == ["group"]  # type: ignore[attr-defined]
    reads.clear()
    query = "MATCH (n) WHERE n.group = $g AND n.name STARTS WITH 'n3' RETURN n.id"
    assert filled.cypher(query, {"g": "g0"}).rows == [("n3",)]
    [read] = reads
    assert read.known is None and read.where.op == "STARTS"  # type: ignore[attr-defined]


def test_inside_a_writers_transaction_and_without_the_in_memory_records(
    filled: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    from anatid_core import SETTINGS

    with filled.transaction():
        filled.upsert_edges([Edge("mine", "n4", "n4", "R", group="g0")])
        filled.delete_edges(["e5"])
        check(filled)
        assert filled.cypher("MATCH (a {id: 'n4'})-[r {id: 'mine'}]-(b) RETURN count(r)").rows
    check(filled)
    monkeypatch.setitem(SETTINGS, "current_records_limit", 0)
    filled.indexes.current.forget()  # past the limit: every read is SQL
    check(filled)
    assert filled.indexes.current.loaded("edge") is None


def test_counts_from_the_graph_index_past_the_in_memory_records(
    filled: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    from anatid_core import SETTINGS
    from anatid_core.graph.neighbourhood import NeighbourhoodReads

    monkeypatch.setitem(SETTINGS, "current_records_limit", 0)
    filled.indexes.current.forget()
    walked: list[object] = []
    original = NeighbourhoodReads._edge_ends_by_index
    monkeypatch.setattr(
        NeighbourhoodReads,
        "_edge_ends_by_index",
        lambda self, *a: walked.append(found := original(self, *a)) or found,
    )
    for _ in range(3):  # the graph index is loaded after a few walks by SQL
        check(filled)
    assert any(found is not None for found in walked)
    filled.upsert_edges([Edge("late", "n5", "n6", "R", group="g0")])
    check(filled)


def test_after_writes_deletes_and_as_of_the_past(filled: Store) -> None:
    check(filled)
    past = datetime.now(timezone.utc)
    time.sleep(0.002)
    before = answers(filled, PAIRS[0][0])
    filled.upsert_edges(
        [Edge("e0", "n4", "n5", "R", group="g1"), Edge("new", "n6", "n4", "R", group="g0")]
    )
    filled.delete_edges(["e1", "e2"])
    filled.delete_nodes(["n3"])
    filled.upsert_nodes([Node("n8", group="g2", labels=("A",), name="renamed")])
    check(filled)
    check(filled.as_of(tx_time=past))
    assert (
        answers(filled.as_of(tx_time=past), PAIRS[0][0]) == before != answers(filled, PAIRS[0][0])
    )


def test_after_another_process_commits(filled: Store) -> None:
    check(filled)
    code = f"""
        from anatid_core import Edge, Node, Store
        with Store.open({filled.path!r}) as other:
            other.upsert_edges([Edge("far", "n9", "n10", "R", group="g1")])
            other.delete_edges(["e3"])
    """
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    check(filled)
    rows = filled.cypher("MATCH (a)-[r:R {group: 'g1'}]->(b) WHERE r.id = 'far' RETURN a.id").rows
    assert rows == [("n9",)]


def test_distinct_streams_and_keeps_its_window(filled: Store) -> None:
    query = "MATCH (a:A)-[r]-(b) WHERE a.group = $g RETURN DISTINCT b.id AS id"
    for g in ("g0", "g1"):
        every = [r[0] for r in filled.cypher(query, {"g": g}).rows]
        assert len(every) == len(set(every))
        ordered = [r[0] for r in filled.cypher(query + " ORDER BY id", {"g": g}).rows]
        assert sorted(every) == ordered
        window = [r[0] for r in filled.cypher(query + " SKIP 2 LIMIT 3", {"g": g}).rows]
        assert window == every[2:5]


def test_a_relationship_scan_stops_at_the_deadline(filled: Store) -> None:
    with pytest.raises(CypherTimeout):
        filled.cypher("MATCH (a)-[r {group: 'g0'}]->(b), (c), (d) RETURN count(*)", timeout=1e-6)


def test_a_variable_length_walk_stops_at_the_length_a_limit_is_met(
    filled: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    from anatid_core.cypher.graph import Graph

    expansions: list[int] = []
    original = Graph.expand
    monkeypatch.setattr(
        Graph,
        "expand",
        lambda self, ids, *a: expansions.append(len(ids)) or original(self, ids, *a),
    )
    query = "MATCH (a {id: 'n0'})-[*1..3]-(b) RETURN DISTINCT b.id AS id"
    every = {r[0] for r in filled.cypher(query).rows}
    assert len(expansions) > 3  # each length's ends, a few first, then more
    expansions.clear()
    some = [r[0] for r in filled.cypher(query + " LIMIT 2").rows]
    assert len(some) == 2 and set(some) <= every
    assert expansions == [1]  # the paths of length 1 met it
    # a LIMIT met by the paths grown from the first ends of length 1 reads no other end's
    expansions.clear()
    first = filled.cypher("MATCH (a {id: 'n0'})-[*2..3]-(b) RETURN b.id LIMIT 1").rows
    assert len(first) == 1 and len(filled.edges_of(["n0"])) > 4
    assert expansions == [1, 4]


def spy_on_reach(monkeypatch: pytest.MonkeyPatch) -> list[bool]:
    """Per run of a MATCH, whether it was walked for the nodes it reaches: by the matcher
    (``Matcher._reach``'s answer) or by the reach column plan (True)."""
    from anatid_core.cypher import engine, matching

    decided: list[bool] = []
    original = matching.Matcher._reach
    monkeypatch.setattr(
        matching.Matcher, "_reach", lambda self, c: decided.append(original(self, c)) or decided[-1]
    )
    rows = engine.reach_column_rows
    monkeypatch.setattr(engine, "reach_column_rows", lambda *a: decided.append(True) or rows(*a))
    return decided


def test_a_distinct_walk_reaches_each_node_once(
    filled: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    decided = spy_on_reach(monkeypatch)
    a_given_time = (  # the clock is read only without an argument
        "MATCH (a {id: 'n0'})-[*1..3]-(b) WHERE b <> a RETURN DISTINCT b.id, "
        "datetime('2024-01-01T00:00:00Z') AS t"
    )
    for query in [q for q in REACH if q not in TWO_HOPS] + [a_given_time]:
        decided.clear()
        filled.cypher(query, {"g": "g0"})
        assert decided == [True], query
    not_taken = [
        "MATCH (a {id: 'n0'})-[*1..3]-(b) WHERE b <> a RETURN a.id, b.id",  # every path a row
        "MATCH (a {id: 'n0'})-[*1..3]-(b) WHERE b <> a RETURN DISTINCT b.id, count(*)",
        "MATCH (a {id: 'n0'})-[*1..3]-(b) WHERE b <> a RETURN DISTINCT b.id, rand() < 2",
        "MATCH (a {id: 'n0'})-[*1..3]-(b) WHERE b <> a RETURN DISTINCT b.id, timestamp()",
        "MATCH (a {id: 'n0'})-[*1..3]-(b) WHERE b <> a WITH DISTINCT b, datetime() AS t RETURN b",
        "MATCH (a {id: 'n0'})-[*1..3]-(b) RETURN DISTINCT b.id",  # a path back to the start
        "MATCH (a {id: 'n0'})-[*1..3]-(b) WHERE b.x <> a.x RETURN DISTINCT b.id",  # NaN <> NaN
        "MATCH (a {id: 'n0'})-[*2..3]-(b) WHERE b <> a RETURN DISTINCT b.id",  # not shortest
        "MATCH (a {id: 'n0'})-[rs*1..3]-(b) WHERE b <> a RETURN DISTINCT b.id",
        "MATCH p = (a {id: 'n0'})-[*1..3]-(b) WHERE b <> a RETURN DISTINCT b.id",
        "MATCH (a {id: 'n0'}) OPTIONAL MATCH (a)-[*1..3]-(b) WHERE b <> a RETURN DISTINCT b.id",
        "MATCH (a {id: 'n0'})-[*1..3]-(b)-[:R]-(c) WHERE b <> a RETURN DISTINCT b.id",
    ]
    for query in not_taken:
        decided.clear()
        try:
            filled.cypher(query)
        except AnatidError:
            pass  # (a named path is refused by name)
        assert True not in decided, query
    # a view scoped to some groups walks what it sees
    from anatid_core.storage.scope import Scope

    scoped = filled.scoped(Scope.of(groups=["g0", "g2"]))
    for fast, plain in REACH_PAIRS:
        assert answers(scoped, fast) == answers(scoped, plain), fast
    # without the start ruled out, a path back to it (a self loop, two parallel relationships)
    # makes it an answer of its own
    for start in ("n1", "n2"):
        query = f"MATCH (a {{id: '{start}'}})-[*1..3]-(b) RETURN DISTINCT b.id"
        assert (start,) in filled.cypher(query).rows


def test_a_walk_reads_only_columns_where_it_reads_only_their_properties(
    filled: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    not_taken = (
        REACH[1],  # ``a <> b``: the nodes compared whole
        REACH[2],
        REACH[3],  # a map on the relationship
        REACH[4],  # ``WITH DISTINCT b``
        REACH[5],  # walked from its last node
        "MATCH (a {id: 'n0'})-[*1..3]-(b) WHERE b.id <> a.id RETURN DISTINCT b",
        "MATCH (a {id: 'n0'})-[*1..3]-(b) WHERE b.id <> a.id RETURN DISTINCT b.tag",  # a props key
        "MATCH (a {id: 'n0'})-[*1..3]-(b) WHERE b.id <> a.id RETURN DISTINCT labels(b)",
        "MATCH (a {id: 'n0'})-[*1..3]-(b) WHERE b.id <> a.id RETURN b.id",  # every path a row
        "MATCH (a {id: 'n0'})-[*1..3]-(b) WHERE b.id <> a.id RETURN DISTINCT b.id, count(*)",
        "MATCH (a {id: 'n0'})-[*1..3]-(b) RETURN DISTINCT b.id",  # the start not ruled out
        "MATCH (a {id: 'n0'})-[*1..3]-(b {name: a.name}) WHERE b.id <> a.id RETURN DISTINCT b.id",
        "MATCH (a $map)-[*1..3]-(b) WHERE b.id <> a.id RETURN DISTINCT b.id",
        TWO_HOPS[1],  # ``a <> b``
        TWO_HOPS[4],  # ``WITH DISTINCT b``
        "MATCH (a {id: 'n0'})-[:R]-(:A)-[:R]-(b) WHERE b.id <> a.id RETURN b.id",  # every path
        "MATCH (a {id: 'n0'})-[:R]-(:A)-[:R]-(b) WHERE b.id <> a.id RETURN DISTINCT b",
        "MATCH (a {id: 'n0'})-[:R]-(:A {group: 'g1'})-[:R]-(b) WHERE b.id <> a.id "
        "RETURN DISTINCT b.id",  # a map on the middle node
    )
    check_plan_runs(filled, monkeypatch, "reach_column_rows", REACH_TAKEN, not_taken)
    # a value the store refuses narrows nothing: the start's map checked on every node
    query = "MATCH (a {id: $g})-[*1..2]-(b) WHERE b.id <> a.id RETURN DISTINCT b.id"
    assert filled.cypher(query, {"g": "a\x00b"}).rows == []
    # a start read by id has its labels fitted (n1 is a B, not an A)
    query = "MATCH (a:A {id: 'n1'})-[*1..2]-(b) WHERE a.id <> b.id RETURN DISTINCT b.id"
    assert filled.cypher(query).rows == [] != filled.cypher(query.replace(":A", ":B")).rows
    # the rows of the matcher's walk, in its order
    from anatid_core.cypher import engine, run

    planned = {(q, g): filled.cypher(q, {"g": g}).rows for q in REACH_TAKEN for g in ("g0", "g1")}
    monkeypatch.setattr(engine, "reach_plan", lambda clauses, matcher, distinct: None)
    run.forget_parsed()
    try:
        for (q, g), rows in planned.items():
            assert rows == filled.cypher(q, {"g": g}).rows, q
            assert rows or g == "g1", q  # (each answers something)
    finally:
        run.forget_parsed()


def test_two_hops_are_walked_as_sets_of_nodes(
    filled: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    from anatid_core.cypher import engine, run

    # the matcher's walk (the reach column plan reads some of them by columns: tested above)
    monkeypatch.setattr(engine, "reach_plan", lambda clauses, matcher, distinct: None)
    run.forget_parsed()
    walked = spy_on_matcher(monkeypatch, "_hop_twice", lambda part, batch: len(batch))
    for query in TWO_HOPS:
        walked.clear()
        filled.cypher(query, {"g": "g0"})
        assert walked, query
    not_taken = [
        "MATCH (a {id: 'n1'})-[:R]-()-[:R]-(b) WHERE a <> b RETURN a.id, b.id",  # every path
        "MATCH (a {id: 'n1'})-[:R]-()-[:R]-(b) RETURN DISTINCT b.id",  # back to the start
        "MATCH (a {id: 'n1'})-[:R]-()-[:R]-(b) WHERE a <> b RETURN DISTINCT b.id, count(*)",
        "MATCH (a {id: 'n1'})-[r:R]-()-[:R]-(b) WHERE a <> b RETURN DISTINCT b.id",
        "MATCH (a {id: 'n1'})-[:R]-(m)-[:R]-(b) WHERE a <> b RETURN DISTINCT b.id",
        "MATCH (a {id: 'n1'})-[:R]-({group: 'g1'})-[:R]-(b) WHERE a <> b RETURN DISTINCT b.id",
        "MATCH (a {id: 'n1'})-[:R {group: 'g0'}]-()-[:R]-(b) WHERE a <> b RETURN DISTINCT b.id",
        "MATCH (a {id: 'n1'})-[:R]-()-[:R*1..2]-(b) WHERE a <> b RETURN DISTINCT b.id",
        "MATCH (a {id: 'n1'})-[:R]-()-[:R]-()-[:R]-(b) WHERE a <> b RETURN DISTINCT b.id",
        "MATCH (a)-[:R]-()-[:R]-(b {id: 'n1'}) WHERE a <> b RETURN DISTINCT a.id",  # from b
    ]
    for query in not_taken:
        walked.clear()
        filled.cypher(query)
        assert not walked, query
    # without the start ruled out, two parallel relationships lead back to it: an answer of
    # its own; one self loop does not (the second hop would repeat the first)
    query = "MATCH (a {id: $g})-[:R]-()-[:R]-(b) RETURN DISTINCT b.id"
    assert ("n2",) in filled.cypher(query, {"g": "n2"}).rows
    assert ("n1",) not in filled.cypher(query, {"g": "n1"}).rows
    run.forget_parsed()  # (no plan of this test's kept for a later one)


def test_a_distinct_walk_over_a_dense_graph_answers(tmp_path: Path) -> None:
    # every path of a complete graph is more than the engine's bounds hold; the nodes they
    # reach are a breadth-first walk's (issue 42: ``-[*]-`` over 500 nodes ran out of memory)
    from anatid_core import CypherLimitExceeded

    with Store.open(tmp_path / "k.duckdb") as store:
        store.upsert_nodes([Node(f"k{i}") for i in range(40)])
        store.upsert_edges(
            [Edge(f"e{i}-{j}", f"k{i}", f"k{j}", "R") for i in range(40) for j in range(i + 1, 40)]
        )
        query = "MATCH (a {id: 'k0'})-[*]-(b) WHERE b.id <> a.id RETURN DISTINCT b.id"
        assert sorted(r[0] for r in store.cypher(query).rows) == sorted(
            f"k{i}" for i in range(1, 40)
        )
        with pytest.raises(CypherLimitExceeded):
            store.cypher(query.replace("b.id <> a.id", "NOT b.id = a.id"))
        # two hops from every node as sets of nodes (every path: 40 x 39 x 38 rows): each
        # other node once per start
        hops = "MATCH (a)-[:R]-()-[:R]-(b) WHERE b.id <> a.id RETURN DISTINCT a.id, b.id"
        assert len(store.cypher(hops).rows) == 40 * 39


def test_a_distinct_walk_around_a_long_ring_answers(tmp_path: Path) -> None:
    # a node reached is held once, with no relationship: the bound on the steps paths hold
    # counts it once, not by its distance (5,000 nodes: 12.5M steps by distance, past 10M)
    from anatid_core import CypherLimitExceeded

    n = 5000
    with Store.open(tmp_path / "ring.duckdb") as store:
        store.upsert_nodes([Node(f"n{i}") for i in range(n)])
        store.upsert_edges([Edge(f"e{i}", f"n{i}", f"n{(i + 1) % n}", "NEXT") for i in range(n)])
        query = "MATCH (a {id: 'n0'})-[:NEXT*]->(b) WHERE b <> a RETURN DISTINCT b.id"
        assert len(store.cypher(query).rows) == n - 1
        with pytest.raises(CypherLimitExceeded):  # every path, each holding its relationships
            store.cypher(query.replace("b <> a", "NOT b = a"))


@pytest.mark.parametrize("seed", range(6))
def test_order_by_sorts_as_the_cypher_order_with_nulls_and_ties(filled: Store, seed: int) -> None:
    """ORDER BY on columns of one kind sorts by Python's comparisons, stable sorts one key at
    a time; a column of mixed kinds by Cypher's order of types. Both give the order
    ``values.order`` defines, ties in input order."""
    import functools

    from anatid_core.cypher.values import order

    rng = random.Random(seed)
    pools = [
        [None, 1, 2, 2.5, -3, 2**62 + 1, True],  # mixed: numbers (one past a float's 53 bits), a boolean
        [None, 1, 2, 2.5, -3, 2.0],
        [None, "a", "B", "b", "ä", ""],
        [None, datetime(2024, 1, 2, tzinfo=timezone.utc), datetime(2023, 5, 1, tzinfo=timezone.utc)],
        [None, "x", 3, [1, 2]],  # mixed
    ]  # fmt: skip
    a_pool, b_pool = rng.sample(pools, 2)
    rows = [{"a": rng.choice(a_pool), "b": rng.choice(b_pool), "i": i} for i in range(40)]
    for a_desc, b_desc in ((False, False), (True, False), (False, True), (True, True)):
        query = (
            "UNWIND $rows AS r RETURN r.a AS a, r.b AS b, r.i AS i "
            f"ORDER BY a {'DESC' if a_desc else ''}, b {'DESC' if b_desc else ''}"
        )
        got = [row[2] for row in filled.cypher(query, {"rows": rows}).rows]

        def cmp(x: dict, y: dict, a_desc: bool = a_desc, b_desc: bool = b_desc) -> int:
            c = order(x["a"], y["a"])
            if c:
                return -c if a_desc else c
            c = order(x["b"], y["b"])
            return -c if b_desc else c

        assert got == [r["i"] for r in sorted(rows, key=functools.cmp_to_key(cmp))], query


def test_a_condition_checked_early_keeps_the_errors_of_the_whole_where(filled: Store) -> None:
    """A conjunct pushed down that fails on a row keeps the row: the WHERE, checked whole at
    the end in its own order, fails or not as it did (here its AND stops at the false part)."""
    from anatid_core import CypherError

    quiet = "MATCH (a)-[r]->(b)-[s]->(c) WHERE c.name ENDS WITH 'z' AND b.id * 2 > 0 RETURN a.id"
    assert filled.cypher(quiet).rows == []
    loud = "MATCH (a)-[r]->(b)-[s]->(c) WHERE b.id * 2 > 0 AND c.name ENDS WITH 'z' RETURN a.id"
    with pytest.raises(CypherError):
        filled.cypher(loud)


def test_a_relationship_read_binds_the_ends_of_only_those_its_conjuncts_leave(
    filled: Store, monkeypatch: pytest.MonkeyPatch, without_column_plans: None
) -> None:
    fitted = spy_on_matcher(monkeypatch, "node_fits", lambda node, ref, row: ref.id)
    query = "MATCH (a)-[r:R]->(b) WHERE r.group = 'g0' AND r.id STARTS WITH 'par' RETURN b.id"
    assert sorted(r[0] for r in filled.cypher(query).rows) == ["n3", "n3"]
    assert set(fitted) == {"n2", "n3"}  # the ends of the two parallel ones alone
    fitted.clear()
    near = "MATCH (a)-[r:R]->(b) WHERE r.group = 'g0' AND a.id + '' = 'n2' AND b.name <> 'x' RETURN r.id"
    assert sorted(r[0] for r in filled.cypher(near).rows) == ["par", "par2"]
    assert fitted.count("n3") == 2  # far ends fitted only behind a near end that passed
    # the same conjuncts in a WITH after the MATCH: every end of the group's R relationships
    fitted.clear()
    assert sorted(r[0] for r in filled.cypher(near.replace(" WHERE ", " WITH * WHERE ")).rows) == [
        "par",
        "par2",
    ]
    assert len(fitted) > 10


def test_relationship_columns_read_the_ends_of_only_those_its_conjuncts_leave(
    filled: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    from anatid_core.cypher.graph import Graph

    read: list[list[str]] = []
    original = Graph.node_columns
    monkeypatch.setattr(
        Graph,
        "node_columns",
        lambda self, ids, columns: read.append(sorted(ids)) or original(self, ids, columns),
    )
    query = "MATCH (a)-[r:R]->(b) WHERE r.group = 'g0' AND r.id STARTS WITH 'par' RETURN b.id"
    assert sorted(r[0] for r in filled.cypher(query).rows) == ["n3", "n3"]
    assert read == [["n2"], ["n3"]]  # the ends of the two parallel ones alone, each read once
    read.clear()
    near = "MATCH (a)-[r:R]->(b) WHERE r.group = 'g0' AND a.id + '' = 'n2' AND b.name <> 'x' RETURN r.id"
    assert sorted(r[0] for r in filled.cypher(near).rows) == ["par", "par2"]
    assert len(read[0]) > 3 and read[1:] == [["n3"]]  # far ends behind a near end that passed


@pytest.mark.parametrize("direction", ["->", "-"])
def test_the_stage_that_passes_fewer_is_checked_first(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, direction: str, without_column_plans: None
) -> None:
    # a relationship conjunct passing most rows, a near node's passing few (issue 42's
    # filtered LIMIT 10): the near node's goes first once both have seen some rows, and the
    # rows are those of the plain plan (and a LIMIT's the first of them)
    from anatid_core.cypher import matching

    rng = random.Random(7)
    orders: list[bool] = []
    original = matching._Stages.near_first
    monkeypatch.setattr(
        matching._Stages, "near_first", lambda self: orders.append(original(self)) or orders[-1]
    )
    with Store.open(tmp_path / "stages.duckdb") as store:
        store.upsert_nodes(
            [Node(f"n{i:03d}", name=rng.choice("ABCDEFGH") + str(i)) for i in range(300)]
        )
        store.upsert_edges(
            [
                Edge(f"e{i:04d}", f"n{rng.randrange(300):03d}", f"n{rng.randrange(300):03d}", "R",
                     group="g", name="open" if rng.random() < 0.8 else "closed")
                for i in range(900)
            ]
        )  # fmt: skip
        query = (
            f"MATCH (n)-[r:R]{direction}(m) WHERE r.group = 'g' AND r.name STARTS WITH 'open' "
            "AND n.name STARTS WITH 'C' RETURN n.id, r.id, m.id"
        )
        plain = query.replace("r.group = 'g'", "r.group + '' = 'g'")
        fast_rows = store.cypher(query).rows
        assert True in orders and False in orders  # the first chunks in the written order
        assert sorted(fast_rows) == sorted(store.cypher(plain).rows)  # (from the nodes)
        limited = store.cypher(query + " LIMIT 10").rows
        assert limited == fast_rows[:10]


def test_a_step_grows_only_the_partial_matches_the_where_leaves(
    filled: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    grown = spy_on_matcher(monkeypatch, "_step", lambda rel, here, there, batch, back: len(batch))
    early = "MATCH (a {id: 'n2'})-->(b)-->(c) WHERE b.group = 'nowhere' RETURN c.id"
    assert filled.cypher(early).rows == []
    assert grown == [1]  # from n2 to its b, none of which may pass: no second step
    grown.clear()
    late = early.replace(" WHERE ", " WITH * WHERE ")
    assert filled.cypher(late).rows == []
    assert len(grown) == 2


def test_an_exact_narrowing_is_not_checked_again(
    filled: Store, monkeypatch: pytest.MonkeyPatch, without_column_plans: None
) -> None:
    """The equality a lone node's read was narrowed by holds on every node read, so the WHERE
    runs without it; a read that could not narrow (a value the store refuses), a relationship
    pattern and an OPTIONAL MATCH check the whole WHERE. (The matcher's: its nodes bound, not
    their columns read alone, which ``test_columns_alone_*`` checks.)"""
    held = spy_on_matcher(
        monkeypatch, "_where", lambda clause, partials, held=None: held is not None
    )
    for query in EXACT[:-1]:  # the last is counted by the store (below)
        held.clear()
        filled.cypher(query, {"g": "g0"})
        assert any(held), query
    for query in (
        "MATCH (n:A) WHERE n.group + '' = $g RETURN n.id",
        "MATCH (n:A) WHERE n.tag = $g RETURN n.id",  # a props field: JSON, compared here
        "MATCH (n:A)-[r]->(m) WHERE n.group = $g RETURN n.id",
        "OPTIONAL MATCH (n:A) WHERE n.group = $g RETURN n.id",
        "MATCH (n:A) WHERE n.group = $g OR n.id = 'n1' RETURN n.id",
        "MATCH (n:A) WHERE n.id = $g RETURN n.id",
    ):
        held.clear()
        filled.cypher(query, {"g": "a\x00b"})  # refused by the store's id check: not narrowed
        assert not any(held), query
    # not narrowed, so not held: every node of A is read and compared here (a map's key too)
    assert filled.cypher("MATCH (n:A {id: $g}) RETURN n.id", {"g": "a\x00b"}).rows == []
    assert filled.cypher("MATCH (n:A) WHERE n.id = $g RETURN n.id", {"g": "a\x00b"}).rows == []
    assert filled.cypher("MATCH (n:A) WHERE n.group = $g RETURN n.id", {"g": "g\x00"}).rows == []
    # a pattern map's key the read was narrowed by is not compared again; its other keys are
    fitted = spy_on_matcher(monkeypatch, "_props_fit", lambda props, ref, row: ref.id)
    some = filled.cypher("MATCH (n:A {group: 'g0'}) RETURN n.id ORDER BY n.id").rows
    assert some and not fitted
    query = "MATCH (n:A {group: 'g0', name: $g}) RETURN n.id"
    assert filled.cypher(query, {"g": some[0][0]}).rows == [some[0]]  # ids are names here
    assert fitted == [some[0][0]]  # read by its name (the better narrowing), its group compared
    # the rest of the WHERE keeps its errors and its order
    from anatid_core import CypherError

    with pytest.raises(CypherError):
        filled.cypher("MATCH (n:A) WHERE n.id * 2 > 0 AND n.group = 'g0' RETURN n.id")
    with pytest.raises(CypherError):
        filled.cypher("MATCH (n:A) WHERE n.group = 'g0' AND n.id * 2 > 0 RETURN n.id")
    quiet = "MATCH (n:A) WHERE n.group = 'g0' AND n.name = 'x' AND n.id * 2 > 0 RETURN n.id"
    assert filled.cypher(quiet).rows == []


def test_counts_by_label_of_a_wholly_narrowed_read_come_from_the_store(
    filled: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Nodes counted by their labels, with a WHERE the read's exact narrowing holds whole (or
    none), are counted by the store (``count_label_sets``): no node bound."""
    from anatid_core.cypher import matching

    counted: list[object] = []
    original = matching.Matcher.label_set_counts
    monkeypatch.setattr(
        matching.Matcher,
        "label_set_counts",
        lambda self, clause: counted.append(c := original(self, clause)) or c,
    )
    bound = spy_on_matcher(monkeypatch, "_bind_each", lambda node, partials, refs, *_: len(refs))
    by_store = [
        "MATCH (n:A) WHERE n.group = $g RETURN labels(n) AS l, count(*) AS c",
        "MATCH (n) UNWIND labels(n) AS l RETURN l, count(n) AS c",
        "MATCH (n:A:B) WHERE n.id IN ['n1', 'n2', $g, 'n9'] RETURN count(*) AS c",
        "MATCH (n:B) WHERE n.group = 'nowhere' RETURN count(*) AS c",
    ]
    for query in by_store:
        counted.clear(), bound.clear()
        fast = answers(filled, query)
        assert counted and counted[-1] is not None and not bound, query
        plain = query.replace("count(*)", "count(n.id)").replace("count(n)", "count(n.id)")
        assert fast == answers(filled, plain), query
    for query in (  # a WHERE left to check, a pattern map, a refused value: nodes bound
        "MATCH (n:A) WHERE n.group = $g AND n.name <> 'n3' RETURN count(*) AS c",
        "MATCH (n {group: $g}) RETURN labels(n) AS l, count(*) AS c",
        "MATCH (n:A) WHERE n.id = 'a\x00' RETURN count(*) AS c",
    ):
        counted.clear()
        filled.cypher(query, {"g": "g0"})
        assert counted == [None], query


@pytest.mark.parametrize("in_memory", [True, False])
def test_count_label_sets_counts_what_find_nodes_gives(filled: Store, in_memory: bool) -> None:
    before = datetime.now(timezone.utc)
    time.sleep(0.01)
    filled.upsert_nodes([Node("n0", group="g0", labels=("B", "C"), name="n0")])
    filled.delete_nodes(["n3"])
    now = filled if in_memory else filled.as_of(datetime.now(timezone.utc))
    for reader in (now, filled.as_of(before)):
        for filters in (
            {},
            {"groups": ["g0"]},
            {"labels": ["A"]},
            {"labels": ["B"], "groups": ["g1", "g2"]},
            {"ids": ["n0", "n1", "n3", "n4", "zz"]},
            {"names": ["n5", "n6"], "where": [[Cond("group", "=", "g2")]]},
            {"groups": ["nowhere"]},
        ):
            nodes = reader.find_nodes(limit=None, **filters)
            want: dict[tuple[str, ...], int] = {}
            for node in nodes:  # find_nodes gives them by id: the sets in first-id order
                want[node.labels] = want.get(node.labels, 0) + 1
            got = reader.count_label_sets(**filters)
            assert list(got.items()) == list(want.items()), filters
    assert filled.count_label_sets(groups=["g0"])[("B", "C")] == 1
    if in_memory:  # the current state was counted from the in-memory records
        assert filled.indexes.current.loaded("node") is not None
    with pytest.raises(InvalidInput):
        filled.count_label_sets(groups="g0")
