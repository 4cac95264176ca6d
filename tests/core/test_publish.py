"""Index searches see whole transactions: never part of one, never a record vanishing while it
is superseded (anatid_core.storage.publish)."""

from __future__ import annotations

import threading
import time

from anatid_core import Node, Store


def _batch(tag: int, text: str) -> list[Node]:
    return [
        Node(f"b{tag}-{i}", text=f"tok{tag} {text}", embedding=[1.0, float(tag), float(i)])
        for i in range(8)
    ]


def test_searches_never_see_part_of_a_transaction_or_a_vanishing_record() -> None:
    seen: list[str] = []
    stop = threading.Event()
    with Store.open(":memory:") as store:
        with store.transaction():
            store.upsert_nodes(_batch(0, "first"))

        def writer() -> None:
            for round_ in range(100):
                with store.transaction():  # supersede batch 0, and add batch n in two steps
                    store.upsert_nodes(_batch(0, f"rewrite {round_}"))
                    nodes = _batch(round_ + 1, "new")
                    store.upsert_nodes(nodes[:4])
                    store.upsert_nodes(nodes[4:])
            stop.set()

        def reader() -> None:
            while not stop.is_set():
                old = len(store.search_text("tok0", k=20))
                if old != 8:
                    seen.append(f"batch 0 (always present) found {old} times")
                for tag in range(1, 102, 10):
                    n = len(store.search_text(f"tok{tag}", k=20))
                    if n not in (0, 8):
                        seen.append(f"batch {tag} half visible: {n}")
                # Let the writer have the interpreter now and then: two readers spinning
                # without a pause starved it for minutes on a loaded 2-core machine.
                time.sleep(0.001)

        threads = [threading.Thread(target=writer)] + [
            threading.Thread(target=reader) for _ in range(2)
        ]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert seen == [], seen[:5]
