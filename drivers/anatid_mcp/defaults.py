"""What ``anatid-mcp --help`` shows as defaults, on the standard library alone: the memory
file's place and the largest episode body. The help is printed before Graphiti, the MCP SDK or
the model clients are imported (issue 44: ``--help`` took 7.6 s importing them)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

#: The largest episode body accepted, in characters (``--max-body`` changes it). An LLM reads the
#: whole body for every episode; beyond this a client should split it into several episodes.
MAX_BODY_CHARS = 200_000


def default_path() -> str:
    """``$ANATID_MCP_PATH``, else ``memory.duckdb`` in the user's data directory; a
    ``memory.anatid`` there (the earlier default name) is kept when no ``memory.duckdb`` is."""
    if os.environ.get("ANATID_MCP_PATH"):
        return os.environ["ANATID_MCP_PATH"]
    if os.name == "nt":
        base = Path(os.environ.get("LOCALAPPDATA") or Path.home() / "AppData" / "Local")
    elif sys.platform == "darwin":
        base = Path.home() / "Library" / "Application Support"
    else:
        base = Path(os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share")
    folder = base / "anatid-mcp"
    current, earlier = folder / "memory.duckdb", folder / "memory.anatid"
    # A memory written under the earlier default name stays the memory: renaming the default
    # must not start users on an empty one.
    return str(earlier if earlier.exists() and not current.exists() else current)
