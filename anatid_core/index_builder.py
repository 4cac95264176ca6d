"""The index builder's process (issue 41): ``python -m anatid_core.index_builder FILE`` builds or
merges every persistent index the store needs, looks again, and exits. Writers start it
(:mod:`anatid_core.indexes.builder` says when and why); nobody needs to.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import sys
from dataclasses import asdict

from .indexes.ann import ANN
from .indexes.builder import IN_BUILDER, adopt_settings, builder_lock, needed
from .indexes.give_way import GIVE_WAY
from .storage.lease import wait_in_background
from .store import Store

LOG = logging.getLogger("anatid_core.ann")


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        print("usage: python -m anatid_core.index_builder FILE", file=sys.stderr)
        return 2
    path = os.path.realpath(args[0])
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s", stream=sys.stderr)
    with contextlib.suppress(OSError):
        # A lower priority, not Linux's idle class: that one starved builds for as long as the
        # machine stayed busy (a CI run, another benchmark), and did not keep a writer's
        # searches fast either (the duty cycle of :mod:`.indexes.give_way` does).
        os.nice(10)
    adopt_settings()  # the settings of the writer that started it
    ANN["give_way"] = True  # nobody waits for this build: the store's users come first
    wait_in_background()  # and it takes the file only when they pause (or once a second)
    os.environ.setdefault(IN_BUILDER, "{}")  # the store opened here starts no builder
    with builder_lock(path) as held:
        if not held:
            return 0
        with Store.open(path) as store:
            for round_ in range(int(ANN["builder_rounds"])):
                wanted = needed(store.index_states())
                if not wanted:
                    break
                if round_:
                    # The writers wrote a merge's worth while this one gave way: falling
                    # behind grows every search's exact delta, so give way half as much (as
                    # Lucene's merge scheduler lifts its throttle when merges back up).
                    GIVE_WAY["pause"] /= 2
                # Text first (seconds), then every space with no index gets its flat one
                # before any graph is built: a graph takes minutes, and meanwhile the other
                # spaces would be loaded whole (or scanned by SQL) by every process that
                # searches them.
                texts = [(k, s, True) for k, s in wanted if s is None]
                flats = [(k, s, False) for k, s in wanted if s is not None]
                graphs = [(k, s, True) for k, s in wanted if s is not None]
                for kind, space, graph in [*texts, *flats, *graphs]:
                    done = store.indexes.build(kind, space, graph=graph)
                    if done is not None:
                        LOG.info("built %s %s: %s", kind, space or "text", done)
                        # The writer that waits for these lines may have exited: go on.
                        with contextlib.suppress(OSError, ValueError):
                            print(json.dumps(asdict(done)), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
