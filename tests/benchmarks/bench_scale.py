"""A million facts on a laptop (issue 34): what a fresh process pays, and what a warm one answers.

Builds (once, cached under ``--cache`` as ``scale-<generator>-<N>-<dim>.duckdb``) a store of N
synthetic facts: edges between entities with a sentence each (Zipf words, as in bench_core) and a
unit-length embedding of low intrinsic dimension with topics and sub-topics, like sentence
embeddings (``Embeddings``: a 48-dim latent mapped to ``dim`` plus a little noise; generated and
written chunk by chunk, so 1M x 1024 never holds the 4 GB matrix), in 4 groups. The build prints
its ingest rate (facts/s) and peak RSS.

The persistent indexes: when ``Store.build_indexes`` exists, one fresh process calls it once (it
builds the sidecar ``FILE.anatid-index`` beside the store, or merges what it lacks: 0 rows on a
run after the first) and each report's build / merge time, rows and size are printed; the phases
below then use the indexes as anatid does by default. ``--no-index`` skips that call and
measures without them (the vector and the text indexes alike: they share the folder),
copy-free and without rebuilding them afterwards: the folder is renamed to
``FILE.anatid-index.off`` while the probes run and renamed back at the end (or at the start of
the next run, if this one was killed). Setting ``SETTINGS["ann_min_rows"]`` huge in the probes
would not do: it only decides which spaces ``build_indexes`` indexes, and a search uses any
index it finds. Each probe prints how many files of the index folder it maps or holds open, so
whether a search went through an index shows.

Then, each in a fresh process, as an MCP server, a CLI command or an API worker meets the file:

* ``first``: open the file and run the first cosine / BM25 / hybrid (``recall``) search: wall
  time from before ``Store.open`` to the answer, and the process's RSS, PSS, USS and anonymous
  memory after it (``/proc/self/smaps_rollup``: PSS splits shared pages among the processes
  mapping them; USS counts the pages of a mapped file that no other process maps now, so a lone
  process's USS includes the index pages it touched: ``anon``, the memory not backed by a file,
  is what the process holds beyond the mapped files, page cache aside);
* ``warm``: p50/p95 over ``--queries`` queries of cosine top-10, BM25 top-10, hybrid top-10,
  cosine with a group filter, and ``as_of`` cosine / hybrid (an instant before the last tenth
  of the facts was written), and recall@10 of the current, ``as_of`` and group-filtered cosine
  searches against numpy's exact top-10 over the same visible set;
* ``four``: four processes searching the same file at once: the sum of their PSS against one
  process's.

The queries: half paraphrases of stored facts (moved in the latent space, cosine about 0.86 to
their source), half fresh points from the same topics. The exact top-10s are computed chunk by
chunk; the peers need the whole matrix, built only after the probes have run.

Peers, in the same run on the same vectors: numpy exact (the floor for an exact scan), usearch
(f32, mapped with ``view``) and hnswlib (loaded: it cannot map) bare, M 16, ef 128 at build and
search (the floor for an index: build, file size, open, p50/p95, recall@10), LanceDB with and
without its ANN index (IVF_PQ; its brute-force scan otherwise). FalkorDB Lite's vector index
through Graphiti is not run here yet (bench_graphiti measures it at 1k-10k).

    python tests/benchmarks/bench_scale.py --n 100000 --dim 1024        # the issue's first size
    python tests/benchmarks/bench_scale.py --n 1000000 --dim 1024       # 4 GB of float32
    python tests/benchmarks/bench_scale.py --n 20000 --dim 256 --queries 50   # a quick look
    python tests/benchmarks/bench_scale.py --n 1000000 --build-only     # the store (and index)
    python tests/benchmarks/bench_scale.py --no-index --skip usearch --skip hnswlib --skip lancedb
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from datetime import datetime, timezone
from typing import Any

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
from _measure import peak_rss_mb, provenance  # noqa: E402

WORDS = [f"w{i}" for i in range(20000)]
CHUNK = 20_000  # facts per write, and vectors per generated chunk (part of the data's definition)
# In the cache file's name: bump it whenever Embeddings' output changes, so that a store built
# from other vectors is never measured against these.
GENERATOR = "h48"


def zipf_text(rng: random.Random, n: int) -> str:
    return " ".join(WORDS[min(int(rng.paretovariate(1.1)) - 1, len(WORDS) - 1)] for _ in range(n))


class Embeddings:
    """Synthetic sentence embeddings: low intrinsic dimension, structure at several scales.

    A point is drawn in a latent space of ``LATENT`` dimensions as topic -> sub-topic -> point
    (a mixture at two levels: ``TOPICS`` topics of Zipf-like popularity, ``SUBTOPICS`` each, with
    spreads ``SPREAD``, each level's variance decaying over the latent axes as ``j ** -DECAY``),
    plus a common offset ``MEAN`` (real embeddings are anisotropic: random pairs have a positive
    cosine). It is mapped to ``dim`` by a fixed random projection with orthonormal rows, plus
    isotropic noise of ``NOISE`` times the latent norm (so the ambient vectors are not exactly
    of low rank), and normalised to unit length. Measured at 100k x 256 and x 1024: random
    pairs' cosine 0.24 (p5 -0.01, p95 0.47), a fresh query's nearest neighbour 0.80 and its
    10th 0.74; recall@10 against exact over 200 queries (half paraphrases, half fresh) of usearch
    f32 (M 16, expansion 128 at build and search) 0.9975 / 0.998 (0.99 / 0.98 at search
    expansion 64), of hnswlib (M 16, ef 128) 0.998 / 0.997, where the isotropic clusters of the
    first version (500 Gaussian blobs in the full ``dim``) gave usearch f16 at ef 64 0.79.

    Everything is a function of ``seed``: the structure (topics, projection) of one generator,
    the data of chunk ``i`` (``CHUNK`` vectors) of another seeded by ``(seed, 1, i)``, so any
    chunk is built alone and N vectors never need more than one chunk in hand.
    """

    LATENT, TOPICS, SUBTOPICS = 48, 400, 24
    SPREAD = (1.0, 0.6, 0.5)  # topic centres, sub-topics around them, points around those
    DECAY, MEAN, NOISE = 0.3, 0.8, 0.4
    PARAPHRASE = 0.6  # a query "paraphrasing" a stored fact: cosine about 0.86 to it

    def __init__(self, dim: int, seed: int = 7) -> None:
        self.dim, self.seed = dim, seed
        rng = np.random.default_rng([seed, 0])
        scale = np.arange(1, self.LATENT + 1, dtype=np.float32) ** -self.DECAY
        self.scale = (scale / np.sqrt((scale**2).sum())).astype(np.float32)
        latent = self.LATENT
        mean = rng.standard_normal(latent, dtype=np.float32)
        mean *= self.MEAN / np.linalg.norm(mean)
        topics = rng.standard_normal((self.TOPICS, latent), dtype=np.float32)
        subs = rng.standard_normal((self.TOPICS, self.SUBTOPICS, latent), dtype=np.float32)
        self.centres = (
            mean + self.scale * (self.SPREAD[0] * topics[:, None, :] + self.SPREAD[1] * subs)
        ).reshape(-1, latent)
        weight = 1.0 / np.arange(1, self.TOPICS + 1) ** 0.8
        self.popularity = weight / weight.sum()
        q, _ = np.linalg.qr(rng.standard_normal((dim, latent), dtype=np.float32))
        self.projection = np.ascontiguousarray(q.T)  # latent x dim, orthonormal rows

    def _ambient(self, latent: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        out = latent @ self.projection
        noise = rng.standard_normal(out.shape, dtype=np.float32)
        noise *= (self.NOISE / np.sqrt(self.dim)) * np.linalg.norm(latent, axis=1, keepdims=True)
        out += noise
        out /= np.linalg.norm(out, axis=1, keepdims=True)
        return out

    def points(self, m: int, rng: np.random.Generator) -> np.ndarray:
        topic = rng.choice(self.TOPICS, size=m, p=self.popularity)
        sub = topic * self.SUBTOPICS + rng.integers(0, self.SUBTOPICS, m)
        own = rng.standard_normal((m, self.LATENT), dtype=np.float32)
        return self._ambient(self.centres[sub] + self.SPREAD[2] * self.scale * own, rng)

    def chunk(self, i: int, n: int) -> np.ndarray:
        """Vectors ``i * CHUNK`` up to ``min(n, (i + 1) * CHUNK)``."""
        return self.points(min(CHUNK, n - i * CHUNK), np.random.default_rng([self.seed, 1, i]))

    def chunks(self, n: int) -> Iterator[tuple[int, np.ndarray]]:
        for i, start in enumerate(range(0, n, CHUNK)):
            yield start, self.chunk(i, n)

    def matrix(self, n: int) -> np.ndarray:
        out = np.empty((n, self.dim), dtype=np.float32)
        for start, part in self.chunks(n):
            out[start : start + len(part)] = part
        return out

    def queries(self, n: int, q: int, seed: int = 11) -> np.ndarray:
        """Half paraphrases of stored vectors (moved along the latent axes, cosine about 0.86
        to their source), half fresh points from the same topics."""
        rng = np.random.default_rng([self.seed, 2, seed])
        near = q // 2
        picks = rng.integers(0, n, near)
        source = np.empty((near, self.dim), dtype=np.float32)
        for i in np.unique(picks // CHUNK):
            rows = picks // CHUNK == i
            source[rows] = self.chunk(int(i), n)[picks[rows] % CHUNK]
        move = rng.standard_normal((near, self.LATENT), dtype=np.float32) * self.scale
        source += (self.PARAPHRASE * move) @ self.projection
        source /= np.linalg.norm(source, axis=1, keepdims=True)
        return np.vstack([source, self.points(q - near, rng)]).astype(np.float32)


def visible_sets(cut: int) -> dict[str, Callable[[np.ndarray], np.ndarray]]:
    """Which facts (by number) each measured search sees: ``current`` all of them, ``as_of``
    those written before the instant (the first ``cut``), ``group`` those of group g1."""
    return {
        "current": lambda ids: np.ones(len(ids), dtype=bool),
        "as_of": lambda ids: ids < cut,
        "group": lambda ids: ids % 4 == 1,
    }


def exact_truth(emb: Embeddings, n: int, qs: np.ndarray, k: int, cut: int) -> dict[str, Any]:
    """numpy's exact top-k of each query over each visible set, one chunk of vectors at a time
    (the N x dim matrix is never held)."""
    sets = visible_sets(cut)
    best = {
        name: (np.full((len(qs), k), -np.inf, np.float32), np.full((len(qs), k), -1, np.int64))
        for name in sets
    }
    for start, part in emb.chunks(n):
        sims = qs @ part.T
        ids = np.arange(start, start + len(part))
        for name, keep in sets.items():
            mask = keep(ids)
            if not mask.any():
                continue
            vals = np.concatenate([best[name][0], sims[:, mask]], axis=1)
            cand = np.concatenate(
                [best[name][1], np.broadcast_to(ids[mask], (len(qs), mask.sum()))], axis=1
            )
            top = np.argpartition(-vals, k, axis=1)[:, :k]
            best[name] = (
                np.take_along_axis(vals, top, axis=1),
                np.take_along_axis(cand, top, axis=1),
            )
    out = {}
    for name, (vals, ids) in best.items():
        order = np.argsort(-vals, axis=1)
        out[name] = np.take_along_axis(ids, order, axis=1)
    return out


def index_folder(path: str) -> str:
    return path + ".anatid-index"


@contextlib.contextmanager
def index_aside(path: str) -> Iterator[None]:
    """The index folder renamed to ``FOLDER.off`` while the block runs (``--no-index``): no
    process finds it, and it is back, unrebuilt, afterwards."""
    folder = index_folder(path)
    if os.path.isdir(folder):
        os.rename(folder, folder + ".off")
    try:
        yield
    finally:
        put_index_back(path)


def put_index_back(path: str) -> None:
    """Undo an ``index_aside`` that a killed run left (or drop it if a new index was built)."""
    folder = index_folder(path)
    if os.path.isdir(folder + ".off"):
        if os.path.exists(folder):
            shutil.rmtree(folder + ".off")
        else:
            os.rename(folder + ".off", folder)


def folder_bytes(folder: str) -> int:
    total = 0
    for root, _dirs, files in os.walk(folder):
        for name in files:
            try:
                total += os.path.getsize(os.path.join(root, name))
            except OSError:
                pass
    return total


def build_store(path: str, n: int, dim: int, *, slice_facts: int = 0) -> dict[str, Any]:
    """N facts (edges) over N/2 entities, their vectors generated chunk by chunk as they are
    written; returns the build's figures, the as_of instant and how many facts precede it.

    The store is opened with ``bulk_load``, which holds what it writes in memory until it closes
    (the checkpoint): with ``slice_facts``, it is closed and opened again after every
    ``slice_facts`` facts, which bounds that (at 1M x 1024 in one piece the process peaks at
    8.4 GB, twice the file)."""
    from anatid_core import Edge, Node, Store

    rng = random.Random(7)
    emb = Embeddings(dim)
    entities = max(2, n // 2)
    t = time.perf_counter()
    cut, cut_index = None, n
    s = Store.open(path, bulk_load=True)
    try:
        for start in range(0, entities, CHUNK):
            s.upsert_nodes(
                [
                    Node(f"n{i}", group=f"g{i % 4}", labels=("Entity",), name=f"entity {i}")
                    for i in range(start, min(entities, start + CHUNK))
                ]
            )
        written = 0
        for start, part in emb.chunks(n):
            if slice_facts and written >= slice_facts:
                s.close()
                s = Store.open(path, bulk_load=True)
                written = 0
            if cut is None and start >= n * 9 // 10:
                cut, cut_index = datetime.now(timezone.utc), start
            s.upsert_edges(
                [
                    Edge(
                        f"e{i}",
                        f"n{i % entities}",
                        f"n{(i * 7 + 1) % entities}",
                        "RELATES_TO",
                        group=f"g{i % 4}",
                        text=zipf_text(rng, 12),
                        embedding=part[i - start],
                        space="fact",
                    )
                    for i in range(start, start + len(part))
                ]
            )
            written += len(part)
            del part
    finally:
        s.close()
    took = time.perf_counter() - t
    cut = cut or datetime.now(timezone.utc)
    return {
        "build_s": took,
        "facts_per_s": n / took,
        "as_of": cut.isoformat(),
        "as_of_facts": cut_index,
        "peak_rss_mb": peak_rss_mb(),
        "slice_facts": slice_facts,
        "generator": GENERATOR,
    }


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
folder = os.path.realpath(path) + ".anatid-index"

def memory():
    out = {}
    for line in open("/proc/self/smaps_rollup"):
        parts = line.split()
        if parts[0] in ("Rss:", "Pss:", "Private_Clean:", "Private_Dirty:", "Anonymous:"):
            out[parts[0][:-1]] = int(parts[1]) / 1024
    out["Uss"] = out.pop("Private_Clean", 0) + out.pop("Private_Dirty", 0)
    out["Anon"] = out.pop("Anonymous", 0)
    for line in open("/proc/self/status"):
        if line.startswith("VmHWM"):
            out["Peak"] = int(line.split()[1]) / 1024
    # the index files this process maps or holds open (0: it searched without the index)
    held = set()
    for line in open("/proc/self/maps"):
        parts = line.split(None, 5)
        if len(parts) == 6 and parts[5].strip().startswith(folder):
            held.add(parts[5].strip())
    for fd in os.listdir("/proc/self/fd"):
        try:
            target = os.readlink("/proc/self/fd/" + fd)
        except OSError:
            continue
        if target.startswith(folder):
            held.add(target)
    out["index_files"] = len(held)
    return out

def cosine(s, q, **kw):
    return s.search_vector(q, kind="edge", space="fact", k=k, **kw)
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
    cosine(s, qs[0], groups=["g1"])
    def timed(fn):
        samples = []
        for i in range(len(qs)):
            t = time.perf_counter(); fn(i); samples.append((time.perf_counter() - t) * 1000)
        samples.sort()
        return {"p50": samples[len(samples) // 2], "p95": samples[int(len(samples) * 0.95)]}
    found = {"current": [], "as_of": [], "group": []}
    def keep(name, hits):
        found[name].append([int(h.id[1:]) for h in hits])
    out["cosine"] = timed(lambda i: keep("current", cosine(s, qs[i])))
    out["bm25"] = timed(lambda i: bm25(s, texts[i]))
    out["hybrid"] = timed(lambda i: hybrid(s, qs[i], texts[i]))
    out["cosine_group"] = timed(lambda i: keep("group", cosine(s, qs[i], groups=["g1"])))
    out["asof_cosine"] = timed(lambda i: keep("as_of", cosine(view, qs[i])))
    out["asof_hybrid"] = timed(lambda i: hybrid(view, qs[i], texts[i]))
    out["found"] = found
    out.update(memory())
elif mode == "hold":
    cosine(s, qs[0]); hybrid(s, qs[0], texts[0])
    print(json.dumps(memory()), flush=True)
    sys.stdin.readline()
s.close()
print(json.dumps(out))
"""

_BUILD_INDEXES = r"""
import json, sys, time
t0 = time.perf_counter()
from anatid_core import Store
s = Store.open(sys.argv[1])
t = time.perf_counter()
reports = s.build_indexes()
call = time.perf_counter() - t
s.close()
peak = 0.0
for line in open("/proc/self/status"):
    if line.startswith("VmHWM"):
        peak = int(line.split()[1]) / 1024
fields = ("kind", "space", "rows_added", "rows_total", "seconds", "bytes")
print(json.dumps({"reports": [{f: getattr(r, f, None) for f in fields} for r in reports],
                  "call_s": call, "wall_s": time.perf_counter() - t0, "peak_mb": peak}))
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


def build_indexes(path: str) -> dict[str, Any]:
    """``Store.build_indexes()`` once, in a fresh process (it builds the sidecar, or merges
    into it what it does not hold yet)."""
    r = subprocess.run([sys.executable, "-c", _BUILD_INDEXES, path], capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(r.stderr[-2000:])
    return json.loads(r.stdout.strip().splitlines()[-1])


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
    index = Index(ndim=data.shape[1], metric="cos", dtype="f32", connectivity=16,
                  expansion_add=128, expansion_search=128)  # fmt: skip
    for start in range(0, len(data), CHUNK * 5):
        part = data[start : start + CHUNK * 5]
        index.add(np.arange(start, start + len(part), dtype=np.uint64), part, log=False)
    build = time.perf_counter() - t
    path = os.path.join(tmp, "peer.usearch")
    index.save(path)
    del index
    t = time.perf_counter()
    # the file does not keep the search expansion: restore() would search at ef 64
    view = Index.restore(path, view=True, connectivity=16, expansion_search=128)
    opened = (time.perf_counter() - t) * 1000
    found, samples = [], []
    for q in qs:
        t = time.perf_counter()
        found.append(np.asarray(view.search(q, k).keys, dtype=np.int64))
        samples.append((time.perf_counter() - t) * 1000)
    samples.sort()
    size = os.path.getsize(path)
    del view
    os.remove(path)
    return {"build_s": build, "open_ms": opened, "p50": samples[len(samples) // 2],
            "p95": samples[int(len(samples) * 0.95)], "found": found, "bytes": size}  # fmt: skip


def peer_hnswlib(data: np.ndarray, qs: np.ndarray, k: int, tmp: str) -> dict[str, Any]:
    import hnswlib

    t = time.perf_counter()
    index = hnswlib.Index(space="cosine", dim=data.shape[1])
    index.init_index(max_elements=len(data), M=16, ef_construction=128, random_seed=100)
    for start in range(0, len(data), CHUNK * 5):
        part = data[start : start + CHUNK * 5]
        index.add_items(part, np.arange(start, start + len(part)))
    build = time.perf_counter() - t
    path = os.path.join(tmp, "peer.hnswlib")
    index.save_index(path)
    del index
    t = time.perf_counter()
    view = hnswlib.Index(space="cosine", dim=data.shape[1])
    view.load_index(path, max_elements=len(data))  # hnswlib reads the file whole: no mapping
    view.set_ef(128)
    opened = (time.perf_counter() - t) * 1000
    found, samples = [], []
    for q in qs:
        t = time.perf_counter()
        found.append(np.asarray(view.knn_query(q, k=k)[0][0], dtype=np.int64))
        samples.append((time.perf_counter() - t) * 1000)
    samples.sort()
    size = os.path.getsize(path)
    del view
    os.remove(path)
    return {"build_s": build, "open_ms": opened, "p50": samples[len(samples) // 2],
            "p95": samples[int(len(samples) * 0.95)], "found": found, "bytes": size}  # fmt: skip


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
    ap.add_argument(
        "--skip",
        action="append",
        default=[],
        help="first, warm, four, numpy, usearch, hnswlib, lancedb (repeat the flag)",
    )
    ap.add_argument(
        "--no-index",
        action="store_true",
        help="no build_indexes(); the probes run with the index folder renamed aside",
    )
    ap.add_argument(
        "--build-slice",
        type=int,
        default=250_000,
        help="facts per bulk-load session while building (0: the whole build in one)",
    )
    ap.add_argument(
        "--build-only", action="store_true", help="build the cached store (and index), then stop"
    )
    args = ap.parse_args()
    print(json.dumps(provenance()))
    os.makedirs(args.cache, exist_ok=True)
    path = os.path.join(args.cache, f"scale-{GENERATOR}-{args.n}-{args.dim}.duckdb")
    meta_path = path + ".json"
    if not os.path.exists(meta_path):
        for stale in (path, path + ".wal"):
            if os.path.exists(stale):
                os.remove(stale)
        for derived in (index_folder(path), index_folder(path) + ".off"):
            shutil.rmtree(derived, ignore_errors=True)  # derived from the old file
        built = build_store(path, args.n, args.dim, slice_facts=args.build_slice)
        with open(meta_path, "w") as f:
            json.dump(built, f)
        print(f"built {path} in {built['build_s']:,.0f} s ({built['facts_per_s']:,.0f} facts/s), "
              f"peak RSS {built['peak_rss_mb']:,.0f} MB")  # fmt: skip
    put_index_back(path)
    with open(meta_path) as f:
        built = json.load(f)
    print(f"store: {args.n:,} facts x {args.dim} dims, {os.path.getsize(path) / 1e6:,.0f} MB, "
          f"built at {built['facts_per_s']:,.0f} facts/s")  # fmt: skip

    from anatid_core import Store

    if args.no_index:
        print(f"index: off (--no-index: {index_folder(path)} renamed aside while the probes run)")
    elif not hasattr(Store, "build_indexes"):
        print("index: this anatid_core has no Store.build_indexes (searches scan exactly)")
    else:
        b = build_indexes(path)
        for r in b["reports"]:
            print(
                f"index {r['kind']}/{r['space']}: +{r['rows_added']:,} rows -> "
                f"{r['rows_total']:,} in {r['seconds']:.1f} s, {r['bytes'] / 1e6:,.0f} MB"
            )
        print(
            f"build_indexes(): {b['call_s']:.1f} s the call, {b['wall_s']:.1f} s the process "
            f"(open included), peak RSS {b['peak_mb']:,.0f} MB; "
            f"{index_folder(path)}: {folder_bytes(index_folder(path)) / 1e6:,.0f} MB"
        )
    if args.build_only:
        return
    with index_aside(path) if args.no_index else contextlib.nullcontext():
        measure(args, path, built)


def measure(args: argparse.Namespace, path: str, built: dict[str, Any]) -> None:
    emb = Embeddings(args.dim)
    qs = emb.queries(args.n, args.queries)
    rng = random.Random(13)
    texts = [" ".join(zipf_text(rng, 12).split()[:4]) for _ in range(args.queries)]
    k = 10
    as_of = built["as_of"]
    t = time.perf_counter()
    truth = exact_truth(emb, args.n, qs, k, built["as_of_facts"])
    print(f"numpy exact top-{k} of {args.queries} queries over current, as_of and group g1 "
          f"(generated chunk by chunk): {time.perf_counter() - t:.1f} s")  # fmt: skip
    with tempfile.TemporaryDirectory() as tmp:
        qpath, tpath = os.path.join(tmp, "q.npy"), os.path.join(tmp, "t.json")
        np.save(qpath, qs)
        with open(tpath, "w") as f:
            json.dump(texts, f)
        if "first" not in args.skip:
            for mode in ("cosine", "bm25", "hybrid"):
                r = probe(mode, path, qpath, tpath, as_of)
                print(
                    f"anatid first {mode:6s} in a fresh process: {r['first_ms']:8.0f} ms "
                    f"(the call {r['first_call_ms']:.0f} ms); RSS {r['Rss']:,.0f} "
                    f"PSS {r['Pss']:,.0f} USS {r['Uss']:,.0f} anon {r['Anon']:,.0f} "
                    f"peak {r['Peak']:,.0f} MB; index files held {r['index_files']}"
                )
        if "warm" not in args.skip:
            w = probe("warm", path, qpath, tpath, as_of)
            for op in ("cosine", "bm25", "hybrid", "cosine_group", "asof_cosine", "asof_hybrid"):
                print(
                    f"anatid warm {op:13s} p50 {w[op]['p50']:8.2f} ms  p95 {w[op]['p95']:8.2f} ms"
                )
            recalls = ", ".join(
                f"{name} {recall_at(w['found'][name], truth[name]):.3f}"
                for name in ("current", "as_of", "group")
            )
            print(f"anatid cosine recall@{k} vs exact over the visible set: {recalls}; "
                  f"warm process RSS {w['Rss']:,.0f} PSS {w['Pss']:,.0f} USS {w['Uss']:,.0f} "
                  f"anon {w['Anon']:,.0f} peak {w['Peak']:,.0f} MB; "
                  f"index files held {w['index_files']}")  # fmt: skip
        if "four" not in args.skip:
            mems = four_processes(path, qpath, tpath, as_of)
            one = probe("hybrid", path, qpath, tpath, as_of)
            total = sum(m["Pss"] for m in mems)
            anon = sum(m["Anon"] for m in mems)
            print(f"four processes: PSS sum {total:,.0f} MB vs one {one['Pss']:,.0f} MB "
                  f"({total / one['Pss']:.2f}x); anon sum {anon:,.0f} MB vs one "
                  f"{one['Anon']:,.0f} MB")  # fmt: skip
        peers = {"numpy", "usearch", "hnswlib", "lancedb"} - set(args.skip)
        if not peers:
            return
        data = emb.matrix(args.n)
        if "numpy" in peers:
            found, exact_ms = exact_top(data, qs, k)
            print(
                f"numpy exact cosine top-{k}: p50 {exact_ms:.2f} ms ({data.nbytes / 1e6:,.0f} MB "
                f"matrix), recall@{k} {recall_at(list(found), truth['current']):.3f}"
            )
        for name, peer in (("usearch", peer_usearch), ("hnswlib", peer_hnswlib)):
            if name in peers:
                u = peer(data, qs, k, tmp)
                how = "view" if name == "usearch" else "loaded"
                print(f"{name} bare (f32, M 16, ef 128): build {u['build_s']:.1f} s, "
                      f"{u['bytes'] / 1e6:,.0f} MB, open ({how}) {u['open_ms']:.1f} ms, "
                      f"p50 {u['p50']:.3f} ms p95 {u['p95']:.3f} ms, "
                      f"recall@{k} {recall_at(u['found'], truth['current']):.3f}")  # fmt: skip
        if "lancedb" in peers:
            for ann in (False, True):
                lr = peer_lancedb(data, qs, k, tmp, ann=ann)
                print(f"LanceDB {'IVF_PQ' if ann else 'flat  '}: build {lr['build_s']:.1f} s, "
                      f"p50 {lr['p50']:.2f} ms p95 {lr['p95']:.2f} ms, "
                      f"recall@{k} {recall_at(lr['found'], truth['current']):.3f}")  # fmt: skip


if __name__ == "__main__":
    main()
