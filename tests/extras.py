"""Which optional extras this environment has, so tests that need a missing one skip, saying so.

The project installs with `pip install -e ".[all]"`, but a contributor may install less (say
`.[dev]` for the core alone); the suite then skips what it cannot run instead of erroring.
"""

from __future__ import annotations

import importlib.util

import pytest

#: extra name -> the module that proves it is installed.
EXTRAS = {
    "graphiti": "graphiti_core",
    "cognee": "cognee",
    "mcp": "mcp",
    "migrate": "rich",
}


def has(extra: str) -> bool:
    """True when the extra's module can be imported (found, not imported: no start-up cost)."""
    return importlib.util.find_spec(EXTRAS[extra]) is not None


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
