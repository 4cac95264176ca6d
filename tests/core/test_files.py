from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import threading

import duckdb
import pytest

from anatid_core import Edge, Node, SchemaVersionError, Store, StoreCorrupt


def test_data_survives_close_and_reopen(tmp_path) -> None:
    path = tmp_path / "g.duckdb"
    with Store.open(path) as s:
        s.upsert_nodes([Node("a", name="Alice", embedding=[1.0, 0.0]), Node("b")])
        s.upsert_edges([Edge("ab", "a", "b", "KNOWS")])
    with Store.open(path) as s:
        assert s.get_node("a").name == "Alice"  # type: ignore[union-attr]
        assert [h.id for h in s.search_vector([1.0, 0.0], k=1)] == ["a"]
        assert [h.id for h in s.search_text("alice")] == ["a"]
        s.upsert_nodes([Node("c")])  # version ids continue after reopen
        assert s.check() == []


def test_batched_vector_writes_leave_little_of_the_file_free(tmp_path, monkeypatch) -> None:
    """Writes of a few MB each, past several WAL checkpoints: the checkpoints must not leave
    a third of the file as free blocks (DuckDB's 16 MB threshold left 43% of it here)."""
    import numpy as np

    from anatid_core.indexes.ann import ANN

    # 20,000 vectors is SETTINGS["ann_min_rows"]: closing would start the index builder, which
    # may still hold the file when the plain DuckDB connection below opens it (seen under load).
    monkeypatch.setitem(ANN, "auto", False)

    path = str(tmp_path / "g.duckdb")
    rng = np.random.default_rng(0)
    with Store.open(path) as s:
        for b in range(40):
            vectors = rng.standard_normal((500, 1024)).astype(np.float32)
            s.upsert_nodes(
                [Node(f"n{b}-{i}", text="a few words", embedding=vectors[i]) for i in range(500)]
            )
    con = duckdb.connect(path, read_only=True)
    try:
        total, free = con.execute(
            "SELECT total_blocks, free_blocks FROM pragma_database_size()"
        ).fetchall()[0]
    finally:
        con.close()
    assert free <= 0.1 * total, (free, total)


def _load_past_the_checkpoint_size(path: str, *, bulk_load: bool) -> tuple[int, list[str]]:
    """Write ~80 MB of vectors (past the 64 MB WAL checkpoint) in four commits, change one
    record, and return the WAL's size then with what the store reads back meanwhile."""
    import numpy as np

    rng = np.random.default_rng(1)
    with Store.open(path, bulk_load=bulk_load) as s:
        for b in range(4):
            vectors = rng.standard_normal((1250, 4096)).astype(np.float32)
            s.upsert_nodes(
                [Node(f"n{b}-{i}", text="bulk", embedding=vectors[i]) for i in range(1250)]
            )
        s.upsert_nodes([Node("n0-0", name="renamed", text="bulk")])
        wal = os.path.getsize(path + ".wal") if os.path.exists(path + ".wal") else 0
        seen = [
            s.get_node("n0-0").name,  # type: ignore[union-attr]
            str(s.count_nodes()),
            str(len(s.get_embedding_arrays(["n3-1249", "n0-0"]))),
        ]
    return wal, seen


def test_a_bulk_load_is_checkpointed_when_it_closes_and_reads_what_it_wrote(tmp_path) -> None:
    """A bulk load's WAL is not checkpointed at 64 MB (each checkpoint would rewrite the
    unfilled row group of vectors whole), its reads see its writes, and closing leaves every
    record in the file itself."""
    bulk, normal = str(tmp_path / "bulk.duckdb"), str(tmp_path / "normal.duckdb")
    bulk_wal, bulk_seen = _load_past_the_checkpoint_size(bulk, bulk_load=True)
    normal_wal, normal_seen = _load_past_the_checkpoint_size(normal, bulk_load=False)
    assert bulk_wal > 64 * 2**20 > normal_wal, (bulk_wal, normal_wal)
    # the renamed node has no vector of its own any more: one of the two has one
    assert bulk_seen == normal_seen == ["renamed", "5000", "1"]
    assert not os.path.exists(bulk + ".wal")
    with Store.open(bulk, read_only=True) as s:
        assert s.count_nodes() == 5000
        assert s.get_node("n0-0").name == "renamed"  # type: ignore[union-attr]
        assert s.check() == []


def test_bulk_load_is_refused_read_only(tmp_path) -> None:
    from anatid_core import InvalidInput

    path = tmp_path / "r.duckdb"
    Store.open(path).close()
    with pytest.raises(InvalidInput, match="bulk_load"):
        Store.open(path, read_only=True, bulk_load=True)


