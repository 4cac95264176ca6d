"""The Cypher errors with the place in the query: a line, a caret under the column."""

from __future__ import annotations

from ..base.errors import CypherError, CypherSyntaxError, CypherUnsupported, CypherWriteRefused


def _where(query: str, pos: int) -> tuple[int, int, str]:
    """Line and column (1-based) of ``pos``, and the line with a caret under that column."""
    pos = max(0, min(pos, len(query)))
    line_no = query.count("\n", 0, pos) + 1
    start = query.rfind("\n", 0, pos) + 1
    end = query.find("\n", pos)
    line = query[start : end if end >= 0 else len(query)]
    column = pos - start + 1
    stripped = line.lstrip()
    indent = len(line) - len(stripped)
    caret = " " * max(0, column - 1 - indent) + "^"
    return line_no, column, f"\n    {stripped}\n    {caret}"


def syntax_error(query: str, pos: int, message: str) -> CypherSyntaxError:
    line, column, excerpt = _where(query, pos)
    return CypherSyntaxError(
        f"Cypher syntax error at line {line}, column {column}: {message}{excerpt}",
        position=pos,
        line=line,
        column=column,
    )


def runtime_error(query: str, pos: int, message: str) -> CypherError:
    """A CypherError saying where in the query (line and column, 1-based)."""
    line, column, _ = _where(query, pos)
    return CypherError(f"{message} (at line {line}, column {column})")


def unsupported(query: str, pos: int, construct: str, hint: str = "") -> CypherUnsupported:
    line, column, excerpt = _where(query, pos)
    tail = f" ({hint})" if hint else ""
    return CypherUnsupported(
        f"{construct} is outside the Cypher subset anatid runs, at line {line}, column {column}"
        f"{tail}; docs/cypher.md lists what it runs{excerpt}",
        construct=construct,
        position=pos,
    )


#: What writes instead of each Cypher write clause.
WRITE_INSTEAD = (
    "anatid's Cypher only reads. Write through the store's verbs (Store.upsert_nodes, "
    "upsert_edges, delete_nodes, ...) or through your framework's own API (Graphiti's "
    "add_episode / add_triplet, Cognee's add / cognify / delete)"
)


def write_refused(query: str, pos: int, clause: str) -> CypherWriteRefused:
    line, column, excerpt = _where(query, pos)
    return CypherWriteRefused(
        f"{clause} writes, at line {line}, column {column}: {WRITE_INSTEAD}; nothing was "
        f"written{excerpt}",
        construct=clause,
        position=pos,
    )
