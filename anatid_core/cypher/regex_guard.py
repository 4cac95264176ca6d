"""Regular expressions whose backtracking can explode, found before they run (issue 42).

Python's ``re`` backtracks: ``'(a+)+$'`` against 41 characters takes longer than anyone
waits, and a deadline cannot cut one match short. The core may not depend on a linear-time
engine (RE2), so ``=~`` refuses the patterns that cause it: a repeated group that itself
repeats something (``(a+)+``, ``(a*)*``, ``(\\w+\\s?)*``), and a repeated alternation whose
branches can start with the same character (``(a|a)*``, ``(a|ab)+``, ``(.|x)*``). The scan is
conservative: it may refuse a pattern that would have been quick, never the reverse for
these shapes.
"""

from __future__ import annotations

from dataclasses import dataclass, field

#: The first character of a branch we cannot name (a class, ``.``, an escape such as ``\\w``).
_ANY = "\x00any"


@dataclass
class _Group:
    inner_repeat: bool = False  # something inside repeats more than once
    firsts: list[str | None] = field(default_factory=list)  # each branch's first character
    first: str | None = None  # this branch's, so far
    started: bool = False  # this branch has an atom


@dataclass
class _Atom:
    first: str
    repeats: bool = False  # a group with a repetition inside
    overlapping: bool = False  # a group of branches that can start alike


def explosive(pattern: str) -> str | None:
    """Why ``pattern`` can backtrack exponentially, or None if it has neither shape."""
    stack = [_Group()]
    last: _Atom | None = None
    i, n = 0, len(pattern)
    while i < n:
        c = pattern[i]
        top = stack[-1]
        if c == "\\":
            nxt = pattern[i + 1 : i + 2]
            last = _Atom(nxt if nxt and not nxt.isalnum() else _ANY)
            i += 2
        elif c == "[":
            i = _class_end(pattern, i)
            last = _Atom(_ANY)
        elif c == "(":
            stack.append(_Group())
            i = _group_start(pattern, i)
            last = None
            continue
        elif c == ")" and len(stack) > 1:
            group = stack.pop()
            group.firsts.append(group.first)
            known = [f for f in group.firsts if f is not None]
            overlapping = len(group.firsts) > 1 and (_ANY in known or len(set(known)) < len(known))
            first = group.firsts[0] if len(group.firsts) == 1 and group.firsts[0] else _ANY
            last = _Atom(first, group.inner_repeat, overlapping)
            stack[-1].inner_repeat |= group.inner_repeat
            i += 1
        elif c == "|":
            top.firsts.append(top.first)
            top.first, top.started, last = None, False, None
            i += 1
            continue
        elif c in "*+?{":
            many, i = _quantifier(pattern, i)
            if many is None:  # a '{' that is not a quantifier: a literal
                last = _Atom("{")
            elif last is not None and many:
                if last.repeats:
                    return "a repeated group repeats something inside it (as (a+)+)"
                if last.overlapping:
                    return "a repeated alternation has branches that start alike (as (a|a)*)"
                top.inner_repeat = True
            continue
        elif c in "^$":
            i += 1
            continue
        else:
            last = _Atom(_ANY if c == "." else c)
            i += 1
        if last is not None and not top.started:
            top.first, top.started = last.first, True
    return None


def _class_end(pattern: str, i: int) -> int:
    """The index after the character class that opens at ``i``."""
    j = i + 1
    if pattern[j : j + 1] == "^":
        j += 1
    if pattern[j : j + 1] == "]":
        j += 1
    while j < len(pattern) and pattern[j] != "]":
        j += 2 if pattern[j] == "\\" else 1
    return j + 1


def _group_start(pattern: str, i: int) -> int:
    """The index of a group's first atom: after ``(``, ``(?:``, ``(?P<name>``, ``(?=`` ..."""
    j = i + 1
    if pattern[j : j + 1] != "?":
        return j
    j += 1
    if pattern[j : j + 2] in ("P<", "P="):
        end = pattern.find(">" if pattern[j + 1] == "<" else ")", j)
        return len(pattern) if end < 0 else end + (1 if pattern[j + 1] == "<" else 0)
    if pattern[j : j + 2] in ("<=", "<!"):
        return j + 2
    if pattern[j : j + 1] == "<":
        end = pattern.find(">", j)
        return len(pattern) if end < 0 else end + 1
    while j < len(pattern) and pattern[j] not in ":=!)":
        j += 1  # inline flags, as (?i) or (?s:...)
    return j + 1 if pattern[j : j + 1] in (":", "=", "!") else j


def _quantifier(pattern: str, i: int) -> tuple[bool | None, int]:
    """Whether the quantifier at ``i`` lets its atom repeat more than once (None: not a
    quantifier), and the index after it (and after a lazy ``?`` or possessive ``+``)."""
    c = pattern[i]
    if c == "{":
        end = pattern.find("}", i)
        body = pattern[i + 1 : end] if end > 0 else ""
        low, comma, high = body.partition(",")
        if not body or not (low or high) or not (low + high).isdigit():
            return None, i + 1
        many = bool(comma) and (not high or int(high) > 1) or (not comma and int(low) > 1)
        i = end + 1
    else:
        many = c in "*+"
        i += 1
    if pattern[i : i + 1] in ("?", "+"):
        i += 1
    return many, i
