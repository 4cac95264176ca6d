"""A background build gives way to the machine's other work (anatid_core.indexes.give_way): after
a slice of work during which another process kept a core busy it pauses; a build someone waits
for never does. Pauses are recorded, not slept, and no time is asserted."""

from __future__ import annotations

import os
import subprocess
import sys
import time

import pytest

from anatid_core.indexes.give_way import GIVE_WAY, GiveWay

SLICE = 0.3


def _slice_beside_a_busy_process() -> None:
    """A slice of 0.3 s during which this process waits and another one spins."""
    spinner = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    try:
        time.sleep(SLICE)
    finally:
        spinner.kill()
        spinner.wait()


@pytest.mark.skipif(not os.path.exists("/proc/stat"), reason="CPU time is read from /proc")
def test_a_slice_beside_a_busy_process_is_followed_by_a_pause() -> None:
    pauses: list[float] = []
    way = GiveWay(enabled=True, sleep=pauses.append)
    assert way.slice_rows(2048) == GIVE_WAY["slice_rows"]  # short slices: a pause comes soon
    _slice_beside_a_busy_process()
    way.after_slice()
    assert len(pauses) == 1
    assert pauses[0] >= GIVE_WAY["pause"] * SLICE  # a multiple of the slice it follows
    assert way.slept == pauses[0]


def test_a_build_someone_waits_for_never_pauses() -> None:
    pauses: list[float] = []
    way = GiveWay(enabled=False, sleep=pauses.append)
    assert way.slice_rows(2048) == 2048
    _slice_beside_a_busy_process()
    way.after_slice()
    assert pauses == [] and way.slept == 0.0
