"""Which optional extras this environment has, so tests that need a missing one skip, saying so.

The project installs with `pip install -e ".[all]"`, but a contributor may install less (say
`.[dev]` for the core alone); the suite then skips what it cannot run instead of erroring.
"""

from __future__ import annotations

from importlib import metadata

import pytest

#: extra name -> the distribution that proves it is installed.
EXTRAS = {
    "graphiti": "graphiti-core",
    "cognee": "cognee",
    "mcp": "mcp",
    "migrate": "rich",
    "export": "falkordb",
    "export-cognee": "asyncpg",
    "graph": "igraph",
}


def has(extra: str) -> bool:
    """True when the extra's distribution is installed.

    Read from the installed metadata, not with ``importlib.util.find_spec``: "installed" is a
    fact about the distribution, and a metadata read stays clear of the import machinery (a
    spec lookup of ``cognee`` goes through our Cognee import hook; it used to use the hook up,
    fixed in issue 12, and tests/cognee/test_cognee_import_hook.py checks it).
    """
    try:
        metadata.distribution(EXTRAS[extra])
    except metadata.PackageNotFoundError:
        return False
    return True


def reason(extra: str) -> str:
    return f"needs the {extra!r} extra: pip install -e '.[{extra}]'"


def require(extra: str) -> None:
    """Skip the calling module (or every test under the calling conftest) without the extra."""
    if not has(extra):
        pytest.skip(reason(extra), allow_module_level=True)


def needs(*extras: str) -> pytest.MarkDecorator:
    """A mark that skips a test (or one parameter of it) unless every extra is installed."""
    missing = [e for e in extras if not has(e)]
    return pytest.mark.skipif(bool(missing), reason="; ".join(reason(e) for e in missing))
