"""The rules for every name a caller passes (issue 32).

Names are ids (of records, and the ``src``/``dst``/seeds/node ids that refer to them), labels,
rel types, groups, vector space names and the property keys of ``where``/``order_by``. Each is
checked before any SQL is built, the same way on every verb, so a bad one is an
:class:`~anatid_core.base.errors.InvalidInput` that names the argument, never DuckDB's own error:

==================================  =======  ======================================================
name                                empty    rule
==================================  =======  ======================================================
id, src, dst, seed, node id         refused  a str of at most ``MAX_ID_LENGTH`` characters, valid
label, rel                          refused  Unicode (no lone surrogate: it cannot be UTF-8) and
vector space                        refused  no NUL (DuckDB cuts text at NUL in places)
group                               allowed  the same; ``""`` is the default group
property key in ``where``/order_by  refused  each dotted key valid Unicode without NUL, the whole
                                             path at most ``MAX_ID_LENGTH`` characters
==================================  =======  ======================================================

A list argument (``groups=``, ``labels=``, ...) must be a list: a single string is refused
rather than read as its characters. Quotes, backslashes and text that looks like SQL are ordinary
characters in every name and round-trip: names travel as bound parameters (a property path as the
JSON path :func:`anatid_core.storage.filters.json_path` quotes), except the names of a scope, which
are spliced as SQL literals with their quotes doubled (:mod:`anatid_core.storage.scope`).

Property keys *written* in ``props`` are values: valid Unicode without NUL, of any length; one
longer than ``MAX_ID_LENGTH`` is stored but cannot be filtered on.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from .codec import MAX_ID_LENGTH, check_id, check_text
from .errors import InvalidInput


def check_group(value: object, *, what: str = "group") -> str:
    """A group name: like an id, but ``""`` (the default group) is allowed."""
    if not isinstance(value, str):
        raise InvalidInput(f"{what} must be a str, got {type(value).__name__}: {value!r:.80}")
    if len(value) > MAX_ID_LENGTH:
        raise InvalidInput(f"{what} is {len(value)} characters long; the limit is {MAX_ID_LENGTH}")
    return check_text(value, what=what)


def check_space(value: object, *, what: str = "space") -> str:
    """A vector space name: a non-empty name, as an id."""
    return check_id(value, what=what)


def name_list(
    values: Iterable[str] | None,
    what: str,
    check: Callable[..., str] = check_id,
) -> list[str] | None:
    """A list argument of names (``groups=``, ``labels=``, ``rels=``, ...), each checked by
    ``check``; None stays None. A single string is refused: iterating it would filter by its
    characters."""
    if values is None:
        return None
    if isinstance(values, (str, bytes)):
        raise InvalidInput(f"{what} must be a list of names, not a single string {values!r:.80}")
    try:
        listed = list(values)
    except TypeError:
        raise InvalidInput(f"{what} must be a list of names, got {type(values).__name__}") from None
    one = what[:-1] if what.endswith("s") else f"a name in {what}"
    for value in listed:
        check(value, what=one)
    return listed


def check_names(values: Iterable[str] | None, what: str) -> list[str] | None:
    """Check a list of names (labels, rel types) the way every verb checks its ``labels=`` or
    ``rels=``, before the caller passes it on: the list (None stays None), or ``InvalidInput``
    naming ``what`` (the public name ``anatid_core.check_names``, for a client that checks its
    own arguments first)."""
    return name_list(values, what)


def group_list(values: Iterable[str] | None, what: str = "groups") -> list[str] | None:
    """``groups=``: names that may be ``""`` (the default group)."""
    return name_list(values, what, check_group)


def prop_keys(dotted: object, *, what: str) -> list[str]:
    """The keys of a property path (``a.b`` of ``props.a.b``) in a ``where`` field or an
    ``order_by`` key, each checked; ``what`` names the argument in the message."""
    if not isinstance(dotted, str):
        raise InvalidInput(f"{what} must be a str, got {type(dotted).__name__}")
    if len(dotted) > MAX_ID_LENGTH:
        raise InvalidInput(
            f"{what} names a property path of {len(dotted)} characters; the limit is "
            f"{MAX_ID_LENGTH}"
        )
    keys = dotted.split(".")
    if not dotted or not all(keys):
        raise InvalidInput(
            f"{what} has a bad property path {dotted!r:.80}; write props.key or props.key.subkey"
        )
    for key in keys:
        check_text(key, what=f"{what}: the property key {key!r:.80}")
    return keys


__all__ = [
    "MAX_ID_LENGTH",
    "check_group",
    "check_names",
    "check_space",
    "group_list",
    "name_list",
    "prop_keys",
]
