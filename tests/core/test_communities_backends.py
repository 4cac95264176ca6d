"""The two communities() backends (issue 17): igraph's Leiden (the ``graph`` extra) and the plain
Louvain every install has. The behaviour both share is tested in test_graph_algorithms.py, on
each backend; here what is particular to the choice between them."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import networkx as nx
import numpy as np
import pytest

from anatid_core import Edge, Node, Store, UnsupportedOperation
from anatid_core.graph import communities_igraph as backend_igraph
from anatid_core.graph.communities import COMMUNITIES, COMMUNITIES_SMALL, partition
from tests.extras import needs

ROOT = Path(__file__).resolve().parents[2]

#: Builds a random graph, partitions it with Leiden alone and prints the partition and whether
#: the process's own random state moved.
_CHILD = """
import json, random, sys
from anatid_core import Edge, Node, Store
from anatid_core.graph.communities import COMMUNITIES_SMALL
COMMUNITIES_SMALL["plain_too_up_to"] = 0
rng = random.Random(5)
n = 400
with Store.open(":memory:") as s:
    s.upsert_nodes([Node(f"n{i}") for i in range(n)])
    s.upsert_edges([Edge(f"e{j}", f"n{rng.randrange(n)}", f"n{rng.randrange(n)}", "R")
                    for j in range(3 * n)])
    random.seed(1)
    before = random.getstate()
    parts = s.communities()
    print(json.dumps({"parts": parts, "random_untouched": random.getstate() == before}))
"""


def _children(*hash_seeds: str) -> list[dict]:
    """Runs _CHILD once per hash seed, the processes side by side."""
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", _CHILD],
            cwd=ROOT,
            env={**os.environ, "PYTHONHASHSEED": seed},
            stdout=subprocess.PIPE,
            text=True,
        )
        for seed in hash_seeds
    ]
    outs = [p.communicate(timeout=120)[0] for p in procs]
    assert [p.returncode for p in procs] == [0] * len(procs)
    return [json.loads(out) for out in outs]


@needs("graph")
def test_igraph_partition_is_the_same_in_every_process_and_leaves_random_alone() -> None:
    first, second = _children("1", "2")
    assert first["parts"] == second["parts"]
    assert len(first["parts"]) > 1
    assert first["random_untouched"] and second["random_untouched"]


def _random_graph(seed: int, n: int, m: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    return rng.integers(0, n, m), rng.integers(0, n, m)


def _nx(n: int, src: np.ndarray, dst: np.ndarray) -> nx.Graph:
    g = nx.Graph()
    g.add_nodes_from(range(n))
    for s, d in zip(src.tolist(), dst.tolist(), strict=True):
        weight = g[s][d]["weight"] + 1 if g.has_edge(s, d) else 1
        g.add_edge(s, d, weight=weight)
    return g


@needs("graph")
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_leiden_alone_is_as_good_as_networkx_louvain_on_a_random_graph(seed, monkeypatch) -> None:
    monkeypatch.setitem(COMMUNITIES, "backend", "igraph")
    monkeypatch.setitem(COMMUNITIES_SMALL, "plain_too_up_to", 0)  # Leiden's partition only
    n = 600
    src, dst = _random_graph(seed, n, 3 * n)
    labels = partition(n, src, dst)
    g = _nx(n, src, dst)
    mine = nx.community.modularity(g, _sets(labels))
    theirs = nx.community.modularity(g, nx.community.louvain_communities(g, seed=seed))
    assert mine >= theirs - 0.05 * abs(theirs)
    assert partition(n, src, dst) == labels


def _sets(labels: list[int]) -> list[set[int]]:
    by: dict[int, set[int]] = {}
    for node, c in enumerate(labels):
        by.setdefault(c, set()).add(node)
    return list(by.values())


def test_asking_for_igraph_without_it_says_which_extra_to_install(monkeypatch) -> None:
    monkeypatch.setitem(COMMUNITIES, "backend", "igraph")
    monkeypatch.setattr(backend_igraph, "available", lambda: False)
    with Store.open(":memory:") as s:
        s.upsert_nodes([Node("a"), Node("b")])
        s.upsert_edges([Edge("e", "a", "b", "R")])
        with pytest.raises(UnsupportedOperation, match=r"anatid-drivers\[graph\]"):
            s.communities()
        monkeypatch.setitem(COMMUNITIES, "backend", "auto")  # auto falls back to the plain one
        assert s.communities() == [["a", "b"]]


def test_the_core_does_not_import_igraph_until_communities_need_it() -> None:
    code = "import sys, anatid_core; print('igraph' in sys.modules)"
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == "False"


def test_plain_backend_gives_the_same_partition_twice_on_a_larger_graph(monkeypatch) -> None:
    # Above LOUVAIN["several_orders_up_to"] the plain Louvain runs its queue of moves once.
    monkeypatch.setitem(COMMUNITIES, "backend", "plain")
    n = 6000
    src, dst = _random_graph(7, n, 3 * n)
    labels = partition(n, src, dst)
    assert len(set(labels)) > 1 and partition(n, src, dst) == labels
