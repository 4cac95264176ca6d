"""``anatid-mcp --help`` answers before Graphiti, the MCP SDK or a model client is imported."""

from __future__ import annotations

from tests.startup import loaded_modules, tops

#: What the server needs and its help does not (issue 44: 7.6 s of imports for --help).
HEAVY = {"graphiti_core", "mcp", "openai", "anthropic", "pydantic", "yaml", "duckdb", "numpy"}
HEAVY |= {"pyarrow", "usearch", "cognee", "anatid_core", "anatid_graphiti"}


def test_help_imports_no_server_stack() -> None:
    loaded = tops(loaded_modules("anatid_mcp.cli", "--help"))
    assert "anatid_mcp" in loaded
    assert loaded & HEAVY == set()


def test_a_bad_option_is_refused_before_the_server_stack() -> None:
    loaded = tops(loaded_modules("anatid_mcp.cli", "--transport", "pigeon"))
    assert loaded & HEAVY == set()
