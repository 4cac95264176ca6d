"""``anatid-migrate``'s help and usage (issue 36): every direction the code supports is
described, with examples and words that fit the page; a bare command shows usage, not the name
of an internal argument."""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from anatid_migrate.cli import main, parser

REPO = Path(__file__).resolve().parents[2]


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "anatid_migrate.cli", *args],
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=120,
        env={**os.environ, "COLUMNS": "100"},
    )


def _pages() -> dict[str, argparse.ArgumentParser]:
    """Every help page: the command, each subcommand, each framework of export/import."""
    pages: dict[str, argparse.ArgumentParser] = {}

    def walk(name: str, p: argparse.ArgumentParser) -> None:
        pages[name] = p
        for action in p._actions:
            if isinstance(action, argparse._SubParsersAction):
                for sub, child in action.choices.items():
                    walk(f"{name} {sub}", child)

    walk("anatid-migrate", parser())
    return pages


PAGES = _pages()


def test_the_main_page_names_every_direction_and_its_backends() -> None:
    text = PAGES["anatid-migrate"].format_help()
    for words in (
        "Kùzu",
        "LadybugDB",
        "FalkorDB",
        "Neo4j",
        "PostgreSQL + pgvector",
        "LadybugDB + LanceDB",
        "export graphiti FILE --to URL",
        "import graphiti --from URL FILE",
        "export cognee FILE --to URL",
        "import cognee --from URL FILE",
    ):
        assert words in text, words
    examples = text.split("examples:")[1]
    for command in ("graphiti", "cognee", "export graphiti", "import graphiti", "export cognee"):
        assert f"anatid-migrate {command} " in examples, command


@pytest.mark.parametrize("name", sorted(PAGES))
def test_every_page_has_examples_and_options_that_say_what_they_do(name: str) -> None:
    p = PAGES[name]
    text = p.format_help()
    assert re.search(r"^examples?:\n  anatid-migrate ", text, re.M), f"{name}: no example"
    silent = [a.option_strings[0] for a in p._actions if a.option_strings and not a.help]
    assert not silent, f"{name}: options without help: {silent}"


@pytest.mark.parametrize("name", sorted(PAGES))
def test_an_option_named_in_help_is_on_that_page(name: str) -> None:
    """ "as for --to" on the import page, which has no --to (issue 36)."""
    p = PAGES[name]
    text = p.format_help().split("examples:")[0]
    # a page may name its own options and, on an overview, those of the commands under it
    under = [q for n, q in PAGES.items() if n == name or n.startswith(name + " ")]
    own = {s for q in under for a in q._actions for s in a.option_strings}
    mentioned = set(re.findall(r"(?<![\w-])--[a-z][a-z-]+", text))
    assert mentioned <= own, f"{name} names {sorted(mentioned - own)}"


@pytest.mark.parametrize(
    "argv, usage",
    [([], "usage: anatid-migrate [-h] COMMAND"), (["export"], "usage: anatid-migrate export")],
)
def test_a_missing_command_shows_usage_and_exits_2(argv: list[str], usage: str) -> None:
    done = run(*argv)
    assert done.returncode == 2
    assert usage in done.stdout and "examples:" in done.stdout
    assert "kind" not in done.stdout + done.stderr and "framework" not in done.stderr


def test_main_returns_2_without_a_command(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([]) == 2
    assert "COMMAND" in capsys.readouterr().out
