"""A process that writes to anatid through Cognee, then waits to be stopped (issue 12).

Run by test_cognee_shutdown.py as ``python -m tests.cognee.shutdown_child MODE WORKDIR PORT``
(cwd = the repository root). The provider comes from the environment alone (the import hook
registers anatid); the graph node and the vector row go through Cognee's own engine getters.
Then, by MODE:

* ``uvicorn``: serve a bare ASGI app under uvicorn, the way ``cognee-mcp --transport http``
  embeds Cognee: no Cognee lifespan, so nothing evicts Cognee's engine caches on shutdown;
* ``idle``: sleep, outside any server;
* ``own-handler``: the same, with the program's own SIGTERM handler installed before Cognee
  is imported (it exits with status 3).

It prints ``ready`` once the data is written (and, for ``uvicorn``, before serving).
"""

from __future__ import annotations

import asyncio
import signal
import sys
import time
from typing import Any

MODE, WORKDIR, PORT = sys.argv[1], sys.argv[2], int(sys.argv[3])


def _own_handler(signum: int, frame: Any) -> None:
    sys.exit(3)  # a normal exit: atexit runs


async def _write() -> None:
    from cognee.infrastructure.databases.graph import get_graph_engine
    from cognee.infrastructure.databases.vector import get_vector_engine_async
    from cognee.infrastructure.engine import DataPoint

    from tests.cognee.cognee_fakes import install_hash_embeddings

    install_hash_embeddings()

    class Note(DataPoint):
        text: str
        metadata: dict = {"index_fields": ["text"]}

    note = Note(text="Alice works at Acme.")
    graph = await get_graph_engine()
    await graph.add_nodes([note])
    vector = await get_vector_engine_async()
    await vector.create_data_points("Note_text", [note])


async def _app(scope: dict, receive: Any, send: Any) -> None:
    if scope["type"] != "http":
        return
    await send({"type": "http.response.start", "status": 200, "headers": []})
    await send({"type": "http.response.body", "body": b"ok"})


async def _serve() -> None:
    import uvicorn

    config = uvicorn.Config(_app, host="127.0.0.1", port=PORT, log_level="warning")
    await uvicorn.Server(config).serve()


def main() -> None:
    if MODE == "own-handler":
        signal.signal(signal.SIGTERM, _own_handler)
    import cognee  # noqa: F401  (the import hook registers anatid)

    asyncio.run(_write())
    print("ready", flush=True)
    if MODE == "uvicorn":
        asyncio.run(_serve())
    else:
        time.sleep(600)


if __name__ == "__main__":
    main()
