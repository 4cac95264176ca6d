"""anatid_core against plain DuckDB probes on identical data, in one run.

The peer is the fastest plain-DuckDB way to do each job without anything anatid does on top
(no versioning, no postings maintenance, no validation): an Arrow insert, a postings-table BM25
query, an ``array_cosine_similarity`` scan, and a 2-hop SQL probe over an indexed edge table.

    python tests/benchmarks/bench_core.py                 # the issue's sizes (several minutes)
    python tests/benchmarks/bench_core.py --scale 0.1     # a quick look

Fixed seeds, one warm-up per operation, p50/p95 over 50 calls.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import tempfile
import time

import duckdb
import numpy as np
import pyarrow as pa

sys.path.insert(0, os.path.dirname(__file__))
from _measure import peak_rss_mb, provenance, rate, row, timed  # noqa: E402

from anatid_core import Edge, Node, Store  # noqa: E402

WORDS = [f"w{i}" for i in range(20000)]


def zipf_text(rng: random.Random, n: int) -> str:
    # Word ranks follow a Zipf-like law, as in natural text.
    return " ".join(WORDS[min(int(rng.paretovariate(1.1)) - 1, len(WORDS) - 1)] for _ in range(n))


def bench_ingest_and_search(n: int, dim: int, tmp: str) -> list[str]:
    rng = random.Random(7)
    nrng = np.random.default_rng(7)
    emb = nrng.standard_normal((n, dim)).astype(np.float32)
    texts = [zipf_text(rng, 12) for _ in range(n)]
    nodes = [
        Node(
            f"n{i}",
            group=f"g{i % 4}",
            labels=("Entity",),
            name=f"entity {i}",
            text=texts[i],
            embedding=emb[i],
        )
        for i in range(n)
    ]
    edges = [
        Edge(
            f"e{i}",
            f"n{i}",
            f"n{(i * 7 + 1) % n}",
            "RELATES_TO",
            group=f"g{i % 4}",
            text=texts[(i * 3) % n],
            embedding=emb[(i * 5) % n],
        )
        for i in range(n)
    ]
    out = []
    store = Store.open(os.path.join(tmp, "anatid.duckdb"))
    store.upsert_nodes(nodes[:100])  # warm-up: first-call imports and the vector space
    chunk = 10_000
    ours_nodes = rate(
        n - 100, lambda: [store.upsert_nodes(nodes[i : i + chunk]) for i in range(100, n, chunk)]
    )
    ours_edges = rate(
        n, lambda: [store.upsert_edges(edges[i : i + chunk]) for i in range(0, n, chunk)]
    )

    peer = duckdb.connect(os.path.join(tmp, "peer.duckdb"))
    peer.execute(
        f"CREATE TABLE nodes (id VARCHAR, grp VARCHAR, name VARCHAR, text VARCHAR, embedding FLOAT[{dim}])"
    ).fetchall()
    flat = pa.FixedSizeListArray.from_arrays(pa.array(emb.reshape(-1)), dim)

    def peer_insert() -> None:
        for i in range(0, n, chunk):
            tbl = pa.table(
                {
                    "id": [x.id for x in nodes[i : i + chunk]],
                    "grp": [x.group for x in nodes[i : i + chunk]],
                    "name": [x.name for x in nodes[i : i + chunk]],
                    "text": texts[i : i + chunk],
                    "embedding": flat.slice(i, min(chunk, n - i)),
                }
            )
            peer.register("t", tbl)
            peer.execute("INSERT INTO nodes SELECT * FROM t").fetchall()
            peer.unregister("t")

    peer_rate = rate(n, peer_insert)
    out.append(row(f"bulk upsert nodes ({n:,} x {dim}-dim)", ours_nodes, peer_rate, "rows/s", True))
    out.append(row(f"bulk upsert edges ({n:,} x {dim}-dim)", ours_edges, peer_rate, "rows/s", True))

    ids = [f"n{rng.randrange(n)}" for _ in range(200)]
    it = iter(ids * 10)
    ours = timed(lambda: store.get_node(next(it)))
    peer.execute("CREATE INDEX nid ON nodes(id)").fetchall()
    it2 = iter(ids * 10)
    theirs = timed(
        lambda: peer.execute(
            "SELECT * EXCLUDE (embedding) FROM nodes WHERE id = ?", [next(it2)]
        ).fetchall()
    )
    out.append(row("get by id p50", ours["p50"], theirs["p50"], "ms", False))

    # BM25: the peer is a naive postings-table query with precomputed document frequencies.
    queries = [" ".join(zipf_text(rng, 3).split()) for _ in range(100)]
    qi = iter(queries * 10)
    ours = timed(lambda: store.search_text(next(qi), k=10))
    peer.execute(
        "CREATE TABLE post AS SELECT id, unnest(string_split(lower(name || ' ' || text), ' ')) AS term FROM nodes"
    ).fetchall()
    peer.execute(
        "CREATE TABLE tf AS SELECT id, term, count(*) AS tf FROM post GROUP BY ALL"
    ).fetchall()
    peer.execute("CREATE TABLE dl AS SELECT id, count(*) AS dl FROM post GROUP BY id").fetchall()
    peer.execute("CREATE TABLE df AS SELECT term, count(*) AS df FROM tf GROUP BY term").fetchall()
    avgdl = peer.execute("SELECT avg(dl) FROM dl").fetchall()[0][0]
    qi2 = iter(queries * 10)
    bm25_sql = f"""SELECT tf.id, sum(ln(1 + ({n} - df.df + 0.5)/(df.df + 0.5)) * tf.tf * 2.2 / (tf.tf + 1.2 * (0.25 + 0.75 * dl.dl / {avgdl}))) s
        FROM tf JOIN df USING (term) JOIN dl USING (id) WHERE tf.term IN (SELECT unnest(?::VARCHAR[])) GROUP BY tf.id ORDER BY s DESC LIMIT 10"""
    theirs = timed(lambda: peer.execute(bm25_sql, [next(qi2).split()]).fetchall())
    out.append(row(f"BM25 top-10 over {n:,} docs p50", ours["p50"], theirs["p50"], "ms", False))

    q = nrng.standard_normal(dim).astype(np.float32)
    ours = timed(lambda: store.search_vector(q, k=10))
    ours_g = timed(lambda: store.search_vector(q, k=10, groups=["g1"]))
    theirs = timed(
        lambda: peer.execute(
            f"SELECT id, array_cosine_similarity(embedding, ?::FLOAT[{dim}]) s FROM nodes ORDER BY s DESC LIMIT 10",
            [q.tolist()],
        ).fetchall(),
        repeat=10,
    )
    out.append(
        row(f"cosine top-10 over {n:,} x {dim} p50", ours["p50"], theirs["p50"], "ms", False)
    )
    out.append(
        row("cosine top-10, one group filter p50", ours_g["p50"], theirs["p50"], "ms", False)
    )
    store.close()
    out.append(
        f"| file size | {os.path.getsize(os.path.join(tmp, 'anatid.duckdb')) / 1e6:,.0f} MB | {os.path.getsize(os.path.join(tmp, 'peer.duckdb')) / 1e6:,.0f} MB | |"
    )
    peer.close()
    return out


def bench_expand(n: int, m: int, tmp: str) -> list[str]:
    rng = random.Random(11)
    store = Store.open(os.path.join(tmp, "graph.duckdb"))
    chunk = 100_000
    t = time.perf_counter()
    for i in range(0, n, chunk):
        store.upsert_nodes([Node(f"n{j}") for j in range(i, min(n, i + chunk))])
    for i in range(0, m, chunk):
        store.upsert_edges(
            [
                Edge(f"e{j}", f"n{(j * 2654435761) % n}", f"n{(j * 40503 + 17) % n}", "R")
                for j in range(i, min(m, i + chunk))
            ]
        )
    load = time.perf_counter() - t
    seeds = [f"n{rng.randrange(n)}" for _ in range(200)]
    it = iter(seeds * 10)
    ours = timed(lambda: store.expand([next(it)], depth=2, direction="out"))
    store.close()
    peer = duckdb.connect(os.path.join(tmp, "graph.duckdb"), read_only=True)
    it2 = iter(seeds * 10)
    probe = """WITH h1 AS (SELECT dst FROM edges WHERE src = ?), h2 AS (SELECT e.dst FROM edges e WHERE e.src IN (SELECT dst FROM h1))
               SELECT * FROM h1 UNION ALL SELECT * FROM h2"""
    theirs = timed(lambda: peer.execute(probe, [next(it2)]).fetchall())
    peer.close()
    return [
        f"| load {n:,} nodes + {m:,} edges | {(n + m) / load:,.0f} rows/s | | |",
        row(
            f"2-hop expansion p50 ({n:,} nodes / {m:,} edges)",
            ours["p50"],
            theirs["p50"],
            "ms",
            False,
        ),
    ]


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--scale", type=float, default=1.0, help="fraction of the issue's sizes")
    ap.add_argument("--dim", type=int, default=1024)
    ap.add_argument("--skip-graph", action="store_true")
    args = ap.parse_args()
    n = int(100_000 * args.scale)
    print("provenance:", provenance())
    print("| operation | anatid | plain DuckDB probe | anatid vs probe |")
    print("|---|---|---|---|")
    with tempfile.TemporaryDirectory() as tmp:
        for line in bench_ingest_and_search(n, args.dim, tmp):
            print(line, flush=True)
        if not args.skip_graph:
            for line in bench_expand(int(1_000_000 * args.scale), int(2_300_000 * args.scale), tmp):
                print(line, flush=True)
    print(f"peak RSS: {peak_rss_mb():,.0f} MB")


if __name__ == "__main__":
    main()
