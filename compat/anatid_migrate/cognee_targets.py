"""The Cognee backends an export writes to and an import reads from, opened through Cognee's own
factories (issue 18): ``create_graph_engine`` and ``create_vector_engine`` with the provider and
connection that Cognee's configuration would hold, so the adapters are Cognee's own:

- ``postgresql://USER:PASSWORD@HOST:PORT/DB``: ``PostgresDemoAdapter`` (Cognee's Postgres graph
  adapter, ``graph_database_provider="postgres"``) and ``PGVectorAdapter``;
- ``ladybug://DIR`` or a directory path: ``LadybugAdapter`` on ``DIR/cognee_graph_ladybug`` and
  ``LanceDBAdapter`` on ``DIR/cognee.lancedb`` (Cognee's default layout and backends).

The vector interface has no call that lists a collection's points with their vectors, so this
module reads them through each adapter's own table object (``get_table`` for pgvector,
``get_collection`` for LanceDB); writes go through the adapter's own write path.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

import numpy as np

from .errors import TargetUnreachable, UnsupportedTarget

POSTGRES_SCHEMES = {"postgres", "postgresql", "postgresql+asyncpg"}
LADYBUG_GRAPH = "cognee_graph_ladybug"
LANCEDB_DIR = "cognee.lancedb"
#: The oldest pgvector whose ``vector`` type and operators Cognee's PGVectorAdapter uses.
MIN_PGVECTOR = (0, 5)


@dataclass(frozen=True)
class CogneeTarget:
    """A parsed target; ``describe()`` never shows the password."""

    url: str
    provider: str  # "postgres" | "ladybug"
    host: str = ""
    port: int = 0
    username: str = ""
    password: str = ""
    database: str = ""
    directory: str = ""

    def describe(self) -> str:
        if self.provider == "postgres":
            return f"postgres+pgvector at {self.host}:{self.port}/{self.database}"
        return f"ladybug+lancedb at {self.directory}"


def parse_cognee_url(url: str) -> CogneeTarget:
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    if scheme in POSTGRES_SCHEMES:
        try:
            port = parts.port or 5432
        except ValueError as exc:
            raise UnsupportedTarget(f"{url!r}: bad port ({exc})") from exc
        return CogneeTarget(
            url,
            "postgres",
            host=parts.hostname or "localhost",
            port=port,
            username=unquote(parts.username or "postgres"),
            # Cognee's factory needs a password even where the server trusts the connection.
            password=unquote(parts.password or "postgres"),
            database=parts.path.strip("/") or "postgres",
        )
    if scheme == "ladybug" or (scheme == "" and url):
        directory = (parts.netloc + parts.path) if scheme else url
        return CogneeTarget(url, "ladybug", directory=str(Path(directory).resolve()))
    raise UnsupportedTarget(
        f"{url!r}: unknown scheme {scheme!r}. Use postgresql://USER:PASSWORD@HOST:PORT/DB for "
        "Postgres + pgvector, or ladybug://DIR (or a directory path) for LadybugDB + LanceDB."
    )


def files_of(target: CogneeTarget) -> list[Path]:
    """The files of a backend that live on this machine (LadybugDB's graph and its log; LanceDB
    writes only new files): what an export writes and an import reads, which no other output
    of the command may be (issue 32)."""
    if target.provider != "ladybug":
        return []
    graph = Path(target.directory) / LADYBUG_GRAPH
    return [graph, graph.with_name(graph.name + ".wal")]


def open_engines(target: CogneeTarget) -> tuple[Any, Any]:
    """Cognee's graph and vector adapters for ``target``, from Cognee's own factories.

    The vector factory builds the configured embedding engine (LiteLLM, which fetches a
    tokenizer over the network) for every adapter; a copy moves vectors and computes none, so
    the factory is handed a :class:`ReplayEmbedder` while it builds the adapters."""
    import importlib

    factory = importlib.import_module("cognee.infrastructure.databases.vector.create_vector_engine")
    configured = factory.get_embedding_engine
    setattr(factory, "get_embedding_engine", ReplayEmbedder)  # noqa: B010
    try:
        return _open_engines(target)
    finally:
        setattr(factory, "get_embedding_engine", configured)  # noqa: B010


def _open_engines(target: CogneeTarget) -> tuple[Any, Any]:
    from cognee.infrastructure.databases.graph.get_graph_engine import create_graph_engine
    from cognee.infrastructure.databases.vector.create_vector_engine import create_vector_engine

    try:
        if target.provider == "postgres":
            t = target
            graph = create_graph_engine(
                graph_database_provider="postgres",
                graph_file_path="",
                graph_database_host=t.host,
                graph_database_port=str(t.port),
                graph_database_username=t.username,
                graph_database_password=t.password,
                graph_database_name=t.database,
            )
            vector = create_vector_engine(
                vector_db_provider="pgvector",
                vector_db_url="",
                vector_db_host=t.host,
                vector_db_port=str(t.port),
                vector_db_username=t.username,
                vector_db_password=t.password,
                vector_db_name=t.database,
            )
            return graph, vector
        root = Path(target.directory)
        root.mkdir(parents=True, exist_ok=True)
        graph = create_graph_engine(
            graph_database_provider="ladybug", graph_file_path=str(root / LADYBUG_GRAPH)
        )
        vector = create_vector_engine(
            vector_db_provider="lancedb",
            vector_db_url=str(root / LANCEDB_DIR),
            vector_db_name="",
            vector_db_subprocess_enabled=False,
        )
        return graph, vector
    except ImportError as exc:
        raise UnsupportedTarget(
            f"Cognee's {target.provider} adapters need packages that are missing ({exc}); "
            "install them with: pip install 'anatid-drivers[export-cognee]'"
        ) from exc


async def close_engines(graph: Any, vector: Any) -> None:
    """Close both adapters in the loop that used them, then drop them from Cognee's factory
    caches: a later ``asyncio.run`` must not be handed an engine bound to a closed loop."""
    import importlib

    # The packages re-export the factory functions under their modules' names.
    graphs = importlib.import_module("cognee.infrastructure.databases.graph.get_graph_engine")
    vectors = importlib.import_module("cognee.infrastructure.databases.vector.create_vector_engine")

    for adapter in (graph, vector):
        close = getattr(adapter, "close", None)
        if close is not None:
            try:
                await close()
            except Exception:  # closing is best effort: the work is done or already failed
                pass
    for factory in (graphs._create_graph_engine, vectors._create_vector_engine):
        clear = getattr(factory, "cache_clear", None)
        if clear is not None:
            clear()


def unreachable(target: CogneeTarget, exc: BaseException) -> TargetUnreachable:
    return TargetUnreachable(
        f"Cannot reach {target.describe()} ({type(exc).__name__}: {exc}). Is the server "
        "running and the URL right (host, port, user, password, database)?"
    )


async def check_target(graph: Any, vector: Any, target: CogneeTarget) -> str:
    """Raise unless the backend answers (and, for Postgres, has pgvector); its version."""
    try:
        if hasattr(graph, "initialize"):
            await graph.initialize()
        await graph.is_empty()
        if target.provider != "postgres":
            return "LadybugDB (Cognee LadybugAdapter) + LanceDB (Cognee LanceDBAdapter)"
        return await _postgres_version(vector)
    except UnsupportedTarget:
        raise
    except Exception as exc:
        raise unreachable(target, exc) from exc


async def _postgres_version(vector: Any) -> str:
    from sqlalchemy import text

    async with vector.engine.connect() as conn:
        server = (await conn.execute(text("SHOW server_version"))).scalar()
        ext = (
            await conn.execute(
                text("SELECT default_version FROM pg_available_extensions WHERE name = 'vector'")
            )
        ).scalar()
    if ext is None:
        raise UnsupportedTarget(
            f"PostgreSQL {server} has no pgvector extension installed (pg_available_extensions "
            "has no 'vector'); install pgvector on the server, which Cognee's PGVectorAdapter needs."
        )
    if tuple(int(x) for x in str(ext).split(".")[:2]) < MIN_PGVECTOR:
        raise UnsupportedTarget(f"pgvector {ext} is older than 0.5; upgrade the extension.")
    async with vector.engine.begin() as conn:  # as Cognee's own setup (create_db_and_tables)
        await conn.execute(text("CREATE EXTENSION IF NOT EXISTS vector"))
    return f"PostgreSQL {server} + pgvector {ext}"


async def collection_names(vector: Any) -> list[str]:
    """Every vector collection the adapter holds."""
    kind = vector_kind(vector)
    if kind == "anatid":
        return sorted(await vector.get_collection_names())
    if kind == "pgvector":
        return await _pgvector_collections(vector)
    connection = await vector.get_connection()  # LanceDB
    return sorted(await connection.table_names())


async def _pgvector_collections(vector: Any) -> list[str]:
    """The adapter's tables that are collections (``id``, ``payload``, ``vector``): the graph
    adapter's and Cognee's relational tables may share the database."""
    from sqlalchemy import text

    async with vector.engine.connect() as conn:
        rows = await conn.execute(
            text(
                "SELECT table_name FROM information_schema.columns WHERE column_name IN "
                "('payload', 'vector') GROUP BY table_schema, table_name HAVING count(*) = 2"
            )
        )
        shaped = {str(r[0]) for r in rows}
    names = (n.rsplit(".", 1)[-1] for n in await vector.get_table_names())
    return sorted(n for n in names if n in shaped)


@dataclass(frozen=True)
class Point:
    """One vector row: Cognee's data point id, its vector, and the payload the adapter keeps."""

    id: str
    vector: np.ndarray
    payload: dict[str, Any]


