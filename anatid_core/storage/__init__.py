"""storage: the file: connection, lease and turns, schema, and the rows and SQL of every table.

May import: base and storage only (never indexes, graph, the API or the cli).
"""
