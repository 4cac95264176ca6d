"""A real store file, built once per test module, and a runner for the ``anatid`` command."""

from __future__ import annotations

import subprocess
import sys
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

import pytest

from anatid_core import Edge, Node, Store

T0 = datetime(2024, 1, 1, tzinfo=timezone.utc)
T1 = datetime(2024, 6, 1, tzinfo=timezone.utc)


@dataclass
class Result:
    code: int
    out: str
    err: str


def anatid(*args: str | Path, timeout: float = 120) -> Result:
    """Run the command line in a fresh interpreter, as a user would."""
    proc = subprocess.run(
        [sys.executable, "-m", "anatid_core.cli", *map(str, args)],
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    return Result(proc.returncode, proc.stdout, proc.stderr)


@dataclass
class Seeded:
    path: Path
    before_update: str  # an instant (ISO) after the first writes, before Alice changed jobs


def build(path: Path) -> Seeded:
    """Alice works at Acme, then moves to Globex (the old fact closed in valid time); Bob is
    deleted. Five nodes were ever stored; four are current."""
    with Store.open(path) as s:
        s.upsert_nodes(
            [
                Node(
                    "alice",
                    group="g1",
                    labels=("Person",),
                    name="Alice",
                    text="Alice works at Acme",
                    embedding=[1.0, 0.0, 0.0],
                    props={"age": 31, "since": T0},
                ),
                Node(
                    "bob",
                    group="g1",
                    labels=("Person",),
                    name="Bob",
                    text="Bob likes coffee",
                    embedding=[0.0, 1.0, 0.0],
                ),
                Node(
                    "acme",
                    group="g1",
                    labels=("Company",),
                    name="Acme",
                    text="Acme sells anvils",
                    embedding=[0.7, 0.7, 0.0],
                ),
                Node(
                    "paris",
                    group="g2",
                    labels=("City",),
                    name="Paris",
                    text="a city",
                    embedding=[0.0, 0.0, 1.0],
                ),
            ]
        )
        s.upsert_edges(
            [
                Edge("e-knows", "alice", "bob", "KNOWS", group="g1", text="Alice knows Bob"),
                Edge(
                    "e-acme",
                    "alice",
                    "acme",
                    "WORKS_AT",
                    group="g1",
                    text="Alice works at Acme",
                    valid_from=T0,
                ),
                Edge("e-paris", "acme", "paris", "LOCATED_IN", group="g2", text="Acme is in Paris"),
            ]
        )
        stamp = max(v.tx_from for v in s.versions("edge") if v.tx_from is not None)
        s.upsert_nodes(
            [
                Node(
                    "globex",
                    group="g1",
                    labels=("Company",),
                    name="Globex",
                    text="Globex <b>makes</b> </script> things",
                    embedding=[0.6, 0.0, 0.8],
                )
            ]
        )
        s.close_edges(["e-acme"], valid_to=T1)
        s.upsert_edges(
            [
                Edge(
                    "e-globex",
                    "alice",
                    "globex",
                    "WORKS_AT",
                    group="g1",
                    text="Alice works at Globex",
                    valid_from=T1,
                )
            ]
        )
        s.upsert_nodes(
            [
                Node(
                    "alice",
                    group="g1",
                    labels=("Person",),
                    name="Alice Smith",
                    text="Alice works at Globex",
                    embedding=[1.0, 0.0, 0.0],
                )
            ]
        )
        s.delete_nodes(["bob"])
    return Seeded(path, stamp.isoformat())


@pytest.fixture(scope="module")
def seeded(tmp_path_factory: pytest.TempPathFactory) -> Seeded:
    return build(tmp_path_factory.mktemp("cli") / "memory.duckdb")
