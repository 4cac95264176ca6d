"""The terms of the full-text postings: how a record's name and text become words.

The postings table holds, per version, each term of its name and text with its frequency, and
the record row its document length; both the BM25 search by SQL and the in-memory text index
score what this tokenizer made of the text (``anatid_core.tokenize`` is the public name).
"""

from __future__ import annotations

import re
from collections import Counter

#: Longest term kept: an overlong word run is cut to it.
MAX_TERM_LENGTH = 64

_WORD = re.compile(r"\w+", re.UNICODE)


def tokenize(text: str) -> list[str]:
    """Lower-cased Unicode word runs; overlong runs are cut (they are ids or noise, not words)."""
    return [t[:MAX_TERM_LENGTH] for t in _WORD.findall(text.lower())]


def document_terms(name: str, text: str) -> tuple[int, Counter[str]]:
    """The document length and term frequencies of a record's full-text fields."""
    terms = tokenize(name) + tokenize(text)
    return len(terms), Counter(terms)


__all__ = ["MAX_TERM_LENGTH", "document_terms", "tokenize"]
