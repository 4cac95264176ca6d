"""Records decoded from table rows: the fast construction must give what the dataclass gives."""

from __future__ import annotations

import dataclasses
from datetime import datetime, timezone
from typing import Any

import pytest

from anatid_core.base.codec import encode_props, to_micros
from anatid_core.base.model import Edge, Node
from anatid_core.storage.rows import edge_from_row, node_from_row

WHEN = datetime(2024, 5, 6, 7, 8, 9, 123456, tzinfo=timezone.utc)
PROPS = {"when": WHEN, "n": [1, (2, 3)], "s": "x"}


def test_node_from_row_is_the_dataclass_built_by_its_init():
    us = to_micros(WHEN, what="t")
    row = (7, "n1", "g", ["A", "B"], "name", "text", encode_props(PROPS), None, us, None, us, None)
    node = node_from_row(row)
    want = Node(
        id="n1",
        group="g",
        labels=("A", "B"),
        name="name",
        text="text",
        props=PROPS,
        valid_from=WHEN,
        tx_from=WHEN,
        version=7,
    )
    assert node == want
    assert vars(node) == vars(want)  # every field set, none extra
    assert {f.name for f in dataclasses.fields(Node)} == set(vars(node))
    assert hash(node.labels) == hash(("A", "B"))
    with pytest.raises(dataclasses.FrozenInstanceError):
        node.name = "other"  # type: ignore[misc]


def test_edge_from_row_is_the_dataclass_built_by_its_init():
    us = to_micros(WHEN, what="t")
    row = (9, "e1", "a", "b", "KNOWS", "g", "nm", "tx", "{}", "space2", us, us + 1, us, us + 2)
    edge = edge_from_row(row)
    later = datetime(2024, 5, 6, 7, 8, 9, 123457, tzinfo=timezone.utc)
    last = datetime(2024, 5, 6, 7, 8, 9, 123458, tzinfo=timezone.utc)
    want = Edge(
        id="e1",
        src="a",
        dst="b",
        rel="KNOWS",
        group="g",
        name="nm",
        text="tx",
        props={},
        space="space2",
        valid_from=WHEN,
        valid_to=later,
        tx_from=WHEN,
        tx_to=last,
        version=9,
    )
    assert edge == want
    assert vars(edge) == vars(want)
    assert {f.name for f in dataclasses.fields(Edge)} == set(vars(edge))


@pytest.mark.parametrize("cls", [Node, Edge])
def test_a_record_built_by_its_init_has_every_field_and_stays_frozen(cls):
    """Node and Edge set their fields at once in their own __init__ (the frozen dataclass's set
    one at a time, 3.5 us a record): every field by position or keyword, defaults as declared,
    a fresh props dict per record, assignment refused, ``replace`` and equality as before."""
    names = [f.name for f in dataclasses.fields(cls)]
    values: list[Any] = [f"v{i}" for i in range(len(names))]
    given: dict[str, Any] = dict(zip(names, values, strict=True))
    by_position, by_keyword = cls(*values), cls(**given)
    assert by_position == by_keyword
    assert vars(by_position) == given
    ends: dict[str, Any] = {"src": "a", "dst": "b", "rel": "R"} if cls is Edge else {}
    first, second = cls(id="x", **ends), cls(id="y", **ends)
    assert first.props == {} and first.props is not second.props
    for f in dataclasses.fields(cls):
        if f.name not in ("id", *ends, "props"):
            assert getattr(first, f.name) == f.default, f.name
    assert cls(id="x", props=None, **ends).props is None  # type: ignore[arg-type]  (kept as given)
    with pytest.raises(dataclasses.FrozenInstanceError):
        first.id = "z"  # type: ignore[misc]
    renamed = dataclasses.replace(first, name="q")
    assert renamed.name == "q" and renamed.id == "x" and renamed != first
    assert first == cls(id="x", **ends)
