"""Find, check or create the Python interpreter that reads a source file.

The reader runs in its own process (see ``reader_worker.py``): an interpreter with the engine
release the file needs and pyarrow. Candidates, in order: ``--reader-python``; a reader venv
created earlier by ``--bootstrap-reader`` (under :func:`cache_dir`); the running interpreter.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from .errors import ReaderUnavailable
from .formats import SourceFormat

#: (engine, storage code) of each release line, to check an interpreter's engine can read a file:
#: a LadybugDB release reads its own code and older LadybugDB codes; kuzu reads only its own.
_RELEASE_CODES: list[tuple[str, tuple[int, int], int]] = [
    ("kuzu", (0, 10), 38),
    ("kuzu", (0, 11), 39),
    ("ladybug", (0, 15), 40),
    ("ladybug", (0, 16), 40),
    ("ladybug", (0, 17), 41),
    ("ladybug", (0, 18), 42),
    ("ladybug", (0, 19), 43),
    ("ladybug", (0, 20), 47),
    ("ladybug", (0, 21), 47),
    ("ladybug", (0, 22), 49),
]

_PROBE = (
    "import importlib, sys; m = importlib.import_module(sys.argv[1]); import pyarrow; "
    "print(getattr(m, '__version__', ''))"
)


@dataclass(frozen=True)
class Reader:
    """An interpreter that can read a source: its path, engine and engine version."""

    python: str
    engine: str
    version: str


def cache_dir() -> Path:
    """Where bootstrapped reader venvs live (``ANATID_MIGRATE_CACHE`` or ``~/.cache``)."""
    root = os.environ.get("ANATID_MIGRATE_CACHE") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "anatid-migrate"
    )
    return Path(root)


def bootstrap_venv(fmt: SourceFormat) -> Path:
    return cache_dir() / "readers" / f"{fmt.engine}-{fmt.reader_version}"


def _venv_python(venv: Path) -> Path:
    return venv / ("Scripts/python.exe" if os.name == "nt" else "bin/python")


def _storage_code(engine: str, version: str) -> int | None:
    try:
        major_minor = tuple(int(x) for x in version.split(".")[:2])
    except ValueError:
        return None
    for name, line, code in _RELEASE_CODES:
        if name == engine and line == major_minor:
            return code
    return None


def can_read(engine: str, version: str, fmt: SourceFormat) -> bool:
    """Whether ``engine`` at ``version`` opens files of ``fmt`` (by the storage-code rules)."""
    if engine != fmt.engine:
        return False
    code = _storage_code(engine, version)
    if code is None:
        return False
    return code == fmt.code if engine == "kuzu" else code >= fmt.code


def probe(python: str, engine: str) -> str | None:
    """The ``engine`` version importable by ``python`` (with pyarrow), or None."""
    try:
        done = subprocess.run(
            [python, "-I", "-c", _PROBE, engine],
            capture_output=True,
            text=True,
            timeout=120,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    return done.stdout.strip() if done.returncode == 0 else None


def fix_command(fmt: SourceFormat) -> str:
    venv = bootstrap_venv(fmt)
    return (
        f"{sys.executable} -m venv {venv} && {_venv_python(venv)} -m pip install "
        f"{fmt.engine}=={fmt.reader_version} pyarrow\n"
        f"then pass --reader-python {_venv_python(venv)}, or simply rerun with --bootstrap-reader"
    )


def find_reader(
    fmt: SourceFormat, *, reader_python: str | None = None, bootstrap: bool = False
) -> Reader:
    """Pick the interpreter that reads ``fmt``; create one if ``bootstrap``; else explain."""
    if reader_python:
        version = probe(reader_python, fmt.engine)
        if version and can_read(fmt.engine, version, fmt):
            return Reader(reader_python, fmt.engine, version)
        found = f"{fmt.engine} {version}" if version else f"no importable {fmt.engine} + pyarrow"
        raise ReaderUnavailable(
            f"--reader-python {reader_python} has {found}; {fmt.describe()} needs "
            f"{fmt.engine}=={fmt.reader_version} (with pyarrow). Fix:\n  {fix_command(fmt)}"
        )
    candidates = [str(_venv_python(bootstrap_venv(fmt))), sys.executable]
    for python in candidates:
        if not Path(python).exists():
            continue
        version = probe(python, fmt.engine)
        if version and can_read(fmt.engine, version, fmt):
            return Reader(python, fmt.engine, version)
    if bootstrap:
        python = str(create_reader_venv(fmt))
        version = probe(python, fmt.engine) or fmt.reader_version
        return Reader(python, fmt.engine, version)
    raise ReaderUnavailable(
        f"No interpreter with {fmt.engine}=={fmt.reader_version} found to read {fmt.describe()} "
        f"({fmt.engine} cannot be imported next to anatid's other engines, so it runs in its own "
        f"process). Fix:\n  {fix_command(fmt)}"
    )


def create_reader_venv(fmt: SourceFormat) -> Path:
    """Create the private reader venv. Venvs are not relocatable, so it is built in place; a
    half-built one fails :func:`probe` and is rebuilt over on the next run."""
    venv = bootstrap_venv(fmt)
    venv.parent.mkdir(parents=True, exist_ok=True)
    try:
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        subprocess.run(
            [
                str(_venv_python(venv)),
                "-m",
                "pip",
                "install",
                "--quiet",
                "--disable-pip-version-check",
                f"{fmt.engine}=={fmt.reader_version}",
                "pyarrow",
            ],
            check=True,
        )
    except (OSError, subprocess.CalledProcessError) as exc:
        shutil.rmtree(venv, ignore_errors=True)
        raise ReaderUnavailable(
            f"Could not create the reader venv {venv} ({exc}). Needs network access to PyPI. "
            f"Fix by hand:\n  {fix_command(fmt)}"
        ) from exc
    return _venv_python(venv)
