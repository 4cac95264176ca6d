"""anatid_core imports only the standard library, duckdb, numpy and pyarrow."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import anatid_core

#: ``anatid_core`` itself: its cli/ package imports the core by its public name.
ALLOWED = {"anatid_core", "duckdb", "numpy", "pyarrow"}


def test_core_imports_only_stdlib_duckdb_numpy_pyarrow() -> None:
    root = Path(anatid_core.__file__).parent
    offenders = []
    for path in root.rglob("*.py"):
        tree = ast.parse(path.read_text(), filename=str(path))
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            else:
                continue
            for name in names:
                top = name.split(".")[0]
                if top not in ALLOWED and top not in sys.stdlib_module_names:
                    offenders.append(f"{path.name}: {name}")
    assert offenders == []
