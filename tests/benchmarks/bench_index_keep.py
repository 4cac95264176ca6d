"""Indexes that keep themselves (issue 41, point 1): what the next process pays after a writer exits,
with nobody running ``anatid index``, and what a long-lived writer's searches pay while a build runs.

1. A writer process writes N facts (edges with a Zipf sentence and a clustered unit embedding of
   ``--dim``, in chunks of 10k, endpoints as plain nodes) and exits: it starts the builder.
2. Fresh processes, each timing from before ``Store.open`` to the answer of its first hybrid
   search (``recall``: BM25 + cosine, k 10), and saying whether it loaded the matrix or the
   postings into memory:
   * ``at once``: started the moment the writer has exited (the builder is at work);
   * ``after``: once the builder has finished (the flat index appears within seconds, the graph
     after; both instants are printed), then its warm p50/p95;
   * the peer, ``no index``: the same file with its index folder set aside, as every process
     met it before issue 41 unless someone ran ``anatid index``.
3. A long-lived writer (the store open, its searches warm) writes a quarter more facts: p50/p95
   of its hybrid searches with no build running, then while a builder process merges them into
   the indexes. The mark: at most 1.5x.

    python tests/benchmarks/bench_index_keep.py --n 100000 --dim 1024
    python tests/benchmarks/bench_index_keep.py --n 20000 --dim 256     # a quick look
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import textwrap
import time

sys.path.insert(0, os.path.dirname(__file__))
from _measure import provenance  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

WRITER = """
import random, sys
import numpy as np
from anatid_core import Edge, Node, Store
n, dim = {n}, {dim}
rng = np.random.default_rng(7)
words = [f"w{{i}}" for i in range(20000)]
pick = random.Random(7)
centres = rng.standard_normal((64, dim)).astype(np.float32)
entities = max(1000, n // 2)
with Store.open({path!r}) as store:
    store.upsert_nodes([Node(f"e{{i}}", name=f"entity {{i}}") for i in range(entities)])
    for start in range(0, n, 10000):
        m = min(10000, n - start)
        vec = centres[rng.integers(0, 64, m)] + 0.6 * rng.standard_normal((m, dim)).astype(np.float32)
        vec /= np.linalg.norm(vec, axis=1, keepdims=True)
        store.upsert_edges([
            Edge(f"f{{start + i}}", f"e{{pick.randrange(entities)}}", f"e{{pick.randrange(entities)}}",
                 "RELATES_TO", text=" ".join(words[min(int(pick.paretovariate(1.0)) - 1, 19999)] for _ in range(10)),
                 embedding=vec[i].tolist())
            for i in range(m)
        ])
"""

FIRST = """
import json, sys, time
t0 = time.perf_counter()
import numpy as np
from anatid_core import Store
from anatid_core.indexes.text import TextIndex
from anatid_core.indexes.vectors import VectorIndex
loads = {{"matrix": 0, "postings": 0}}
matrix, load = VectorIndex.matrix, TextIndex.load
def m(self, *a, **k):
    loads["matrix"] += 1
    return matrix(self, *a, **k)
def l(self, *a, **k):
    loads["postings"] += 1
    return load(self, *a, **k)
VectorIndex.matrix, TextIndex.load = m, l
rng = np.random.default_rng(11)
q = rng.standard_normal({dim}).astype(np.float32)
with Store.open({path!r}, read_only=True) as s:
    hits = s.recall(text="w1 w7 w30", vector=q.tolist(), kind="edge", k=10)
    first = time.perf_counter() - t0
    warm = []
    for i in range({warm}):
        q = rng.standard_normal({dim}).astype(np.float32)
        t = time.perf_counter()
        s.recall(text=f"w{{i % 50}} w{{i % 7 + 3}}", vector=q.tolist(), kind="edge", k=10)
        warm.append((time.perf_counter() - t) * 1000)
warm.sort()
print(json.dumps({{"first_s": first, "hits": len(hits), **loads,
                  "p50": warm[len(warm) // 2] if warm else None,
                  "p95": warm[int(len(warm) * 0.95)] if warm else None}}))
"""

LONG_WRITER = """
import json, random, time
import numpy as np
from anatid_core import Edge, Store
from anatid_core.indexes import builder
from anatid_core.indexes.ann import ANN
ANN.update(auto=False, merge_rows=1000)  # this probe starts the builder itself, to merge
rng = np.random.default_rng(13)
pick = random.Random(13)
def probe(s, count, until=None):
    out = []
    for i in range(count):
        if until is not None and not until():
            break
        q = rng.standard_normal({dim}).astype(np.float32)
        t = time.perf_counter()
        s.recall(text=f"w{{i % 50}} w{{i % 7 + 3}}", vector=q.tolist(), kind="edge", k=10)
        out.append((time.perf_counter() - t) * 1000)
    out.sort()
    return {{"p50": out[len(out) // 2], "p95": out[int(len(out) * 0.95)], "n": len(out)}}
with Store.open({path!r}) as s:
    # Rows written since the build, as a writer keeps writing: the builder merges them.
    extra = {n} // 4
    vec = rng.standard_normal((extra, {dim})).astype(np.float32)
    vec /= np.linalg.norm(vec, axis=1, keepdims=True)
    for start in range(0, extra, 10000):
        s.upsert_edges([Edge(f"late{{i}}", "e1", "e2", "RELATES_TO", text=f"w{{i % 40}} late",
                             embedding=vec[i].tolist()) for i in range(start, min(extra, start + 10000))])
    probe(s, 20)
    quiet = probe(s, {queries})
    child = builder.start({path!r}, detached=False)
    assert child is not None
    time.sleep(0.5)  # past its start-up
    busy = probe(s, {queries}, until=lambda: child.poll() is None)
    running = child.poll() is None
    out, _ = child.communicate()
    print(json.dumps({{"quiet": quiet, "busy": busy, "build_outlasted_probe": running,
                      "merged": [json.loads(x)["rows_added"] for x in out.decode().splitlines()]}}))
"""


def child(code: str, timeout: float = 3600) -> str:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([ROOT, env.get("PYTHONPATH", "")])
    r = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    if r.returncode != 0:
        raise SystemExit(r.stderr[-3000:])
    return r.stdout.strip()


def builder_running(path: str) -> bool:
    sys.path.insert(0, ROOT)
    from anatid_core.indexes import builder

    return builder.running(path)


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--n", type=int, default=100_000)
    ap.add_argument("--dim", type=int, default=1024)
    ap.add_argument("--warm", type=int, default=30)
    ap.add_argument("--queries", type=int, default=40)
    args = ap.parse_args()
    print(json.dumps(provenance(), default=str))
    work = tempfile.mkdtemp(prefix="keep-")
    path = os.path.join(work, "m.duckdb")
    folder = path + ".anatid-index"
    try:
        t = time.perf_counter()
        child(WRITER.format(n=args.n, dim=args.dim, path=path))
        exited = time.perf_counter()
        print(
            f"writer: {args.n} facts x {args.dim} in {exited - t:.1f} s ({args.n / (exited - t):.0f} facts/s), exited"
        )
        at_once = json.loads(child(FIRST.format(path=path, dim=args.dim, warm=0)))
        print(
            f"at once (builder at work): first hybrid {at_once['first_s']:.2f} s, "
            f"from memory: matrix {'yes' if at_once['matrix'] else 'no'}, postings {'yes' if at_once['postings'] else 'no'}"
        )
        flat_at = graph_at = None
        while builder_running(path):
            now = time.perf_counter() - exited
            names = os.listdir(folder) if os.path.isdir(folder) else []
            if flat_at is None and any(n.endswith(".flat") for n in names):
                flat_at = now
            if graph_at is None and any(n.endswith(".usearch") for n in names):
                graph_at = now
            time.sleep(0.05)
        done = time.perf_counter() - exited
        fmt = lambda x: "-" if x is None else f"{x:.1f} s"  # noqa: E731
        print(
            f"builder: flat index after {fmt(flat_at)}, graph after {fmt(graph_at)}, done after {done:.1f} s"
        )
        after = json.loads(child(FIRST.format(path=path, dim=args.dim, warm=args.warm)))
        aside = folder + ".aside"
        os.rename(folder, aside)
        try:
            peer = json.loads(child(FIRST.format(path=path, dim=args.dim, warm=args.warm)))
        finally:
            os.rename(aside, folder)
        print(
            "\n| fresh process | first hybrid (s) | from memory: matrix / postings | warm p50 / p95 (ms) |"
        )
        print("|---|---|---|---|")
        for name, r in (("after the builder", after), ("no index (peer: before issue 41)", peer)):
            loads = f"{'yes' if r['matrix'] else 'no'} / {'yes' if r['postings'] else 'no'}"
            print(f"| {name} | {r['first_s']:.2f} | {loads} | {r['p50']:.1f} / {r['p95']:.1f} |")
        print(
            f"first search ratio, no index / after builder: {peer['first_s'] / after['first_s']:.1f}x"
        )
        said = child(LONG_WRITER.format(path=path, dim=args.dim, queries=args.queries, n=args.n))
        *other, last = said.splitlines()
        if other:
            print("the long-lived writer also printed:", *other, sep="\n  ")
        long = json.loads(last)
        q, b = long["quiet"], long["busy"]
        print(
            f"\nlong-lived writer, hybrid p50/p95: quiet {q['p50']:.1f} / {q['p95']:.1f} ms, "
            f"while a builder merges {long['merged']} rows: {b['p50']:.1f} / {b['p95']:.1f} ms over {b['n']} "
            f"searches: {b['p50'] / q['p50']:.2f}x (build outlasted the probe: {long['build_outlasted_probe']})"
        )
    finally:
        while builder_running(path):
            time.sleep(0.2)
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
