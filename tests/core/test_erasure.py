"""Erasure (issue 15): no byte of an erased record remains in the store's files, with a receipt;
everything else is unchanged."""

from __future__ import annotations

import hashlib
import os
import threading
from collections import namedtuple
from datetime import datetime
from pathlib import Path
from typing import Any

import duckdb
import pytest

from anatid_core import (
    SCHEMA_VERSION,
    Erasure,
    Node,
    ReadOnlyError,
    StorageError,
    Store,
    UnsupportedOperation,
)
from anatid_core.storage import compaction

from .erasure_data import (
    build,
    dump,
    erased_ids,
    scan,
    store_files,
    tokens,
    uncompressed,
    victim_ids,
)


@pytest.fixture
def built(tmp_path: Path) -> tuple[Path, list[datetime]]:
    path = tmp_path / "memory.duckdb"
    return path, build(path)


def _views(store: Store, instants: list[datetime], erased: set[str]) -> list[Any]:
    """What the API answers, now and as of each instant, leaving out the erased records."""
    out = []
    for reader in [store, *(store.as_of(t) for t in instants)]:
        nodes = [n for n in reader.find_nodes() if n.id not in erased]
        edges = [e for e in reader.find_edges() if e.id not in erased]
        vectors = reader.get_embeddings([n.id for n in nodes])
        out.append((nodes, edges, vectors))
    out.append([store.history(f"keep{i}") for i in range(25)])
    return out


# ------------------------------------------------------------------------- the byte scan


def test_scan_finds_every_token_before_erasure(built) -> None:
    path, _ = built
    for victim in (0, 1):
        counts = scan(path, tokens(victim))
        assert all(n > 0 for n in counts.values()), counts


def test_erase_leaves_no_byte_of_any_version_posting_or_embedding(built) -> None:
    path, _ = built
    with Store.open(path) as s:
        uncompressed(s)
        receipt = s.erase_nodes(victim_ids(0))
        # while the store is still open: the file and its WAL are clean already
        assert scan(path, tokens(0)) == {k: 0 for k in tokens(0)}
    assert receipt.physically_gone and receipt.state == "gone"
    assert scan(path, tokens(0)) == {k: 0 for k in tokens(0)}
    assert all(n > 0 for n in scan(path, tokens(1)).values())  # the other victim is intact
    assert not compaction.leftovers(str(path))


def test_purge_alone_is_pending_and_leaves_bytes_until_compact(built) -> None:
    path, _ = built
    with Store.open(path) as s:
        uncompressed(s)
        assert s.purge_nodes(victim_ids(0)) == len(victim_ids(0))
        assert s.get_node("victim0") is None and s.history("victim0") == []
        [pending] = s.erasures()
        assert pending.state == "pending" and not pending.physically_gone
    # DuckDB only marked the rows deleted: the bytes are why a pending erasure is not done
    assert any(n > 0 for n in scan(path, tokens(0)).values())
    with Store.open(path) as s:
        uncompressed(s)
        done = s.compact()
        assert [e.id for e in done.completed] == [pending.id]
        assert done.completed[0].state == "gone"
        assert done.bytes_after < done.bytes_before
    assert scan(path, tokens(0)) == {k: 0 for k in tokens(0)}


def test_erase_all_keeps_only_the_receipts(built) -> None:
    path, _ = built
    with Store.open(path) as s:
        uncompressed(s)
        receipt = s.erase_all()
        assert receipt.everything and receipt.state == "gone" and receipt.versions > 2 * 3000
        assert s.find_nodes() == [] and s.check() == []
    for victim in (0, 1):
        assert scan(path, tokens(victim)) == {k: 0 for k in tokens(victim)}
    assert scan(path, {"bystander": b"keeper 17 "})["bystander"] == 0


# ---------------------------------------------------------------- everything else unchanged


