"""``node_rows``/``edge_rows``: the bulk reads agree with find_nodes/find_edges (issue 16)."""

from __future__ import annotations

import json
import time
import uuid
from datetime import date, datetime, timedelta, timezone
from typing import Any

from hypothesis import given, settings

from anatid_core import Edge, Node, Store
from anatid_core.base.codec import decode_props, decode_props_plain, encode_props

from .props_strategies import props_strategy

_WHEN = datetime(2026, 1, 1, 12, 30, tzinfo=timezone(timedelta(hours=5, minutes=30)))
_ID = uuid.UUID("12345678-1234-5678-1234-567812345678")
PROPS: dict[str, Any] = {
    "when": _WHEN,
    "day": date(2020, 2, 29),
    "uid": _ID,
    "pair": (1, (_ID, "x")),
    "inf": float("inf"),
    "raw": b"\x00\xff",
    "tag_shaped": {"$dt": "not a time"},
    "nested": [{"$uuid": "not a uuid"}, {"k": _WHEN}],
    "plain": {"a": 1, "b": None, "c": [1.5, "s"]},
}


def _as_json_by_hand(value: Any) -> Any:
    """The reference: exact values written out by json with isoformat/str, read back."""

    def default(v: Any) -> Any:
        if isinstance(v, (datetime, date)):
            return v.isoformat()
        if isinstance(v, uuid.UUID):
            return str(v)
        raise TypeError(type(v).__name__)

    raw = value.pop("raw", None)
    out = json.loads(json.dumps(value, default=default))
    if raw is not None:
        out["raw"] = raw  # bytes have no JSON form: kept as they are
    return out


def test_plain_decoding_equals_exact_values_written_as_json() -> None:
    for props in (PROPS, {"only": _ID}, {"$tuple": [1]}, {}, {"x": {"$esc": 1}}):
        text = encode_props(props)
        assert decode_props_plain(text) == _as_json_by_hand(decode_props(text))
    assert decode_props_plain(encode_props(PROPS))["tag_shaped"] == {"$dt": "not a time"}
    assert decode_props_plain(encode_props(PROPS))["when"] == _WHEN.isoformat()


@settings(max_examples=400, deadline=None)
@given(props_strategy(with_bytes=False))
def test_plain_decoding_of_any_props_equals_the_exact_values_written_as_json(props) -> None:
    text = encode_props(props)
    assert decode_props_plain(text) == _as_json_by_hand(decode_props(text))
    assert decode_props(text) == props


def _seed(store: Store) -> None:
    store.upsert_nodes(
        [
            Node("b", group="g", labels=("L",), name="B", props=PROPS),
            Node("a", group="g", name="A", props={"n": 1}),
            Node("c", group="other", name="C"),
        ]
    )
    store.upsert_edges([Edge("e1", src="a", dst="b", rel="R", group="g", props=PROPS)])


def test_rows_match_find_in_id_order(store: Store) -> None:
    _seed(store)
    nodes = store.find_nodes(groups=["g"])
    assert store.node_rows(groups=["g"]) == [(n.id, n.labels, n.name, n.props) for n in nodes]
    assert [r[0] for r in store.node_rows()] == ["a", "b", "c"]
    edges = store.find_edges(groups=["g"])
    assert store.edge_rows(groups=["g"]) == [(e.src, e.dst, e.rel, e.props) for e in edges]
    plain = store.edge_rows(groups=["g"], plain_props=True)
    assert plain[0][3]["uid"] == str(_ID) and plain[0][3]["pair"] == [1, [str(_ID), "x"]]


def test_rows_see_what_the_view_sees(store: Store) -> None:
    _seed(store)
    time.sleep(0.001)
    before = datetime.now(timezone.utc)
    time.sleep(0.001)
    store.delete_nodes(["a"])
    assert [r[0] for r in store.node_rows(groups=["g"])] == ["b"]
    assert store.edge_rows(groups=["g"]) == []  # detached with its node
    view = store.as_of(tx_time=before)
    assert [r[0] for r in view.node_rows(groups=["g"])] == ["a", "b"]
    assert [r[:3] for r in view.edge_rows()] == [("a", "b", "R")]


