"""The command line is a client of the core like any other: its own package, reached only
through the core's public names, and never loaded by ``import anatid_core``."""

from __future__ import annotations

import ast
import subprocess
import sys
from importlib import metadata
from pathlib import Path

import anatid_core

CORE = Path(anatid_core.__file__).parent
CLI = CORE / "cli"
REPO = CORE.parent


def _imports(path: Path) -> list[tuple[int, str, list[str]]]:
    """(level, module, names) of every import in a file, those under ``if TYPE_CHECKING:`` too."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Import):
            found += [(0, a.name, []) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            found.append((node.level, node.module or "", [a.name for a in node.names]))
    return found


def test_import_anatid_core_does_not_load_the_cli() -> None:
    code = (
        "import anatid_core, sys; "
        "loaded = sorted(m for m in sys.modules if m.startswith('anatid_core.cli')); "
        "assert not loaded, loaded"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr


def test_cli_imports_only_public_names_of_the_core() -> None:
    public = set(anatid_core.__all__) | {"__version__"}
    offenders = []
    for path in sorted(CLI.rglob("*.py")):
        for level, module, names in _imports(path):
            where = f"{path.relative_to(CORE)}: {'.' * level}{module} {names}"
            if level > 1 or (level == 0 and module.startswith("anatid_core.")):
                offenders.append(where)  # reaches into a core module past the package root
            elif level == 0 and module == "anatid_core":
                offenders += [f"{where}: {n}" for n in names if n not in public]
    assert offenders == []


def test_cli_touches_no_private_attribute() -> None:
    """No ``store._cursor()`` and the like: what the CLI needs is a public verb."""
    offenders = []
    for path in sorted(CLI.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
            if isinstance(node, ast.Attribute) and node.attr.startswith("_"):
                if not (node.attr.startswith("__") and node.attr.endswith("__")):
                    offenders.append(f"{path.name}:{node.lineno}: .{node.attr}")
    assert offenders == []


def test_nothing_outside_the_cli_package_imports_it() -> None:
    offenders = []
    roots = [CORE, REPO / "drivers", REPO / "compat"]
    for path in sorted(p for root in roots for p in root.rglob("*.py")):
        if CLI in path.parents:
            continue
        in_core_root = path.parent == CORE
        for level, module, names in _imports(path):
            absolute = level == 0 and (
                module == "anatid_core.cli" or module.startswith("anatid_core.cli.")
            )
            relative = (
                in_core_root
                and level == 1
                and (module.split(".")[0] == "cli" or (module == "" and "cli" in names))
            )
            rooted = level == 0 and module == "anatid_core" and "cli" in names
            if absolute or relative or rooted:
                offenders.append(f"{path.relative_to(REPO)}: {'.' * level}{module} {names}")
    assert offenders == []


def test_the_anatid_console_script_is_the_cli_main() -> None:
    (script,) = [e for e in metadata.entry_points(group="console_scripts") if e.name == "anatid"]
    from anatid_core.cli import main

    assert script.value == "anatid_core.cli:main"
    assert script.load() is main


def test_python_dash_m_runs_the_same_command() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "anatid_core.cli", "--version"], capture_output=True, text=True
    )
    assert proc.returncode == 0
    assert proc.stdout.strip() == f"anatid {anatid_core.__version__}"
