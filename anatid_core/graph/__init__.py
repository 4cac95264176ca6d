"""graph: graph algorithms (paths, PageRank, communities, hubs, evidence) and the graph verbs.

May import: base, storage, indexes and graph (never the API at the package root, or the cli).
"""
