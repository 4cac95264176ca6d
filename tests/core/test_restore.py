"""restore_timeline writes versions with their recorded transaction times (issue 18: the history
an export keeps beside a server is brought back), and the restored file reads, time-travels and
searches like the original."""

from __future__ import annotations

import time
from dataclasses import replace
from pathlib import Path

import pytest

from anatid_core import Edge, InvalidInput, Node, Store, restore_timeline


def _original(path: Path) -> None:
    with Store.open(path) as store:
        store.upsert_nodes([
            Node(id="a", group="g", labels=("Person",), name="Alice", text="likes tea",
                 props={"n": 1}, embedding=[1.0, 0.0]),
            Node(id="b", group="g", name="Bob", text="likes coffee", embedding=[0.0, 1.0]),
        ])  # fmt: skip
        store.upsert_edge(Edge(id="e", src="a", dst="b", rel="KNOWS", group="g", text="met"))
        time.sleep(0.002)
        store.upsert_node(Node(id="a", group="g", labels=("Person",), name="Alice",
                               text="likes green tea", props={"n": 2}, embedding=[0.6, 0.8]))  # fmt: skip
        store.delete_edges(["e"])


def _versions(path: Path) -> list[tuple[object, ...]]:
    with Store.open(path, read_only=True) as store:
        return [
            (
                replace(v, version=None),
                store.as_of(tx_time=v.tx_from).get_embeddings([v.id], kind=k),
            )
            for k in ("node", "edge")
            for v in store.versions(k)
        ]


def _restored(src: Path, dst: Path) -> dict[str, int]:
    with Store.open(src, read_only=True) as store:
        nodes, edges = store.versions("node"), store.versions("edge")
        old = {v.tx_from: store.as_of(tx_time=v.tx_from) for v in nodes}
        nodes = [
            replace(v, embedding=old[v.tx_from].get_embeddings([v.id]).get(v.id)) for v in nodes
        ]
    return restore_timeline(dst, nodes, edges)


def test_restored_file_has_every_version_at_its_recorded_times(tmp_path: Path) -> None:
    src, dst = tmp_path / "a.duckdb", tmp_path / "b.duckdb"
    _original(src)

    counts = _restored(src, dst)

    assert counts == {"node": 3, "edge": 1}
    assert _versions(dst) == _versions(src)
    with Store.open(dst) as store:
        assert store.check() == []
        first = store.history("a")[0]
        assert store.as_of(tx_time=first.tx_from).get_node("a").text == "likes tea"  # type: ignore[union-attr]
        assert store.get_edge("e") is None  # deleted in the original, deleted here
        # The indexes are built from the restored rows: only current versions are found.
        assert [h.id for h in store.search_text("tea")] == ["a"]
        assert store.search_text("tea")[0].item.text == "likes green tea"
        assert store.search_vector([0.6, 0.8], k=1)[0].id == "a"
        # And it takes new writes after its history.
        store.upsert_node(Node(id="b", group="g", name="Bob", text="likes cocoa"))
        assert len(store.history("b")) == 2


def test_restore_refuses_a_store_that_holds_records(tmp_path: Path) -> None:
    path = tmp_path / "a.duckdb"
    _original(path)
    with pytest.raises(InvalidInput, match="empty store"):
        restore_timeline(path, [Node(id="x", tx_from=None)], [])


def test_restore_refuses_a_version_without_its_transaction_time(tmp_path: Path) -> None:
    with pytest.raises(InvalidInput, match="needs its tx_from"):
        restore_timeline(tmp_path / "a.duckdb", [Node(id="x")], [])
