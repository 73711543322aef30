"""Pausing Python's cyclic garbage collector while hloscope builds large object graphs.

Parsing a 50 MB module creates about two million objects (instructions, their strings and
lists), and none of them is garbage until the module is dropped. CPython's collector does not
know that: every 700 allocations it scans the youngest objects, and every few hundred thousand
it walks *all* of them, so at that scale more than half of the parse went to collections that
found nothing. :func:`paused_gc` switches the collector off for the duration of such work and
back on afterwards (only if it was on: a caller that disabled it keeps it disabled). Reference
counting still frees everything that is not in a cycle; cycles made meanwhile are collected by
the next full collection.

Turning the collector back on is not the end of it: CPython counts every allocation made while
it was off, so the first allocation afterwards starts a young-generation collection that scans
every object the work created, a pause that grows with the size of the result. Those objects
are the long-lived result the caller asked for, so the pause hands them straight to the oldest
generation with ``gc.freeze()`` / ``gc.unfreeze()``, which moves objects without scanning them
and resets the count; the next full collection, whenever the collector's own accounting calls
for one, still sees them. (Skipped when the program froze objects itself: unfreezing would
undo that.)
"""

from __future__ import annotations

import functools
import gc
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import ParamSpec, TypeVar

__all__ = ["paused_gc", "gc_paused"]

P = ParamSpec("P")
R = TypeVar("R")


@contextmanager
def paused_gc() -> Iterator[None]:
    """Run the block with the cyclic collector off (restored afterwards, also on error)."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            if gc.get_freeze_count() == 0:
                gc.freeze()
                gc.unfreeze()
            gc.enable()


def gc_paused(function: Callable[P, R]) -> Callable[P, R]:
    """Decorator form of :func:`paused_gc`, for functions that build large object graphs."""

    @functools.wraps(function)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        with paused_gc():
            return function(*args, **kwargs)

    return wrapper
