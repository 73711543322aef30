"""The cyclic collector is paused while hloscope builds a module, and what it built is handed
to the oldest generation afterwards instead of being scanned by the next young collection."""

from __future__ import annotations

import gc

import pytest

import hloscope
from hloscope.hlo.gc_pause import paused_gc

TEXT = (
    "HloModule m\n\nENTRY e {\n"
    + "".join(f"  p{i} = f32[4]{{0}} parameter({i})\n" for i in range(2000))
    + "  ROOT t = (f32[4]{0}) tuple(p0)\n}\n"
)


@pytest.fixture
def collector_on():
    was = gc.isenabled()
    gc.enable()
    yield
    if not was:
        gc.disable()


def test_collector_is_off_inside_and_back_on_after(collector_on):
    with paused_gc():
        assert not gc.isenabled()
    assert gc.isenabled()


def test_a_disabled_collector_stays_disabled():
    was = gc.isenabled()
    gc.disable()
    try:
        with paused_gc():
            pass
        assert not gc.isenabled()
    finally:
        if was:
            gc.enable()


def test_the_parse_hands_its_objects_to_the_oldest_generation(collector_on):
    # Without the hand-over, the next allocation after the parse starts a young collection
    # that scans every object the parse made and moves them one generation up only.
    gc.collect()
    module = hloscope.parse(TEXT)
    instructions = module.entry.instructions  # a body is built on first use, also paused
    oldest = {id(o) for o in gc.get_objects(generation=2)}
    assert len(instructions) == 2001
    assert all(id(inst) in oldest for inst in instructions)
    assert gc.get_freeze_count() == 0  # moved, not left frozen


def test_objects_the_program_froze_stay_frozen(collector_on):
    gc.collect()
    gc.freeze()
    try:
        frozen = gc.get_freeze_count()
        assert frozen > 10_000
        hloscope.parse(TEXT)
        # Not thawed: gc.unfreeze() would put the count to 0. A frozen object that reference
        # counting frees meanwhile (a compiled pattern the `re` cache drops) takes one off.
        assert frozen - 100 <= gc.get_freeze_count() <= frozen
    finally:
        gc.unfreeze()
