"""log/slog's TextHandler line, as Helm 4 writes its log to stderr (without the time):
`level=DEBUG msg="creating resource(s)" resources=3`.

Values are written as slog writes them: strings quoted (strconv.Quote) only when
empty or holding a space, `=`, `"`, a control or a character that is not printable;
bools as true/false, integers in decimal; anything else by its text.
"""

from __future__ import annotations

TYPE_CHECKING = False  # `typing` costs ~2 ms at every start: see docs/speed.md
if TYPE_CHECKING:
    from typing import Any


def text_line(level: str, message: str, attrs: dict[str, Any] | None = None) -> str:
    """One record: `level=LEVEL msg=MESSAGE key=value ...` in the order given."""
    parts = [f"level={level}", f"msg={value_text(message)}"]
    parts += [f"{key}={value_text(value)}" for key, value in (attrs or {}).items()]
    return " ".join(parts)


def value_text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    text = value if isinstance(value, str) else str(value)
    if not _needs_quoting(text):
        return text
    from runner.golang.strconv import quote

    return quote(text)


def _needs_quoting(text: str) -> bool:
    """slog's needsQuoting: empty, or any space, `=`, `"`, control or unprintable
    character (a backslash alone does not)."""
    if not text:
        return True
    return any(ch in ' ="' or not ch.isprintable() for ch in text)
