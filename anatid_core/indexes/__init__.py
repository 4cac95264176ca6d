"""indexes: what is derived from the file and held in memory, and the registry that keeps it so.

May import: base, storage and indexes only (never graph, the API or the cli).
"""
