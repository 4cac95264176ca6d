"""The private venvs of the reference backends, built once and cached, and running a scenario.

* ``kuzu``: Graphiti's KuzuDriver on kuzu 0.11.3. The main venv has Cognee's ``kuzu`` shim
  (LadybugDB), so real kuzu lives in ``venvs/graphiti-kuzu`` under the cache root, the very venv
  ``tests/migrate/setup_sources.sh`` builds (same name, packages and check: either builds it
  for both).
* ``falkordb``: Graphiti's FalkorDriver on FalkorDB Lite (``falkordblite``, an embedded
  redis-server with the FalkorDB module, reached over a unix socket), which needs Python 3.12+:
  ``venvs/graphiti-falkordblite``, made with the first 3.12/3.13 interpreter found.

Cache root: ``$ANATID_MIGRATE_CACHE``, else ``${XDG_CACHE_HOME:-~/.cache}/anatid-migrate`` (shared
with the migrate tests). Building needs PyPI the first time; ``ReferenceUnavailable`` says why a
venv could not be had (the test skips with that reason, or fails under CI).
"""

from __future__ import annotations

import glob
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[3]
GRAPHITI = "graphiti-core==0.31.2"


class ReferenceUnavailable(Exception):
    """A reference backend's venv cannot be built here (no PyPI, no Python 3.12+)."""


@dataclass(frozen=True)
class Reference:
    name: str
    venv: str
    packages: tuple[str, ...]
    check: str
    min_python: tuple[int, int]
    #: Set when building the venv takes long enough to be opt-in: the variable that asks for it.
    opt_in: str | None = None


KUZU = Reference(
    "kuzu",
    "venvs/graphiti-kuzu",
    (GRAPHITI, "kuzu==0.11.3", "httpx", "pyarrow"),
    "import kuzu, graphiti_core, pyarrow, httpx; assert kuzu.__version__ == '0.11.3'",
    (3, 10),
)
FALKORDB = Reference(
    "falkordb",
    "venvs/graphiti-falkordblite",
    (f"{GRAPHITI.replace('==', '[falkordb]==')}", "falkordblite==0.11.0", "httpx"),
    "import graphiti_core, falkordb, redislite.async_falkordb_client",
    (3, 12),
    # falkordblite ships no wheel: pip compiles redis-server and the FalkorDB module from source
    # (22 min on this 2-core machine under load), too long for every CI run. A built venv is used.
    opt_in="ANATID_DIFF_FALKORDB",
)
REFERENCES = {r.name: r for r in (KUZU, FALKORDB)}


def cache_root() -> Path:
    root = os.environ.get("ANATID_MIGRATE_CACHE") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "anatid-migrate"
    )
    return Path(root)


def _version(python: str) -> tuple[int, int] | None:
    try:
        done = subprocess.run(
            [python, "-c", "import sys; print(*sys.version_info[:2])"],
            capture_output=True,
            text=True,
            timeout=60,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    parts = done.stdout.split()
    return (int(parts[0]), int(parts[1])) if done.returncode == 0 and len(parts) == 2 else None


def base_python(minimum: tuple[int, int]) -> str:
    """An interpreter of at least ``minimum`` to make a venv with (this one's base first)."""
    candidates = [getattr(sys, "_base_executable", sys.executable)]
    for name in ("python3.13", "python3.12"):
        if found := shutil.which(name):
            candidates.append(found)
    pyenv = os.environ.get("PYENV_ROOT") or os.path.expanduser("~/.pyenv")
    candidates += sorted(glob.glob(f"{pyenv}/versions/3.1[23]*/bin/python3"), reverse=True)
    for python in candidates:
        version = _version(python)
        if version is not None and version >= minimum:
            return python
    raise ReferenceUnavailable(
        f"no Python {minimum[0]}.{minimum[1]}+ interpreter found (tried {', '.join(candidates)})"
    )


def _works(python: Path, check: str) -> bool:
    if not python.exists():
        return False
    done = subprocess.run([str(python), "-I", "-c", check], capture_output=True, timeout=120)
    return done.returncode == 0


def venv_python(ref: Reference) -> Path:
    """The reference's venv interpreter, building the venv first if it is missing or broken."""
    venv = cache_root() / ref.venv
    python = venv / "bin" / "python"
    if _works(python, ref.check):
        return python
    if ref.opt_in and os.environ.get(ref.opt_in, "") in ("", "0"):
        raise ReferenceUnavailable(
            f"the {ref.name} venv is not built and building it compiles from source (10-20 min):"
            f" set {ref.opt_in}=1 to build it ({venv})"
        )
    base = base_python(ref.min_python)
    shutil.rmtree(venv, ignore_errors=True)
    venv.parent.mkdir(parents=True, exist_ok=True)
    steps = [
        [base, "-m", "venv", str(venv)],
        [str(python), "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
         "--timeout", "30", "--retries", "2", *ref.packages],
    ]  # fmt: skip
    for cmd in steps:
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=1800)
        if done.returncode != 0:
            shutil.rmtree(venv, ignore_errors=True)
            tail = [line for line in done.stderr.splitlines() if "WARNING: Location" not in line]
            raise ReferenceUnavailable(
                f"could not build the {ref.name} venv ({' '.join(cmd[:4])} ...): "
                + "\n".join(tail[-8:])
            )
    if not _works(python, ref.check):
        raise ReferenceUnavailable(f"the {ref.name} venv at {venv} fails its check: {ref.check}")
    return python


def run_scenario(python: str | Path, backend: str, workdir: Path) -> Path:
    """Run the scenario on ``backend`` under ``python``; returns the dump's path."""
    out = workdir / f"{backend}.json"
    env = dict(os.environ, GRAPHITI_TELEMETRY_ENABLED="false", PYTHONPATH=str(REPO))
    cmd = [
        str(python),
        "-m",
        "tests.graphiti.differential.scenario",
        backend,
        str(workdir / backend),
        str(out),
    ]
    done = subprocess.run(cmd, cwd=REPO, env=env, capture_output=True, text=True, timeout=900)
    if done.returncode != 0 or not out.exists():
        raise RuntimeError(f"the {backend} scenario failed:\n{done.stderr[-4000:]}")
    return out
