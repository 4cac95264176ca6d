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
