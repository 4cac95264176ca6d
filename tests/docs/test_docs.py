"""The documentation cannot drift: docs/cli.md equals the parser's help, every block marked
``<!-- runnable -->`` in README.md and docs/ runs, and every relative link points at a file."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.extras import has, reason

from .cli_doc import DOC, render

ROOT = Path(__file__).resolve().parents[2]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]

# A fenced block right after the marker line (blank lines between are allowed).
RUNNABLE = re.compile(r"<!-- runnable -->\s*\n```(python|bash)\n(.*?)\n```", re.S)
LINK = re.compile(r"\]\(([^)#\s]+)(?:#[^)]*)?\)")


def test_cli_doc_matches_the_parser_help() -> None:
    assert DOC.read_text(encoding="utf-8") == render(), (
        "docs/cli.md is out of date: run  python -m tests.docs.cli_doc"
    )


def _blocks(page: Path) -> list[tuple[str, str]]:
    return RUNNABLE.findall(page.read_text(encoding="utf-8"))


#: What a runnable block names -> the extra it needs.
NEEDS = {
    "graphiti": "graphiti",
    "anatid_mcp": "mcp",
    "anatid-mcp": "mcp",
    "cognee": "cognee",
    "anatid-migrate": "migrate",
    "anatid_migrate": "migrate",
}


def _extras_needed(page: Path) -> list[str]:
    """The extras that a page's runnable blocks need and this environment lacks."""
    code = "\n".join(code for _, code in _blocks(page)).lower()
    return sorted({extra for word, extra in NEEDS.items() if word in code and not has(extra)})


def test_readme_has_runnable_blocks() -> None:
    kinds = [kind for kind, _ in _blocks(ROOT / "README.md")]
    assert kinds.count("python") >= 1 and kinds.count("bash") >= 1


@pytest.mark.parametrize(
    "page", [p for p in PAGES if _blocks(p)], ids=lambda p: str(p.relative_to(ROOT))
)
def test_runnable_blocks_run(page: Path, tmp_path: Path) -> None:
    """The blocks of one page run in order in one empty directory, as a reader would, and then
    again in the same directory: a reader who runs an example twice must not meet an error."""
    missing = _extras_needed(page)
    if missing:
        pytest.skip("; ".join(reason(extra) for extra in missing))
    env = dict(os.environ)
    # The `anatid` script and `python` of this interpreter come first on PATH.
    env["PATH"] = str(Path(sys.executable).parent) + os.pathsep + env.get("PATH", "")
    for i, (kind, code) in enumerate(_blocks(page) * 2):
        if kind == "python":
            argv = [sys.executable, "-c", code]
        else:
            argv = ["bash", "-euo", "pipefail", "-c", code]
        proc = subprocess.run(
            argv, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300
        )
        assert proc.returncode == 0, (
            f"{page.name} runnable block {i + 1} ({kind}) failed:\n{code}\n--- stdout\n"
            f"{proc.stdout[-3000:]}\n--- stderr\n{proc.stderr[-3000:]}"
        )


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_relative_links_point_at_files(page: Path) -> None:
    text = page.read_text(encoding="utf-8")
    missing = [
        target
        for target in LINK.findall(text)
        if "://" not in target and not (page.parent / target).exists()
    ]
    assert missing == [], f"{page.relative_to(ROOT)} links to missing files: {missing}"


#: The drawing of the core's modules in docs/architecture.md: the block after this marker.
MODULES_DRAWING = re.compile(r"<!-- modules -->\s*\n```\n(.*?)\n```", re.S)
#: A line of the drawing that starts a folder's part: its name at the start of the line.
FOLDER_LINE = re.compile(r"^(cli/|\(root\)|cypher/|graph/|indexes/|storage/|base/)\s")


def test_the_architecture_drawing_names_every_module_in_its_folder() -> None:
    found = MODULES_DRAWING.search((ROOT / "docs" / "architecture.md").read_text("utf-8"))
    assert found is not None, "docs/architecture.md lost its <!-- modules --> drawing"
    named: dict[str, set[str]] = {}
    folder = None
    for line in found.group(1).splitlines():
        start = FOLDER_LINE.match(line)
        if start:
            folder = start.group(1).rstrip("/")
        elif not line.startswith(" " * 12):
            folder = None  # an arrow, or the clients above the core
        if folder is not None:
            named.setdefault(folder, set()).update(re.findall(r"\b[a-z_]+\b", line))
    core = ROOT / "anatid_core"
    missing = []
    for path in sorted(core.rglob("*.py")):
        parts = path.relative_to(core).parts
        folder = "(root)" if len(parts) == 1 else parts[0]
        if path.stem != "__init__" and path.stem not in named.get(folder, set()):
            missing.append(f"{folder}: {path.stem}")
    assert missing == []
