"""The driver's value translation against its oracle: what LadybugDB returns is
``json.loads(json.dumps(value, cls=cognee's JSONEncoder))`` of what was written."""

from __future__ import annotations

import json
from datetime import date, datetime, timedelta, timezone
from decimal import Decimal
from enum import Enum, IntEnum
from uuid import UUID, uuid4

import pytest

pytest.importorskip("cognee")

from anatid_cognee import AnatidGraphAdapter  # noqa: E402
from anatid_cognee.values import as_json, storable, storable_fields  # noqa: E402
from cognee.infrastructure.engine import DataPoint  # noqa: E402
from cognee.infrastructure.engine.models.DataPoint import MetaData  # noqa: E402
from cognee.modules.storage.utils import JSONEncoder  # noqa: E402


class Colour(str, Enum):
    RED = "red"


class Level(IntEnum):
    HIGH = 3


def ladybug(value):
    return json.loads(json.dumps(value, cls=JSONEncoder))


VALUES = {
    "aware": datetime(2020, 2, 29, 23, 59, 59, 123456, tzinfo=timezone(timedelta(hours=-5))),
    "naive": datetime(1999, 1, 1, 0, 0),
    "day": date(1815, 12, 10),
    "uuid": UUID("12345678-1234-5678-1234-567812345678"),
    "decimal": Decimal("12.50"),
    "tuple": (1, "two", (3.0, None)),
    "enum": Colour.RED,
    "int_enum": Level.HIGH,
    "nested": {"list": [date(2000, 1, 1), {"id": UUID(int=1)}], "empty": {}, "none": None},
    "int_keys": {1: "a", 2.5: "b", False: "c", None: "d"},
    "big": 2**62,
    "nan": float("nan"),
    "text": "naïve — ünïcode",
}


@pytest.mark.parametrize("key", sorted(VALUES))
def test_as_json_is_what_a_json_round_trip_with_cognees_encoder_gives(key):
    value = VALUES[key]
    expected = ladybug(value)
    got = as_json(value)
    if key == "nan":
        assert got != got and expected != expected
        return
    assert got == expected
    assert json.dumps(got, sort_keys=True) == json.dumps(expected, sort_keys=True)
    assert type(got) is type(expected)


def test_storable_changes_only_what_the_store_cannot_hold():
    value = {"d": Decimal("1.5"), "k": {3: UUID(int=2)}, "t": (datetime(2020, 1, 1),)}
    assert storable(value) == {"d": 1.5, "k": {"3": UUID(int=2)}, "t": (datetime(2020, 1, 1),)}


def test_storable_fields_drop_the_skipped_keys_and_copy_what_they_keep():
    """A node's fields: plain ones kept as they are, containers copied (the caller's dicts and
    lists are not the ones stored), a Decimal or a non-str key found at any depth."""
    meta = {"index_fields": ["name"], "identity_fields": ["name"]}
    fields = {
        "id": UUID(int=1),
        "name": "n",
        "weight": 0.5,
        "when": datetime(2020, 1, 1),
        "metadata": meta,
        "relations": [],
        "deep": {"a": [{"p": Decimal("2.5")}], 7: "seven"},
        "provenance": "dropped",
    }
    got = storable_fields(fields, frozenset(("id", "provenance", "absent")))
    assert got == {
        "name": "n",
        "weight": 0.5,
        "when": datetime(2020, 1, 1),
        "metadata": meta,
        "relations": [],
        "deep": {"a": [{"p": 2.5}], "7": "seven"},
    }
    assert (
        got["metadata"] is not meta and got["metadata"]["index_fields"] is not meta["index_fields"]
    )
    got["metadata"]["index_fields"].append("x")
    assert meta == {"index_fields": ["name"], "identity_fields": ["name"]}
    assert "id" in fields and fields["deep"]["a"][0]["p"] == Decimal("2.5")


class Item(DataPoint):
    name: str | None = None
    price: Decimal = Decimal("0")
    when: datetime | None = None
    pair: tuple[int, str] = (0, "")
    metadata: MetaData = {"index_fields": []}


async def test_reads_give_ladybug_values_and_the_exact_view_gives_what_went_in(tmp_path):
    graph = AnatidGraphAdapter(graph_database_url=str(tmp_path / "g.duckdb"))
    try:
        when = datetime(2024, 5, 1, 12, tzinfo=timezone.utc)
        item = Item(name=None, price=Decimal("9.99"), when=when, pair=(1, "x"))
        other = Item(name="other")
        await graph.add_nodes([item, other])
        await graph.add_edges([(item.id, other.id, "rel", {"at": when, "ref": uuid4()})])

        node = await graph.get_node(str(item.id))
        # LadybugDB writes name/type columns as str(value): a None name reads "None".
        assert node == {
            **ladybug(item.model_dump()),
            "id": str(item.id),
            "name": "None",
        }
        (src, _rel, dst) = (await graph.get_edges(str(other.id)))[0]
        assert src["id"] == str(other.id) and dst["id"] == str(item.id)  # queried node first
        _, edges = await graph.get_graph_data()
        assert edges[0][3]["at"] == "2024-05-01T12:00:00+00:00"
        assert isinstance(edges[0][3]["ref"], str)

        exact = graph.with_exact_values()
        node = await exact.get_node(str(item.id))
        assert node is not None
        assert node["when"] == when and node["pair"] == (1, "x") and node["name"] is None
        assert node["price"] == 9.99  # stored as LadybugDB stores it: a float
        _, edges = await exact.get_graph_data()
        assert isinstance(edges[0][3]["ref"], UUID)
        await exact.close()  # the view owns nothing: the adapter stays usable
        assert await graph.get_node(str(other.id)) is not None
    finally:
        await graph.close()


def test_as_json_keeps_bytes_which_ladybug_cannot_store():
    value = {"raw": b"\x00\x01", "when": date(2020, 1, 1), "t": (1,)}
    assert as_json(value) == {"raw": b"\x00\x01", "when": "2020-01-01", "t": [1]}
