"""Property codec: every supported value round-trips exactly through encode/decode."""

from __future__ import annotations

import uuid
from datetime import date, datetime, timezone

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from anatid_core import InvalidInput
from anatid_core.base.codec import decode_props, encode_props

from .props_strategies import props_strategy


@settings(max_examples=300, deadline=None)
@given(props_strategy(with_bytes=True))
def test_props_round_trip_exactly(props):
    assert decode_props(encode_props(props)) == props


def test_tag_shaped_user_dicts_and_strings_stay_plain():
    props = {
        "a": {"$dt": "2020-01-01T00:00:00"},
        "b": "$uuid",
        "c": [{"$tuple": [1, 2]}, (1, {"$date": "x"})],
        "d": {"when": datetime(2021, 5, 1, 12, tzinfo=timezone.utc), "id": uuid.uuid4()},
        "e": date(2020, 2, 29),
    }
    assert decode_props(encode_props(props)) == props


def test_interned_values_stay_bounded_and_equal(monkeypatch):
    import anatid_core.base.codec as codec

    monkeypatch.setattr(codec, "_INTERN_LIMIT", 5)
    values = [uuid.uuid4() for _ in range(20)]
    for v in values:
        assert decode_props(encode_props({"u": v})) == {"u": v}
    assert len(codec._UUIDS) <= 5
    when = datetime(2020, 1, 1, tzinfo=timezone.utc)
    assert decode_props(encode_props({"a": when, "b": [when]})) == {"a": when, "b": [when]}


def test_tagged_values_decode_under_one_key_and_unknown_tags():
    """Props whose top level has one key, and user keys shaped like tags ("$x"), still have
    every time and UUID inside them decoded (the in-place decode walks past both)."""
    when = datetime(2022, 3, 4, 5, 6, tzinfo=timezone.utc)
    ident = uuid.uuid4()
    for props in (
        {"attributes": {"when": when, "ids": [ident, (when,)]}},
        {"$x": {"when": when}},
        {"a": {"$x": [{"$y": ident}]}, "b": [[when]]},
    ):
        assert decode_props(encode_props(props)) == props


@settings(max_examples=300, deadline=None)
@given(props_strategy(with_bytes=True))
def test_decoding_gives_what_the_object_hook_decoder_gave(props):
    """The fast decode (orjson, then the tags replaced in place) reads every stored text as
    the json decoder with a tag hook (the decoder before it) read it, types included."""
    import json

    from anatid_core.base import codec

    def hook(obj):  # the previous decoder's object hook: bottom-up, one-key tag objects
        if len(obj) == 1 and next(iter(obj)) in codec._TAGS:
            return codec._decode_value(obj)
        return obj

    text = encode_props(props)
    if '"$esc"' in text:
        return  # the hook would decode inside an escaped user dict: the round trip checks those
    got, want = decode_props(text), json.loads(text, object_hook=hook)
    assert got == want
    assert _types(got) == _types(want)


def _types(value):
    if isinstance(value, dict):
        return {k: _types(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return (type(value), [_types(v) for v in value])
    return type(value)


def test_instants_are_interned_bounded_and_exact(monkeypatch):
    import anatid_core.base.codec as codec

    monkeypatch.setattr(codec, "_INTERN_LIMIT", 3)
    monkeypatch.setattr(codec, "_INSTANTS", {})
    for us in (0, 1, -1, 1_700_000_000_123_456, 253402300799999999, 7, 8):
        when = codec.from_micros(us)
        assert when is not None and codec.to_micros(when, what="t") == us
        assert codec.from_micros(us) == when
    assert len(codec._INSTANTS) <= 3
    assert codec.from_micros(None) is None


def _reference_text(props):
    """The stored text as json wrote it before the fast encoder: a record saved then, and saved
    again unchanged now, must give the same text (its content hash), or a version is written."""
    import json

    from anatid_core.base import codec

    encoded = codec._encode_value(props, "props")
    return json.dumps(encoded, ensure_ascii=False, separators=(",", ":"), sort_keys=True)


@settings(max_examples=400, deadline=None)
@given(props_strategy(with_bytes=True))
def test_stored_text_is_the_json_text(props):
    assert encode_props(props) == _reference_text(props)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.floats(allow_nan=True, allow_infinity=True), max_size=6))
def test_every_float_is_stored_as_json_writes_it(values):
    props = {"x": values, "small": [v * 1e-9 for v in values if v == v]}
    assert encode_props(props) == _reference_text(props)
    assert encode_props({"big": [2**64, -(2**63) - 1]}) == _reference_text(
        {"big": [2**64, -(2**63) - 1]}
    )


def test_refused_values_keep_their_path_in_the_message():
    with pytest.raises(InvalidInput, match=r"props\.a\[1\]\.b"):
        encode_props({"a": [1, {"b": "nul\x00"}]})
    with pytest.raises(InvalidInput, match="non-string key"):
        encode_props({"a": {1: 2}})
    with pytest.raises(InvalidInput, match=r"props\.s.*lone surrogate"):
        encode_props({"s": "\ud800"})
    deep: dict = {}
    cursor = deep
    for _ in range(300):  # past orjson's 255 levels: json writes it
        cursor["d"] = {}
        cursor = cursor["d"]
    assert decode_props(encode_props(deep)) == deep


@pytest.mark.parametrize(
    "props",
    [
        {"a": "\ud83d", "b": "\ude00"},  # halves of one pair, in two values: each one lone
        dict([("\ud83d", 1), ("\ude00", 2)]),  # ... in two keys
        {"k": ["ok", "\ud83d", "\ude00"]},  # ... in a list's items
        {"k": ("ok", "nul\x00")},
        {"ok": 1, "n\x00": 2},
    ],
)
def test_each_refused_text_is_found_among_many(props):
    """The encoder checks strings on the text orjson writes, not one by one: a NUL or a lone
    surrogate in any value or key, even two halves of a pair side by side, is still refused."""
    with pytest.raises(InvalidInput):
        encode_props(props)


def test_text_holding_the_escape_of_a_nul_is_stored_as_it_is():
    """A NUL is found by its escape in the written text; a string holding those six characters
    itself (a Windows path, a JSON fragment) takes the checked path and is stored unchanged."""
    props = {"path": "C:\\u0000", "\\u0000": ["x\\u0000", {"k": "\\\\u0000"}]}
    text = encode_props(props)
    assert decode_props(text) == props
    assert text == _reference_text(props)


def test_encoding_leaves_the_callers_values_as_they_were():
    when = datetime(2021, 5, 1, tzinfo=timezone.utc)
    props = {"plain": {"a": [1, "x"]}, "nested": {"when": when, "list": [when]}}
    copy = {"plain": {"a": [1, "x"]}, "nested": {"when": when, "list": [when]}}
    text = encode_props(props)
    assert props == copy and type(props["nested"]["when"]) is datetime
    assert decode_props(text) == copy
