"""A store with records to erase (each carrying unique tokens) beside records that must stay, a
byte scan of the store's files, and a dump of everything that is not erased (issue 15).

Shared by tests/core/test_erasure.py, tests/reliability/test_erasure_crash.py and the erasure
benchmark. Tokens are lower-case words so that they are full-text terms (postings) as well.
"""

from __future__ import annotations

import os
import random
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import duckdb
import numpy as np

from anatid_core import Edge, Node, Store

T0 = datetime(2024, 1, 1, tzinfo=timezone.utc)
WORDS = "river stone cloud house tree light north field glass paper storm".split()
REPEATS = 3000  # erased records sharing one property value (dictionary-compressed once)


def token(victim: int, where: str) -> str:
    return f"zqx{where}tok{victim}q"


def victim_vector(victim: int, dim: int = 16) -> np.ndarray:
    """A distinctive embedding: its float32 bytes occur nowhere else."""
    return np.asarray([0.1234567 * (i + 1) ** 1.5 + victim for i in range(dim)], dtype=np.float32)


def _words(rng: random.Random, n: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(n))


def victim_nodes(victim: int, rng: random.Random) -> list[Node]:
    """The first version of victim ``victim``'s node; see :func:`victim_update` for the second."""
    long_text = f"{_words(rng, 1500)} {token(victim, 'long')} {_words(rng, 1500)}"
    return [
        Node(
            f"victim{victim}",
            group="people",
            labels=("Person",),
            name=f"Person {token(victim, 'name')}",
            text=long_text,
            props={"address": {"street": {"line": token(victim, "nested")}}},
            embedding=victim_vector(victim).tolist(),
            valid_from=T0,
        )
    ]


def victim_update(victim: int) -> Node:
    return Node(
        f"victim{victim}",
        group="people",
        labels=("Person",),
        name=f"Person {token(victim, 'name')} {token(victim, 'second')}",
        text="moved house",
        props={"address": {"street": {"line": token(victim, "nested")}}},
        embedding=(victim_vector(victim) * 2).tolist(),
        valid_from=T0 + timedelta(days=30),
    )


def repeated_nodes(victim: int) -> list[Node]:
    """Records of victim ``victim`` that share one value (erased together with it)."""
    return [
        Node(f"victim{victim}-visit{i}", group="people", props={"by": token(victim, "repeat")})
        for i in range(REPEATS)
    ]


def bystanders(rng: random.Random, n: int) -> tuple[list[Node], list[Edge]]:
    nodes = [
        Node(
            f"keep{i}",
            group="people" if i % 2 else "places",
            labels=("Thing",),
            name=f"keeper {i} {_words(rng, 3)}",
            text=_words(rng, 40),
            props={"n": i, "tags": [rng.choice(WORDS)]},
            embedding=[rng.random() for _ in range(16)],
            valid_from=T0,
        )
        for i in range(n)
    ]
    edges = [
        Edge(f"e{i}", f"keep{i}", f"keep{(i + 1) % n}", "NEXT", name=f"next {i}") for i in range(n)
    ]
    return nodes, edges


def build(path: str | os.PathLike[str], *, victims: int = 2, keep: int = 200) -> list[datetime]:
    """Victims (two versions each, an edge to a bystander, repeated records) and bystanders
    (with a second version of some); returns instants between the writes, for as_of reads."""
    rng = random.Random(15)
    instants: list[datetime] = []
    with Store.open(path) as s:
        uncompressed(s)
        nodes, edges = bystanders(rng, keep)
        s.upsert_nodes(nodes)
        s.upsert_edges(edges)
        instants.append(datetime.now(timezone.utc))
        for v in range(victims):
            s.upsert_nodes(victim_nodes(v, rng) + repeated_nodes(v))
            s.upsert_edge(
                Edge(f"victim{v}-knows", f"victim{v}", "keep0", "KNOWS", text=token(v, "edge"))
            )
        instants.append(datetime.now(timezone.utc))
        s.upsert_nodes([victim_update(v) for v in range(victims)])
        s.upsert_nodes([Node(n.id, group=n.group, name=n.name + " v2") for n in nodes[:20]])
        instants.append(datetime.now(timezone.utc))
    return instants


def victim_ids(victim: int) -> list[str]:
    return [f"victim{victim}"] + [f"victim{victim}-visit{i}" for i in range(REPEATS)]


def tokens(victim: int) -> dict[str, bytes]:
    """What a byte scan looks for: every token, and the embeddings' float32 bytes."""
    found = {w: token(victim, w).encode() for w in ("name", "second", "long", "nested", "repeat")}
    found["edge"] = token(victim, "edge").encode()
    found["vector"] = victim_vector(victim).tobytes()
    found["vector2"] = (victim_vector(victim) * 2).tobytes()
    return found


def store_files(path: str | os.PathLike[str]) -> list[Path]:
    """Every file the store has beside it: the database, its WAL, a compaction copy, locks,
    and every file in the folders named after it (its persistent vector indexes)."""
    p = Path(path)
    beside = [f for f in p.parent.iterdir() if f.name.startswith(p.name)]
    inside = [g for f in beside if f.is_dir() for g in f.rglob("*") if g.is_file()]
    return sorted([f for f in beside if f.is_file()] + inside)


def scan(path: str | os.PathLike[str], needles: dict[str, bytes]) -> dict[str, int]:
    """How often each needle occurs in the raw bytes of the store's files."""
    data = b"".join(f.read_bytes() for f in store_files(path))
    return {name: data.count(needle) for name, needle in needles.items()}


def uncompressed(store: Store) -> None:
    """Store floats uncompressed (DuckDB's ALP would hide a vector's bytes from the scan, before
    erasure too). Strings stay compressed as usual. Test-only: reaches into the connection."""
    store.connection._con.execute("SET force_compression = 'uncompressed'").fetchall()


def dump(path: str | os.PathLike[str], erased: set[str]) -> dict[str, list[Any]]:
    """Every row of every table that does not belong to an erased record, read straight from
    the file with DuckDB (the store is closed)."""
    con = duckdb.connect()
    try:
        con.execute(f"ATTACH '{path}' AS s (READ_ONLY)")
        out: dict[str, list[Any]] = {}
        gone = sorted(erased)
        for table in ("nodes", "edges"):
            out[table] = con.execute(
                f"SELECT * FROM s.{table} WHERE id NOT IN (SELECT unnest(?::VARCHAR[])) ORDER BY vid",
                [gone],
            ).fetchall()
        not_gone = "id NOT IN (SELECT unnest(?::VARCHAR[]))"
        keep = f"SELECT vid FROM s.nodes WHERE {not_gone} UNION ALL SELECT vid FROM s.edges WHERE {not_gone}"
        out["postings"] = con.execute(
            f"SELECT * FROM s.postings WHERE vid IN ({keep}) ORDER BY vid, term", [gone, gone]
        ).fetchall()
        out["spaces"] = con.execute("SELECT * FROM s.spaces ORDER BY tbl").fetchall()
        for (tbl,) in con.execute("SELECT tbl FROM s.spaces ORDER BY tbl").fetchall():
            out[tbl] = con.execute(
                f"SELECT * FROM s.{tbl} WHERE vid IN ({keep}) ORDER BY vid", [gone, gone]
            ).fetchall()
        return out
    finally:
        con.close()


def erased_ids(victim: int) -> set[str]:
    return set(victim_ids(victim)) | {f"victim{victim}-knows"}
