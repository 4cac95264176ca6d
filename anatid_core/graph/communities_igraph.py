"""Communities through igraph's Leiden, in C (the optional ``graph`` extra; issue 17).

The plain Louvain of :mod:`anatid_core.graph.communities` runs its local moves in Python: at 100,000
nodes / 300,000 edges that takes minutes, against the issue's 5 s. igraph's
``community_leiden`` with the modularity objective does it in C, and Leiden also never leaves a
community internally disconnected, as Louvain may. igraph's own Louvain
(``community_multilevel``) was measured too and left out: on sparse random graphs it took
~150 s at that size on a loaded machine, over ten times Leiden.

igraph is imported here only, lazily, so the core runs without it. Leiden is randomised (node
order, refinement), and igraph draws from a process-wide generator, Python's ``random`` module
by default. Each call therefore installs its own ``random.Random(SEED)`` under a lock and puts
the default back afterwards: the same graph always gives the same partition, whatever the
process's hash seed, and the caller's ``random`` state is never touched. (python-igraph has no
getter for the generator, so one a user installed themselves is replaced by the default.)
"""

from __future__ import annotations

import importlib.util
import random
import threading
from typing import Any

import numpy as np

#: Tunables: the seed of every run; Leiden's refinement randomness and its number of iterations
#: (igraph's defaults: each iteration refines further, two are near the fixed point).
LEIDEN: dict[str, float] = {"seed": 17, "beta": 0.01, "iterations": 2}

_RNG_LOCK = threading.Lock()


def available() -> bool:
    """True when igraph is installed (looked up without importing it)."""
    return importlib.util.find_spec("igraph") is not None


def leiden(n: int, u: np.ndarray, v: np.ndarray, w: np.ndarray, *, resolution: float) -> np.ndarray:
    """The community of each of ``n`` nodes for the undirected weighted pairs ``u[i] - v[i]``
    (each pair once, weight ``w[i]``; a pair ``x - x`` is a self-loop, counted as networkx
    does: twice in its node's degree, once in the total)."""
    import igraph  # the optional extra: only here, and only when asked for

    graph = igraph.Graph(n=n, edges=np.column_stack([u, v]).tolist(), directed=False)
    with _RNG_LOCK:
        igraph.set_random_number_generator(random.Random(int(LEIDEN["seed"])))
        try:
            found: Any = graph.community_leiden(
                objective_function="modularity",
                weights=w.tolist(),
                resolution=resolution,
                beta=float(LEIDEN["beta"]),
                n_iterations=int(LEIDEN["iterations"]),
            )
        finally:
            igraph.set_random_number_generator(random)  # igraph's default
    return np.asarray(found.membership, dtype=np.int64)


__all__ = ["LEIDEN", "available", "leiden"]
