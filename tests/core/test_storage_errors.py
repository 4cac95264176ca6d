"""Storage failures and lock conflicts surface as anatid errors that say what to do."""

from __future__ import annotations

import subprocess
import sys
import textwrap

from anatid_core import Node, Store

_FILL_UNTIL_LIMIT = textwrap.dedent(
    """
    import random, resource, signal, sys
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # get EFBIG from write(), not a signal
    from anatid_core import Node, Store, StorageError
    store = Store.open(sys.argv[1])
    resource.setrlimit(resource.RLIMIT_FSIZE, (1_000_000, 1_000_000))
    rng, committed = random.Random(0), 0
    try:
        for i in range(10_000):
            store.upsert_nodes(
                [Node(f"n{i}-{k}", text=str(rng.random()) * 20) for k in range(50)]
            )
            committed += 50
    except StorageError as exc:
        print("STORAGE", committed, store.count_nodes(), exc)
    store.close()
    """
)


def test_a_file_size_limit_is_a_storage_error_and_loses_no_commit(tmp_path) -> None:
    path = tmp_path / "full.duckdb"
    out = subprocess.run(
        [sys.executable, "-c", _FILL_UNTIL_LIMIT, str(path)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert out.stdout.startswith("STORAGE"), out.stdout + out.stderr
    _, committed, counted, message = out.stdout.split(" ", 3)
    assert committed == counted  # the failed transaction left nothing behind
    assert "free disk space" in message and str(path) in message
    with Store.open(path) as store:
        assert store.count_nodes() == int(committed)
        assert store.check() == []


def test_read_only_opening_beside_a_writer_in_another_process_reads_it(tmp_path) -> None:
    path = tmp_path / "busy.duckdb"
    code = textwrap.dedent(
        f"""
        from anatid_core import Store
        with Store.open({str(path)!r}, read_only=True) as reader:
            print(reader.get_node("a").name, reader.read_only)
        """
    )
    with Store.open(path) as store:
        store.upsert_nodes([Node("a", name="Alice")])
        out = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, timeout=60
        )
        assert out.stdout.split() == ["Alice", "True"], out.stderr
        store.upsert_nodes([Node("b")])  # the writer takes the file back and goes on
        assert store.count_nodes() == 2 and store.check() == []


def test_a_truncated_file_is_refused_at_open_or_reported_by_check(tmp_path) -> None:
    import random

    from anatid_core import StoreCorrupt

    path = tmp_path / "whole.duckdb"
    rng = random.Random(0)
    with Store.open(path) as store:
        for i in range(8):
            store.upsert_nodes(
                [
                    Node(f"n{i}-{k}", text=str(rng.random()) * 30, embedding=[rng.random()] * 8)
                    for k in range(200)
                ]
            )
    whole = path.read_bytes()
    for cut in (100, 12288, len(whole) // 3, len(whole) // 2, len(whole) - 5000):
        cut_path = tmp_path / f"cut{cut}.duckdb"
        cut_path.write_bytes(whole[:cut])
        try:
            with Store.open(cut_path) as store:
                problems = store.check()
        except StoreCorrupt as exc:
            assert "restore" in str(exc)
            continue
        assert problems and "truncated or damaged" in problems[0], (cut, problems)


def test_a_store_reopened_after_a_kill_with_free_trailing_blocks_opens(tmp_path) -> None:
    # DuckDB cuts free blocks off the end of the file while its header still counts them: a
    # size check against the header would refuse healthy files (it did, in the crash suite).
    path = tmp_path / "shrunk.duckdb"
    with Store.open(path) as store:
        store.upsert_nodes([Node(f"n{k}", text="word " * 50) for k in range(20_000)])
        store.purge_all()
        store.upsert_nodes([Node("kept")])
    with Store.open(path) as store:
        assert store.get_node("kept") is not None
        assert store.check() == []


def test_a_sqlite_file_is_refused_without_fetching_an_extension(tmp_path) -> None:
    import sqlite3

    from anatid_core import StoreCorrupt

    path = tmp_path / "app.db"
    con = sqlite3.connect(path)
    con.execute("CREATE TABLE t (x)")
    con.commit()
    con.close()
    before = path.read_bytes()
    try:
        Store.open(path)
    except StoreCorrupt as exc:
        assert "not an anatid/DuckDB store" in str(exc) and "download" not in str(exc).lower()
    else:  # pragma: no cover - the failure being guarded against
        raise AssertionError("a SQLite file was opened as a store")
    assert path.read_bytes() == before


def test_one_writing_store_per_file_per_process(tmp_path) -> None:
    # Two Stores on one file used to write beside each other: WriteConflicts, duplicate version
    # ids and overlapping versions that check() reported.
    from anatid_core import StoreLocked

    path = tmp_path / "once.duckdb"
    with Store.open(path) as first:
        first.upsert_nodes([Node("a")])
        for read_only in (False, True):
            try:
                Store.open(path, read_only=read_only)
            except StoreLocked as exc:
                assert "already open" in str(exc) and "this process" in str(exc)
            else:  # pragma: no cover - the failure being guarded against
                raise AssertionError("a second Store opened the same file")
        first.upsert_nodes([Node("b")])
    with Store.open(path) as again:  # closing releases the file
        assert again.count_nodes() == 2 and again.check() == []


def test_a_store_dropped_without_close_does_not_keep_the_file_claimed(tmp_path) -> None:
    path = tmp_path / "dropped.duckdb"
    store = Store.open(path)
    store.upsert_nodes([Node("a")])
    del store  # never closed: only the cycle collector frees it
    with Store.open(path) as again:
        assert again.get_node("a") is not None
