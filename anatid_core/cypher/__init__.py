"""cypher: a read-only subset of Cypher, run on the store's own read verbs (no second engine).

``Store.cypher(query, params)`` and ``View.cypher(...)`` (so ``store.as_of(t).cypher(...)``
asks the same query of the past) parse the whole query first: a write clause raises
:class:`~anatid_core.CypherWriteRefused`, anything outside the subset
:class:`~anatid_core.CypherUnsupported`, both naming the construct and its place, before any
read. Parameters are values: nothing in a query or its parameters reaches SQL as text (the
engine reads through ``find_nodes``, ``find_edges``, ``get_nodes`` and
``get_embedding_arrays``, whose filters travel as parameters). docs/cypher.md lists the subset
and how its answers differ from Neo4j's, Kuzu's and FalkorDB's.

Text to answer: ``lexer`` (tokens), ``expression_parser`` and ``parser`` (the tree of
``syntax``), ``engine`` (clauses over streams of row batches), ``matching`` (patterns),
``projection`` (WITH/RETURN), ``expressions``, ``functions`` and ``aggregates`` (values),
``graph`` (the reads, batched) and ``shape`` (how records look as nodes and relationships).

May import: base. It reads a store or view through the ``ReadTarget`` protocol of its verbs,
never through the API modules above it.
"""
