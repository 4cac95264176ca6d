"""A Graphiti server backend named by a URL, opened through Graphiti's own ``GraphDriver``.

``falkor://`` / ``redis://`` / ``rediss://`` open a ``FalkorDriver``; ``bolt://`` / ``neo4j://``
(and their ``+s`` / ``+ssc`` forms) open a ``Neo4jDriver``. Everything after opening goes
through the driver: its ``clone(database=group_id)`` routes a group exactly as Graphiti routes
it (FalkorDB keeps each group in a graph of that name; Neo4j keeps every group in one database,
where ``clone`` is the driver itself), and its ``execute_query`` answers the few questions
Graphiti has no getter for (which groups exist, the server version).
"""

from __future__ import annotations

import asyncio
import os
from dataclasses import dataclass
from typing import Any
from urllib.parse import unquote, urlsplit

from .errors import TargetUnreachable, UnsupportedTarget

FALKOR_SCHEMES = {"falkor", "falkordb", "redis", "rediss"}
NEO4J_SCHEMES = {"bolt", "bolt+s", "bolt+ssc", "neo4j", "neo4j+s", "neo4j+ssc"}
#: The oldest server releases whose Cypher Graphiti 0.31's queries need (vecf32 / vector
#: indexes): FalkorDB 4.0 (module version 40000), Neo4j 5.
MIN_FALKORDB_MODULE = 40000
MIN_NEO4J_MAJOR = 5


@dataclass(frozen=True)
class ServerURL:
    """A parsed target URL; ``describe()`` never shows the password."""

    url: str
    provider: str  # "falkordb" | "neo4j"
    host: str
    port: int
    username: str | None
    password: str | None
    database: str | None

    def describe(self) -> str:
        db = f"/{self.database}" if self.database else ""
        return f"{self.provider} at {self.host}:{self.port}{db}"


def parse_url(url: str) -> ServerURL:
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    if scheme in FALKOR_SCHEMES:
        provider, port = "falkordb", 6379
    elif scheme in NEO4J_SCHEMES:
        provider, port = "neo4j", 7687
    else:
        raise UnsupportedTarget(
            f"{url!r}: unknown scheme {scheme!r}. Use falkor://HOST:PORT (or redis://) for "
            "FalkorDB, bolt://HOST:PORT or neo4j://HOST:PORT for Neo4j."
        )
    try:
        port = parts.port or port
    except ValueError as exc:
        raise UnsupportedTarget(f"{url!r}: bad port ({exc})") from exc
    user = unquote(parts.username) if parts.username else None
    password = unquote(parts.password) if parts.password else None
    if provider == "neo4j":  # Neo4j always authenticates; the usual variables fill the gaps
        user = user or os.environ.get("NEO4J_USER", "neo4j")
        password = password or os.environ.get("NEO4J_PASSWORD")
    database = parts.path.strip("/") or None
    return ServerURL(url, provider, parts.hostname or "localhost", port, user, password, database)


def open_driver(server: ServerURL) -> Any:
    """Graphiti's own driver for ``server`` (imported here: each needs its client package)."""
    try:
        if server.provider == "falkordb":
            from graphiti_core.driver.falkordb_driver import FalkorDriver

            return FalkorDriver(
                host=server.host,
                port=server.port,
                username=server.username,
                password=server.password,
                database=server.database or "default_db",  # FalkorDriver's own default
            )
        from graphiti_core.driver.neo4j_driver import Neo4jDriver

        uri = server.url.split("://", 1)[0] + f"://{server.host}:{server.port}"
        return Neo4jDriver(uri, server.username, server.password, server.database or "neo4j")
    except ImportError as exc:
        client = "falkordb" if server.provider == "falkordb" else "neo4j"
        raise UnsupportedTarget(
            f"Graphiti's {server.provider} driver needs the {client!r} package ({exc}); "
            "install it with: pip install 'anatid-drivers[export]'"
        ) from exc
    except Exception as exc:  # FalkorDriver connects in its constructor
        raise _unreachable(server, exc) from exc


