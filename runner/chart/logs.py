"""What Helm logs while loading and preparing a chart (its slog lines on stderr)."""

from __future__ import annotations

from runner.golang.slog import text_line
from runner.records import Record


class Warning(Record):  # noqa: A001 - the name Helm's users know; never shadows a builtin we use
    """One line Helm writes to stderr through slog (`level=... msg=... key=value`)."""

    __slots__ = ("message", "level", "attrs")

    def __init__(self, message: str, level: str = "INFO",
                 attrs: tuple[tuple[str, str], ...] = ()) -> None:
        self.message = message
        self.level = level
        self.attrs = attrs

    def __str__(self) -> str:
        return text_line(self.level, self.message, dict(self.attrs))


class Warnings:
    """A collector passed down the coalescing functions (Helm's printf)."""

    def __init__(self, items: list[Warning] | None = None) -> None:
        self.items = [] if items is None else items

    def info(self, message: str, **attrs: str) -> None:
        self.items.append(Warning(message, "INFO", tuple(attrs.items())))

    def warn(self, message: str, **attrs: str) -> None:
        self.items.append(Warning(message, "WARN", tuple(attrs.items())))
