"""Index builds (issue 41, point 2): the same vectors indexed three ways in one run, each in a
fresh process of its own, one after the other.

* ``anatid``: ``Store.build_indexes()`` on a copy of bench_scale's cached store
  (``scale-h48-N-DIM.duckdb``: N facts with a DIM embedding each in the space ``fact``, N/2
  entities; build it first with ``python tests/benchmarks/bench_scale.py --n N --build-only``).
  The copy is made in a temporary folder (the cache is never written) without its index
  folder, so this is a first build: the fact space's flat index, then its HNSW graph, then the
  text indexes of nodes and edges. The seconds of each phase come from the ``progress``
  callback; recall is that of ``search_vector`` through the built index.
* ``usearch``: the floor. usearch's own ``Index.add`` of the same vectors (regenerated from the
  same seeds, unit length, in memory: generating them is not timed), with anatid's settings
  (f32, cosine, ``ANN``'s connectivity, expansion_add and ef), in batches of 16,384 on every
  core, then saved; searched at ``ANN['ef']``.
* ``lancedb``: LanceDB's table written from the same matrix (its write time apart), then its
  default ANN index built (IVF_PQ, cosine, sqrt(N) partitions, DIM/16 sub-vectors) and searched
  with its defaults (skipped, and said so, when lancedb is not importable: it is no dependency).

Each prints seconds, rows/s, peak RSS (``VmHWM`` of the process, taken right after the build)
and recall@10 over ``--queries`` queries (bench_scale's: half paraphrases of stored facts, half
fresh) against numpy's exact top-10, computed chunk by chunk here; then the ratio of each
build's time to usearch's. The load average is printed before and after each worker: the
machine may be shared.

    python tests/benchmarks/bench_index_build.py            # 100k x 1024
    python tests/benchmarks/bench_index_build.py --n 1000000
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from typing import Any

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
from _measure import provenance  # noqa: E402
from bench_scale import GENERATOR, Embeddings  # noqa: E402

K = 10


def peak_rss_mb() -> float:
    """The process's peak resident set (VmHWM), in MB."""
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return float("nan")


# ------------------------------------------------------------------------------- the workers


def work_anatid(args: argparse.Namespace, qs: np.ndarray) -> dict[str, Any]:
    from anatid_core import BuildProgress, Store
    from anatid_core.indexes.ann import ANN

    ANN["auto"] = False  # no background build when the store closes
    phases: dict[str, list[float]] = {}

    def progress(p: BuildProgress) -> None:
        key = f"{p.kind} {p.space or 'text'} {p.phase}"
        seen = phases.setdefault(key, [p.seconds, p.seconds])
        seen[1] = p.seconds

    with Store.open(args.store) as store:
        t = time.perf_counter()
        built = store.build_indexes(progress=progress)
        seconds = time.perf_counter() - t
        peak = peak_rss_mb()
        found = [
            [int(h.id[1:]) for h in store.search_vector(q.tolist(), kind="edge", space="fact", k=K)]
            for q in qs
        ]
    fact = next(b for b in built if b.space == "fact")
    return {
        "seconds": seconds,
        "vector_seconds": fact.seconds,
        "rows": fact.rows_total,
        "peak_rss_mb": peak,
        "found": found,
        "phases": {k: round(v[1] - v[0], 2) for k, v in phases.items()},
        "builds": [(b.kind, b.space, round(b.seconds, 2)) for b in built],
    }


