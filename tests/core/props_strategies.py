"""Hypothesis strategies for props as hosts write them: times (naive and aware), dates, UUIDs,
tuples, integers of any size, infinities, bytes, and user data shaped like the codec's tags
(keys and strings)."""

from __future__ import annotations

from datetime import timedelta, timezone
from typing import Any

from hypothesis import strategies as st

# The store refuses NUL and lone surrogates in text (InvalidInput), so they are not generated.
_TEXT = st.text(
    st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"), max_size=8
)
_TAG_KEYS = st.sampled_from(["$dt", "$date", "$uuid", "$bytes", "$tuple", "$float", "$esc", "$x"])
_TAGGY = st.sampled_from(['{"$dt":"x"}', "$dt", "$uuid", '"$esc"', "$tuple", "1234567890123456789"])
_KEYS = st.one_of(_TEXT, _TAG_KEYS)
_SCALARS = [
    st.none(),
    st.booleans(),
    st.integers(),
    st.integers(min_value=2**62, max_value=2**70),
    st.floats(allow_nan=False),
    _TEXT,
    _TAGGY,
    st.datetimes(timezones=st.sampled_from([None, timezone.utc, timezone(timedelta(hours=-3))])),
    st.dates(),
    st.uuids(),
]


def props_strategy(*, with_bytes: bool) -> st.SearchStrategy[dict[str, Any]]:
    """Props dicts; ``with_bytes`` adds bytes values (which have no JSON form)."""
    scalars = st.one_of(*_SCALARS, *([st.binary(max_size=6)] if with_bytes else []))
    values = st.recursive(
        scalars,
        lambda inner: st.one_of(
            st.lists(inner, max_size=4),
            st.lists(inner, max_size=3).map(tuple),
            st.dictionaries(_KEYS, inner, max_size=3),
        ),
        max_leaves=12,
    )
    return st.dictionaries(_KEYS, values, max_size=5)


__all__ = ["props_strategy"]
