from __future__ import annotations

import uuid
from dataclasses import replace
from datetime import date, datetime, timedelta, timezone

import pytest

from anatid_core import Edge, InvalidInput, Node, NotFound, Store

from .conftest import T0


def test_upsert_then_get_returns_every_field(store: Store) -> None:
    props = {
        "nested": {"list": [1, 2.5, "x", None, True], "when": datetime(2024, 5, 1, 12, 0)},
        "aware": datetime(2024, 5, 1, 12, 0, tzinfo=timezone(timedelta(hours=2))),
        "day": date(2024, 5, 1),
        "uid": uuid.UUID(int=7),
        "blob": b"\x00\x01",
        "pair": (1, "two"),
        "$dt": "a user key that looks like a tag",
    }
    store.upsert_nodes(
        [
            Node(
                "n",
                group="g",
                labels=("A", "B"),
                name="N",
                text="body",
                props=props,
                valid_from=T0,
                valid_to=T0 + timedelta(days=1),
            )
        ]
    )
    got = store.get_node("n")
    assert got is not None
    assert (got.group, got.labels, got.name, got.text) == ("g", ("A", "B"), "N", "body")
    assert got.props == props
    assert got.valid_from == T0 and got.valid_to == T0 + timedelta(days=1)
    assert got.tx_from is not None and got.tx_to is None


def test_resaving_unchanged_node_writes_no_version(store: Store) -> None:
    node = Node("n", name="same", embedding=[1.0, 2.0])
    assert store.upsert_nodes([node]).written == 1
    result = store.upsert_nodes([node])
    assert (result.written, result.unchanged) == (0, 1)
    assert len(store.history("n")) == 1


def test_changed_node_closes_old_version_and_keeps_it_in_history(store: Store) -> None:
    store.upsert_nodes([Node("n", name="v1")])
    store.upsert_nodes([Node("n", name="v2")])
    versions = store.history("n")
    assert [v.name for v in versions] == ["v1", "v2"]
    assert versions[0].tx_to == versions[1].tx_from
    assert store.get_node("n").name == "v2"  # type: ignore[union-attr]


def test_changing_only_the_embedding_is_a_new_version(store: Store) -> None:
    store.upsert_nodes([Node("n", embedding=[1.0, 0.0])])
    store.upsert_nodes([Node("n", embedding=[0.0, 1.0])])
    assert len(store.history("n")) == 2
    assert store.get_embeddings(["n"]) == {"n": [0.0, 1.0]}


def test_duplicate_ids_in_one_call_last_wins(store: Store) -> None:
    store.upsert_nodes([Node("n", name="first"), Node("n", name="second")])
    assert store.get_node("n").name == "second"  # type: ignore[union-attr]
    assert len(store.history("n")) == 1


def test_edge_to_missing_node_is_refused_and_nothing_is_written(store: Store) -> None:
    store.upsert_nodes([Node("a")])
    with pytest.raises(InvalidInput, match="missing node"):
        store.upsert_edges([Edge("ok", "a", "a", "R"), Edge("bad", "a", "ghost", "R")])
    assert store.count_edges() == 0


def test_edge_to_missing_node_can_be_skipped(store: Store) -> None:
    store.upsert_nodes([Node("a")])
    result = store.upsert_edges(
        [Edge("ok", "a", "a", "R"), Edge("bad", "a", "ghost", "R")], missing_endpoints="skip"
    )
    assert (result.written, result.skipped) == (1, 1)
    assert [e.id for e in store.find_edges()] == ["ok"]


@pytest.mark.parametrize(
    ("node", "message"),
    [
        (Node(""), "must not be empty"),
        (Node("x\x00y"), "NUL"),
        (Node("n", name="\ud800"), "lone surrogate"),
        (Node("n", props={"f": object()}), "cannot be stored"),
        (Node("n", props={1: "x"}), "non-string key"),  # type: ignore[dict-item]
        (Node("n", valid_from=datetime(2024, 1, 1)), "naive"),
        (Node("n", valid_from=T0, valid_to=T0 - timedelta(seconds=1)), "before valid_from"),
        (Node("n", embedding=[1.0, float("nan")]), "NaN"),
        (Node("n", embedding=[1.0, float("inf")]), "NaN or infinity"),
        (Node("n", embedding=[]), "non-empty"),
        (Node("n", labels="Person"), "labels"),  # type: ignore[arg-type]
    ],
)
def test_bad_input_raises_typed_error_and_writes_nothing(
    store: Store, node: Node, message: str
) -> None:
    store.upsert_nodes([Node("keep", name="kept")])
    with pytest.raises(InvalidInput, match=message):
        store.upsert_nodes([Node("other"), node])
    assert [n.id for n in store.find_nodes()] == ["keep"]
    store.upsert_nodes([Node("after")])  # still usable
    assert store.count_nodes() == 2


def test_embedding_dimension_is_fixed_per_space(store: Store) -> None:
    store.upsert_nodes([Node("a", embedding=[1.0, 0.0, 0.0])])
    with pytest.raises(InvalidInput, match="dimension 2.*holds dimension 3"):
        store.upsert_nodes([Node("b", embedding=[1.0, 0.0])])
    store.upsert_nodes([Node("b", embedding=[1.0, 0.0], space="small")])
    assert store.get_embeddings(["a", "b"]) == {"a": [1.0, 0.0, 0.0], "b": [1.0, 0.0]}