async def read_points(vector: Any, collection: str) -> list[Point]:
    """Every point of ``collection`` with its vector, through the adapter's own table."""
    kind = vector_kind(vector)
    if kind == "anatid":
        return _anatid_points(vector, collection)
    if kind == "pgvector":
        from sqlalchemy import select

        table = await vector.get_table(collection)
        async with vector.get_async_session() as session:
            rows = (await session.execute(select(table))).all()
        return [Point(str(r.id), _f32(r.vector), dict(r.payload or {})) for r in rows]
    table = await vector.get_collection(collection)
    rows = await table.query().to_list()
    return [Point(str(r["id"]), _f32(r["vector"]), dict(r.get("payload") or {})) for r in rows]


def _anatid_points(vector: Any, collection: str) -> list[Point]:
    """An anatid collection's rows, from the store the anatid vector adapter holds (one bulk
    read; the adapter's ``retrieve`` returns no vectors)."""
    from anatid_cognee.vector_adapter import row_group

    store = vector.store
    rows = store.find_nodes(groups=[row_group(collection)])
    vecs = store.get_embedding_arrays([n.id for n in rows], kind="node")
    return [
        Point(str(n.props["id"]), _f32(vecs[n.id]), dict(n.props)) for n in rows if n.id in vecs
    ]


