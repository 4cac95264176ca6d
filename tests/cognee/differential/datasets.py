"""Datasets listing, ``visualize_graph``, ``delete_data``, ``empty_dataset``, ``prune_system``.

What is left on disk is compared as "does any store file of this dataset remain", since the
file names are each backend's own.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

from tests.cognee.differential.api import api_routes
from tests.cognee.differential.encoding import deep_unordered, unordered
from tests.cognee.differential.reads import graph_data


def _system_root() -> Path:
    return Path(os.environ["SYSTEM_ROOT_DIRECTORY"])


def dataset_files(dataset_id: Any) -> bool:
    """Whether any graph or vector store file named after the dataset is on disk."""
    root = _system_root() / "databases"
    return any(str(dataset_id) in p.name for p in root.rglob("*"))


async def _models(call: Any) -> Any:
    return unordered(await call)


def _embedded_graph(html: str) -> Any:
    """The graph data ``visualize_graph`` embeds in its HTML (the ``nodes``/``links`` JSON)."""
    found = {}
    for key in ("nodes", "links"):
        match = re.search(rf"var {key} = (\[.*?\]);\n", html, re.DOTALL)
        found[key] = unordered(json.loads(match.group(1))) if match else None
    return found


async def visualize(dataset: Any, user: Any, path: Path) -> Any:
    import cognee

    await cognee.visualize_graph(str(path), dataset=dataset.id, user=user, full=True)
    return _embedded_graph(path.read_text(encoding="utf-8"))


async def visualize_json(dataset: Any, user: Any) -> Any:
    from cognee.api.v1.visualize.visualize import visualize_graph_json

    data = await visualize_graph_json(dataset=dataset.id, user=user, full=True)
    # The derived views list records in the order storage returned the graph (no promised
    # order), and memory_map.edges holds positions in that order: compared as multisets,
    # and the positions as counts.
    memory = dict(data.get("memory_map") or {})
    edges = memory.pop("edges", {}) or {}
    memory["edge_counts"] = {rel: len(ix) for rel, ix in edges.items()}
    data["memory_map"] = memory
    return {k: deep_unordered(v) for k, v in data.items()}


async def _graph_of(dataset: Any) -> Any:
    from cognee.context_global_variables import set_database_global_context_variables
    from cognee.infrastructure.databases.graph import get_graph_engine

    async with set_database_global_context_variables(dataset.id, dataset.owner_id):
        return await graph_data(await get_graph_engine())


async def dataset_steps(rec: Any, user: Any, dataset: Any) -> None:
    import cognee

    out = _system_root().parent
    await rec.step("datasets.list_datasets", lambda: _models(cognee.datasets.list_datasets(user)))
    await rec.step("datasets.list_data", lambda: _list_data(dataset.id, user))
    await rec.step("datasets.has_data", lambda: cognee.datasets.has_data(dataset.id, user))
    await rec.step("datasets.get_status", lambda: cognee.datasets.get_status([dataset.id]))
    await rec.step("visualize.html", lambda: visualize(dataset, user, out / "graph.html"))
    await rec.step("visualize.json", lambda: visualize_json(dataset, user))
    await api_routes(rec, dataset)

    data: list[Any] = sorted(
        await cognee.datasets.list_data(dataset.id, user=user), key=lambda d: d.name
    )
    await rec.step(
        "delete_data.result",
        lambda: cognee.datasets.delete_data(dataset.id, data[0].id, user=user),
    )
    await rec.step("delete_data.graph_after", lambda: _graph_of(dataset))
    await rec.step("delete_data.list_data_after", lambda: _list_data(dataset.id, user))
    await rec.step("empty_dataset.result", lambda: cognee.datasets.empty_dataset(dataset.id, user))
    await rec.step("empty_dataset.graph_after", lambda: _graph_of(dataset))
    await rec.step("empty_dataset.files_left", lambda: _async(dataset_files(dataset.id)))
    await rec.step(
        "empty_dataset.list_datasets_after",
        lambda: _models(cognee.datasets.list_datasets(user)),
    )
    await rec.step("prune_system.result", lambda: cognee.prune.prune_system(metadata=True))
    await rec.step("prune_system.files_left", lambda: _async(_store_files_left()))


async def _list_data(dataset_id: Any, user: Any) -> Any:
    import cognee

    return unordered(await cognee.datasets.list_data(dataset_id, user=user))


def _store_files_left() -> bool:
    root = _system_root() / "databases"
    return any(p.is_file() and "cognee_db" not in p.name for p in root.rglob("*"))


async def _async(value: Any) -> Any:
    return value
