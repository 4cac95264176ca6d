"""Compaction copies table by table (issue 15, speed): the new file has the old one's tables,
columns, indexes and rows, and the DuckDB settings it changes while copying come back."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

from anatid_core import Node, Store


def _fill(store: Store, n: int = 300) -> None:
    rng = np.random.default_rng(3)
    store.upsert_nodes(
        Node(f"n{i}", group="g", name=f"node {i}", text=f"word{i} common", embedding=v)
        for i, v in enumerate(rng.standard_normal((n, 8), dtype=np.float32))
    )


def _catalog(store: Store) -> dict[str, Any]:
    q = store.connection.query
    return {
        "columns": q(
            "SELECT table_name, column_name, data_type, is_nullable FROM duckdb_columns() "
            "WHERE database_name = current_database() ORDER BY ALL"
        ),
        "indexes": q(
            "SELECT table_name, index_name, sql FROM duckdb_indexes() "
            "WHERE database_name = current_database() ORDER BY ALL"
        ),
        "constraints": q(
            "SELECT table_name, constraint_type, constraint_column_names FROM duckdb_constraints() "
            "WHERE database_name = current_database() ORDER BY ALL"
        ),
    }


def _settings(store: Store) -> list[Any]:
    return store.connection.query(
        "SELECT current_setting('memory_limit'), current_setting('force_compression')"
    )


def test_the_copy_has_the_same_tables_indexes_and_rows(tmp_path: Path) -> None:
    with Store.open(tmp_path / "s.duckdb") as store:
        _fill(store)
        store.upsert_nodes([Node("n5", group="g", name="second version", text="changed")])
        before = _catalog(store)
        kept = [f"n{i}" for i in range(1, 300)]
        vectors = store.get_embeddings(kept)
        history = store.history("n5")
        store.erase_nodes(["n0"])
        assert _catalog(store) == before
        assert store.get_embeddings(kept) == vectors
        assert store.history("n5") == history
        assert store.get_node("n0") is None
        assert store.get_node("n299") is not None
    with Store.open(tmp_path / "s.duckdb") as again:  # the swapped-in file, from disk
        assert again.get_embeddings(kept) == vectors
        assert again.check() == []


@pytest.mark.parametrize("memory_limit", [None, "300MB"])
def test_compaction_gives_back_the_settings_it_changes(
    tmp_path: Path, memory_limit: str | None
) -> None:
    with Store.open(tmp_path / "s.duckdb", memory_limit=memory_limit) as store:
        _fill(store, 50)
        before = _settings(store)
        store.erase_nodes(["n1"])
        assert _settings(store) == before
        store.purge_nodes(["n2"])
        store.compact()
        assert _settings(store) == before
