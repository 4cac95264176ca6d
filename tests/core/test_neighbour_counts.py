"""``neighbour_counts``: per node, its edges to visible nodes counted by (rel, far labels), as
counted from ``edges_of`` and the far nodes' records; from the in-memory current records, from
SQL past their bound, and as of a past instant (issue 42's pattern counts read it)."""

from __future__ import annotations

import random
from collections import Counter
from datetime import datetime, timezone
from pathlib import Path
from typing import NoReturn

import pytest

from anatid_core import SETTINGS, Edge, InvalidInput, Node, Store
from anatid_core.base.deadlines import running_until
from anatid_core.indexes import neighbour_tallies

IDS = [f"n{i}" for i in range(20)]


def fill(store: Store) -> None:
    rng = random.Random(7)
    labels = [("A",), ("B",), ("A", "B"), ()]
    store.upsert_nodes([Node(i, labels=rng.choice(labels), name=i) for i in IDS])
    edges = [Edge(f"e{k}", rng.choice(IDS), rng.choice(IDS), rng.choice("RS")) for k in range(90)]
    edges += [
        Edge("loop", "n1", "n1", "R"),
        Edge("p1", "n2", "n3", "R"),
        Edge("p2", "n2", "n3", "R"),
    ]
    store.upsert_edges(edges)


def expected(reader: Store, ids: list[str], direction: str, rels: list[str] | None) -> dict:
    """The counts from the edges of each node, one at a time, and the far nodes' records."""
    labels = {n.id: tuple(n.labels) for n in reader.get_nodes([*IDS, "new"])}
    out = {}
    for near in ids:
        tally: Counter[tuple[str, tuple[str, ...]]] = Counter()
        for e in reader.edges_of([near], direction=direction, rels=rels):  # type: ignore[arg-type]
            far = e.dst if e.src == near else e.src
            if far in labels:
                tally[(e.rel, labels[far])] += 1
        if tally:
            out[near] = dict(tally)
    return out


@pytest.fixture
def store(tmp_path: Path):
    s = Store.open(tmp_path / "counts.duckdb")
    fill(s)
    yield s
    s.close()


CASES = [("both", None), ("out", None), ("in", ["R"]), ("both", ["S"]), ("both", ["R", "S"])]


@pytest.mark.parametrize("limit", [None, 0], ids=["in memory", "by SQL"])
def test_counts_are_those_of_the_edges_and_far_records(
    store: Store, limit: int | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    if limit is not None:
        monkeypatch.setitem(SETTINGS, "current_records_limit", limit)
        store.indexes.current.forget()
    ids = ["n1", "n2", "n3", "n4", "n9", "n2", "nobody"]  # a repeat, an unknown id
    for direction, rels in CASES:
        got = store.neighbour_counts(ids, direction=direction, rels=rels)  # type: ignore[arg-type]
        assert got == expected(store, list(dict.fromkeys(ids)), direction, rels)
    loop = store.neighbour_counts(["n1"], direction="both", rels=["R"])["n1"]
    assert sum(loop.values()) == len(store.edges_of(["n1"], rels=["R"]))  # the loop once


def test_a_deleted_node_is_not_counted_now_but_is_as_of_before(store: Store) -> None:
    before = store.neighbour_counts(IDS)
    instant = datetime.now(timezone.utc)
    far = next(e.dst for e in store.edges_of(["n2"], direction="out") if e.dst != "n2")
    store.delete_nodes([far])  # and its edges
    now = store.neighbour_counts(IDS)
    assert now == expected(store, IDS, "both", None)
    assert now != before
    assert store.as_of(instant).neighbour_counts(IDS) == before


def test_bad_arguments_are_invalid_input(store: Store) -> None:
    with pytest.raises(InvalidInput):
        store.neighbour_counts(["n1"], direction="sideways")  # type: ignore[arg-type]
    with pytest.raises(InvalidInput):
        store.neighbour_counts("n1")
    for verb in (store.neighbour_counts, store.edge_ends, store.edges_of):
        with pytest.raises(InvalidInput, match="rels must be a list"):
            verb(["n1"], rels=7)  # type: ignore[arg-type]
    assert store.neighbour_counts([]) == {}


def test_counts_kept_in_memory_follow_each_change(store: Store) -> None:
    """Once counted, the in-memory tallies are right after each kind of change: a far node's
    labels, an edge added, re-typed, moved to other ends and deleted, a node added and deleted."""

    def check() -> None:
        for direction, rels in CASES:
            got = store.neighbour_counts(IDS + ["new"], direction=direction, rels=rels)  # type: ignore[arg-type]
            assert got == expected(store, IDS + ["new"], direction, rels), (direction, rels)

    check()  # counted
    far = next(e.dst for e in store.edges_of(["n4"], direction="out") if e.dst != "n4")
    store.upsert_nodes([Node(far, labels=("C",), name=far)])  # relabelled
    check()
    store.upsert_nodes([Node("new", labels=("A",), name="new")])
    store.upsert_edges([Edge("x1", "new", "n4", "R"), Edge("x2", "n5", "n5", "S")])
    check()
    store.upsert_edges([Edge("x1", "new", "n4", "S"), Edge("e3", "n6", "new", "R")])
    check()
    store.delete_edges(["x2", "p1"])
    check()
    store.delete_nodes(["new"])
    check()


class _Looks:
    """A deadline that passes after ``looks`` looks at it."""

    def __init__(self, looks: int) -> None:
        self.looks = looks

    def remaining(self) -> float:
        self.looks -= 1
        return 1.0 if self.looks >= 0 else 0.0

    def expire(self) -> NoReturn:
        raise AssertionError("the count raises nothing: it stops")


def test_a_first_count_stopped_by_a_deadline_goes_on_and_stays_right(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The first count of every node's tally stops at the deadline of the operation that asked
    (0.4 s at 125k edges): the counts it answers meanwhile are right, writes meanwhile are
    followed, and the next calls go on from where it stopped."""
    monkeypatch.setattr(neighbour_tallies, "_CHUNK", 3)
    store.edge_ends(IDS)  # the records in memory (their own build is another test's)
    store.find_nodes()
    view = store.indexes.current.loaded("edge")
    assert view is not None and view.tallies is not None

    def check() -> None:
        for direction, rels in CASES:
            with running_until(_Looks(2)):  # two chunks a call
                got = store.neighbour_counts(IDS + ["new"], direction=direction, rels=rels)  # type: ignore[arg-type]
            assert got == expected(store, IDS + ["new"], direction, rels), (direction, rels)

    with running_until(_Looks(0)):
        first = store.neighbour_counts(IDS)
    assert first == expected(store, IDS, "both", None)
    assert view.tallies.uncounted() > 0  # stopped at once
    check()
    store.upsert_nodes([Node("new", labels=("A",), name="new")])
    store.upsert_edges([Edge("x1", "new", "n4", "R"), Edge("e3", "n6", "new", "S")])
    check()
    store.delete_edges(["p1"])
    check()
    assert view.tallies.uncounted() == 0  # gone on, two chunks a call, to the end
    check()
