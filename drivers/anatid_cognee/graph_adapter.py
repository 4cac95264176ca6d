"""``AnatidGraphAdapter``: Cognee's ``GraphDBInterface`` on one anatid DuckDB file."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from cognee.infrastructure.databases.graph.graph_db_interface import GraphDBInterface

from .cypher_shape import GRAPH_SCOPE
from .cypher_shape import SHAPE as CYPHER_SHAPE
from .graph_extras import GraphExtras
from .graph_feedback import GraphFeedback
from .graph_insight import GraphInsight
from .graph_provenance import GraphProvenance
from .graph_reads import GraphHistory, GraphReads
from .graph_writes import GraphWrites
from .paths import graph_path


class AnatidGraphAdapter(
    GraphReads,
    GraphWrites,
    GraphProvenance,
    GraphExtras,
    GraphFeedback,
    GraphInsight,
    GraphHistory,
    GraphDBInterface,
):
    """Cognee's graph store on anatid: a bitemporal property graph in one DuckDB file.

    Built by Cognee's graph factory with ``graph_database_url`` (the file; see
    :mod:`anatid_cognee.paths` for the default) and, under backend access control, the
    dataset's ``database_name``. Adapters on the same file share one open store with the
    vector adapter. ``as_of(t)`` gives a read-only adapter that sees the graph as it was at
    transaction time ``t``.

    Reads return property values the way Cognee's reference backend (LadybugDB) does: JSON
    values (ISO 8601 strings for datetimes and dates, ``str`` for UUIDs; see
    :mod:`anatid_cognee.values`). ``exact_values=True``, or :meth:`with_exact_values`, gives
    back the exact Python types that were written.
    """

    supports_cypher_queries = True
    supports_per_row_source_refs = False
    # cognee.update() edits a document chunk by chunk (issue 35): it needs get_connections
    # with the true endpoints (source_node_id in the edge), graph provenance (this file's
    # delete mode) and update_chunk_index; the vector adapter's update_payload does the rest.
    supports_incremental_chunk_updates = True

    def __init__(
        self,
        graph_database_url: str = "",
        graph_database_username: str = "",
        graph_database_password: str = "",
        graph_database_port: str = "",
        graph_database_key: str = "",
        database_name: str = "",
        *,
        exact_values: bool = False,
        **_ignored: Any,
    ) -> None:
        # Credentials, host and port are part of the factory's call; a local file needs none.
        super().__init__(graph_path(graph_database_url, database_name), exact_values)
        self.database_name = database_name

    async def initialize(self) -> None:
        """Nothing to do: the store creates its schema when the file is opened."""
        self._check_open()

    async def query(self, query: str, params: dict | None = None) -> list[Any]:
        """Run a read-only Cypher query on the graph as LadybugDB's tables show it (``Node``,
        ``EDGE``: see :mod:`anatid_cognee.cypher_shape`); rows are tuples, as LadybugDB's. On
        an ``as_of`` adapter it reads the past. A write clause or a construct outside the subset
        raises :class:`CypherNotSupported` naming it."""
        return await self._read(_cypher_rows, query, params)

    def as_of(
        self, tx_time: datetime | None = None, valid_time: datetime | None = None
    ) -> AnatidGraphAdapter:
        """A read-only adapter over the graph as the store knew it at ``tx_time`` (and, if
        given, as valid at ``valid_time``). Writes on it raise ``ReadOnlyAdapter``. It shares
        this adapter's store: use it while this adapter is open."""
        self._check_open()
        return self._historical_copy(tx_time, valid_time)

    def with_exact_values(self) -> AnatidGraphAdapter:
        """This adapter's view returning exact Python types (``datetime``, ``UUID``, ``date``,
        tuples) instead of LadybugDB's JSON values. It shares this adapter's store and owns
        nothing: use it while this adapter is open."""
        self._check_open()
        view: Any = object.__new__(type(self))
        view.__dict__.update(self.__dict__)
        view._owns_store = False
        view.exact_values = True
        return view

    def __repr__(self) -> str:
        when = f" as_of={self.as_of_time.isoformat()}" if self.as_of_time else ""
        return f"<AnatidGraphAdapter {self.path}{when}>"


def _cypher_rows(reads: Any, query: str, params: dict | None) -> list[tuple[Any, ...]]:
    return reads.scoped(GRAPH_SCOPE).cypher(query, params, shape=CYPHER_SHAPE).rows
