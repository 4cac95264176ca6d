"""Idempotency keys on the write verbs (issue 17): a retry writes nothing, in this process, after
reopening, and across processes racing with one key; another payload under the key is refused."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import duckdb
import pytest

from anatid_core import (
    SCHEMA_VERSION,
    Edge,
    IdempotencyConflict,
    InvalidInput,
    Node,
    Store,
    WriteConflict,
    WriteResult,
)

ROOT = Path(__file__).resolve().parents[2]


def _versions(store: Store, id: str) -> int:
    return len(store.history(id))


def test_a_retry_with_the_key_writes_nothing_even_after_the_record_changed(store: Store) -> None:
    first = store.upsert_nodes([Node("a", text="one"), Node("b")], idempotency_key="req-1")
    assert first == WriteResult(written=2)
    store.upsert_node(Node("a", text="edited since"))  # a later write the retry must not undo
    again = store.upsert_nodes([Node("a", text="one"), Node("b")], idempotency_key="req-1")
    assert again == first  # the original result, not "2 unchanged" or "1 written"
    assert store.get_node("a").text == "edited since" and _versions(store, "a") == 2  # type: ignore[union-attr]
    # Without the key the same call writes a new version: the key is what prevented it.
    assert store.upsert_nodes([Node("a", text="one"), Node("b")]).written == 1


def test_the_key_with_another_payload_is_a_conflict_naming_the_record(store: Store) -> None:
    store.upsert_node(Node("a", text="one"), idempotency_key="k")
    with pytest.raises(IdempotencyConflict) as caught:
        store.upsert_node(Node("a", text="two"), idempotency_key="k")
    err = caught.value
    assert err.existing_id == "a" and err.key == "k" and err.retryable is False
    assert isinstance(err, WriteConflict)
    assert store.get_node("a").text == "one" and _versions(store, "a") == 1  # type: ignore[union-attr]
    with pytest.raises(IdempotencyConflict):  # the key names a node write, not an edge write
        store.upsert_node(Node("b"))
        store.upsert_edge(Edge("e", "a", "b", "R"), idempotency_key="k")
    assert store.get_edge("e") is None


def test_edges_take_keys_and_the_options_are_part_of_the_payload(store: Store) -> None:
    store.upsert_nodes([Node("a"), Node("b")])
    edges = [Edge("e1", "a", "b", "R"), Edge("e2", "a", "gone", "R")]
    first = store.upsert_edges(edges, missing_endpoints="skip", idempotency_key="edges")
    assert first == WriteResult(written=1, skipped=1)
    assert store.upsert_edges(edges, missing_endpoints="skip", idempotency_key="edges") == first
    with pytest.raises(IdempotencyConflict) as caught:
        store.upsert_edges(edges, missing_endpoints="error", idempotency_key="edges")
    assert caught.value.existing_ids == ("e1", "e2")


@pytest.mark.parametrize("key", ["", "   ", "\t\n", "x" * 513, "é" * 257, "a\x00b", 7])
def test_bad_keys_are_invalid_input_and_write_nothing(store: Store, key: object) -> None:
    with pytest.raises(InvalidInput):
        store.upsert_node(Node("a"), idempotency_key=key)  # type: ignore[arg-type]
    assert store.get_node("a") is None


def test_a_key_of_512_bytes_is_accepted(store: Store) -> None:
    key = "é" * 256  # 512 bytes of UTF-8
    assert store.upsert_node(Node("a"), idempotency_key=key).written == 1
    assert store.upsert_node(Node("a"), idempotency_key=key).written == 1  # replayed


def test_a_rolled_back_write_does_not_keep_its_key(store: Store) -> None:
    with pytest.raises(RuntimeError), store.transaction():
        store.upsert_node(Node("a", text="one"), idempotency_key="k")
        raise RuntimeError("abort")
    store.upsert_node(Node("a", text="two"), idempotency_key="k")  # no conflict: never bound
    assert store.get_node("a").text == "two"  # type: ignore[union-attr]


def test_the_key_survives_reopening_and_a_new_process_replays_it(tmp_path: Path) -> None:
    path = tmp_path / "g.duckdb"
    with Store.open(path) as s:
        first = s.upsert_node(Node("a", text="one"), idempotency_key="k")
        s.upsert_node(Node("a", text="later"))
    with Store.open(path) as s:
        assert s.upsert_node(Node("a", text="one"), idempotency_key="k") == first
        assert _versions(s, "a") == 2
    code = (
        "import sys; from anatid_core import Node, Store, IdempotencyConflict\n"
        "with Store.open(sys.argv[1]) as s:\n"
        "    r = s.upsert_node(Node('a', text='one'), idempotency_key='k')\n"
        "    try:\n"
        "        s.upsert_node(Node('a', text='two'), idempotency_key='k')\n"
        "    except IdempotencyConflict as e:\n"
        "        print(r.written, e.existing_id, len(s.history('a')))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code, str(path)], capture_output=True, text=True, timeout=120
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["1", "a", "2"]


def _race(tmp_path: Path, texts: list[str]) -> tuple[list[dict[str, object]], Path]:
    path = tmp_path / "race.duckdb"
    Store.open(path).close()
    go = tmp_path / "go"
    children = [
        subprocess.Popen(
            [sys.executable, "-m", "tests.core.idempotency_child", str(path), "k", t, str(go)],
            cwd=ROOT,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for t in texts
    ]
    go.touch()
    outs = []
    for child in children:
        stdout, stderr = child.communicate(timeout=180)
        assert child.returncode == 0, stderr
        outs.append(json.loads(stdout.strip().splitlines()[-1]))
    return outs, path


def test_processes_racing_with_one_key_write_once_and_refuse_other_payloads(
    tmp_path: Path,
) -> None:
    texts = ["p0", "p0", "p1"]
    outs, path = _race(tmp_path, texts)
    with Store.open(path) as s:
        history = [v.text for v in s.history("n")]  # type: ignore[union-attr]
    # Exactly one keyed write ran, first; each child then overwrote the node without a key,
    # so a keyed write run twice would have put its text back over another child's overwrite.
    winner = history[0]
    assert winner in texts and len(history) == 4
    assert sum(h in texts for h in history) == 1
    for text, out in zip(texts, outs, strict=True):
        if text == winner:  # wrote, or replayed the one original result
            assert out == {"written": 1, "unchanged": 0}
        else:
            assert out == {"conflict": "n"}


def _keys(path: Path) -> list[str]:
    con = duckdb.connect(str(path), read_only=True)
    try:
        return sorted(r[0] for r in con.execute("SELECT key FROM idempotency").fetchall())
    finally:
        con.close()


def test_purging_a_record_removes_the_keys_that_name_it(tmp_path: Path) -> None:
    path = tmp_path / "g.duckdb"
    with Store.open(path) as s:
        s.upsert_nodes([Node("a"), Node("b"), Node("c")], idempotency_key="nodes")
        s.upsert_node(Node("c", text="own"), idempotency_key="c-only")
        s.upsert_edge(Edge("e", "b", "c", "R"), idempotency_key="edge")
        s.purge_nodes(["b"])  # erases edge e with it: both keys naming b or e go
        before = _versions(s, "c")
        assert s.upsert_node(Node("c", text="own"), idempotency_key="c-only").written == 1
        assert _versions(s, "c") == before  # replayed: the key that names only c stays
        # The purged key is free again: binding it anew is no conflict.
        assert s.upsert_node(Node("b", text="back"), idempotency_key="nodes").written == 1
    assert _keys(path) == ["c-only", "nodes"]
    with Store.open(path) as s:
        s.erase_edges([])  # nothing
        s.purge_all()
    assert _keys(path) == []


def test_erase_removes_the_key_from_the_file(tmp_path: Path) -> None:
    path = tmp_path / "g.duckdb"
    secret_key = "request-for-customer-4242"
    with Store.open(path) as s:
        s.upsert_node(Node("a", text="secret"), idempotency_key=secret_key)
        s.upsert_node(Node("b"))
        s.erase_nodes(["a"])
    assert _keys(path) == []
    assert secret_key.encode() not in path.read_bytes()


def test_a_version_3_file_is_upgraded_and_takes_keys(tmp_path: Path) -> None:
    path = tmp_path / "old.duckdb"
    with Store.open(path) as s:
        s.upsert_node(Node("a", text="kept"))
    con = duckdb.connect(str(path))
    con.execute("DROP TABLE idempotency")
    con.execute("UPDATE meta SET value = '3' WHERE key = 'schema_version'")
    con.close()
    with Store.open(path, read_only=True) as s:  # read as it is
        assert s.stats()["schema_version"] == 3 and s.check() == []
        assert s.get_node("a").text == "kept"  # type: ignore[union-attr]
    with Store.open(path) as s:
        assert s.stats()["schema_version"] == SCHEMA_VERSION == 4 and s.check() == []
        assert s.upsert_node(Node("a", text="new"), idempotency_key="k").written == 1
        assert s.upsert_node(Node("a", text="new"), idempotency_key="k").written == 1
        assert _versions(s, "a") == 2
