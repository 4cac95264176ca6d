"""A command imports what it uses: ``anatid --help`` no store, ``anatid stats`` no Cypher
engine, page or exporter (issue 44). Measured as the modules loaded, never as time."""

from __future__ import annotations

from tests.startup import loaded_modules, tops

from .conftest import Seeded

#: Never needed by the command line's help, nor by stats.
HOSTS = {"graphiti_core", "cognee", "mcp", "openai", "anatid_graphiti", "anatid_cognee"}


def test_help_imports_no_store() -> None:
    loaded = loaded_modules("anatid_core.cli", "--help")
    assert tops(loaded) & (HOSTS | {"duckdb", "numpy", "pyarrow", "usearch"}) == set()
    assert not {m for m in loaded if m.startswith(("anatid_core.store", "anatid_core.cypher"))}


def test_a_subcommands_help_imports_no_store() -> None:
    loaded = loaded_modules("anatid_core.cli", "search", "--help")
    assert tops(loaded) & {"duckdb", "numpy", "pyarrow"} == set()
    assert "anatid_core.cli.search" not in loaded  # the command's module: when it runs


def test_stats_imports_no_cypher_engine_page_or_exporter(seeded: Seeded) -> None:
    loaded = loaded_modules("anatid_core.cli", "stats", str(seeded.path))
    assert "anatid_core.store" in loaded  # it did run
    assert tops(loaded) & HOSTS == set()
    unused = ("anatid_core.cypher", "anatid_core.cli.viewer", "anatid_core.cli.export")
    assert {m for m in loaded if m.startswith(unused)} == set()
    assert "anatid_core.cli.search" not in loaded and "anatid_core.cli.graph" not in loaded
