"""runner.gcpause.no_gc: the collector paused in the block, and what it allocated left alone after."""

from __future__ import annotations

import gc
import weakref

from runner.gcpause import no_gc


class _Node:
    def __init__(self) -> None:
        self.other: _Node | None = None


def test_the_collector_is_paused_inside_and_enabled_again_after() -> None:
    assert gc.isenabled()
    with no_gc():
        assert not gc.isenabled()
        with no_gc():
            assert not gc.isenabled()
        assert not gc.isenabled()
    assert gc.isenabled()


def test_what_the_block_allocated_moves_to_the_oldest_generation_unexamined() -> None:
    with no_gc():
        kept = [[i] for i in range(10 * gc.get_threshold()[0])]
    assert any(obj is kept for obj in gc.get_objects(generation=2))
    assert gc.get_count()[0] < gc.get_threshold()[0]


def test_cycles_made_in_the_block_are_still_collected() -> None:
    with no_gc():
        first, second = _Node(), _Node()
        first.other, second.other = second, first
        watch = weakref.ref(first)
    del first, second
    gc.collect()
    assert watch() is None
