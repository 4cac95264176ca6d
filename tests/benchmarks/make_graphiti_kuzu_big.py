"""Write a large Graphiti-on-Kuzu file in KuzuDriver's exact schema, fast (bulk COPY, no LLM).

Run by an interpreter with graphiti-core 0.31.2 and kuzu 0.11.3:

    python make_graphiti_kuzu_big.py OUT.kz [--entities N] [--facts N] [--episodes N] [--dim D]

The schema is Graphiti's own (``graphiti_core.driver.kuzu_driver.SCHEMA_QUERIES``); rows are
random but well-formed (seeded), including the RelatesToNode_ fact pairs and JSON attributes.
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time
from datetime import datetime, timedelta

import kuzu
import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
from graphiti_core.driver.kuzu_driver import SCHEMA_QUERIES

T0 = datetime(2025, 1, 1, 12, 0)


def vectors(rng: np.random.Generator, n: int, dim: int) -> pa.Array:
    mat = rng.standard_normal((n, dim), dtype=np.float32)
    mat /= np.linalg.norm(mat, axis=1, keepdims=True)
    return pa.ListArray.from_arrays(
        pa.array(np.arange(0, n * dim + 1, dim, dtype=np.int32)), pa.array(mat.ravel())
    )


def times(n: int, step_s: int) -> pa.Array:
    return pa.array([T0 + timedelta(seconds=i * step_s) for i in range(n)], pa.timestamp("us"))


def uuids(prefix: str, n: int) -> list[str]:
    return [f"{prefix}{i:08x}-0000-4000-8000-000000000000" for i in range(n)]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--entities", type=int, default=100_000)
    ap.add_argument("--facts", type=int, default=100_000)
    ap.add_argument("--episodes", type=int, default=10_000)
    ap.add_argument("--dim", type=int, default=1024)
    a = ap.parse_args()
    rng = np.random.default_rng(42)
    started = time.monotonic()
    tmp = tempfile.mkdtemp(prefix="bench-kuzu-")
    conn = kuzu.Connection(kuzu.Database(a.out))
    for q in SCHEMA_QUERIES.split(";"):
        if q.strip():
            conn.execute(q)
    groups = [f"g{i % 4}" for i in range(max(a.entities, a.facts, a.episodes))]

    def copy(table: str, data: pa.Table, options: str = "") -> None:
        path = os.path.join(tmp, f"{table}.parquet")
        pq.write_table(data, path)
        conn.execute(f"COPY {table} FROM '{path}'{options}")
        os.remove(path)

    ents, eps, facts = uuids("e", a.entities), uuids("a", a.episodes), uuids("f", a.facts)
    copy("Episodic", pa.table({
        "uuid": eps,
        "name": [f"episode {i}" for i in range(a.episodes)],
        "group_id": groups[: a.episodes],
        "created_at": times(a.episodes, 60),
        "source": ["message"] * a.episodes,
        "source_description": ["chat"] * a.episodes,
        "content": [f"User {i} talked about entity {i % a.entities} and more" for i in range(a.episodes)],
        "valid_at": times(a.episodes, 60),
        "entity_edges": [[facts[i % a.facts]] for i in range(a.episodes)],
    }))  # fmt: skip
    copy("Entity", pa.table({
        "uuid": ents,
        "name": [f"Entity {i}" for i in range(a.entities)],
        "group_id": groups[: a.entities],
        "labels": [["Entity", "Person"] if i % 3 == 0 else ["Entity"] for i in range(a.entities)],
        "created_at": times(a.entities, 1),
        "name_embedding": vectors(rng, a.entities, a.dim),
        "summary": [f"Entity {i} is someone who knows {i + 1} people" for i in range(a.entities)],
        "attributes": [json.dumps({"rank": i, "tags": ["x"]}) if i % 5 == 0 else "{}" for i in range(a.entities)],
    }))  # fmt: skip
    src = rng.integers(0, a.entities, a.facts)
    dst = rng.integers(0, a.entities, a.facts)
    copy("RelatesToNode_", pa.table({
        "uuid": facts,
        "group_id": [groups[int(s)] for s in src],
        "created_at": times(a.facts, 1),
        "name": ["KNOWS"] * a.facts,
        "fact": [f"Entity {s} knows entity {d}" for s, d in zip(src, dst, strict=True)],
        "fact_embedding": vectors(rng, a.facts, a.dim),
        "episodes": [[eps[i % a.episodes]] for i in range(a.facts)],
        "expired_at": pa.nulls(a.facts, pa.timestamp("us")),
        "valid_at": times(a.facts, 1),
        "invalid_at": pa.nulls(a.facts, pa.timestamp("us")),
        "reference_time": times(a.facts, 1),
        "attributes": ["{}"] * a.facts,
    }))  # fmt: skip
    copy("RELATES_TO", pa.table({"from": [ents[int(s)] for s in src], "to": facts}),
         " (from='Entity', to='RelatesToNode_')")  # fmt: skip
    copy("RELATES_TO", pa.table({"from": facts, "to": [ents[int(d)] for d in dst]}),
         " (from='RelatesToNode_', to='Entity')")  # fmt: skip
    n_m = 3 * a.episodes
    copy("MENTIONS", pa.table({
        "from": [eps[i // 3] for i in range(n_m)],
        "to": [ents[int(x)] for x in rng.integers(0, a.entities, n_m)],
        "uuid": uuids("m", n_m),
        "group_id": [groups[i // 3] for i in range(n_m)],
        "created_at": times(n_m, 20),
    }))  # fmt: skip
    rows = conn.execute("MATCH (n) RETURN count(*)").get_next()
    print(f"wrote {a.out}: {rows[0]} nodes in {time.monotonic() - started:.1f} s")


if __name__ == "__main__":
    main()
