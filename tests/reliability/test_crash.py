"""Crash safety: writers are SIGKILLed at random moments; nothing committed is lost, nothing
uncommitted is visible, the search arms agree with the rows and ``check()`` is clean.

Per workload, one fork server imports the frameworks once; each round forks a writer that goes
on from the last committed operation, lets it commit for a random while (or kills it early,
while it opens and recovers the file), SIGKILLs it, then reopens the file in a fresh process and
compares it with the model (``verify.py``). Every other round makes DuckDB checkpoint every few
transactions, so kills also land inside checkpoints. Sizes: ``conftest.SIZES``.
"""

from __future__ import annotations

import random
import signal
import time
from pathlib import Path

import pytest

from .conftest import SIZES
from .harness import ForkServer, kill, log_length, wait_for_growth


def crash_rounds(
    server: ForkServer, workload: str, kills: int, tmp_path: Path, seed: int
) -> dict[str, int]:
    rng = random.Random(seed)
    path, log, err = tmp_path / "store.duckdb", tmp_path / "commits.log", tmp_path / "writer.err"
    committed = 0
    counts = {"kills": 0, "early_kills": 0, "in_flight_committed": 0, "operations": 0}
    for round_ in range(kills):
        size = log_length(log)
        reply = server.send(
            cmd="write",
            seed=seed,
            path=str(path),
            log=str(log),
            start=committed,
            err=str(err),
            checkpoints=round_ % 2 == 1,
        )
        pid = reply["pid"]
        if rng.random() < 0.2:
            time.sleep(rng.uniform(0.0, 0.3))  # may land while the file opens and recovers
            counts["early_kills"] += 1
        else:
            assert wait_for_growth(log, size, err), (
                f"writer made no commit: {err.read_text() if err.exists() else ''}"
                f"{server.stderr_tail()}"
            )
            time.sleep(rng.uniform(0.0, 0.25))
        kill(pid)
        ended = server.send(cmd="reap", pid=pid)
        assert ended == {"signal": signal.SIGKILL}, (ended, err.read_text() if err.exists() else "")
        counts["kills"] += 1
        found = server.send(
            cmd="verify", seed=seed, path=str(path), log=str(log), sample=SIZES["arm_samples"]
        )
        assert found.get("ok"), found.get("error")
        result = found["result"]
        assert result["problems"] == [], (round_, result)
        counts["in_flight_committed"] += result["committed"] == result["logged"] + 1
        committed = result["committed"]
        if (round_ + 1) % 50 == 0:  # progress for the long setting (visible with -s)
            print(f"\n{workload}: {round_ + 1} kills verified, {committed} operations", flush=True)
    counts["operations"] = committed
    return counts


@pytest.mark.parametrize("workload", ["core", "graphiti", "cognee"])
def test_sigkilled_writers_lose_no_commit_and_show_no_partial_one(workload, servers, tmp_path):
    counts = crash_rounds(
        servers[workload],
        workload,
        SIZES[f"kills_{workload}"],
        tmp_path,
        seed=sum(map(ord, workload)),
    )
    print(f"\n{workload}: {counts}")
    assert counts["kills"] == SIZES[f"kills_{workload}"]
    assert counts["operations"] > counts["kills"] // 2  # the writers did get work done
