"""Pausing Python's cyclic garbage collector around work that only allocates."""

from __future__ import annotations

import gc


class no_gc:  # noqa: N801 - used as `with no_gc():`, like the function it replaces
    """No cyclic collection inside the block (nested blocks are fine): a command's,
    a parse's or a render's trees, closures and values all live to its end, so
    collections triggered by their allocations only cost time.

    Leaving, what the block allocated goes straight to the oldest generation
    (gc.freeze then gc.unfreeze): re-enabled as it was, the collector would
    examine all of it at the next allocation (10-50 ms after a command that
    imported most of the package and rendered a chart), where now only a full
    collection, when one comes due, does.

    A class rather than a contextlib.contextmanager: contextlib is an import
    (~0.5 ms) that a template run otherwise never needs."""

    __slots__ = ("_enabled",)

    def __enter__(self) -> None:
        self._enabled = gc.isenabled()
        gc.disable()

    def __exit__(self, *exc_info: object) -> None:
        if self._enabled:
            gc.freeze()
            gc.unfreeze()
            gc.enable()
