"""Validating write input: a record becomes column values, terms, a vector and a content hash."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..base.codec import (
    MAX_ID_LENGTH,
    all_fine,
    check_id,
    check_text,
    encode_props,
    gc_paused,
    opt_micros,
)
from ..base.errors import InvalidInput
from ..base.identifiers import check_group, check_space
from ..base.model import DEFAULT_SPACE, Edge, Item, Kind, Node
from .terms import document_terms


def as_vector(values: Sequence[float], *, what: str) -> np.ndarray:
    """Validate an embedding: a flat, non-empty sequence of finite numbers (float32 range)."""
    try:
        arr = np.asarray(values, dtype=np.float32)
    except (TypeError, ValueError) as exc:
        raise InvalidInput(f"{what} must be a sequence of numbers ({exc})") from None
    if arr.ndim != 1 or arr.size == 0:
        raise InvalidInput(
            f"{what} must be a flat, non-empty list of numbers, got shape {arr.shape}"
        )
    # A value beyond the float32 range becomes inf in the cast, so one check covers both.
    if not np.isfinite(arr.sum()) and not np.isfinite(arr).all():
        raise InvalidInput(
            f"{what} contains NaN or infinity (or a value beyond the float32 range); "
            "embeddings must be finite numbers"
        )
    return arr


@dataclass
class Prepared:
    """A validated record, flattened to column values."""

    item: Item
    props: str
    valid_from: int | None
    valid_to: int | None
    doc_len: int
    terms: dict[str, int]
    vector: np.ndarray | None
    chash: int


def _hash(parts: Sequence[Any], vector: np.ndarray | None) -> int:
    """A 64-bit digest of a record's content: equal digests mean an unchanged re-save."""
    h = hashlib.blake2b(repr(parts).encode("utf-8", "surrogatepass"), digest_size=8)
    if vector is not None:
        h.update(vector.tobytes())
    return int.from_bytes(h.digest(), "little", signed=True)


def prepare(item: Item, kind: Kind, index: int) -> Prepared:
    expected = Node if kind == "node" else Edge
    if not isinstance(item, expected):
        raise InvalidInput(
            f"{kind} #{index} is a {type(item).__name__}, expected {expected.__name__}"
        )
    if isinstance(item, Edge):
        key: tuple[Any, ...] = (item.src, item.dst, item.rel)
        labels_listed = True
    else:
        labels_listed = type(item.labels) in (tuple, list)  # a str's letters are no labels
        key = tuple(item.labels) if labels_listed else ()
    ids = (item.id, item.space, *key)
    texts = (item.group, item.name, item.text)
    if not (labels_listed and all_fine(texts, ids) and len(item.group) <= MAX_ID_LENGTH):
        key = _checked(item, kind, index)  # raises, with the message of the first check failing
    props = encode_props(item.props)
    vf = vt = None
    if item.valid_from is not None or item.valid_to is not None:
        vf, vt = _validity(item, _what(item, kind, index))
    vector = None
    if item.embedding is not None:
        vector = as_vector(item.embedding, what=f"{_what(item, kind, index)} embedding")
    doc_len, terms = document_terms(item.name, item.text)
    # A record without a vector keeps no space (the space names the vector's table), so its
    # hash must not depend on one: a record read back (an import, a restore) says "default"
    # where the host that saved it said "name", and re-saving it unchanged must write nothing.
    space = item.space if vector is not None else DEFAULT_SPACE
    chash = _hash((item.id, item.group, key, item.name, item.text, props, space, vf, vt), vector)
    return Prepared(item, props, vf, vt, doc_len, dict(terms), vector, chash)


def _what(item: Item, kind: Kind, index: int) -> str:
    """How an error names the record: by its id when it has one."""
    return f"{kind} {item.id!r:.60}" if isinstance(item.id, str) else f"{kind} #{index}"


def _checked(item: Item, kind: Kind, index: int) -> tuple[Any, ...]:
    """Every name of ``item`` checked one by one, each failure with its own message (the path
    of a record :func:`all_fine` did not pass); the record's key when all pass."""
    what = _what(item, kind, index)
    check_id(item.id, what=f"{kind} #{index} id")
    check_group(item.group, what=f"{what} group")
    check_text(item.name, what=f"{what} name")
    check_text(item.text, what=f"{what} text")
    check_space(item.space, what=f"{what} space")
    if isinstance(item, Edge):
        check_id(item.src, what=f"{what} src")
        check_id(item.dst, what=f"{what} dst")
        check_id(item.rel, what=f"{what} rel")
        return (item.src, item.dst, item.rel)
    if isinstance(item.labels, str):
        raise InvalidInput(f"{what} labels must be a list of strings, not one string")
    for label in item.labels:
        check_id(label, what=f"{what} label")
    return tuple(item.labels)


def _validity(item: Item, what: str) -> tuple[int | None, int | None]:
    vf = opt_micros(item.valid_from, what=f"{what} valid_from")
    vt = opt_micros(item.valid_to, what=f"{what} valid_to")
    if vf is not None and vt is not None and vt < vf:
        raise InvalidInput(
            f"{what} has valid_to ({item.valid_to}) before valid_from ({item.valid_from}); "
            "a validity interval must not end before it starts"
        )
    return vf, vt


def prepare_all(items: Iterable[Item], kind: Kind) -> list[Prepared]:
    """Every record of a write prepared, with the cycle collector held off meanwhile: each
    record allocates dozens of containers (its encoded props), and in a host's large heap the
    collector's passes cost more than the encoding (issue 16: Cognee's add_nodes). ``items``
    may be a generator that builds the records (a driver's conversion runs here too)."""
    with gc_paused():
        return [prepare(item, kind, i) for i, item in enumerate(listed(items, f"{kind}s"))]


def tags_of(item: Item) -> tuple[str, ...]:
    """What the in-memory indexes filter by as labels: a node's labels, an edge's rel."""
    return (item.rel,) if isinstance(item, Edge) else tuple(item.labels)


def listed(values: Iterable[Any], what: str) -> list[Any]:
    if isinstance(values, (str, bytes, Node, Edge)):
        raise InvalidInput(f"{what} must be a list, not a single {type(values).__name__}")
    return list(values)


def dedupe(prepared: list[Prepared]) -> list[Prepared]:
    """Several writes of one id in one call: the last wins (as if written in order)."""
    last: dict[str, Prepared] = {}
    for p in prepared:
        last.pop(p.item.id, None)
        last[p.item.id] = p
    return list(last.values())