def test_everything_not_erased_is_unchanged_rows_versions_and_as_of(built) -> None:
    path, instants = built
    erased = erased_ids(0)
    rows_before = dump(path, erased)
    with Store.open(path) as s:
        views_before = _views(s, instants, erased)
        s.erase_nodes(["victim0"] + victim_ids(0)[1:])
        assert _views(s, instants, erased) == views_before
        assert s.check() == []
    assert dump(path, erased) == rows_before
    with Store.open(path, read_only=True) as s:
        assert _views(s, instants, erased) == views_before


def test_search_and_writes_work_after_compaction_in_the_same_store(built) -> None:
    path, _ = built
    with Store.open(path) as s:
        s.search_text("keeper", k=3)  # indexes built before the swap
        s.erase_nodes(["victim1"])
        assert [h.id for h in s.search_text("zqxnametok1q")] == []
        assert s.search_text("keeper 17", k=1)[0].id == "keep17"
        s.upsert_node(Node("late", name="written after compaction", embedding=[0.5] * 16))
        assert s.search_vector([0.5] * 16, k=1)[0].id == "late"
    with Store.open(path, read_only=True) as s:
        assert s.get_node("late") is not None and s.check() == []


# ----------------------------------------------------------------------------- receipts


def test_receipt_lists_ids_kinds_versions_digest_and_survives_reopen(built) -> None:
    path, _ = built
    with Store.open(path) as s:
        receipt = s.erase_nodes(["victim0", "victim0-visit1", "no-such-node"])
    assert receipt.node_ids == ("victim0", "victim0-visit1")
    assert receipt.edge_ids == ("victim0-knows",)  # a node's edges go with it
    assert receipt.versions == 2 + 1 + 1  # two versions of victim0, one visit, one edge
    assert len(receipt.digest) == 64 and receipt.digest != hashlib.sha256().hexdigest()
    assert receipt.gone_at is not None and receipt.gone_at >= receipt.erased_at
    with Store.open(path, read_only=True) as s:
        assert s.erasures() == [receipt]
        assert s.erasure(receipt.id) == receipt
    data = b"".join(f.read_bytes() for f in store_files(path))
    assert receipt.digest.encode() in data  # kept in the file, unlike the content


def test_digest_differs_with_the_content_and_does_not_hold_it(tmp_path) -> None:
    digests = []
    for i, text in enumerate(["one secret", "another secret"]):
        with Store.open(tmp_path / f"s{i}.duckdb") as s:
            s.upsert_node(Node("x", name="x", text=text))
            digests.append(s.erase_nodes(["x"]).digest)
        assert scan(tmp_path / f"s{i}.duckdb", {"t": b"secret"}) == {"t": 0}
    assert digests[0] != digests[1]


def test_erasing_nothing_records_nothing(built) -> None:
    path, _ = built
    with Store.open(path) as s:
        empty = s.erase_nodes([])
        assert (empty.id, empty.versions, empty.state) == (0, 0, "gone")
        assert s.erasures() == []
        missing = s.erase_edges(["never-there"])
        assert missing.versions == 0 and missing.state == "gone"
        assert [e.id for e in s.erasures()] == [missing.id]


def test_erase_where_group_and_edges(built) -> None:
    path, _ = built
    with Store.open(path) as s:
        edge = s.erase_edges(["e3"])
        assert edge.edge_ids == ("e3",) and s.get_edge("e3") is None
        places = s.erase_where("node", groups=["places"])
        assert places.node_ids and all(int(i[4:]) % 2 == 0 for i in places.node_ids)
        assert s.find_nodes(groups=["places"]) == [] and s.check() == []
        assert [e.state for e in s.erasures()] == ["gone", "gone"]


def test_in_memory_store_erases_and_records_too() -> None:
    with Store.open(":memory:") as s:
        s.upsert_node(Node("a", name="secret"))
        receipt = s.erase_nodes(["a"])
        assert receipt.state == "gone" and s.erasures() == [receipt] and s.get_node("a") is None


# ------------------------------------------------------------------------ refusals


