"""Deleting datasets through Cognee's public API removes their anatid files (issue 14).

Run by test_cognee_dataset_deletion.py as ``python -m tests.cognee.deletion_scenarios NAME
WORKDIR`` (cwd = the repository root), one fresh interpreter per scenario. Backend access
control is on, anatid is selected from code with Cognee's own setters and no handler keys
(issue 12: the handlers follow the provider), embeddings are the hash engine and no LLM is
called (``cognee.add`` + a custom pipeline of ``add_data_points``). Prints one ``RESULT`` JSON
line of observations.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path
from typing import Any

from tests.cognee.conftest import COGNEE_ENV

# Its DataPoint builders; importing it sets COGNEE_ENV (access control off), so first.
from tests.cognee.e2e_scenarios import _chunk_graph, _local

WORKDIR = Path(sys.argv[2]) if len(sys.argv) > 2 else Path.cwd()
os.environ.update(COGNEE_ENV)
os.environ["ENABLE_BACKEND_ACCESS_CONTROL"] = "true"
os.environ["SYSTEM_ROOT_DIRECTORY"] = str(WORKDIR / "system")
os.environ["DATA_ROOT_DIRECTORY"] = str(WORKDIR / "data")

TEXTS = {
    "alpha": "Alice works at Acme in Berlin.",
    "beta": "Bob grows green apples near Hamburg.",
    "gamma": "Carol repairs old bicycles in Munich.",
}


def _select_anatid() -> None:
    import cognee

    from tests.cognee.cognee_fakes import install_hash_embeddings

    install_hash_embeddings()
    cognee.config.set_graph_db_config({"graph_database_provider": "anatid"})
    cognee.config.set_vector_db_config({"vector_db_provider": "anatid"})


async def _fill(names: list[str], user: Any = None) -> None:
    """One document per dataset, through cognee.add and a pipeline of add_data_points."""
    import cognee
    from cognee.modules.pipelines.tasks.task import Task
    from cognee.tasks.storage import add_data_points

    for name in names:
        path = WORKDIR / f"{name}.txt"
        path.write_text(TEXTS[name], encoding="utf-8")
        await cognee.add(str(path), dataset_name=name, user=user)

        async def to_points(data: list[Any]) -> list[Any]:
            return [
                _chunk_graph(d.name, Path(_local(d.raw_data_location)).read_text(), d.id)
                for d in data
            ]

        await cognee.run_custom_pipeline(
            tasks=[Task(to_points), Task(add_data_points)], dataset=name, user=user
        )


async def _chunks(query: str, name: str, user: Any = None) -> list[str]:
    import cognee
    from cognee.modules.search.types import SearchType

    results = await cognee.search(
        query_text=query, query_type=SearchType.CHUNKS, datasets=[name], user=user
    )
    # One result per dataset searched; its hits are the chunks' payloads.
    return [
        hit.get("text", "") if isinstance(hit, dict) else str(hit)
        for result in results
        for hit in (result["search_result"] if "search_result" in result else [result])
    ]


def _files() -> list[str]:
    """Every file under the databases folder that belongs to an anatid dataset file."""
    root = WORKDIR / "system" / "databases"
    return sorted(p.name for p in root.rglob("*.anatid.duckdb*"))


async def _dataset(name: str, user: Any = None) -> Any:
    import cognee

    (found,) = [d for d in await cognee.datasets.list_datasets(user=user) if d.name == name]
    return found


async def deletions() -> dict[str, Any]:
    """empty_dataset, delete_data(delete_dataset_if_empty=True) and delete_all, each on a
    dataset whose engines are open (searched just before), beside one that stays."""
    _select_anatid()
    import cognee
    from cognee.low_level import setup

    await setup()
    await _fill(list(TEXTS))
    out: dict[str, Any] = {"files": _files()}
    out["searched"] = {name: await _chunks(TEXTS[name], name) for name in TEXTS}
    ids = {name: str((await _dataset(name)).id) for name in TEXTS}
    out["ids"] = ids

    await cognee.datasets.empty_dataset((await _dataset("alpha")).id)
    out["after_empty"] = _files()
    out["beta_after_empty"] = await _chunks(TEXTS["beta"], "beta")

    beta = await _dataset("beta")
    for data in await cognee.datasets.list_data(beta.id):
        await cognee.datasets.delete_data(beta.id, data.id, delete_dataset_if_empty=True)
    out["after_delete_data"] = _files()
    out["gamma_after_delete_data"] = await _chunks(TEXTS["gamma"], "gamma")

    # A dataset of the same name again: a new, empty file (no stale data replayed).
    await _fill(["alpha"])
    out["alpha_again"] = await _chunks(TEXTS["alpha"], "alpha")
    out["files_again"] = _files()

    # An adapter on gamma's file that Cognee's caches do not know (user code holding one):
    # deleting the dataset erases it, and the file goes when that adapter lets go.
    from anatid_cognee import AnatidGraphAdapter

    gamma = await _dataset("gamma")
    (gamma_file,) = (WORKDIR / "system" / "databases").rglob(f"{gamma.id}.anatid.duckdb")
    held = AnatidGraphAdapter(graph_database_url=str(gamma_file))
    out["held_nodes_before"] = len((await held.get_graph_data())[0])
    await cognee.datasets.empty_dataset(gamma.id)
    out["held_nodes_after_delete"] = len((await held.get_graph_data())[0])
    out["while_held"] = _files()
    await held.close()
    out["after_release"] = _files()

    await cognee.datasets.delete_all()
    out["after_delete_all"] = _files()
    out["datasets_after_delete_all"] = [d.name for d in await cognee.datasets.list_datasets()]
    return out


SCENARIOS = {"deletions": deletions}

if __name__ == "__main__":
    result = asyncio.run(SCENARIOS[sys.argv[1]]())
    print("RESULT " + json.dumps(result, default=str))