def work_usearch(args: argparse.Namespace, qs: np.ndarray) -> dict[str, Any]:
    from usearch.index import Index

    from anatid_core.indexes.ann import ANN

    data = Embeddings(args.dim).matrix(args.n)
    data /= np.linalg.norm(data, axis=1, keepdims=True)
    t = time.perf_counter()
    index = Index(
        ndim=args.dim,
        metric="cos",
        dtype="f32",
        connectivity=int(ANN["connectivity"]),
        expansion_add=int(ANN["expansion_add"]),
        expansion_search=int(ANN["ef"]),
    )
    for start in range(0, len(data), 16_384):
        part = data[start : start + 16_384]
        index.add(np.arange(start, start + len(part), dtype=np.uint64), part, threads=0)
    index.save(os.path.join(args.tmp, "floor.usearch"))
    seconds = time.perf_counter() - t
    peak = peak_rss_mb()
    found = [np.asarray(index.search(q, K).keys, dtype=np.int64).tolist() for q in qs]
    return {"seconds": seconds, "rows": len(data), "peak_rss_mb": peak, "found": found}


def work_lancedb(args: argparse.Namespace, qs: np.ndarray) -> dict[str, Any]:
    import lancedb
    import pyarrow as pa

    data = Embeddings(args.dim).matrix(args.n)
    db = lancedb.connect(os.path.join(args.tmp, "lance"))
    t = time.perf_counter()
    vectors = pa.FixedSizeListArray.from_arrays(pa.array(data.reshape(-1)), args.dim)
    table = db.create_table("facts", pa.table({"id": np.arange(len(data)), "vector": vectors}))
    written = time.perf_counter() - t
    del vectors, data
    t = time.perf_counter()
    table.create_index(
        metric="cosine",
        num_partitions=max(1, int(np.sqrt(args.n))),
        num_sub_vectors=args.dim // 16,
    )
    seconds = time.perf_counter() - t
    peak = peak_rss_mb()
    query = table.search  # its builder's type is only known once it holds a vector
    found = [
        np.asarray(
            query(q).metric("cosine").limit(K).to_arrow()["id"].to_numpy(),  # pyright: ignore[reportAttributeAccessIssue]
            dtype=np.int64,
        ).tolist()
        for q in qs
    ]
    return {
        "seconds": seconds,
        "write_seconds": written,
        "rows": args.n,
        "peak_rss_mb": peak,
        "found": found,
    }


WORKERS = {"anatid": work_anatid, "usearch": work_usearch, "lancedb": work_lancedb}


# ------------------------------------------------------------------------------- the parent


def exact_truth(emb: Embeddings, n: int, qs: np.ndarray) -> np.ndarray:
    """numpy's exact top-K of each query, chunk by chunk (never the whole matrix)."""
    best_s = np.full((len(qs), K), -np.inf, dtype=np.float32)
    best_i = np.zeros((len(qs), K), dtype=np.int64)
    for start, part in emb.chunks(n):
        sims = qs @ part.T
        s = np.concatenate([best_s, sims], axis=1)
        i = np.concatenate(
            [best_i, np.arange(start, start + len(part))[None, :].repeat(len(qs), 0)], axis=1
        )
        top = np.argpartition(-s, K, axis=1)[:, :K]
        best_s, best_i = np.take_along_axis(s, top, 1), np.take_along_axis(i, top, 1)
    return best_i


def recall(found: list[list[int]], truth: np.ndarray) -> float:
    return float(
        np.mean([len(set(f[:K]) & set(t.tolist())) / K for f, t in zip(found, truth, strict=True)])
    )


def run_worker(
    name: str, args: argparse.Namespace, qpath: str, store: str, tmp: str
) -> dict[str, Any]:
    cmd = [sys.executable, __file__, "--worker", name, "--n", str(args.n), "--dim", str(args.dim),
           "--queries-file", qpath, "--store", store, "--tmp", tmp]  # fmt: skip
    before = os.getloadavg()[0]
    r = subprocess.run(cmd, capture_output=True, text=True)
    after = os.getloadavg()[0]
    if r.returncode != 0:
        return {"error": r.stderr.strip().splitlines()[-1] if r.stderr.strip() else "failed"}
    out = json.loads(r.stdout.strip().splitlines()[-1])
    out["load"] = (before, after)
    return out


