"""What an install of the project puts within reach of ``import``: the six import packages the wheel
ships, and nothing else of the repository (an editable install included)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.core.test_layering import PACKAGES

REPO = Path(__file__).resolve().parent.parent
# Folders and packages of the repository root that must not be importable as top-level names.
NOT_PACKAGES = ["tests", "drivers", "compat", "docs"]

PROBE = """
import importlib.util, json, sys
found = {}
for name in sys.argv[1:]:
    spec = importlib.util.find_spec(name)
    found[name] = None if spec is None else str(spec.origin or list(spec.submodule_search_locations or []))
print(json.dumps(found))
"""


def _find(names: list[str], tmp_path: Path) -> dict[str, str | None]:
    """Where a fresh interpreter, started outside the checkout, finds each name (or None)."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    proc = subprocess.run(
        [sys.executable, "-c", PROBE, *names],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=env,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_the_install_exposes_every_import_package(tmp_path: Path) -> None:
    found = _find(list(PACKAGES), tmp_path)
    assert all(found.values()), found


def test_the_repository_root_is_not_importable(tmp_path: Path) -> None:
    """`import tests` elsewhere must not find ours (it would shadow another project's suite)."""
    found = _find(NOT_PACKAGES, tmp_path)
    ours = {name: where for name, where in found.items() if where and str(REPO) in where}
    assert ours == {}


def test_a_namespace_tests_package_of_another_project_wins(tmp_path: Path) -> None:
    """Graphiti's own suite is a namespace `tests` package: with ours out of the way it imports."""
    other = tmp_path / "elsewhere"
    (other / "tests").mkdir(parents=True)
    (other / "tests" / "helpers_of_another_project.py").write_text("VALUE = 42\n")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    code = "from tests.helpers_of_another_project import VALUE; print(VALUE)"
    proc = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        cwd=other,
        env=env,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip().splitlines()[-1] == "42"
