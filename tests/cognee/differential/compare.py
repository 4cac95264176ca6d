"""Normalising two backends' typed outputs and listing where they differ.

Only what is legitimately different is normalised: ids Cognee generates at random (users,
datasets, data items: a UUID seen in one backend's output only), the moments writes happened
(``created_at``/``updated_at``-style keys; the value's type is kept), each run's own
directory, and the order of lists the API returns unordered. Everything else is compared as
it came back, value and type.
"""

from __future__ import annotations

import re
from typing import Any

from tests.cognee.differential.encoding import canonical

UUID_RE = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", re.I)
#: Keys whose values are the time a write happened.
WRITE_TIME_KEYS = frozenset(
    {
        "created_at",
        "updated_at",
        "createdAt",
        "updatedAt",
        "run_at",
        "timestamp",
        # visualize_graph's derivatives of created_at (node and timeline times, in ms)
        "t_created",
        "t_first",
        "t0",
        "t1",
    }
)
GENERATED = "<generated-id>"


def uuids_in(data: Any) -> set[str]:
    return {u.lower() for u in UUID_RE.findall(canonical(data))}


def _type_of(value: Any) -> str:
    if isinstance(value, dict) and len(value) == 1:
        return next(iter(value))
    return type(value).__name__


class Normaliser:
    def __init__(self, stable_ids: set[str], root: str) -> None:
        self.stable = stable_ids
        self.root = root

    def text(self, value: str) -> str:
        if self.root:
            value = value.replace(self.root, "<root>")
        return UUID_RE.sub(
            lambda m: m.group(0) if m.group(0).lower() in self.stable else GENERATED, value
        )

    def __call__(self, value: Any, key: str | None = None) -> Any:
        if key in WRITE_TIME_KEYS and value is not None:
            return {"$write_time": _type_of(value)}
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, list):
            return [self(v) for v in value]
        if isinstance(value, dict):
            if "$unordered" in value and len(value) == 1:
                items = [self(v) for v in value["$unordered"]]
                return {"$unordered": sorted(items, key=canonical)}
            return self._mapping(value)
        return value

    def _mapping(self, value: dict) -> dict:
        """Keys normalised too; generated-id keys that collide are numbered in the order of
        their (normalised) values, so two documents' entries stay two entries."""
        groups: dict[str, list[Any]] = {}
        for k, v in value.items():
            groups.setdefault(self.text(k), []).append(self(v, k))
        out = {}
        for key, items in groups.items():
            if len(items) == 1:
                out[key] = items[0]
                continue
            for i, item in enumerate(sorted(items, key=canonical)):
                out[f"{key}#{i}"] = item
        return out


def normalise_pair(left: dict, right: dict, left_root: str, right_root: str) -> tuple[Any, Any]:
    stable = uuids_in(left) & uuids_in(right)
    return Normaliser(stable, left_root)(left), Normaliser(stable, right_root)(right)


def differences(left: Any, right: Any, path: str = "") -> list[tuple[str, Any, Any]]:
    """``(path, left, right)`` for every place the two normalised trees differ."""
    if canonical(left) == canonical(right):
        return []
    if isinstance(left, dict) and isinstance(right, dict):
        if "$unordered" in left and "$unordered" in right:
            return _list_differences(left["$unordered"], right["$unordered"], path + "[*]")
        found = []
        for k in sorted(set(left) | set(right)):
            sub = f"{path}.{k}" if path else k
            if k not in left or k not in right:
                found.append((sub, left.get(k, "<absent>"), right.get(k, "<absent>")))
            else:
                found.extend(differences(left[k], right[k], sub))
        return found
    if isinstance(left, list) and isinstance(right, list) and len(left) == len(right):
        found = []
        for i, (a, b) in enumerate(zip(left, right, strict=True)):
            found.extend(differences(a, b, f"{path}[{i}]"))
        return found
    return [(path, left, right)]


def _list_differences(left: list, right: list, path: str) -> list[tuple[str, Any, Any]]:
    """Multisets: pair equal items off, then compare what is left pairwise (both sorted)."""
    rest_right = [canonical(b) for b in right]
    only_left = []
    for a in left:
        c = canonical(a)
        if c in rest_right:
            rest_right.remove(c)
        else:
            only_left.append(a)
    only_right = [b for b in right if canonical(b) in rest_right]
    if len(only_left) != len(only_right):
        return [(path, only_left, only_right)]
    # Pair each leftover item with the one it differs from least, so a report names the
    # fields that differ rather than two unrelated records.
    found = []
    pending = list(only_right)
    for a in only_left:
        best = min(pending, key=lambda b: len(differences(a, b)))
        pending.remove(best)
        found.extend(differences(a, best, path))
    return found
