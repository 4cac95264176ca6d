"""A million facts on a laptop (issue 34): what a fresh process pays, and what a warm one answers.

Builds (once, cached under ``--cache``) a store of N synthetic facts: edges between entities with
a sentence each (Zipf words, as in bench_core) and a clustered, unit-length embedding (a mixture
of Gaussians, as sentence embeddings cluster by topic), in 4 groups. Then, each in a fresh
process, as an MCP server, a CLI command or an API worker meets the file:

* ``first``: open the file and run the first cosine / BM25 / hybrid (``recall``) search: wall
  time from before ``Store.open`` to the answer, and the process's RSS, PSS and USS after it
  (``/proc/self/smaps_rollup``: PSS splits shared pages among the processes mapping them);
* ``warm``: p50/p95 over ``--queries`` queries of cosine top-10, BM25 top-10, hybrid top-10,
  cosine with a group filter, and ``as_of`` cosine / hybrid (an instant before the last tenth
  of the facts was written), and recall@10 of cosine against numpy's exact top-10 over the
  visible set;
* ``four``: four processes searching the same file at once: the sum of their PSS against one
  process's.

Peers, in the same run on the same vectors: numpy exact (the floor for an exact scan), usearch
and hnswlib bare (the floor for an index: build, open, p50/p95, recall), LanceDB with and without
its ANN index (IVF_PQ; its brute-force scan otherwise). FalkorDB Lite's vector index through
Graphiti is not run here yet (bench_graphiti measures it at 1k-10k).

    python tests/benchmarks/bench_scale.py --n 100000 --dim 1024        # the issue's first size
    python tests/benchmarks/bench_scale.py --n 1000000 --dim 1024       # 4 GB of float32
    python tests/benchmarks/bench_scale.py --n 20000 --dim 256 --queries 50   # a quick look
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timezone
from typing import Any

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
from _measure import provenance  # noqa: E402

WORDS = [f"w{i}" for i in range(20000)]
CHUNK = 20_000


def zipf_text(rng: random.Random, n: int) -> str:
    return " ".join(WORDS[min(int(rng.paretovariate(1.1)) - 1, len(WORDS) - 1)] for _ in range(n))


def vectors(n: int, dim: int, seed: int = 7, clusters: int = 500) -> np.ndarray:
    rng = np.random.default_rng(seed)
    centres = rng.standard_normal((clusters, dim)).astype(np.float32)
    out = np.empty((n, dim), dtype=np.float32)
    for start in range(0, n, CHUNK):
        m = min(CHUNK, n - start)
        out[start : start + m] = centres[rng.integers(0, clusters, m)]
        out[start : start + m] += 0.35 * rng.standard_normal((m, dim)).astype(np.float32)
    out /= np.linalg.norm(out, axis=1, keepdims=True)
    return out


def query_vectors(data: np.ndarray, q: int, seed: int = 11) -> np.ndarray:
    rng = np.random.default_rng(seed)
    picks = data[rng.integers(0, len(data), q)].copy()
    picks += 0.2 * rng.standard_normal(picks.shape).astype(np.float32) / np.sqrt(data.shape[1] / 64)
    return picks / np.linalg.norm(picks, axis=1, keepdims=True)


def build_store(path: str, n: int, dim: int) -> dict[str, Any]:
    """N facts (edges) over N/2 entities; returns the build's figures and the as_of instant."""
    from anatid_core import Edge, Node, Store

    rng = random.Random(7)
    data = vectors(n, dim)
    entities = max(2, n // 2)
    t = time.perf_counter()
    cut = None
    with Store.open(path, bulk_load=True) as s:
        for start in range(0, entities, CHUNK):
            s.upsert_nodes(
                [
                    Node(f"n{i}", group=f"g{i % 4}", labels=("Entity",), name=f"entity {i}")
                    for i in range(start, min(entities, start + CHUNK))
                ]
            )
        for start in range(0, n, CHUNK):
            if cut is None and start >= n * 9 // 10:
                cut = datetime.now(timezone.utc)
            stop = min(n, start + CHUNK)
            s.upsert_edges(
                [
                    Edge(
                        f"e{i}",
                        f"n{i % entities}",
                        f"n{(i * 7 + 1) % entities}",
                        "RELATES_TO",
                        group=f"g{i % 4}",
                        text=zipf_text(rng, 12),
                        embedding=data[i],
                        space="fact",
                    )
                    for i in range(start, stop)
                ]
            )
    took = time.perf_counter() - t
    cut = cut or datetime.now(timezone.utc)
    return {"build_s": took, "facts_per_s": n / took, "as_of": cut.isoformat()}


# ------------------------------------------------------------------- the fresh-process probe

_PROBE = r"""
import json, os, sys, time
from datetime import datetime
import numpy as np
t0 = time.perf_counter()
from anatid_core import Store
mode, path, qpath, texts_path, as_of = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5]
k = 10
qs = np.load(qpath)
texts = json.load(open(texts_path))

def memory():
    out = {}
    for line in open("/proc/self/smaps_rollup"):
        parts = line.split()
        if parts[0] in ("Rss:", "Pss:", "Private_Clean:", "Private_Dirty:"):
            out[parts[0][:-1]] = int(parts[1]) / 1024
    out["Uss"] = out.pop("Private_Clean", 0) + out.pop("Private_Dirty", 0)
    for line in open("/proc/self/status"):
        if line.startswith("VmHWM"):
            out["Peak"] = int(line.split()[1]) / 1024
    return out

def cosine(s, q):
    return s.search_vector(q, kind="edge", space="fact", k=k)
def bm25(s, text):
    return s.search_text(text, kind="edge", k=k)
def hybrid(s, q, text):
    return s.recall(text=text, vector=q, kind="edge", space="fact", k=k)

out = {}
s = Store.open(path, read_only=True)
if mode in ("cosine", "bm25", "hybrid"):
    t = time.perf_counter()
    if mode == "cosine":
        cosine(s, qs[0])
    elif mode == "bm25":
        bm25(s, texts[0])
    else:
        hybrid(s, qs[0], texts[0])
    out["first_ms"] = (time.perf_counter() - t0) * 1000
    out["first_call_ms"] = (time.perf_counter() - t) * 1000
    out.update(memory())
elif mode == "warm":
    cosine(s, qs[0]); bm25(s, texts[0]); hybrid(s, qs[0], texts[0])
    view = s.as_of(datetime.fromisoformat(as_of))
    cosine(view, qs[0]); hybrid(view, qs[0], texts[0])
    def timed(fn):
        samples = []
        for i in range(len(qs)):
            t = time.perf_counter(); fn(i); samples.append((time.perf_counter() - t) * 1000)
        samples.sort()
        return {"p50": samples[len(samples) // 2], "p95": samples[int(len(samples) * 0.95)]}
    found = []
    out["cosine"] = timed(lambda i: found.append([h.id for h in cosine(s, qs[i])]))
    out["found"] = found
    out["bm25"] = timed(lambda i: bm25(s, texts[i]))
    out["hybrid"] = timed(lambda i: hybrid(s, qs[i], texts[i]))
    out["cosine_group"] = timed(
        lambda i: s.search_vector(qs[i], kind="edge", space="fact", k=k, groups=["g1"]))
    out["asof_cosine"] = timed(lambda i: cosine(view, qs[i]))
    out["asof_hybrid"] = timed(lambda i: hybrid(view, qs[i], texts[i]))
    out.update(memory())
elif mode == "hold":
    cosine(s, qs[0]); hybrid(s, qs[0], texts[0])
    print(json.dumps(memory()), flush=True)
    sys.stdin.readline()
s.close()
print(json.dumps(out))
"""


def probe(mode: str, path: str, qpath: str, tpath: str, as_of: str) -> dict[str, Any]:
    r = subprocess.run(
        [sys.executable, "-c", _PROBE, mode, path, qpath, tpath, as_of],
        capture_output=True,
        text=True,
    )
    if r.returncode != 0:
        raise RuntimeError(r.stderr[-2000:])
    return json.loads(r.stdout.strip().splitlines()[-1])


def four_processes(path: str, qpath: str, tpath: str, as_of: str) -> list[dict[str, float]]:
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", _PROBE, "hold", path, qpath, tpath, as_of],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        for _ in range(4)
    ]
    mems = []
    for p in procs:
        assert p.stdout is not None
        mems.append(json.loads(p.stdout.readline()))
    for p in procs:
        p.communicate("\n", timeout=600)
    return mems


