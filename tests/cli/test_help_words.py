"""Every ``anatid`` help page speaks to users (issue 36): no internal names of the code (a module
path, a settings dict and its key) and no bare metavars that only repeat the option's name."""

from __future__ import annotations

import argparse
import re

import pytest

from anatid_core.cli import build_parser

#: What code looks like in prose: a dotted module name, a subscripted dict, a SCREAMING name.
INTERNAL = re.compile(r"anatid_core\.|\w\[['\"]|\b[A-Z]{3,}\[|\bLEASE\b|\bSETTINGS\b|\btx order\b")


def _pages() -> dict[str, str]:
    parser = build_parser()
    subs = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    pages = {"anatid": parser.format_help()}
    pages.update({f"anatid {name}": sub.format_help() for name, sub in subs.choices.items()})
    return pages


@pytest.mark.parametrize("page", sorted(_pages()))
def test_help_uses_no_internal_names(page: str) -> None:
    text = _pages()[page]
    assert not INTERNAL.findall(text), f"{page} --help: {INTERNAL.findall(text)}"


@pytest.mark.parametrize("page", sorted(_pages()))
def test_every_option_says_what_it_does(page: str) -> None:
    parser = build_parser()
    subs = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    p = parser if page == "anatid" else subs.choices[page.split()[1]]
    silent = [a.option_strings[0] for a in p._actions if a.option_strings and not a.help]
    assert not silent, f"{page}: options without help: {silent}"
    # argparse shows an option's value as its name in capitals unless told (--limit LIMIT)
    echoed = [
        a.option_strings[0]
        for a in p._actions
        if a.option_strings and a.nargs is None and a.metavar is None and a.choices is None
    ]
    assert not echoed, f"{page}: metavars that only repeat the option: {echoed}"


def test_the_wait_for_a_busy_file_is_said_in_seconds() -> None:
    assert "busy for more than 30 seconds" in _pages()["anatid"]