def test_props_json_cannot_read_fast_still_read_exactly(store: Store) -> None:
    """Integers past 64 bits (which the fast JSON parser refuses), with and without tags."""
    big = {"big": 2**70, "neg": -(2**65), "list": [2**64, 1.5], "n": {"deep": 10**30}}
    tagged = {**big, "when": _WHEN}
    store.upsert_nodes([Node("big", group="g", props=big), Node("tagged", group="g", props=tagged)])
    assert store.get_node("big").props == big  # type: ignore[union-attr]
    assert store.get_node("tagged").props == tagged  # type: ignore[union-attr]
    plain = {r[0]: r[3] for r in store.node_rows(groups=["g"], plain_props=True)}
    assert plain["big"] == big
    assert plain["tagged"] == {**big, "when": _WHEN.isoformat()}


def _scribble(value: Any) -> None:
    """What a host may do to what it was handed: empty every container in it."""
    if isinstance(value, dict):
        for v in value.values():
            _scribble(v)
        value.clear()
        value["scribbled"] = True
    elif isinstance(value, list):
        for v in value:
            _scribble(v)
        value.clear()


def test_kept_plain_props_read_as_the_full_decoder_and_are_the_callers_own() -> None:
    """The view keeps each current version's plain props from the first bulk read; every read
    after it gives what the full decoder gives, however the host edited earlier results, and
    a new version is read as itself (nothing kept of the old one)."""
    with Store.open(":memory:") as store:
        store.upsert_nodes([Node("a", group="g"), Node("b", group="g")])

        @settings(max_examples=300, deadline=None)
        @given(props_strategy(with_bytes=True))
        def check(props: dict[str, Any]) -> None:
            store.upsert_nodes([Node("n", group="g", props=props)])
            store.upsert_edges([Edge("e", src="a", dst="b", rel="R", group="g", props=props)])
            expected = decode_props_plain(encode_props(props))
            for _ in range(3):  # the first read keeps, the next ones read what is kept
                nodes = {r[0]: r[3] for r in store.node_rows(groups=["g"], plain_props=True)}
                (edge,) = store.edge_rows(groups=["g"], plain_props=True)
                (by_id,) = store.node_rows(ids=["n"], plain_props=True)
                assert nodes["n"] == expected and edge[3] == expected and by_id[3] == expected
                for got in (nodes["n"], edge[3], by_id[3]):
                    _scribble(got)

        check()
        view = store.indexes.current.loaded("node")
        assert view is not None and len(view.plain) <= len(view.by_id)  # no replaced version kept


def test_kept_plain_props_follow_each_new_version(store: Store) -> None:
    store.upsert_nodes([Node("x", group="g", props={"n": 1, "when": _WHEN})])
    assert store.node_rows(plain_props=True)[0][3] == {"n": 1, "when": _WHEN.isoformat()}
    store.upsert_nodes([Node("x", group="g", props={"n": 2, "when": _WHEN})])
    assert store.node_rows(plain_props=True)[0][3] == {"n": 2, "when": _WHEN.isoformat()}
    store.delete_nodes(["x"])
    assert store.node_rows(plain_props=True) == []


def test_whole_reads_stay_in_id_order_as_records_come_and_go(store: Store) -> None:
    store.upsert_nodes([Node(i, group="g") for i in ("m", "z", "a")])
    assert [r[0] for r in store.node_rows()] == ["a", "m", "z"]
    store.upsert_nodes([Node("b", group="g"), Node("y", group="g", name="changed")])
    assert [r[0] for r in store.node_rows()] == ["a", "b", "m", "y", "z"]
    store.delete_nodes(["a", "m"])
    assert [r[0] for r in store.node_rows()] == ["b", "y", "z"]
    assert [r[0] for r in store.node_rows(groups=["g"], plain_props=True)] == ["b", "y", "z"]
