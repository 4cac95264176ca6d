"""Bulk reads and writes hold off Python's cycle collector (``gc_paused``): afterwards it runs
as before, what they allocated does not cost a pass of its own, cycles are still collected, and
an application's own frozen objects stay frozen."""

from __future__ import annotations

import gc
import weakref

import pytest

from anatid_core import gc_paused


class _Box:
    pass


@pytest.fixture(autouse=True)
def collector_on():
    was_on = gc.isenabled()
    gc.enable()
    yield
    if not was_on:
        gc.disable()


def test_the_collector_is_off_inside_and_on_after():
    with gc_paused():
        assert not gc.isenabled()
        with gc_paused():  # nested: the outer one turns it back on
            pass
        assert not gc.isenabled()
    assert gc.isenabled()


def test_what_the_pause_allocated_is_left_out_of_the_young_passes():
    """Re-enabled as is, the collector's next young pass would walk every container the bulk
    operation built; they go straight to the oldest generation instead."""
    thresholds = gc.get_threshold()
    gc.set_threshold(700, 10**6, 10**6)  # no middle pass may promote them meanwhile
    try:
        with gc_paused():
            rows = [{"id": str(i), "props": {"tags": [i]}} for i in range(20_000)]
        target = rows[-1]["props"]
        young = [*gc.get_objects(generation=0), *gc.get_objects(generation=1)]
        assert not any(o is target for o in young)
        assert any(o is target for o in gc.get_objects(generation=2))
    finally:
        gc.set_threshold(*thresholds)


def test_cycles_made_during_the_pause_are_still_collected():
    with gc_paused():
        a, b = _Box(), _Box()
        a.other, b.other = b, a
        gone = weakref.ref(a)
        del a, b
    assert gone() is not None  # a cycle: reference counting alone cannot free it
    gc.collect()
    assert gone() is None


def test_an_applications_frozen_objects_stay_frozen():
    """Frozen objects are in no generation (gc.get_objects lists generations 0-2 only): one
    frozen before the pause is still out of them after it, and what the pause built is in."""
    kept = _Box()
    gc.freeze()
    try:
        with gc_paused():
            built = [{"x": [i]} for i in range(1_000)]
        tracked = gc.get_objects()
        assert not any(o is kept for o in tracked)
        assert any(o is built[-1] for o in tracked)
    finally:
        gc.unfreeze()
    assert any(o is kept for o in gc.get_objects())


def test_the_collector_stays_off_when_the_application_turned_it_off():
    gc.disable()
    with gc_paused():
        pass
    assert not gc.isenabled()


def test_a_small_pause_leaves_the_generations_as_they_are():
    """A single-record save pauses too: the application's young objects (and their cycles)
    stay young, for the collector's next young pass."""
    thresholds = gc.get_threshold()
    gc.set_threshold(10**6, 10**6, 10**6)  # no pass of its own (another thread's) meanwhile
    try:
        gc.collect()
        young = _Box()
        with gc_paused():
            [{"x": [i]} for i in range(10)]
        assert any(o is young for o in gc.get_objects(generation=0))
    finally:
        gc.set_threshold(*thresholds)
