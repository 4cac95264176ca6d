"""The index layer's contract (anatid_core.indexes): what a registered index is told, and when.

A probe index registered on a store's ``Indexes`` stands for the next derived structure (a
persistent vector index): it must hear each commit once, with the versions added (per kind and
vector space) and removed; nothing of a rolled-back transaction; the catch-up after another
process's commits; a drop after a purge of everything; and compaction replacing the file.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from collections.abc import Mapping
from typing import Any

import numpy as np
import pytest

from anatid_core import Edge, Node, Store
from anatid_core.base.model import Kind
from anatid_core.indexes.base import Index
from anatid_core.storage.changes import Changes


class Probe(Index):
    """Notes every call, in the plain values a test compares."""

    def __init__(self) -> None:
        self.calls: list[tuple[Any, ...]] = []

    def applied(self, changes: Changes) -> None:
        added = {k: [a.vids.tolist() for a in changes.added(k)] for k in ("node", "edge")}
        removed = {k: changes.removed(k).tolist() for k in ("node", "edge")}  # type: ignore[arg-type]
        spaces = {
            space: [
                (vids.tolist(), matrix.shape) for vids, matrix, _ in changes.embedded("node", space)
            ]
            for space in ("default", "other")
        }
        self.calls.append(("applied", added, removed, spaces, changes.emptied))

    def caught_up(self, since_us: int, removed: Mapping[Kind, np.ndarray]) -> None:
        self.calls.append(("caught_up", since_us > 0, {k: v.tolist() for k, v in removed.items()}))

    def forget(self) -> None:
        self.calls.append(("forget",))

    def replaced(self) -> None:
        self.calls.append(("replaced",))


@pytest.fixture
def probed(tmp_path) -> Any:
    store = Store.open(tmp_path / "probe.duckdb")
    probe = store.indexes.register(Probe())
    yield store, probe
    store.close()


def _vids(store: Store, kind: Kind, ids: list[str]) -> list[int]:
    items = store.get_nodes(ids) if kind == "node" else store.get_edges(ids)
    return sorted(i.version for i in items)  # type: ignore[misc]


def test_a_transaction_of_several_verbs_is_applied_once_with_what_it_added_and_removed(
    probed,
) -> None:
    store, probe = probed
    store.upsert_nodes([Node("a", embedding=[1.0, 0.0]), Node("b")])
    (a1,) = _vids(store, "node", ["a"])
    probe.calls.clear()
    with store.transaction():
        store.upsert_nodes([Node("a", name="A", embedding=[0.0, 1.0])])
        store.upsert_nodes([Node("c", embedding=[1.0, 1.0], space="other")])
        store.upsert_edges([Edge("e", "a", "c", "R")])
        store.delete_nodes(["b"])
    (a2, c1), (e1,) = _vids(store, "node", ["a", "c"]), _vids(store, "edge", ["e"])
    (b1,) = [v.version for v in store.history("b")]
    assert probe.calls == [
        (
            "applied",
            {"node": [[a2], [c1]], "edge": [[e1]]},
            {"node": sorted([a1, b1]), "edge": []},
            {"default": [([a2], (1, 2))], "other": [([c1], (1, 2))]},
            False,
        )
    ]


def test_a_version_added_and_removed_in_one_transaction_is_in_both_lists(probed) -> None:
    store, probe = probed
    with store.transaction():
        store.upsert_nodes([Node("x")])
        store.delete_nodes(["x"])
    [(_, added, removed, _, _)] = probe.calls
    assert added["node"] == [removed["node"]] and len(removed["node"]) == 1


def test_a_rolled_back_transaction_tells_no_index(probed) -> None:
    store, probe = probed
    with pytest.raises(RuntimeError), store.transaction():
        store.upsert_nodes([Node("a")])
        raise RuntimeError("abort")
    assert probe.calls == []


def test_a_purge_of_everything_drops_every_index_then_applies_what_came_after(probed) -> None:
    store, probe = probed
    store.upsert_nodes([Node("a")])
    probe.calls.clear()
    with store.transaction():
        store.purge_all()
        store.upsert_nodes([Node("b")])
    (b1,) = _vids(store, "node", ["b"])
    no_vectors = {"default": [], "other": []}
    assert probe.calls == [
        ("forget",),
        ("applied", {"node": [[b1]], "edge": []}, {"node": [], "edge": []}, no_vectors, True),
    ]


def test_compaction_tells_every_index_the_file_is_replaced(probed) -> None:
    store, probe = probed
    store.upsert_nodes([Node("a"), Node("b")])
    store.purge_nodes(["a"])
    probe.calls.clear()
    store.compact()
    assert probe.calls == [("replaced",), ("replaced",)]


def _in_another_process(path: str, body: str) -> None:
    script = (
        "from anatid_core import Node, Store\n"
        + textwrap.dedent(
            f"""
        with Store.open({path!r}) as other:
        """
        )
        + textwrap.indent(textwrap.dedent(body), "    ")
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr


def test_another_processs_commits_are_caught_up_and_its_purges_drop_the_indexes(probed) -> None:
    store, probe = probed
    store.upsert_nodes([Node("a"), Node("b")])
    (a1,) = _vids(store, "node", ["a"])
    probe.calls.clear()
    _in_another_process(store.path, 'other.upsert_nodes([Node("a", name="A"), Node("c")])')
    assert store.get_node("c") is not None  # taking the file back catches up first
    assert probe.calls == [("caught_up", True, {"node": [a1], "edge": []})]
    probe.calls.clear()
    _in_another_process(store.path, 'other.purge_nodes(["b"])')
    assert store.get_node("b") is None
    assert probe.calls == [("forget",)]


def test_another_process_that_wrote_no_version_tells_no_index_anything(probed) -> None:
    """An index builder takes the file to read, or writes only its build token: what this
    process holds in memory is still current, and nothing is read again (issue 41: each such
    turn cost a writer's next search 200-370 ms at 40k facts)."""
    store, probe = probed
    store.upsert_nodes([Node("a"), Node("b")])
    handovers = store.handovers
    probe.calls.clear()
    _in_another_process(store.path, 'assert other.get_node("a") is not None')
    assert store.get_node("b") is not None
    assert store.handovers == handovers + 1  # the file did go to the other process and back
    assert probe.calls == []
