"""Plain mutable records for the render path.

A `@dataclass` costs ~0.5 ms to create and imports `inspect` (with ast, dis and
tokenize: ~5 ms) at every start; the records a `template` run builds are
written out instead: `__slots__`, an explicit `__init__`, and from here the
equality and repr a dataclass would give (over `_compared` fields, all slots
unless a class narrows them).
"""

from __future__ import annotations

TYPE_CHECKING = False  # `typing` costs ~2 ms at every start: see docs/speed.md
if TYPE_CHECKING:
    from typing import Any


class Record:
    __slots__ = ()
    _compared: tuple[str, ...] = ()

    def _fields(self) -> tuple[str, ...]:
        return self._compared or self.__slots__

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return all(getattr(self, f) == getattr(other, f) for f in self._fields())

    __hash__ = None  # type: ignore[assignment]  # mutable, as a dataclass without frozen

    def __repr__(self) -> str:
        shown = ", ".join(f"{f}={getattr(self, f)!r}" for f in self._fields())
        return f"{type(self).__name__}({shown})"

    def as_dict(self) -> dict[str, Any]:
        return {f: getattr(self, f) for f in self.__slots__}

    def replace(self, **changes: Any) -> Any:
        """A shallow copy with `changes` applied (what dataclasses.replace gives)."""
        unknown = set(changes) - set(self.__slots__)
        if unknown:
            raise TypeError(f"{type(self).__name__} has no field {sorted(unknown)[0]!r}")
        copy = object.__new__(type(self))
        for name in self.__slots__:
            setattr(copy, name, changes[name] if name in changes else getattr(self, name))
        return copy