# ------------------------------------------------------------------------------- the peers


def exact_top(data: np.ndarray, qs: np.ndarray, k: int) -> tuple[np.ndarray, float]:
    out = np.empty((len(qs), k), dtype=np.int64)
    samples = []
    for i, q in enumerate(qs):
        t = time.perf_counter()
        sims = data @ q
        top = np.argpartition(-sims, k)[:k]
        out[i] = top[np.argsort(-sims[top])]
        samples.append((time.perf_counter() - t) * 1000)
    samples.sort()
    return out, samples[len(samples) // 2]


def peer_usearch(data: np.ndarray, qs: np.ndarray, k: int, tmp: str) -> dict[str, Any]:
    from usearch.index import Index

    t = time.perf_counter()
    index = Index(ndim=data.shape[1], metric="cos", dtype="f16", connectivity=16,
                  expansion_add=128, expansion_search=64)  # fmt: skip
    index.add(np.arange(len(data), dtype=np.uint64), data)
    build = time.perf_counter() - t
    path = os.path.join(tmp, "peer.usearch")
    index.save(path)
    del index
    t = time.perf_counter()
    view = Index.restore(path, view=True)
    opened = (time.perf_counter() - t) * 1000
    found, samples = [], []
    for q in qs:
        t = time.perf_counter()
        found.append(np.asarray(view.search(q, k).keys, dtype=np.int64))
        samples.append((time.perf_counter() - t) * 1000)
    samples.sort()
    return {"build_s": build, "open_ms": opened, "p50": samples[len(samples) // 2],
            "p95": samples[int(len(samples) * 0.95)], "found": found}  # fmt: skip


def peer_lancedb(
    data: np.ndarray, qs: np.ndarray, k: int, tmp: str, *, ann: bool
) -> dict[str, Any]:
    import lancedb
    import pyarrow as pa

    db = lancedb.connect(os.path.join(tmp, "lance"))
    name = "ann" if ann else "flat"
    table = db.create_table(
        name,
        pa.table(
            {
                "id": np.arange(len(data)),
                "vector": pa.FixedSizeListArray.from_arrays(
                    pa.array(data.reshape(-1)), data.shape[1]
                ),
            }
        ),  # fmt: skip
    )
    build = 0.0
    if ann:
        t = time.perf_counter()
        table.create_index(metric="cosine", num_partitions=max(1, int(np.sqrt(len(data)))),
                           num_sub_vectors=data.shape[1] // 16)  # fmt: skip
        build = time.perf_counter() - t
    found, samples = [], []
    for q in qs:
        t = time.perf_counter()
        rows = table.search(q).metric("cosine").limit(k).to_arrow()
        samples.append((time.perf_counter() - t) * 1000)
        found.append(np.asarray(rows["id"].to_numpy(), dtype=np.int64))
    samples.sort()
    return {"build_s": build, "p50": samples[len(samples) // 2],
            "p95": samples[int(len(samples) * 0.95)], "found": found}  # fmt: skip


def recall_at(found: list[Any], truth: np.ndarray) -> float:
    k = truth.shape[1]
    return float(
        np.mean(
            [
                len(set(np.asarray(f)[:k].tolist()) & set(t.tolist())) / k
                for f, t in zip(found, truth, strict=True)
            ]
        )  # fmt: skip
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--n", type=int, default=100_000)
    ap.add_argument("--dim", type=int, default=1024)
    ap.add_argument("--queries", type=int, default=100)
    ap.add_argument("--cache", default=os.path.expanduser("~/.cache/anatid-bench"))
    ap.add_argument("--skip", action="append", default=[], help="usearch, lancedb, four")
    args = ap.parse_args()
    print(json.dumps(provenance()))
    os.makedirs(args.cache, exist_ok=True)
    path = os.path.join(args.cache, f"scale-{args.n}-{args.dim}.duckdb")
    meta_path = path + ".json"
    if not os.path.exists(meta_path):
        if os.path.exists(path):
            os.remove(path)
        built = build_store(path, args.n, args.dim)
        with open(meta_path, "w") as f:
            json.dump(built, f)
    with open(meta_path) as f:
        built = json.load(f)
    print(f"store: {args.n:,} facts x {args.dim} dims, {os.path.getsize(path) / 1e6:,.0f} MB, "
          f"built at {built['facts_per_s']:,.0f} facts/s")  # fmt: skip
    data = vectors(args.n, args.dim)
    qs = query_vectors(data, args.queries)
    rng = random.Random(13)
    texts = [" ".join(zipf_text(rng, 12).split()[:4]) for _ in range(args.queries)]
    k = 10
    with tempfile.TemporaryDirectory() as tmp:
        qpath, tpath = os.path.join(tmp, "q.npy"), os.path.join(tmp, "t.json")
        np.save(qpath, qs)
        with open(tpath, "w") as f:
            json.dump(texts, f)
        truth, exact_ms = exact_top(data, qs, k)
        print(
            f"numpy exact cosine top-{k}: p50 {exact_ms:.2f} ms ({data.nbytes / 1e6:,.0f} MB matrix)"
        )
        for mode in ("cosine", "bm25", "hybrid"):
            r = probe(mode, path, qpath, tpath, built["as_of"])
            print(
                f"anatid first {mode:6s} in a fresh process: {r['first_ms']:8.0f} ms "
                f"(the call {r['first_call_ms']:.0f} ms); RSS {r['Rss']:,.0f} PSS {r['Pss']:,.0f} "
                f"USS {r['Uss']:,.0f} peak {r['Peak']:,.0f} MB"
            )
        w = probe("warm", path, qpath, tpath, built["as_of"])
        ids = [[int(i[1:]) for i in f] for f in w["found"]]
        for op in ("cosine", "bm25", "hybrid", "cosine_group", "asof_cosine", "asof_hybrid"):
            print(f"anatid warm {op:13s} p50 {w[op]['p50']:8.2f} ms  p95 {w[op]['p95']:8.2f} ms")
        print(f"anatid cosine recall@{k} vs exact: {recall_at(ids, truth):.3f}; "
              f"warm process RSS {w['Rss']:,.0f} PSS {w['Pss']:,.0f} USS {w['Uss']:,.0f} "
              f"peak {w['Peak']:,.0f} MB")  # fmt: skip
        if "four" not in args.skip:
            mems = four_processes(path, qpath, tpath, built["as_of"])
            one = probe("hybrid", path, qpath, tpath, built["as_of"])
            total = sum(m["Pss"] for m in mems)
            print(f"four processes: PSS sum {total:,.0f} MB vs one {one['Pss']:,.0f} MB "
                  f"({total / one['Pss']:.2f}x)")  # fmt: skip
        if "usearch" not in args.skip:
            u = peer_usearch(data, qs, k, tmp)
            print(f"usearch bare (f16, M 16, ef 64): build {u['build_s']:.1f} s, open "
                  f"{u['open_ms']:.1f} ms, p50 {u['p50']:.3f} ms p95 {u['p95']:.3f} ms, "
                  f"recall@{k} {recall_at(u['found'], truth):.3f}")  # fmt: skip
        if "lancedb" not in args.skip:
            for ann in (False, True):
                lr = peer_lancedb(data, qs, k, tmp, ann=ann)
                print(f"LanceDB {'IVF_PQ' if ann else 'flat  '}: build {lr['build_s']:.1f} s, "
                      f"p50 {lr['p50']:.2f} ms p95 {lr['p95']:.2f} ms, "
                      f"recall@{k} {recall_at(lr['found'], truth):.3f}")  # fmt: skip


if __name__ == "__main__":
    main()