def test_no_free_space_is_a_storage_error_and_nothing_is_written(built, monkeypatch) -> None:
    path, _ = built
    Usage = namedtuple("Usage", "total used free")
    monkeypatch.setattr(compaction.shutil, "disk_usage", lambda _p: Usage(10**9, 10**9, 4096))
    before = dump(path, set())
    with Store.open(path) as s:
        with pytest.raises(StorageError, match="needs about .* bytes free"):
            s.erase_nodes(["victim0"])
        assert s.get_node("victim0") is not None and s.erasures() == []
        s.purge_nodes(["victim1"])
        with pytest.raises(StorageError):
            s.compact()
        assert [e.state for e in s.erasures()] == ["pending"]
    assert not compaction.leftovers(str(path))
    assert dump(path, erased_ids(1))["nodes"] == [
        r for r in before["nodes"] if r[1] not in erased_ids(1)
    ]


def test_erase_inside_a_transaction_is_refused_before_writing(built) -> None:
    path, _ = built
    with Store.open(path) as s:
        with pytest.raises(UnsupportedOperation, match="inside a transaction"):
            with s.transaction():
                s.erase_nodes(["victim0"])
        assert s.get_node("victim0") is not None and s.erasures() == []
        with pytest.raises(UnsupportedOperation):
            with s.transaction():
                s.compact()


def test_read_only_stores_and_views_refuse_to_erase(built) -> None:
    path, _ = built
    with Store.open(path, read_only=True) as s:
        with pytest.raises(ReadOnlyError):
            s.erase_nodes(["victim0"])
        with pytest.raises(ReadOnlyError):
            s.compact()
    with Store.open(path) as s:
        with pytest.raises(ReadOnlyError):
            s.as_of(datetime.now().astimezone()).erase_nodes(["victim0"])  # type: ignore[attr-defined]


# ---------------------------------------------------------------- files and schema


def test_a_leftover_copy_is_removed_by_the_next_writer(built) -> None:
    path, _ = built
    copy = compaction.copy_path(str(path))
    Path(copy).parent.mkdir(mode=0o700)
    Path(copy).write_bytes(b"half a copy")
    Path(copy + ".wal").write_bytes(b"x")
    Path(str(path) + ".anatid-compact").write_bytes(b"an older version's copy, beside the file")
    with Store.open(path, read_only=True) as s:
        assert s.check() == []  # a reader leaves it (it cannot know nobody compacts)
    with Store.open(path) as s:
        assert not compaction.leftovers(str(path)) and s.check() == []
    assert not Path(copy).parent.exists()


def _as_version_1(path: Path) -> None:
    con = duckdb.connect(str(path))
    con.execute("DROP TABLE erasures")
    con.execute("UPDATE meta SET value = '1' WHERE key = 'schema_version'")
    con.close()


def test_a_version_1_file_reads_read_only_and_migrates_on_write_opening(built) -> None:
    path, _ = built
    _as_version_1(path)
    with Store.open(path, read_only=True) as s:
        assert s.erasures() == [] and s.check() == [] and s.stats()["schema_version"] == 1
    with Store.open(path) as s:
        assert s.stats()["schema_version"] == SCHEMA_VERSION == 4
        receipt = s.erase_nodes(["victim0"])
        assert s.erasures() == [receipt] and receipt.kept_neighbour_ids == ("keep0",)


def test_other_threads_wait_for_compaction_and_then_read_the_new_file(built) -> None:
    path, _ = built
    errors: list[BaseException] = []
    stop = threading.Event()
    with Store.open(path) as s:

        def read() -> None:
            while not stop.is_set():
                try:
                    assert s.get_node("keep3") is not None
                    s.search_text("keeper", k=2)
                except BaseException as exc:  # noqa: BLE001 - reported below
                    errors.append(exc)
                    return

        threads = [threading.Thread(target=read) for _ in range(3)]
        for t in threads:
            t.start()
        receipts: list[Erasure] = [s.erase_nodes([f"victim{v}"]) for v in (0, 1)]
        stop.set()
        for t in threads:
            t.join()
        assert errors == [] and [r.state for r in receipts] == ["gone", "gone"]
    assert os.path.exists(path)


