from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime, timezone

import pytest

from anatid_core import Edge, Node, Store

T0 = datetime(2024, 1, 1, tzinfo=timezone.utc)


@pytest.fixture
def store() -> Iterator[Store]:
    with Store.open(":memory:") as s:
        yield s


@pytest.fixture
def file_store(tmp_path) -> Iterator[Store]:
    with Store.open(tmp_path / "graph.duckdb") as s:
        yield s


@pytest.fixture
def seeded(store: Store) -> Store:
    """A small graph: a -> b -> c -> d, a -> c (KNOWS / WORKS_AT), e isolated, two groups."""
    store.upsert_nodes(
        [
            Node(
                "a",
                group="g1",
                labels=("Person",),
                name="Alice",
                text="Alice works at Acme",
                embedding=[1.0, 0.0, 0.0],
            ),
            Node(
                "b",
                group="g1",
                labels=("Person",),
                name="Bob",
                text="Bob likes coffee",
                embedding=[0.0, 1.0, 0.0],
            ),
            Node(
                "c",
                group="g1",
                labels=("Company",),
                name="Acme",
                text="Acme sells anvils",
                embedding=[0.7, 0.7, 0.0],
            ),
            Node(
                "d",
                group="g2",
                labels=("City",),
                name="Springfield",
                text="a city",
                embedding=[0.0, 0.0, 1.0],
            ),
            Node("e", group="g2", labels=("Person",), name="Eve", text="Eve is alone"),
        ]
    )
    store.upsert_edges(
        [
            Edge("ab", "a", "b", "KNOWS", group="g1", name="KNOWS", text="Alice knows Bob"),
            Edge("bc", "b", "c", "WORKS_AT", group="g1", name="WORKS_AT", text="Bob works at Acme"),
            Edge("cd", "c", "d", "LOCATED_IN", group="g2", text="Acme is in Springfield"),
            Edge("ac", "a", "c", "WORKS_AT", group="g1", text="Alice works at Acme"),
        ]
    )
    return store