def test_a_bulk_load_stores_vectors_without_float_compression_and_text_with_it(tmp_path) -> None:
    """A bulk load's checkpoints do not try ALP/ALP-RD on embeddings (they cannot shrink
    float32 mantissas and trying took over half of each checkpoint), and still compress the
    rest of the records."""
    import numpy as np

    path = str(tmp_path / "c.duckdb")
    vectors = np.random.default_rng(2).standard_normal((3000, 256)).astype(np.float32)
    with Store.open(path, bulk_load=True) as s:
        s.upsert_nodes(
            [Node(f"n{i}", group="g", text="same words", embedding=vectors[i]) for i in range(3000)]
        )
    con = duckdb.connect(path, read_only=True)
    try:
        (table,) = con.execute("SELECT tbl FROM spaces").fetchall()[0]
        used = {
            column: {r[0] for r in con.execute(
                "SELECT compression FROM pragma_storage_info(?) WHERE column_name = ?",
                [t, column],
            ).fetchall()}
            for t, column in ((table, "embedding"), ("nodes", "grp"), ("nodes", "text"))
        }  # fmt: skip
    finally:
        con.close()
    assert used["embedding"] - {"Uncompressed", "Constant"} == set(), used
    assert "Uncompressed" not in used["grp"] | used["text"], used
    with Store.open(path) as s:
        assert len(s.get_embedding_arrays(["n0", "n2999"])) == 2


def _run(code: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, timeout=120
    )


def test_a_second_process_opens_the_file_writes_and_the_first_sees_it(tmp_path) -> None:
    path = tmp_path / "shared.duckdb"
    with Store.open(path) as s:
        s.upsert_nodes([Node("a", name="Alice", text="alice")])
        out = _run(
            f"""
            from anatid_core import Node, Store
            with Store.open({str(path)!r}) as other:
                print(other.get_node("a").name)
                other.upsert_nodes([Node("b", name="Bob", text="bob")])
            """
        )
        assert out.stdout.strip() == "Alice", out.stderr
        assert s.handovers >= 1  # the first process gave the file up while the other asked
        assert s.get_node("b").name == "Bob"  # type: ignore[union-attr]
        assert [h.id for h in s.search_text("bob")] == ["b"]  # the text index caught up
        s.upsert_nodes([Node("c")])  # and it writes on, version ids after the other's
        assert s.check() == []


def test_a_process_waiting_past_the_timeout_gets_store_locked_naming_file_and_holder(
    tmp_path,
) -> None:
    path = tmp_path / "locked.duckdb"
    with Store.open(path) as s:
        with s.transaction():  # a transaction holds the file throughout
            s.upsert_nodes([Node("a")])
            out = _run(
                f"""
            import anatid_core
            from anatid_core import Store, StoreLocked
            anatid_core.LEASE["timeout"] = 0.3
            try:
                Store.open({str(path)!r})
            except StoreLocked as e:
                print("LOCKED", e)
            """
            )
        assert out.stdout.startswith("LOCKED"), out.stderr
        assert str(path) in out.stdout and f"process {os.getpid()}" in out.stdout
        assert s.get_node("a") is not None  # the first process is unaffected


def test_newer_schema_version_is_refused(tmp_path) -> None:
    path = tmp_path / "future.duckdb"
    with Store.open(path):
        pass
    con = duckdb.connect(str(path))
    con.execute("UPDATE meta SET value = '999' WHERE key = 'schema_version'").fetchall()
    con.close()
    with pytest.raises(SchemaVersionError, match="upgrade anatid"):
        Store.open(path)


def test_a_file_that_is_not_duckdb_is_refused_untouched(tmp_path) -> None:
    path = tmp_path / "notes.txt"
    path.write_bytes(b"hello, this is not a database" * 100)
    before = path.read_bytes()
    with pytest.raises(StoreCorrupt):
        Store.open(path)
    assert path.read_bytes() == before


def test_a_foreign_duckdb_database_is_not_written_into(tmp_path) -> None:
    path = tmp_path / "other.duckdb"
    con = duckdb.connect(str(path))
    con.execute("CREATE TABLE mine (x INTEGER)").fetchall()
    con.close()
    with pytest.raises(SchemaVersionError, match="not an anatid store"):
        Store.open(path)


def test_many_threads_write_and_read_without_losing_anything(tmp_path) -> None:
    errors: list[BaseException] = []
    with Store.open(tmp_path / "t.duckdb") as store:

        def writer(t: int) -> None:
            try:
                for i in range(20):
                    store.upsert_nodes([Node(f"t{t}-{i}", text=f"thread{t} item{i}")])
                    assert store.get_node(f"t{t}-{i}") is not None
                    store.search_text(f"thread{t}")
            except BaseException as exc:  # noqa: BLE001 - collected and asserted below
                errors.append(exc)

        threads = [threading.Thread(target=writer, args=(t,)) for t in range(8)]
        for th in threads:
            th.start()
        for th in threads:
            th.join()
        assert errors == []
        assert store.count_nodes() == 160
        assert store.check() == []


def test_memory_limit_is_applied_and_checked(tmp_path) -> None:
    from anatid_core import InvalidInput

    with Store.open(tmp_path / "m.duckdb", memory_limit="256MB") as s:
        limit = s.connection.query("SELECT current_setting('memory_limit')")[0][0]
        assert limit.replace(" ", "").upper().startswith("256") or "MiB" in limit
        s.upsert_nodes([Node("a")])
    with pytest.raises(InvalidInput, match="memory_limit"):
        Store.open(tmp_path / "n.duckdb", memory_limit="")