# ------------------------------------------------------------------- kept neighbours


def _endpoints(store: Store, edge_ids: set[str]) -> set[str]:
    """Every endpoint of every version of these edges (read before they are erased)."""
    return {end for e in edge_ids for v in store.history(e) for end in (v.src, v.dst)}


def test_receipt_lists_the_nodes_that_stay_but_were_linked_to_erased_edges(built) -> None:
    path, _ = built
    with Store.open(path) as s:
        node = s.erase_nodes(["victim0"])
        assert node.kept_neighbour_ids == ("keep0",)  # the far end of victim0-knows
        edge = s.erase_edges(["e3"])
        assert edge.kept_neighbour_ids == ("keep3", "keep4")  # both ends stay
        places = [n.id for n in s.find_nodes(groups=["places"])]
        touching = {e.id for e in s.edges_of(places, direction="both")}
        expected = _endpoints(s, touching) - set(places)
        group = s.erase_where("node", groups=["places"])
        assert set(group.kept_neighbour_ids) == expected and "victim1" in expected
        assert list(group.kept_neighbour_ids) == sorted(expected)
        assert all(s.get_node(i) is not None for i in group.kept_neighbour_ids)
    with Store.open(path, read_only=True) as s:  # recorded, and kept through the compactions
        assert [e.kept_neighbour_ids for e in s.erasures()] == [
            ("keep0",),
            ("keep3", "keep4"),
            group.kept_neighbour_ids,
        ]


def test_an_erased_neighbour_is_not_listed_as_kept_and_erase_all_lists_none(built) -> None:
    path, _ = built
    with Store.open(path) as s:
        both = s.erase_nodes(["keep3", "keep4"])  # e3 joins them: neither end stays
        assert "keep3" not in both.kept_neighbour_ids and "keep4" not in both.kept_neighbour_ids
        assert both.kept_neighbour_ids == ("keep2", "keep5")
        assert s.erase_all().kept_neighbour_ids == ()


def _as_version_2(path: Path) -> None:
    con = duckdb.connect(str(path))
    con.execute("ALTER TABLE erasures DROP COLUMN kept_neighbour_ids")
    con.execute("UPDATE meta SET value = '2' WHERE key = 'schema_version'")
    con.close()


def test_a_version_2_file_reads_its_receipts_with_no_kept_neighbours_and_migrates(built) -> None:
    path, _ = built
    with Store.open(path) as s:
        old = s.erase_nodes(["victim0"])
    _as_version_2(path)
    with Store.open(path, read_only=True) as s:
        assert s.stats()["schema_version"] == 2 and s.check() == []
        [read] = s.erasures()
        assert read.kept_neighbour_ids == () and read.node_ids == old.node_ids
    with Store.open(path) as s:
        assert s.stats()["schema_version"] == SCHEMA_VERSION == 4 and s.check() == []
        new = s.erase_nodes(["victim1"])
        assert [e.kept_neighbour_ids for e in s.erasures()] == [(), ("keep0",)]
        assert new.kept_neighbour_ids == ("keep0",)


def test_purge_returns_the_pending_receipt_inside_a_transaction_and_compact_completes_it(
    built,
) -> None:
    path, _ = built
    with Store.open(path) as s:
        assert s.purge().id == 0 and s.erasures() == []  # nothing asked, nothing recorded
        with s.transaction():
            receipt = s.purge(nodes=["victim0"], edges=["e3"])
            assert receipt.state == "pending" and s.get_node("victim0") is None
        assert receipt.node_ids == ("victim0",)
        assert receipt.edge_ids == ("e3", "victim0-knows")
        assert receipt.kept_neighbour_ids == ("keep0", "keep3", "keep4")
        assert scan(path, tokens(0))["name"] > 0  # pending: the bytes may still be there
        [done] = s.compact().completed
        assert done.id == receipt.id and done.state == "gone"
    assert scan(path, {"name": tokens(0)["name"]}) == {"name": 0}
