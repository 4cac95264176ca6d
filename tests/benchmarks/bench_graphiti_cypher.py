"""Issue 42 point 3: user-style Cypher through Graphiti, anatid against FalkorDB Lite, same run.

One memory is built through Graphiti's own bulk path (``add_nodes_and_edges_bulk``; fixed
seeds, no LLM) at each size of ``--sizes`` (facts: 1k, 10k, 100k), loaded into anatid
(``GraphitiDriver``) and into FalkorDB Lite (Graphiti's ``FalkorDriver``), each in its own worker
process (one ingest after the other; the next size waits for the index builder anatid's
writer starts as it closes, which would share the cores with it). Then eight queries a Graphiti user would write against
Graphiti's schema run through ``driver.execute_query(query, **params)`` on each: one warm-up,
p50/p95 over ``--repeat`` calls, parameters rotated (groups, entity uuids, dates). Both
workers hold their memory at once and take turns query by query (who goes first alternates),
so that a slow phase of a shared machine falls on both alike (with one worker's whole run
after the other's, the ratio of one query moved 1.0 -> 1.9 between two runs of one commit).
The ratio anatid/FalkorDB is printed per query per size (below 1: anatid is faster), and the
answers are compared between the two.

    python tests/benchmarks/bench_graphiti_cypher.py --sizes 1k 10k      # ~3 min
    python tests/benchmarks/bench_graphiti_cypher.py --sizes 100k        # FalkorDB's ingest: long

The data: ``facts`` RELATES_TO edges between ``0.3 * facts`` entities (labels Entity and Person
or Org) spread over ten groups, a fact only between entities of its group; one in five facts
is invalidated (``invalid_at`` set); one episode per twenty facts, MENTIONS five entities.
Embeddings are 16-dimension unit vectors (no query here reads them).

How answers are compared (DIFFERENCES.md of ``tests/core/cypher`` lists where FalkorDB departs
from openCypher; the queries are written where the two agree):

* a query with ORDER BY on a total order: equal rows in equal order;
* without: equal as multisets;
* a LIMIT without ORDER BY may return any rows: the worker also runs the query without its
  LIMIT, those full answers must be equal, and each LIMIT answer must have the same length and
  be a sub-multiset of the full one;
* no range comparison on a date: FalkorDB answers ``r.valid_at < $before`` wrongly where
  Graphiti's FalkorDriver has indexed ``valid_at`` (DIFFERENCES.md: a range comparison on an
  indexed string property), so the ORDER BY query has none;
* ``*1..3``: FalkorDB misses variable-length paths (DIFFERENCES.md), so the query asks for
  distinct endpoints other than the start, where walks and trails reach the same nodes; the
  2-hop query likewise (FalkorDB binds one relationship twice in a pattern).

Dates: Graphiti stores them as datetimes in anatid and as ISO strings in FalkorDB (its driver
turns datetime parameters into ISO strings); answers are compared as ISO strings in UTC.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import random
import subprocess
import sys
import tempfile
import time
import uuid as uuidlib
from collections import Counter
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))
GROUPS = [f"g{i}" for i in range(10)]
DIM = 16
BATCHES = 10
SIZES = {"1k": 1_000, "10k": 10_000, "100k": 100_000}
T0 = datetime(2024, 1, 1, tzinfo=timezone.utc)

#: name -> (query, how its answer compares: "ordered", "multiset" or "limit").
QUERIES: dict[str, tuple[str, str]] = {
    "entities of a group": (
        "MATCH (n:Entity) WHERE n.group_id = $group_id RETURN n.uuid AS uuid, n.name AS name",
        "multiset",
    ),
    "facts per entity, top 10": (
        "MATCH (n:Entity {group_id: $group_id})-[r:RELATES_TO]-(:Entity) "
        "RETURN n.uuid AS uuid, count(r) AS facts ORDER BY facts DESC, uuid LIMIT 10",
        "ordered",
    ),
    "an entity's current facts": (
        "MATCH (n:Entity {uuid: $uuid})-[r:RELATES_TO]-(m:Entity) "
        "WHERE r.invalid_at IS NULL AND r.expired_at IS NULL "
        "RETURN r.uuid AS uuid, r.fact AS fact, m.name AS other",
        "multiset",
    ),
    "2-hop neighbours": (
        "MATCH (n:Entity {uuid: $uuid})-[:RELATES_TO]-(:Entity)-[:RELATES_TO]-(m:Entity) "
        "WHERE m.uuid <> n.uuid RETURN DISTINCT m.uuid AS uuid",
        "multiset",
    ),
    "*1..3 with LIMIT": (
        "MATCH (n:Entity {uuid: $uuid})-[:RELATES_TO*1..3]-(m:Entity) "
        "WHERE m.uuid <> n.uuid RETURN DISTINCT m.uuid AS uuid LIMIT 20",
        "limit",
    ),
    "filtered LIMIT 10": (
        "MATCH (n:Entity)-[r:RELATES_TO]->(m:Entity) "
        "WHERE r.group_id = $group_id AND r.invalid_at IS NULL AND n.name STARTS WITH $prefix "
        "RETURN n.name AS source, r.fact AS fact, m.name AS target LIMIT 10",
        "limit",
    ),
    "count by label": (
        "MATCH (n:Entity) WHERE n.group_id = $group_id "
        "UNWIND labels(n) AS label RETURN label, count(*) AS count ORDER BY label",
        "ordered",
    ),
    "ORDER BY a date with LIMIT": (
        "MATCH (:Entity)-[r:RELATES_TO]->(:Entity) WHERE r.group_id = $group_id "
        "RETURN r.uuid AS uuid, r.valid_at AS valid_at "
        "ORDER BY r.valid_at DESC, uuid LIMIT 10",
        "ordered",
    ),
    # What an agent exploring a memory asks (MCP query_graph, Cognee's CYPHER search): not in
    # issue 42's list; stop 64 planned them.
    "relationships by type": (
        "MATCH ()-[r]->() RETURN type(r) AS type, count(*) AS n ORDER BY type",
        "ordered",
    ),
    "facts at either end": (
        "MATCH (a:Entity)-[r:RELATES_TO]->(b:Entity) WHERE a.uuid = $uuid OR b.uuid = $uuid "
        "RETURN r.uuid AS uuid",
        "multiset",
    ),
    "entities named in an OR chain": (
        "MATCH (n:Entity) WHERE n.name = $name1 OR n.name = $name2 OR n.name = $name3 "
        "RETURN n.uuid AS uuid",
        "multiset",
    ),
}


# ------------------------------------------------------------------------------------- data


def make_data(n_facts: int, seed: int = 42) -> dict[str, Any]:
    """Graphiti's objects for one memory of ``n_facts`` facts, the same in every worker."""
    import numpy as np
    from graphiti_core.edges import EntityEdge, EpisodicEdge
    from graphiti_core.nodes import EntityNode, EpisodeType, EpisodicNode

    rng = random.Random(seed)
    vectors = np.random.default_rng(seed)

    def uid() -> str:
        return str(uuidlib.UUID(int=rng.getrandbits(128), version=4))

    def unit() -> list[float]:
        v = vectors.standard_normal(DIM).astype(np.float32)
        return (v / np.linalg.norm(v)).tolist()

    words = [f"w{i:03d}" for i in range(200)]
    n_ent = max(20, int(n_facts * 0.3))
    entities = [
        EntityNode(
            uuid=uid(),
            name=f"{rng.choice('ABCDEFGH')}{i} {rng.choice(words)}",
            group_id=GROUPS[i % len(GROUPS)],
            labels=["Entity", rng.choice(["Person", "Org"])],
            summary=" ".join(rng.choices(words, k=6)),
            created_at=T0,
            name_embedding=unit(),
        )
        for i in range(n_ent)
    ]
    by_group = {g: [e for e in entities if e.group_id == g] for g in GROUPS}
    n_ep = max(1, n_facts // 20)
    episodes = [
        EpisodicNode(
            uuid=uid(),
            name=f"episode {i}",
            group_id=GROUPS[i % len(GROUPS)],
            source=EpisodeType.text,
            source_description="bench",
            content=" ".join(rng.choices(words, k=20)),
            valid_at=T0 + timedelta(minutes=i),
            created_at=T0 + timedelta(minutes=i),
        )
        for i in range(n_ep)
    ]
    facts = []
    for i in range(n_facts):
        group = GROUPS[i % len(GROUPS)]
        a, b = rng.sample(by_group[group][: written_by(i, n_facts, len(by_group[group]))], 2)
        valid = T0 + timedelta(days=rng.randrange(365), seconds=i)  # distinct: a total order
        invalid = valid + timedelta(days=30) if rng.random() < 0.2 else None
        facts.append(
            EntityEdge(
                uuid=uid(),
                source_node_uuid=a.uuid,
                target_node_uuid=b.uuid,
                group_id=group,
                name="RELATES_TO",
                fact=f"{a.name} relates to {b.name} " + " ".join(rng.choices(words, k=4)),
                fact_embedding=unit(),
                episodes=[episodes[rng.randrange(n_ep)].uuid],
                created_at=T0,
                valid_at=valid,
                invalid_at=invalid,
            )
        )
    mentions = []
    for i, ep in enumerate(episodes):
        pool = by_group[ep.group_id][: written_by(i, n_ep, len(by_group[ep.group_id]))]
        for e in rng.sample(pool, min(5, len(pool))):
            mentions.append(
                EpisodicEdge(
                    uuid=uid(),
                    source_node_uuid=ep.uuid,
                    target_node_uuid=e.uuid,
                    group_id=ep.group_id,
                    created_at=ep.created_at,
                )
            )
    return {"entities": entities, "episodes": episodes, "facts": facts, "mentions": mentions}


def written_by(position: int, n_items: int, n_entities: int) -> int:
    """How many of a group's entities are stored once the batch holding item ``position`` is
    (Graphiti's bulk save skips an edge whose end is not stored yet)."""
    batch = position // -(-n_items // BATCHES)
    return max(2, min(n_entities, (batch + 1) * -(-n_entities // BATCHES)))


def params_for(data: dict[str, Any], name: str, i: int) -> dict[str, Any]:
    """The parameters of call ``i`` of query ``name``: rotated, the same in every worker."""
    rng = random.Random(f"{name}/{i}")
    entities = data["entities"]
    group = GROUPS[i % len(GROUPS)]
    return {
        "group_id": group,
        "uuid": entities[rng.randrange(len(entities))].uuid,
        "prefix": rng.choice("ABCDEFGH"),
        **{f"name{k}": entities[rng.randrange(len(entities))].name for k in (1, 2, 3)},
    }


# ---------------------------------------------------------------------------------- worker


async def open_driver(backend: str, path: str) -> Any:
    if backend == "anatid":
        sys.path[:0] = [str(REPO), str(REPO / "drivers")]
        from anatid_graphiti import GraphitiDriver

        from anatid_core import SETTINGS

        limit = os.environ.get("ANATID_BENCH_RECORDS_LIMIT")
        if limit:  # the in-memory current records' bound (default 500,000 a kind)
            SETTINGS["current_records_limit"] = int(limit)
        return GraphitiDriver(path)
    import warnings

    warnings.simplefilter("ignore", DeprecationWarning)
    from tests.benchmarks import _falkordb

    return await _falkordb.open_driver(path, "bench")


def used_params(query: str, params: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in params.items() if f"${k}" in query}


def plain(value: Any) -> Any:
    """An answer's value as JSON: dates as ISO strings in UTC, lists walked."""
    if isinstance(value, datetime):
        return value.astimezone(timezone.utc).isoformat()
    if isinstance(value, str) and len(value) >= 19 and value[4] == "-" and value[10] == "T":
        try:
            return datetime.fromisoformat(value).astimezone(timezone.utc).isoformat()
        except ValueError:
            return value
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    return value


async def ingest(backend: str, size: str) -> tuple[Any, dict[str, Any], dict[str, Any]]:
    """A fresh memory of ``size`` built through Graphiti's bulk path: (driver, data, info)."""
    os.environ["GRAPHITI_TELEMETRY_ENABLED"] = "false"
    from graphiti_core.utils.bulk_utils import add_nodes_and_edges_bulk

    from tests.graphiti.fakes import FakeEmbedder

    data = make_data(SIZES[size])
    path = os.path.join(tempfile.mkdtemp(prefix=f"bench-gcypher-{backend}-"), "graph.db")
    driver = await open_driver(backend, path)
    parts = {k: _batches(data[k]) for k in ("episodes", "mentions", "entities", "facts")}
    t = time.perf_counter()
    for i in range(BATCHES):
        await add_nodes_and_edges_bulk(
            driver,
            parts["episodes"][i],
            parts["mentions"][i],
            parts["entities"][i],
            parts["facts"][i],
            FakeEmbedder(DIM),
        )
    rows = sum(len(data[k]) for k in parts)
    return driver, data, {"ingest_s": time.perf_counter() - t, "rows": rows, "path": path}


async def call(driver: Any, query: str, params: dict[str, Any]) -> tuple[list[Any], list[str]]:
    """The driver's records and column names, as Graphiti's ``execute_query`` gives them."""
    # FalkorDriver answers (records, keys, None), GraphitiDriver (records, None, keys)
    records, header, keys = await driver.execute_query(query, **used_params(query, params))
    return records, header or keys or []


def rows_of(records: list[Any], keys: list[str]) -> list[list[Any]]:
    """The records as plain JSON rows, to compare the backends' answers."""
    return [[plain(r[k]) for k in keys] for r in records]


async def ask(driver: Any, query: str, params: dict[str, Any]) -> list[list[Any]]:
    return rows_of(*await call(driver, query, params))


async def close(backend: str, driver: Any) -> None:
    if backend == "anatid":
        await driver.close()
    else:
        from tests.benchmarks import _falkordb

        await _falkordb.save_and_stop(driver)


#: What starts a worker's line to the coordinator.
REPLY = "@@ "


async def serve(backend: str, size: str) -> None:
    """The worker: ingest, say so (a JSON line), then run each call the coordinator asks for
    (a JSON line ``[name, i, unlimited]``) and answer its time and rows, until ``stop``."""
    driver, data, info = await ingest(backend, size)
    print(REPLY + json.dumps(info), flush=True)
    for line in sys.stdin:
        if line.strip() == "stop":
            break
        name, i, unlimited = json.loads(line)
        query = QUERIES[name][0]
        if unlimited:
            query = query.rsplit(" LIMIT ", 1)[0]
        params = params_for(data, name, i)
        t = time.perf_counter()  # the driver's call alone: not the conversion to compare
        answer = await call(driver, query, params)
        ms = (time.perf_counter() - t) * 1000
        got = rows_of(*answer)
        print(REPLY + json.dumps({"ms": ms, "rows": got}), flush=True)
    await close(backend, driver)


def _batches(items: list[Any]) -> list[list[Any]]:
    k = -(-len(items) // BATCHES)
    return [items[i : i + k] for i in range(0, len(items), k)] + [[]] * BATCHES


# ---------------------------------------------------------------------------------- compare


def same(how: str, ours: list[Any], theirs: list[Any]) -> bool:
    if how == "ordered":
        return ours == theirs
    return Counter(map(json.dumps, ours)) == Counter(map(json.dumps, theirs))


def agree(name: str, anatid: dict[str, Any], falkor: dict[str, Any]) -> str:
    """'yes', or what differs, for the answers to the first five calls of ``name``."""
    how = QUERIES[name][1]
    if how != "limit":
        pairs = zip(anatid["answers"], falkor["answers"], strict=True)
        bad = [i for i, (a, f) in enumerate(pairs) if not same(how, a, f)]
        return "yes" if not bad else f"NO (calls {bad})"
    limit = int(QUERIES[name][0].rsplit(" LIMIT ", 1)[1])
    for i, (a_full, f_full) in enumerate(zip(anatid["full"], falkor["full"], strict=True)):
        if not same("multiset", a_full, f_full):
            return f"NO (call {i} without its LIMIT)"
        whole = Counter(map(json.dumps, a_full))
        for answer in (anatid["answers"][i], falkor["answers"][i]):
            part = Counter(map(json.dumps, answer))
            if part - whole or len(answer) != min(limit, len(a_full)):
                return f"NO (call {i} with its LIMIT)"
    return "yes (LIMIT: subsets of equal full answers)"


# ---------------------------------------------------------------------------------- driver


class Worker:
    """A worker process holding one backend's memory, asked one call at a time."""

    def __init__(self, python: str, backend: str, size: str) -> None:
        self.backend = backend
        self.proc = subprocess.Popen(
            [python, __file__, "--worker", backend, "--sizes", size],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        self.info: dict[str, Any] = self._reply()

    def call(self, name: str, i: int, unlimited: bool = False) -> dict[str, Any]:
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps([name, i, unlimited]) + "\n")
        self.proc.stdin.flush()
        return self._reply()

    def stop(self) -> None:
        if self.proc.poll() is None:
            assert self.proc.stdin is not None
            try:
                self.proc.stdin.write("stop\n")
                self.proc.stdin.close()
                self.proc.wait(300)
            except (OSError, subprocess.TimeoutExpired):
                self.proc.kill()
                self.proc.wait()

    def _reply(self) -> dict[str, Any]:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:  # (a library's own print is passed over)
            if line.startswith(REPLY):
                return json.loads(line[len(REPLY) :])
        raise SystemExit(f"the {self.backend} worker stopped (exit {self.proc.wait()})")


def measure(workers: list[Worker], repeat: int) -> list[dict[str, Any]]:
    """Every query's calls, a query at a time: each worker makes its warm-up and ``repeat``
    calls in a row, the workers one after the other (who goes first alternates from query to
    query), so that a slow phase of a shared machine falls on both sides alike and each
    worker's calls follow one another, as a server's do (calls taking turns one by one leave
    each side's caches cold for the next call, which back-to-back calls do not see). Per worker, per
    query: p50/p95 of the ``repeat`` calls, the first five answers and, for a LIMIT without
    ORDER BY, five answers without the LIMIT."""
    out: list[dict[str, Any]] = [{"queries": {}} for _ in workers]
    for turn, (name, (_, how)) in enumerate(QUERIES.items()):
        order = list(enumerate(workers))
        for at, worker in order if turn % 2 == 0 else reversed(order):
            ms: list[float] = []
            answers: list[Any] = []
            for i in range(repeat + 1):  # call 0 is the warm-up
                got = worker.call(name, i)
                if i:
                    ms.append(got["ms"])
                if i < 5:
                    answers.append(got["rows"])
            full = [worker.call(name, i, True)["rows"] for i in range(5)] if how == "limit" else []
            ms.sort()
            out[at]["queries"][name] = {
                "p50": ms[len(ms) // 2],
                "p95": ms[min(len(ms) - 1, int(len(ms) * 0.95))],
                "answers": answers,
                "full": full,
            }
    return out


def load_average() -> str:
    try:
        return Path("/proc/loadavg").read_text().split()[0]
    except OSError:
        return "?"


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--sizes", nargs="+", choices=sorted(SIZES), default=["1k", "10k"])
    parser.add_argument("--repeat", type=int, default=30)
    parser.add_argument("--falkordb-python", help="FalkorDB Lite's interpreter")
    parser.add_argument(
        "--records-limit",
        type=int,
        help="anatid's SETTINGS['current_records_limit'] (default 500,000 records a kind; "
        "below 125,000 the edges of 100k facts are over it and edge reads go to SQL)",
    )
    parser.add_argument(
        "--skip-falkordb",
        action="store_true",
        help="anatid only (profiling); no ratios, no answers compared",
    )
    parser.add_argument("--worker", choices=["anatid", "falkordb"], help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.records_limit is not None:
        os.environ["ANATID_BENCH_RECORDS_LIMIT"] = str(args.records_limit)
    if args.worker:
        asyncio.run(serve(args.worker, args.sizes[0]))
        return
    from tests.benchmarks import _falkordb

    falkor_python = None if args.skip_falkordb else args.falkordb_python or _falkordb.venv_python()
    commit = subprocess.run(
        ["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"],
        capture_output=True,
        text=True,
        check=False,
    ).stdout.strip()
    print(
        f"commit {commit}, python {platform.python_version()}, {os.cpu_count()} cores, "
        f"repeat {args.repeat}; ratio = anatid p50 / FalkorDB Lite p50 (below 1: anatid faster)"
    )
    for size in args.sizes:
        loads = [load_average()]
        workers = [Worker(sys.executable, "anatid", size)]
        try:
            loads.append(load_average())
            if falkor_python is not None:  # its ingest after anatid's: each alone on the cores
                workers.append(Worker(falkor_python, "falkordb", size))
                loads.append(load_average())
            measured = measure(workers, args.repeat)
        finally:
            for worker in workers:
                worker.stop()
        # the index builder anatid's writer started as it closed (issue 41: the embeddings'
        # index) must not share the cores with the next size's ingest and calls
        from tests.benchmarks._measure import wait_for_index_builder

        wait_for_index_builder(workers[0].info["path"])
        loads.append(load_average())
        ours = {**workers[0].info, **measured[0]}
        if falkor_python is None:
            print(f"\n{size} facts ({ours['rows']:,} rows), anatid only\n")
            for name in QUERIES:
                a = ours["queries"][name]
                print(f"| {name} | {a['p50']:.2f} / {a['p95']:.2f} ms |", flush=True)
            continue
        theirs = {**workers[1].info, **measured[1]}
        print(
            f"\n{size} facts ({ours['rows']:,} rows): ingest anatid {ours['ingest_s']:.1f} s, "
            f"FalkorDB Lite {theirs['ingest_s']:.1f} s; load average before, after each ingest, "
            f"after the calls: {' -> '.join(loads)}\n"
        )
        print("| query | anatid p50 / p95 | FalkorDB Lite p50 / p95 | ratio | equal answers |")
        print("|---|---|---|---|---|")
        for name in QUERIES:
            a, f = ours["queries"][name], theirs["queries"][name]
            print(
                f"| {name} | {a['p50']:.2f} / {a['p95']:.2f} ms | {f['p50']:.2f} / "
                f"{f['p95']:.2f} ms | {a['p50'] / f['p50']:.2f} | {agree(name, a, f)} |",
                flush=True,
            )


if __name__ == "__main__":
    main()
