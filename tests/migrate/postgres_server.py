"""A private PostgreSQL 16 server with pgvector for the Cognee export tests: the binaries the
``pgserver`` wheel ships (PostgreSQL 16.2 + pgvector 0.6.2, prebuilt, manylinux; no Debian package
needed), as a fresh cluster in its own temporary directory listening on a free 127.0.0.1 port,
stopped by the fixture that started it. PostgreSQL refuses to run as root, so under root the
cluster runs as a system user ``pgserver`` (created with ``useradd`` as the wheel itself does)."""

from __future__ import annotations

import atexit
import functools
import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from tests.migrate.falkordb_server import free_port

USER = "pgserver"


def _bin(name: str) -> str:
    return str(_install() / "bin" / name)


@functools.cache
def _install() -> Path:
    """The wheel's PostgreSQL install, or under root, when the server's user cannot reach it
    (a venv inside a directory private to root, such as one made by ``mktemp -d``), a copy of
    it in a temporary directory it can reach, removed when the process exits."""
    import pgserver  # type: ignore[import-untyped]

    shipped = Path(pgserver.__file__).parent / "pginstall"
    if os.geteuid() != 0 or all(p.stat().st_mode & 0o001 for p in shipped.parents):
        return shipped
    place = Path(tempfile.mkdtemp(prefix="anatid-pginstall-"))
    place.chmod(0o755)
    atexit.register(shutil.rmtree, place, ignore_errors=True)
    # The binaries find their shared libraries at $ORIGIN/../../../pgserver.libs: keep the layout.
    libs = shipped.parent.parent / "pgserver.libs"
    if libs.is_dir():
        shutil.copytree(libs, place / "pgserver.libs", symlinks=True)
    return Path(shutil.copytree(shipped, place / "pgserver" / "pginstall", symlinks=True))


def _as_user() -> dict[str, Any]:
    if os.geteuid() != 0:
        return {}
    from pgserver.utils import ensure_folder_permissions, ensure_user_exists  # type: ignore

    ensure_user_exists(USER)
    binaries = Path(_bin("postgres")).parent
    ensure_folder_permissions(binaries, 0o055)
    ensure_folder_permissions(binaries.parent / "lib", 0o044)
    ensure_folder_permissions(binaries.parent / "share", 0o044)
    return {"user": USER}


def _run(args: list[str], who: dict[str, Any], timeout: float = 60) -> None:
    done = subprocess.run(args, capture_output=True, text=True, timeout=timeout, **who)
    if done.returncode != 0:
        raise RuntimeError(f"{args[0]} failed: {done.stderr[-2000:]}")


@contextmanager
def postgres_server() -> Iterator[str]:
    """Yield ``postgresql://postgres:postgres@127.0.0.1:PORT/postgres`` for a fresh cluster."""
    who = _as_user()
    # Not under pytest's tmp_path: its parents are private to root, and the server's user must
    # reach its data directory.
    root = Path(tempfile.mkdtemp(prefix="anatid-pg-"))
    root.chmod(0o755)
    data = root / "data"
    data.mkdir()
    if who:
        shutil.chown(root, USER)
        shutil.chown(data, USER)
    port = free_port()
    _run([_bin("initdb"), "-D", str(data), "-U", "postgres", "--auth=trust", "-E", "utf8"], who)
    opts = f"-h 127.0.0.1 -p {port} -k {root} -c fsync=off -c max_connections=100"
    log = root / "server.log"
    _run([_bin("pg_ctl"), "-D", str(data), "-w", "-l", str(log), "-o", opts, "start"], who)
    try:
        yield f"postgresql://postgres:postgres@127.0.0.1:{port}/postgres"
    finally:
        subprocess.run([_bin("pg_ctl"), "-D", str(data), "-m", "immediate", "-w", "stop"],
                       capture_output=True, timeout=60, **who)  # fmt: skip
        shutil.rmtree(root, ignore_errors=True)
