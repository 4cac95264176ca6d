"""Property codec: every supported value round-trips exactly through encode/decode."""

from __future__ import annotations

import uuid
from datetime import date, datetime, timezone

from hypothesis import given, settings

from anatid_core.codec import decode_props, encode_props

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
    import anatid_core.codec as codec

    monkeypatch.setattr(codec, "_INTERN_LIMIT", 5)
    values = [uuid.uuid4() for _ in range(20)]
    for v in values:
        assert decode_props(encode_props({"u": v})) == {"u": v}
    assert len(codec._UUIDS) <= 5
    when = datetime(2020, 1, 1, tzinfo=timezone.utc)
    assert decode_props(encode_props({"a": when, "b": [when]})) == {"a": when, "b": [when]}
