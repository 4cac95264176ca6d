"""Which ANN library for anatid's persistent vector index (issue 34): measured, not guessed.

Each candidate builds an index over the same synthetic sentence embeddings (bench_scale's
``Embeddings``: low intrinsic dimension, topics and sub-topics), saves it, and is opened again the way a fresh process
would: memory-mapped where the library can (``usearch`` ``view``, ``faiss`` ``IO_FLAG_MMAP``),
loaded where it cannot (``hnswlib``). Printed per candidate: build time and rate, file size,
open time, RSS added by opening, search p50/p95 for top-10, recall@10 against numpy's exact
top-10, and recall after an exact float32 re-rank of an over-fetched candidate list (how anatid
would use a quantised index).

    python tests/benchmarks/bench_ann.py --n 100000 --dim 1024
    python tests/benchmarks/bench_ann.py --n 20000 --dim 256       # a quick look

The opening and search are measured in a fresh subprocess per candidate, so the RSS and page
cache figures are a new process's, as each anatid process would meet them.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from typing import Any

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
from _measure import provenance  # noqa: E402
from bench_scale import Embeddings  # noqa: E402


def exact_top(data: np.ndarray, qs: np.ndarray, k: int) -> np.ndarray:
    out = np.empty((len(qs), k), dtype=np.int64)
    for i in range(0, len(qs), 64):
        sims = qs[i : i + 64] @ data.T
        top = np.argpartition(-sims, k, axis=1)[:, :k]
        order = np.take_along_axis(sims, top, axis=1).argsort(axis=1)[:, ::-1]
        out[i : i + 64] = np.take_along_axis(top, order, axis=1)
    return out


# ------------------------------------------------------------------------------ candidates


def build(lib: str, data: np.ndarray, path: str, quant: str) -> dict[str, Any]:
    t = time.perf_counter()
    if lib == "usearch":
        from usearch.index import Index

        index = Index(
            ndim=data.shape[1],
            metric="cos",
            dtype=quant,
            connectivity=16,
            expansion_add=128,
            expansion_search=64,
        )
        index.add(np.arange(len(data), dtype=np.uint64), data, log=False)
        built = time.perf_counter() - t
        index.save(path)
    elif lib == "hnswlib":
        import hnswlib

        index = hnswlib.Index(space="cosine", dim=data.shape[1])
        index.init_index(max_elements=len(data), ef_construction=128, M=16)
        index.add_items(data, np.arange(len(data)))
        built = time.perf_counter() - t
        index.save_index(path)
    elif lib == "faiss":
        import faiss

        index = faiss.IndexHNSWFlat(data.shape[1], 16, faiss.METRIC_INNER_PRODUCT)
        index.hnsw.efConstruction = 128
        index.add(data)
        built = time.perf_counter() - t
        faiss.write_index(index, path)
    else:
        raise ValueError(lib)
    return {"build_s": built, "rate": len(data) / built, "file_mb": os.path.getsize(path) / 1e6}


_PROBE = r"""
import json, os, sys, time, resource
import numpy as np
lib, path, quant, dim, k, over, ef = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5]), int(sys.argv[6]), int(sys.argv[7])
qs = np.load(sys.argv[8]); data_path = sys.argv[9]
def rss():
    for line in open("/proc/self/status"):
        if line.startswith("VmRSS"):
            return int(line.split()[1]) / 1024
before = rss()
t = time.perf_counter()
if lib == "usearch":
    from usearch.index import Index
    index = Index.restore(path, view=True)
    index.expansion_search = ef
    def search(q, n):
        m = index.search(q, n)
        return np.asarray(m.keys, dtype=np.int64)
elif lib == "hnswlib":
    import hnswlib
    index = hnswlib.Index(space="cosine", dim=dim)
    index.load_index(path)
    index.set_ef(max(ef, 10))
    def search(q, n):
        return index.knn_query(q, k=n)[0][0].astype(np.int64)
