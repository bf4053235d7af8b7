"""Pausing Python's cyclic garbage collector around work that only allocates."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def no_gc() -> Iterator[None]:
    """No cyclic collection inside the block (nested blocks are fine): a command's,
    a parse's or a render's trees, closures and values all live to its end, so
    collections triggered by their allocations only cost time.

    Leaving, what the block allocated goes straight to the oldest generation
    (gc.freeze then gc.unfreeze): re-enabled as it was, the collector would
    examine all of it at the next allocation (10-50 ms after a command that
    imported most of the package and rendered a chart), where now only a full
    collection, when one comes due, does."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.freeze()
            gc.unfreeze()
            gc.enable()
