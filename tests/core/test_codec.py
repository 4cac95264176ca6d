"""Property codec: every supported value round-trips exactly through encode/decode."""

from __future__ import annotations

import uuid
from datetime import date, datetime, timedelta, timezone

from hypothesis import given, settings
from hypothesis import strategies as st

from anatid_core.codec import decode_props, encode_props

# The store refuses NUL and lone surrogates in text (InvalidInput), so they are not generated.
_TEXT = st.text(
    st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"), max_size=8
)
_TAG_KEYS = st.sampled_from(["$dt", "$date", "$uuid", "$bytes", "$tuple", "$float", "$esc", "$x"])
_KEYS = st.one_of(_TEXT, _TAG_KEYS)
_SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.floats(allow_nan=False),
    _TEXT,
    st.sampled_from(["$dt", '"$esc"', "$uuid"]),
    st.datetimes(timezones=st.sampled_from([None, timezone.utc, timezone(timedelta(hours=-3))])),
    st.dates(),
    st.uuids(),
    st.binary(max_size=6),
)
_VALUES = st.recursive(
    _SCALARS,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4),
        st.lists(inner, max_size=3).map(tuple),
        st.dictionaries(_KEYS, inner, max_size=3),
    ),
    max_leaves=12,
)


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(_KEYS, _VALUES, max_size=5))
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