else:
    import faiss
    index = faiss.read_index(path, faiss.IO_FLAG_MMAP)
    index.hnsw.efSearch = ef
    def search(q, n):
        return index.search(q[None, :], n)[1][0].astype(np.int64)
opened = time.perf_counter() - t
after_open = rss()
data = np.load(data_path, mmap_mode="r")
found, reranked, times = [], [], []
for q in qs:
    t = time.perf_counter(); ids = search(q, k); times.append((time.perf_counter() - t) * 1000)
    found.append(ids[:k])
    cand = search(q, k * over)
    cand = cand[cand >= 0]
    sims = np.asarray(data[np.sort(cand)]) @ q
    reranked.append(np.sort(cand)[np.argsort(-sims)[:k]])
times.sort()
print(json.dumps({"open_ms": opened * 1000, "rss_open_mb": after_open - before,
    "rss_end_mb": rss(), "p50": times[len(times)//2], "p95": times[int(len(times)*0.95)],
    "found": [list(map(int, f)) for f in found], "reranked": [list(map(int, r)) for r in reranked]}))
"""


def recall(found: list[list[int]], truth: np.ndarray) -> float:
    k = truth.shape[1]
    return float(
        np.mean([len(set(f[:k]) & set(t.tolist())) / k for f, t in zip(found, truth, strict=True)])
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--n", type=int, default=100_000)
    ap.add_argument("--dim", type=int, default=1024)
    ap.add_argument("--queries", type=int, default=200)
    ap.add_argument("--k", type=int, default=10)
    ap.add_argument("--over", type=int, default=4, help="over-fetch factor before the re-rank")
    ap.add_argument("--ef", type=int, default=128)
    ap.add_argument(
        "--candidates", default="usearch:f32,usearch:f16,usearch:i8,hnswlib:f32,faiss:f32"
    )
    args = ap.parse_args()
    print(json.dumps(provenance()))
    emb = Embeddings(args.dim)
    data = emb.matrix(args.n)
    qs = emb.queries(args.n, args.queries)
    with tempfile.TemporaryDirectory() as tmp:
        data_path, qs_path = os.path.join(tmp, "data.npy"), os.path.join(tmp, "qs.npy")
        np.save(data_path, data)
        np.save(qs_path, qs)
        t = time.perf_counter()
        truth = exact_top(data, qs, args.k)
        exact_ms = (time.perf_counter() - t) * 1000 / len(qs)
        print(
            f"numpy exact: {exact_ms:.2f} ms/query (batched 64), matrix {data.nbytes / 1e6:.0f} MB"
        )
        for cand in args.candidates.split(","):
            lib, quant = cand.split(":")
            try:
                __import__({"usearch": "usearch", "hnswlib": "hnswlib", "faiss": "faiss"}[lib])
            except ImportError:
                print(f"{cand}: not installed")
                continue
            path = os.path.join(tmp, f"{lib}-{quant}.index")
            b = build(lib, data, path, quant)
            out = subprocess.run(
                [
                    sys.executable,
                    "-c",
                    _PROBE,
                    lib,
                    path,
                    quant,
                    str(args.dim),
                    str(args.k),
                    str(args.over),
                    str(args.ef),
                    qs_path,
                    data_path,
                ],
                capture_output=True,
                text=True,
                check=True,
            )
            r = json.loads(out.stdout)
            print(
                f"{cand:12s} build {b['build_s']:7.1f} s ({b['rate']:,.0f}/s)  file {b['file_mb']:7.1f} MB  "
                f"open {r['open_ms']:8.1f} ms  +RSS {r['rss_open_mb']:7.1f} MB  "
                f"p50 {r['p50']:.3f} ms p95 {r['p95']:.3f} ms  recall@{args.k} "
                f"{recall(r['found'], truth):.3f}  re-ranked x{args.over} {recall(r['reranked'], truth):.3f}"
            )
            os.remove(path)


if __name__ == "__main__":
    main()
