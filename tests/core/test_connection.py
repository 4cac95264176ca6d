"""The bottom layer on its own: a Connection, and readers and indexes built over it without Store."""

from __future__ import annotations

import pytest

from anatid_core import Node, ReadOnlyError, Store
from anatid_core.indexes.registry import Indexes
from anatid_core.reads import Reader
from anatid_core.storage.connection import Connection
from anatid_core.storage.rows import Visibility


def test_a_reader_and_its_indexes_need_only_the_connection(tmp_path) -> None:
    db = Connection.open(str(tmp_path / "c.duckdb"))
    try:
        Store(db).upsert_nodes(
            [Node(id="a", name="Alice", text="works at Acme", embedding=[1.0, 0.0])]
        )
        reader = Reader(db, Indexes(db), Visibility())
        assert [h.id for h in reader.search_text("acme")] == ["a"]
        assert [h.id for h in reader.search_vector([1.0, 0.1])] == ["a"]
        assert reader.get_node("a") is not None and reader.get_node("a").name == "Alice"
    finally:
        db.close()
    assert db.closed


def test_a_nested_transaction_joins_the_outer_one_and_a_rollback_returns_its_version_ids() -> None:
    db = Connection.open(":memory:")
    first = db.allocate_vids(0)
    with pytest.raises(RuntimeError):
        with db.transaction() as outer:
            with db.transaction() as inner:
                assert inner is outer and db.in_own_transaction()
                db.allocate_vids(5)
            raise RuntimeError("abort")
    assert not db.in_own_transaction()
    assert db.allocate_vids(1) == first  # the five reserved in the rolled-back transaction
    db.close()


def test_a_read_only_connection_refuses_a_transaction(tmp_path) -> None:
    path = str(tmp_path / "r.duckdb")
    Connection.open(path).close()
    db = Connection.open(path, read_only=True)
    with pytest.raises(ReadOnlyError), db.transaction():
        pass
    db.close()


def test_no_session_draws_duckdbs_progress_bar(tmp_path) -> None:
    """DuckDB draws a progress bar on stdout for any statement past 2 s, terminal or not: it
    would land in an MCP server's JSON-RPC stream or a CLI's --json output. Every session the
    store reads through (each thread's cursor) has it off."""
    import threading

    seen: list[object] = []
    with Store.open(tmp_path / "p.duckdb") as store:

        def look() -> None:
            with store.connection.turn():
                cur = store.connection.cursor()
                seen.append(cur.execute("SELECT current_setting('enable_progress_bar')").fetchone())

        look()
        other = threading.Thread(target=look)
        other.start()
        other.join()
    # The DuckDB connection itself too (it attaches, detaches and checkpoints the file: a
    # checkpoint after a large write takes seconds), where DuckDB's default is on: in a process
    # of its own, as the first connection of that process.
    import subprocess
    import sys

    script = (
        "from anatid_core.storage.opening import config_for, connect\n"
        f"con = connect({str(tmp_path / 'q.duckdb')!r}, read_only=False, "
        "config=config_for(None, bulk_load=False, read_only=False))\n"
        "print(con.execute(\"SELECT current_setting('enable_progress_bar')\").fetchone()[0])\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    seen.append((done.stdout.strip() == "True",))
    assert seen == [(False,), (False,), (False,)]
