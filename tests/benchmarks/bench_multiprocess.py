"""Several processes on one file (issue 11): handover latency, throughput with 1/2/4 writers,
and the catch-up of the in-memory indexes after another process wrote.

    python tests/benchmarks/bench_multiprocess.py [--records 100000] [--seconds 5]

* **handover**: two processes alternate single-record writes (each waits for the other's
  commit, so every operation needs the file handed over); p50/p95 of one operation, against the
  same operation in a process that is alone.
* **throughput**: 1, 2 and 4 processes each writing batches of 10 records as fast as they can for
  ``--seconds``; total records/s.
* **catch-up**: a process holds a ``--records`` file with its BM25 and vector indexes built;
  another process writes 1,000 records; the first process's next search (taking the file back and
  applying those versions) against rebuilding both indexes from the file (the thing avoided).
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import os
import random
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from anatid_core import Node, Store  # noqa: E402
from tests.benchmarks._measure import provenance  # noqa: E402

DIM = 64


def pct(seconds: list[float]) -> str:
    xs = sorted(seconds)
    return (
        f"p50 {1000 * xs[len(xs) // 2]:.2f} ms, p95 {1000 * xs[int(len(xs) * 0.95)]:.2f} ms "
        f"(n={len(xs)})"
    )


def _vec(rng: random.Random) -> list[float]:
    return [rng.uniform(-1, 1) for _ in range(DIM)]


def _records(prefix: str, n: int, seed: int) -> list[Node]:
    rng = random.Random(seed)
    return [
        Node(
            f"{prefix}{i}",
            text=f"word{rng.randrange(5000)} word{rng.randrange(5000)} {prefix}",
            embedding=_vec(rng),
        )
        for i in range(n)
    ]


# ---------------------------------------------------------------------------- handover


def _ping_pong(path: str, me: int, rounds: int, turn: mp.Value, out: mp.Queue) -> None:  # type: ignore[type-arg]
    store = Store.open(path)
    lat = []
    for r in range(rounds):
        while turn.value != me:  # wait for the other's commit: every write needs a handover
            time.sleep(0.0002)
        began = time.perf_counter()
        store.upsert_nodes([Node(f"p{me}-{r}", text="ping pong")])
        lat.append(time.perf_counter() - began)
        turn.value = 1 - me
    store.close()
    out.put(lat)


def bench_handover(tmp: str, rounds: int) -> None:
    path = os.path.join(tmp, "pingpong.duckdb")
    Store.open(path).close()
    with Store.open(path) as alone:
        solo = []
        for r in range(rounds):
            began = time.perf_counter()
            alone.upsert_nodes([Node(f"solo-{r}", text="ping pong")])
            solo.append(time.perf_counter() - began)
    turn, out = mp.Value("i", 0), mp.Queue()
    procs = [mp.Process(target=_ping_pong, args=(path, me, rounds, turn, out)) for me in (0, 1)]
    for p in procs:
        p.start()
    lat = out.get() + out.get()
    for p in procs:
        p.join()
    print(f"single-record write, alone:            {pct(solo)}")
    print(f"single-record write, needing a handover: {pct(lat)}")


# -------------------------------------------------------------------------- throughput


def _writer(path: str, w: int, seconds: float, ready: Any, out: mp.Queue) -> None:  # type: ignore[type-arg]
    store = Store.open(path)
    store.count_nodes()
    ready.wait()  # every writer has started and opened the file: measure from here
    deadline = time.monotonic() + seconds
    j = written = 0
    while time.monotonic() < deadline:
        store.upsert_nodes(_records(f"w{w}b{j}-", 10, seed=w * 100000 + j))
        written += 10
        j += 1
    store.close()
    out.put(written)


def bench_throughput(tmp: str, seconds: float) -> None:
    for writers in (1, 2, 4):
        path = os.path.join(tmp, f"tp{writers}.duckdb")
        Store.open(path).close()
        out: mp.Queue = mp.Queue()  # type: ignore[type-arg]
        ready = mp.Barrier(writers)
        procs = [
            mp.Process(target=_writer, args=(path, w, seconds, ready, out)) for w in range(writers)
        ]
        for p in procs:
            p.start()
        total = sum(out.get() for _ in procs)
        for p in procs:
            p.join()
        print(
            f"{writers} writing process(es), batches of 10: {total / seconds:,.0f} records/s in all"
        )


# ---------------------------------------------------------------------------- catch-up


def _write_more(path: str, n: int) -> None:
    with Store.open(path) as other:
        other.upsert_nodes(_records("late", n, seed=7))


def bench_catch_up(tmp: str, records: int) -> None:
    path = os.path.join(tmp, "big.duckdb")
    with Store.open(path) as s:
        for start in range(0, records, 10000):
            s.upsert_nodes(_records(f"r{start}-", min(10000, records - start), seed=start))
    store = Store.open(path)
    store.search_text("word1")  # build both indexes
    store.search_vector(_vec(random.Random(1)))
    rounds = []
    for _ in range(3):
        p = mp.Process(target=_write_more, args=(path, 1000))
        p.start()
        p.join()
        began = time.perf_counter()
        store.get_node("r0-0")  # the next operation takes the file back and catches up
        rounds.append(time.perf_counter() - began)
        assert [h.id for h in store.search_text("late", k=1)]  # the index has the new records
    began = time.perf_counter()
    store.indexes.forget()
    store.search_text("word1")
    store.search_vector(_vec(random.Random(1)))
    reload = time.perf_counter() - began
    store.close()
    print(
        f"catch-up after 1,000 records written by another process into {records:,}: "
        f"{pct(rounds)}; full index rebuild: {reload * 1000:.0f} ms "
        f"({reload / sorted(rounds)[len(rounds) // 2]:.0f}x the catch-up)"
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--records", type=int, default=100_000)
    ap.add_argument("--seconds", type=float, default=5.0)
    ap.add_argument("--rounds", type=int, default=200)
    args = ap.parse_args()
    print(provenance())
    mp.set_start_method("spawn")
    with tempfile.TemporaryDirectory() as tmp:
        bench_handover(tmp, args.rounds)
        bench_throughput(tmp, args.seconds)
        bench_catch_up(tmp, args.records)


if __name__ == "__main__":
    main()
