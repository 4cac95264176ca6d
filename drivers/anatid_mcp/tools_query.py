"""``query_graph``: a read-only Cypher query over the memory, which Graphiti's own server has no
tool for.

The query runs on :class:`anatid_graphiti.GraphitiDriver`'s ``execute_query`` (the core's
read-only engine, Graphiti's property names: a fact is ``(:Entity)-[:RELATES_TO]->(:Entity)``
with ``uuid``, ``name``, ``fact``, ``valid_at``, ...). Writes are refused before anything is
read. What one call may cost is bounded: ``max_rows`` rows come back (the rest are counted, not
sent), and the engine's deadline stops a query that runs too long with a clear error. Nodes
and relationships come without their embeddings, as in Graphiti's server's results.

(No ``from __future__ import annotations``: the MCP SDK reads the annotations, see tools_read.)
"""

from typing import Any

from mcp.server.fastmcp import FastMCP

from .errors import answers
from .inputs import BadInput, parse_time, positive
from .memory import Memory
from .responses import ErrorResponse, QueryGraphResponse

#: The most rows one call returns, whatever the client asks: an MCP answer is read by a model.
MAX_ROWS = 1_000
#: The longest a client may let one query run (seconds): a server serves others meanwhile.
MAX_TIMEOUT = 120
#: The longest query text accepted (a generated query is long, not this long).
MAX_QUERY_CHARS = 100_000


def without_embeddings(value: Any) -> Any:
    """``value`` with the embeddings left out of every node and relationship in it (a map's
    ``*_embedding`` keys), as Graphiti's server leaves them out of its results: a model reading
    the answer has no use for a thousand numbers per record. A column that is an embedding
    itself (``RETURN n.name_embedding``) is kept: it was asked for."""
    if isinstance(value, dict):
        return {
            k: without_embeddings(v)
            for k, v in value.items()
            if not (isinstance(k, str) and k.endswith("_embedding"))
        }
    if isinstance(value, list):
        return [without_embeddings(v) for v in value]
    return value


def register(mcp: FastMCP, memory: Memory) -> None:
    @mcp.tool()
    @answers("Error running the query")
    async def query_graph(
        query: str,
        params: dict[str, Any] | None = None,
        as_of: str | None = None,
        max_rows: int = 100,
        timeout_seconds: int = 30,
    ) -> QueryGraphResponse | ErrorResponse:
        """Run a read-only Cypher query over the memory and return its rows.

        The graph as Graphiti stores it: (:Entity {uuid, name, summary, group_id, created_at}),
        (:Episodic {uuid, name, content, valid_at, ...}), facts as
        (:Entity)-[:RELATES_TO {uuid, name, fact, valid_at, invalid_at, ...}]->(:Entity), and
        (:Episodic)-[:MENTIONS]->(:Entity). Writes (CREATE, MERGE, SET, DELETE) are refused.

        Args:
            query: The Cypher query, e.g. "MATCH (a:Entity)-[r:RELATES_TO]->(b:Entity)
                WHERE a.name = $name RETURN b.name, r.fact"
            params: Optional values for the query's $parameters
            as_of: Optional ISO-8601 instant: answer from what the memory knew then
            max_rows: The most rows to return (1 to 1000, default: 100)
            timeout_seconds: Stop the query after this many seconds (1 to 120, default: 30)
        """
        if not isinstance(query, str) or not query.strip():
            raise BadInput("query must be a non-empty Cypher query")
        if len(query) > MAX_QUERY_CHARS:
            raise BadInput(f"query is {len(query):,} characters; at most {MAX_QUERY_CHARS:,}")
        if params is not None and not isinstance(params, dict):
            raise BadInput("params must be an object of parameter names to values")
        limit = positive("max_rows", max_rows, limit=MAX_ROWS)
        seconds = positive("timeout_seconds", timeout_seconds, limit=MAX_TIMEOUT)
        driver = memory.at(parse_time("as_of", as_of))
        records, _, columns = await driver.execute_query(
            query, params=dict(params or {}), timeout_=seconds
        )
        shown = [
            {column: without_embeddings(value) for column, value in row.items()}
            for row in records[:limit]
        ]
        more = len(records) - len(shown)
        message = f"{len(records)} row(s)" + (f"; the first {limit} returned" if more else "")
        return QueryGraphResponse(
            message=message, columns=list(columns), rows=shown, truncated=more > 0
        )


__all__ = ["MAX_QUERY_CHARS", "MAX_ROWS", "MAX_TIMEOUT", "register", "without_embeddings"]
