"""Pausing Python's cyclic garbage collector around work that only allocates."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def no_gc() -> Iterator[None]:
    """No cyclic collection inside the block (nested blocks are fine): a command's,
    a parse's or a render's trees, closures and values all live to its end, so
    collections triggered by their allocations only cost time."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()