def _f32(vec: Any) -> np.ndarray:
    return np.asarray(vec, dtype=np.float32)


class ReplayEmbedder:
    """An embedding engine that hands back vectors already computed: PGVectorAdapter has no raw
    write (``upsert_raw_vectors``), so its ``create_data_points`` is given this engine, which
    returns the moved vectors in the order of the points and never computes one."""

    def __init__(self) -> None:
        self.dimension = 0
        self.pending: list[list[float]] = []

    def get_vector_size(self) -> int:
        return self.dimension

    def get_batch_size(self) -> int:
        return max(1, len(self.pending))

    async def embed_text(self, text: list[str]) -> list[list[float]]:
        if len(text) != len(self.pending):
            raise RuntimeError("the replay embedder was asked for vectors it was not given")
        out, self.pending = self.pending, []
        return out


def carried_point_class() -> Any:
    """A DataPoint whose dump is exactly the payload it carries (Cognee's adapters store
    ``model_dump()`` as the payload; the moved payload must not gain defaults)."""
    from cognee.infrastructure.engine import DataPoint
    from pydantic import PrivateAttr

    class CarriedPoint(DataPoint):
        _carried: dict[str, Any] = PrivateAttr(default_factory=dict)

        def model_dump(self, *args: Any, **kwargs: Any) -> dict[str, Any]:
            return dict(self._carried)

    return CarriedPoint


def vector_kind(vector: Any) -> str:
    """Which adapter ``vector`` is: "anatid", "pgvector" or "lancedb" (by the calls each has;
    Cognee's factories hand back proxies, so ``isinstance`` cannot tell)."""
    if hasattr(vector, "get_collection_names"):
        return "anatid"
    if hasattr(vector, "get_table_names"):
        return "pgvector"
    return "lancedb"


async def write_points(vector: Any, collection: str, points: list[Point]) -> None:
    """Write ``points`` (upsert by id) through the adapter's own write path."""
    if not points:
        return
    kind = vector_kind(vector)
    if kind == "lancedb":
        await _write_lance(vector, collection, points, int(points[0].vector.shape[0]))
    elif kind == "anatid":
        await vector.create_collection(collection)
        await vector.upsert_raw_vectors(
            collection,
            [{"id": p.id, "vector": p.vector.tolist(), "payload": p.payload} for p in points],
        )
    else:
        await _write_pgvector(vector, collection, points)


async def _write_pgvector(vector: Any, collection: str, points: list[Point]) -> None:
    replay = ReplayEmbedder()
    replay.dimension = int(points[0].vector.shape[0])
    vector.embedding_engine = replay
    cls = carried_point_class()
    models = []
    for p in points:
        model = cls(id=p.id)
        model._carried = {**p.payload, "id": p.id}
        models.append(model)
    replay.pending = [p.vector.tolist() for p in points]
    await vector.create_data_points(collection, models)


async def _write_lance(vector: Any, collection: str, points: list[Point], dimension: int) -> None:
    from cognee.infrastructure.databases.vector.lancedb.LanceDBAdapter import IndexSchema

    replay = ReplayEmbedder()
    replay.dimension = dimension
    vector.embedding_engine = replay
    await vector.upsert_raw_vectors(
        collection,
        [{"id": p.id, "vector": p.vector.tolist(), "payload": p.payload} for p in points],
        payload_schema=vector.get_data_point_schema(IndexSchema),
    )
