"""Cypher text to tokens.

Keywords are identifiers compared case-insensitively by the parser; strings keep their escapes
decoded; every token knows its offset, so that errors can point at the place in the query.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .errors import syntax_error


@dataclass(frozen=True)
class Token:
    kind: str  # "ident", "string", "int", "float", "param", "op", "eof"
    text: str  # the source text (an identifier's name, unquoted)
    value: Any
    pos: int
    end: int
    quoted: bool = False  # a `backticked` identifier, never a keyword

    def is_word(self, *words: str) -> bool:
        return self.kind == "ident" and not self.quoted and self.text.upper() in words


#: Longest first, so that "<=" wins over "<".
_OPERATORS = (
    "<>",
    "<=",
    ">=",
    "=~",
    "!=",
    "..",
    "+=",
    "||",
    "::",
    "(",
    ")",
    "[",
    "]",
    "{",
    "}",
    ",",
    ".",
    ":",
    ";",
    "|",
    "=",
    "<",
    ">",
    "+",
    "-",
    "*",
    "/",
    "%",
    "^",
    "$",
    "!",  # Neo4j 5's label expressions (:!A, :A&B): read, to be refused by name
    "&",
)
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_NUMBER = re.compile(
    r"0x[0-9A-Fa-f]+|(?:\d+\.\d+(?:[eE][+-]?\d+)?|\.\d+(?:[eE][+-]?\d+)?|\d+[eE][+-]?\d+)|\d+"
)
_SPACE = re.compile(r"(?:\s+|//[^\n]*|/\*.*?\*/)+", re.DOTALL)
_ESCAPES = {
    "\\": "\\",
    "'": "'",
    '"': '"',
    "b": "\b",
    "f": "\f",
    "n": "\n",
    "r": "\r",
    "t": "\t",
    "/": "/",
}


def _string(query: str, pos: int) -> tuple[str, int]:
    quote = query[pos]
    out: list[str] = []
    i = pos + 1
    while i < len(query):
        ch = query[i]
        if ch == quote:
            return "".join(out), i + 1
        if ch == "\\" and i + 1 < len(query):
            nxt = query[i + 1]
            if nxt in ("u", "U"):
                width = 4 if nxt == "u" else 8
                digits = query[i + 2 : i + 2 + width]
                if len(digits) != width or not all(c in "0123456789abcdefABCDEF" for c in digits):
                    raise syntax_error(query, i, "a \\u escape needs hexadecimal digits")
                out.append(chr(int(digits, 16)))
                i += 2 + width
                continue
            if nxt not in _ESCAPES:
                raise syntax_error(query, i, f"unknown escape \\{nxt} in a string")
            out.append(_ESCAPES[nxt])
            i += 2
            continue
        out.append(ch)
        i += 1
    raise syntax_error(query, pos, "a string is not closed")


def tokenize(query: str, check: Callable[[], None] | None = None) -> list[Token]:
    """The tokens of ``query``, ending with an ``eof`` token; ``check`` (the query's deadline)
    is called every 4,096 tokens: a query of megabytes takes seconds to read."""
    tokens: list[Token] = []
    i, n = 0, len(query)
    while True:
        if check is not None and not len(tokens) & 4095:
            check()
        space = _SPACE.match(query, i)
        if space:
            i = space.end()
        if i >= n:
            tokens.append(Token("eof", "", None, n, n))
            return tokens
        ch = query[i]
        if ch in "'\"":
            text, end = _string(query, i)
            tokens.append(Token("string", query[i:end], text, i, end))
            i = end
        elif ch == "`":
            end = query.find("`", i + 1)
            if end < 0:
                raise syntax_error(query, i, "a `quoted name` is not closed")
            tokens.append(Token("ident", query[i + 1 : end], None, i, end + 1, quoted=True))
            i = end + 1
        elif ch.isdigit() or (ch == "." and i + 1 < n and query[i + 1].isdigit()):
            match = _NUMBER.match(query, i)
            assert match is not None
            text = match.group()
            digits = text[2:] if text.lower().startswith("0x") else text
            if not any(c in text for c in ".eE") or text.lower().startswith("0x"):
                if len(digits.lstrip("0")) > 19:  # past 64 bits (and int() of 4,300 raises)
                    raise syntax_error(query, i, "an integer literal past 64 bits")
            if text.lower().startswith("0x"):
                tokens.append(Token("int", text, int(text, 16), i, match.end()))
            elif any(c in text for c in ".eE"):
                tokens.append(Token("float", text, float(text), i, match.end()))
            else:
                tokens.append(Token("int", text, int(text), i, match.end()))
            i = match.end()
        elif ch == "$":
            match = _IDENT.match(query, i + 1)
            if match is None:
                digits = re.compile(r"\d+").match(query, i + 1)
                if digits is None:
                    raise syntax_error(query, i, "a $parameter needs a name")
                match = digits
            tokens.append(Token("param", match.group(), match.group(), i, match.end()))
            i = match.end()
        elif _IDENT.match(query, i):
            match = _IDENT.match(query, i)
            assert match is not None
            tokens.append(Token("ident", match.group(), None, i, match.end()))
            i = match.end()
        else:
            for op in _OPERATORS:
                if query.startswith(op, i):
                    tokens.append(Token("op", op, None, i, i + len(op)))
                    i += len(op)
                    break
            else:
                raise syntax_error(query, i, f"unexpected character {ch!r}")