def _unreachable(server: ServerURL, exc: Exception) -> TargetUnreachable:
    return TargetUnreachable(
        f"Cannot reach {server.describe()} ({type(exc).__name__}: {exc}). Is the server "
        "running and the URL right (host, port, user, password)?"
    )


#: The clones :func:`route` made, per root driver, so :func:`close_routed` can wait for them.
_CLONES: dict[int, dict[str, Any]] = {}


def route(driver: Any, group: str) -> Any:
    """The driver Graphiti itself uses for ``group`` (``Graphiti._resolve_request_scope``):
    the default database for the default group, ``clone(database=group)`` otherwise."""
    if not group or group == getattr(driver, "_database", None):
        return driver
    clones = _CLONES.setdefault(id(driver), {})
    if group not in clones:
        clones[group] = driver.clone(database=group)
    return clones[group]


async def close_routed(driver: Any) -> None:
    """Close ``driver`` after the index builds its clones started: a FalkorDriver made inside
    a running loop schedules ``build_indices_and_constraints`` as a task of its own."""
    for clone in _CLONES.pop(id(driver), {}).values():
        task = getattr(clone, "_init_task", None)
        if task is not None:
            await asyncio.gather(task, return_exceptions=True)
    await driver.close()


async def check_server(driver: Any, server: ServerURL) -> str:
    """Raise unless the server answers and is a release Graphiti 0.31 works with; its version."""
    try:
        if server.provider == "falkordb":
            version = await _falkordb_version(driver)
        else:
            version = await _neo4j_version(driver)
    except (UnsupportedTarget, TargetUnreachable):
        raise
    except Exception as exc:
        raise _unreachable(server, exc) from exc
    return version


async def _falkordb_version(driver: Any) -> str:
    modules = await driver.client.connection.execute_command("MODULE", "LIST")
    for entry in modules:
        fields = dict(zip(entry[::2], entry[1::2], strict=False))
        name = fields.get("name", fields.get(b"name"))
        if name in ("graph", b"graph"):
            ver = int(fields.get("ver", fields.get(b"ver", 0)))
            text = f"FalkorDB {ver // 10000}.{ver // 100 % 100}.{ver % 100}"
            if ver < MIN_FALKORDB_MODULE:
                raise UnsupportedTarget(
                    f"{text} is older than FalkorDB 4.0, the first with the vector functions "
                    "Graphiti 0.31 uses; upgrade the server."
                )
            return text
    raise UnsupportedTarget(
        "The Redis server answers but has no FalkorDB module loaded (MODULE LIST shows no "
        "'graph'); start it with --loadmodule falkordb.so or use a FalkorDB server."
    )


async def _neo4j_version(driver: Any) -> str:
    records, _, _ = await driver.execute_query(
        "CALL dbms.components() YIELD name, versions RETURN name, versions"
    )
    version = str(records[0]["versions"][0]) if records else "?"
    major = int(version.split(".")[0]) if version[:1].isdigit() else 0
    if major < MIN_NEO4J_MAJOR:
        raise UnsupportedTarget(
            f"Neo4j {version} is older than 5, the first with the vector indexes Graphiti "
            "0.31 uses; upgrade the server."
        )
    return f"Neo4j {version}"


async def graphs(driver: Any, server: ServerURL) -> list[Any]:
    """A driver for each database that may hold groups: FalkorDB's graphs, Neo4j's one."""
    if server.provider != "falkordb":
        return [driver]
    names = await driver.client.list_graphs()
    return [route(driver, str(n)) if str(n) != driver._database else driver for n in names]


async def groups_on(driver: Any, server: ServerURL) -> dict[str, Any]:
    """Every group found on the server, with the driver that reads it."""
    found: dict[str, Any] = {}
    for d in await graphs(driver, server):
        records, _, _ = await d.execute_query(
            "MATCH (n) WHERE n.group_id IS NOT NULL RETURN DISTINCT n.group_id AS group_id"
        )
        for r in records:
            found.setdefault(str(r["group_id"]), d)
    return found
