"""A separate process that writes with an idempotency key (tests/core/test_idempotency.py).

``python -m tests.core.idempotency_child PATH KEY TEXT GO`` waits for the file ``GO`` (so that
every child starts together), upserts node ``n`` with ``TEXT`` under ``KEY``, then overwrites it
with a text of its own (no key: what a retry of the keyed write must not undo), and prints what
happened as one JSON line.
"""

from __future__ import annotations

import json
import os
import sys
import time

from anatid_core import IdempotencyConflict, Node, Store


def main(path: str, key: str, text: str, go: str) -> None:
    while not os.path.exists(go):
        time.sleep(0.005)
    with Store.open(path) as store:
        try:
            result = store.upsert_node(Node("n", text=text), idempotency_key=key)
            out = {"written": result.written, "unchanged": result.unchanged}
        except IdempotencyConflict as exc:
            out = {"conflict": exc.existing_id}
        store.upsert_node(Node("n", text=f"overwritten by {os.getpid()}"))
    print(json.dumps(out))


if __name__ == "__main__":
    main(*sys.argv[1:5])
