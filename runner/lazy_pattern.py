"""Regular expressions compiled on first use instead of at import.

re.compile costs 0.05-0.5 ms a pattern (character classes beyond Latin-1 the
most), paid by every run that imports the module, used or not. A LazyPattern
stands where the compiled pattern stood: its first method call compiles, then
keeps the compiled pattern's bound methods, so later calls cost what the
compiled pattern's do.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator

TYPE_CHECKING = False  # `typing` costs ~2 ms at every start: see docs/speed.md
if TYPE_CHECKING:
    from typing import Any

_METHODS = ("search", "match", "fullmatch", "sub", "subn", "split", "finditer", "findall")


class LazyPattern:
    """`re.compile(source, flags)`, done when a method is first called."""

    __slots__ = ("source", "flags", *_METHODS)

    search: Callable[..., re.Match[str] | None]
    match: Callable[..., re.Match[str] | None]
    fullmatch: Callable[..., re.Match[str] | None]
    sub: Callable[..., str]
    subn: Callable[..., tuple[str, int]]
    split: Callable[..., list[Any]]
    finditer: Callable[..., Iterator[re.Match[str]]]
    findall: Callable[..., list[Any]]

    def __init__(self, source: str, flags: int = 0) -> None:
        self.source = source
        self.flags = flags

    def __getattr__(self, name: str) -> Any:
        # Only reached while the method slots are empty, i.e. before the first call.
        if name not in _METHODS:
            raise AttributeError(name)
        compiled = re.compile(self.source, self.flags)
        for method in _METHODS:
            setattr(self, method, getattr(compiled, method))
        return getattr(compiled, name)
