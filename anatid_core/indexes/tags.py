"""Groups and labels of the versions an in-memory index holds, as numpy-filterable codes.

A group is a small integer code; a node's labels (an edge's relationship type) are bits of a
uint64. Filtering by group or label is then a vectorised mask over the index instead of a database
round trip per search (Graphiti filters every node search by the ``Entity`` label). Past 64
distinct labels, label filters fall back to SQL.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np

MAX_LABELS = 64


class Tags:
    def __init__(self) -> None:
        self.group_codes: dict[str, int] = {}
        self.label_bits: dict[str, int] = {}
        self.overflow = False

    def group_code(self, group: str) -> int:
        code = self.group_codes.get(group)
        if code is None:
            code = self.group_codes[group] = len(self.group_codes)
        return code

    def label_word(self, labels: Iterable[str]) -> int:
        word = 0
        for label in labels:
            bit = self.label_bits.get(label)
            if bit is None:
                if len(self.label_bits) >= MAX_LABELS:
                    self.overflow = True
                    continue
                bit = self.label_bits[label] = len(self.label_bits)
            word |= 1 << bit
        return word

    def encode(
        self, groups: Sequence[str], labels: Sequence[Sequence[str]]
    ) -> tuple[np.ndarray, np.ndarray]:
        codes = np.fromiter((self.group_code(g) for g in groups), dtype=np.int32, count=len(groups))
        words = np.fromiter(
            (self.label_word(ls) for ls in labels), dtype=np.uint64, count=len(labels)
        )
        return codes, words

    def can_filter_labels(self) -> bool:
        return not self.overflow

    def mask(
        self,
        codes: np.ndarray,
        words: np.ndarray,
        groups: Iterable[str] | None,
        labels: Iterable[str] | None,
    ) -> np.ndarray | None:
        """Rows whose group is one of ``groups`` and that carry any of ``labels`` (None = all)."""
        keep: np.ndarray | None = None
        if groups is not None:
            wanted = [self.group_codes[g] for g in groups if g in self.group_codes]
            keep = np.isin(codes, np.asarray(wanted, dtype=np.int32))
        if labels is not None and not self.overflow:
            want = 0
            for label in labels:
                if label in self.label_bits:
                    want |= 1 << self.label_bits[label]
            has = (words & np.uint64(want)) != 0
            keep = has if keep is None else keep & has
        return keep