def lancedb_missing() -> bool:
    r = subprocess.run([sys.executable, "-c", "import lancedb"], capture_output=True)
    return r.returncode != 0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--n", type=int, default=100_000, help="facts (vectors); default 100k")
    ap.add_argument("--dim", type=int, default=1024)
    ap.add_argument("--queries", type=int, default=200)
    ap.add_argument("--cache", default=os.path.expanduser("~/.cache/anatid-bench"))
    ap.add_argument("--skip", action="append", default=[], choices=sorted(WORKERS))
    ap.add_argument("--worker", choices=sorted(WORKERS), help=argparse.SUPPRESS)
    ap.add_argument("--queries-file", help=argparse.SUPPRESS)
    ap.add_argument("--store", help=argparse.SUPPRESS)
    ap.add_argument("--tmp", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.worker:
        qs = np.load(args.queries_file)
        print(json.dumps(WORKERS[args.worker](args, qs)))
        return
    cached = os.path.join(args.cache, f"scale-{GENERATOR}-{args.n}-{args.dim}.duckdb")
    if not os.path.exists(cached):
        sys.exit(f"{cached} is missing: python tests/benchmarks/bench_scale.py --n {args.n} "
                 f"--dim {args.dim} --build-only")  # fmt: skip
    emb = Embeddings(args.dim)
    qs = emb.queries(args.n, args.queries)
    truth = exact_truth(emb, args.n, qs)
    print(f"# index builds, {args.n:,} x {args.dim}, {args.queries} queries; {provenance()}")
    print(f"# load average at start: {os.getloadavg()}")
    results: dict[str, dict[str, Any]] = {}
    with tempfile.TemporaryDirectory(prefix="anatid-build-") as tmp:
        qpath = os.path.join(tmp, "queries.npy")
        np.save(qpath, qs)
        store = os.path.join(tmp, "store.duckdb")
        for name in ("anatid", "usearch", "lancedb"):
            if name in args.skip:
                continue
            if name == "lancedb" and lancedb_missing():
                print("# lancedb is not importable here: its column is skipped")
                continue
            if name == "anatid":
                shutil.copyfile(cached, store)
            work = os.path.join(tmp, name)
            os.makedirs(work)
            results[name] = r = run_worker(name, args, qpath, store, work)
            said = r.get("error") or f"{r['seconds']:,.1f} s, {r['peak_rss_mb']:,.0f} MB"
            print(f"# {name}: {said}", flush=True)  # before the table: a long run shows
            if name == "anatid":
                for leftover in (store, store + ".anatid-index"):
                    shutil.rmtree(leftover, ignore_errors=True) if os.path.isdir(
                        leftover
                    ) else os.remove(leftover)
    floor = results.get("usearch", {}).get("seconds")
    print("| build | seconds | rows/s | peak RSS | recall@10 | vs usearch | load (before, after) |")
    print("|---|---|---|---|---|---|---|")
    for name, r in results.items():
        if "error" in r:
            print(f"| {name} | failed: {r['error']} | | | | | |")
            continue
        ratio = f"{r['seconds'] / floor:.2f}x" if floor else "-"
        print(f"| {name} | {r['seconds']:,.1f} | {r['rows'] / r['seconds']:,.0f} | "
              f"{r['peak_rss_mb']:,.0f} MB | {recall(r['found'], truth):.3f} | {ratio} | "
              f"{r['load'][0]:.2f}, {r['load'][1]:.2f} |")  # fmt: skip
    a = results.get("anatid", {})
    if "phases" in a:
        print(f"# anatid: the fact space's build {a['vector_seconds']:.1f} s (vs usearch "
              f"{a['vector_seconds'] / floor:.2f}x); phases (s): {a['phases']}" if floor else "")  # fmt: skip
        print(f"# anatid: every build: {a['builds']}")
    if "write_seconds" in results.get("lancedb", {}):
        print(f"# lancedb: writing its table took {results['lancedb']['write_seconds']:.1f} s more")
    print(f"# load average at end: {os.getloadavg()}")


if __name__ == "__main__":
    main()