def test_a_failing_transaction_leaves_no_trace(store: Store) -> None:
    with pytest.raises(RuntimeError):
        with store.transaction():
            store.upsert_nodes([Node("a", name="alpha")])
            store.upsert_nodes([Node("b")])
            raise RuntimeError("boom")
    assert store.count_nodes() == 0
    assert store.search_text("alpha") == []
    store.upsert_nodes([Node("a", name="alpha")])
    assert [h.id for h in store.search_text("alpha")] == ["a"]


def test_nested_transactions_join_the_outer_one(store: Store) -> None:
    with pytest.raises(ValueError):
        with store.transaction():
            with store.transaction():
                store.upsert_nodes([Node("a")])
            raise ValueError
    assert store.get_node("a") is None


def test_delete_keeps_history_and_detaches_edges(seeded: Store) -> None:
    before = datetime.now(timezone.utc)
    assert seeded.delete_nodes(["b", "missing"]) == 1
    assert seeded.get_node("b") is None
    assert seeded.get_edge("ab") is None and seeded.get_edge("bc") is None
    old = seeded.as_of(tx_time=before)
    assert old.get_node("b") is not None and old.get_edge("ab") is not None
    assert len(seeded.history("b")) == 1


def test_delete_without_detach_refuses_a_connected_node(seeded: Store) -> None:
    with pytest.raises(InvalidInput, match="detach"):
        seeded.delete_nodes(["b"], detach=False)
    assert seeded.get_node("b") is not None


def test_purge_erases_every_version_and_index_entry(seeded: Store) -> None:
    seeded.upsert_nodes(
        [Node("a", group="g1", name="Alice2", text="renamed", embedding=[1.0, 0.0, 0.0])]
    )
    assert seeded.purge_nodes(["a"]) == 1
    assert seeded.history("a") == []
    assert seeded.history("ab") == [] and seeded.history("ac") == []
    assert seeded.as_of(tx_time=datetime.now(timezone.utc)).get_node("a") is None
    assert all(h.id != "a" for h in seeded.search_text("alice"))
    assert all(h.id != "a" for h in seeded.search_vector([1.0, 0.0, 0.0], k=10))
    assert seeded.check() == []


def test_close_ends_validity_and_keeps_the_row(seeded: Store) -> None:
    end = T0 + timedelta(days=30)
    assert seeded.close_edges(["ab"], end) == 1
    edge = seeded.get_edge("ab")
    assert edge is not None and edge.valid_to == end
    assert seeded.as_of(valid_time=end + timedelta(seconds=1)).get_edge("ab") is None
    assert seeded.as_of(valid_time=end - timedelta(seconds=1)).get_edge("ab") is not None
    with pytest.raises(NotFound):
        seeded.close_nodes(["ghost"], end)


def test_delete_and_purge_where_by_group(seeded: Store) -> None:
    assert seeded.delete_where("node", groups=["g2"]) == 2
    assert {n.id for n in seeded.find_nodes()} == {"a", "b", "c"}
    seeded.purge_where("node", groups=["g2"])
    assert seeded.history("d") == []


def test_purge_all_empties_the_store(seeded: Store) -> None:
    seeded.purge_all()
    assert seeded.count_nodes() == 0 and seeded.count_edges() == 0
    seeded.upsert_nodes([Node("x", embedding=[1.0, 2.0])])  # a new dimension is accepted
    assert seeded.check() == []


def test_read_only_store_refuses_writes(tmp_path) -> None:
    path = tmp_path / "g.duckdb"
    with Store.open(path) as s:
        s.upsert_nodes([Node("a")])
    from anatid_core import ReadOnlyError

    with Store.open(path, read_only=True) as ro:
        assert ro.get_node("a") is not None
        with pytest.raises(ReadOnlyError):
            ro.upsert_nodes([Node("b")])


def test_as_of_view_refuses_writes(seeded: Store) -> None:
    from anatid_core import ReadOnlyError

    view = seeded.as_of(tx_time=datetime.now(timezone.utc))
    with pytest.raises(ReadOnlyError, match="read-only view"):
        view.upsert_nodes([Node("z")])


def test_bulk_upsert_of_thousands_in_one_call(store: Store) -> None:
    nodes = [Node(f"n{i}", name=f"node {i}", embedding=[float(i), 1.0]) for i in range(3000)]
    assert store.upsert_nodes(nodes).written == 3000
    edges = [Edge(f"e{i}", f"n{i}", f"n{i + 1}", "NEXT") for i in range(2999)]
    assert store.upsert_edges(edges).written == 2999
    changed = [replace(n, name="renamed") if i % 2 else n for i, n in enumerate(nodes)]
    result = store.upsert_nodes(changed)
    assert (result.written, result.unchanged) == (1500, 1500)
    assert store.count_nodes() == 3000
    assert store.check() == []


@pytest.mark.parametrize(
    "node, field",
    [
        (Node("n", name="\ud83d", text="\ude00"), "name"),  # a pair's halves, in two fields
        (Node("n", labels=("A", "B\x00")), "label"),
        (Node("n", labels=("A", "")), "label"),
        (Node("n", group="g" * 1025), "group"),
        (Node("n", labels=["A", 3]), "label"),  # type: ignore[list-item]
    ],
)
def test_a_bad_name_among_good_ones_is_named_in_the_error(store, node, field):
    """A record's names are checked in one pass when all are fine; a bad one among them still
    gets its own message, and nothing is written."""
    with pytest.raises(InvalidInput, match=field):
        store.upsert_nodes([Node("ok"), node])
    assert store.get_node("ok") is None
