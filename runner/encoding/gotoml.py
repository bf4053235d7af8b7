"""TOML for Helm's toToml / fromToml (github.com/BurntSushi/toml).

`dump` follows the Encoder's layout: in every table the plain keys first
(sorted), then sub-tables and arrays of tables (sorted); top-level tables
preceded by a blank line, nested headers and keys indented two spaces per
level; floats as strconv 'g' with ".0" added when no '.'/exponent shows; nil
map values skipped, a nil array element an error.

`load` reads with Python's tomllib and gives BurntSushi's Go types: integers
int64, floats float64, date-times time.Time. Its error texts are put in
BurntSushi's words by runner.encoding.tomlerrors.
"""

from __future__ import annotations

import math
import re
import tomllib
from datetime import UTC, date, datetime, time

from runner.encoding import gojson
from runner.encoding.tomlerrors import burntsushi_message
from runner.golang.strconv import format_float
from runner.golang.types import Int64

TYPE_CHECKING = False  # `typing` costs ~2 ms at every start: see docs/speed.md
if TYPE_CHECKING:
    from typing import Any

_BARE_KEY = re.compile(r"[A-Za-z0-9_-]+")
_TOML_ESCAPES = {
    '"': '\\"',
    "\\": "\\\\",
    "\b": "\\b",
    "\t": "\\t",
    "\n": "\\n",
    "\f": "\\f",
    "\r": "\\r",
}
_NEEDS_ESCAPE = re.compile('["\\\\\x00-\x1f\x7f]')


class TOMLError(ValueError):
    """An encode/decode failure; str() is the text toToml/fromToml show."""


def _quote(s: str) -> str:
    def escape(m: re.Match[str]) -> str:
        c = m[0]
        return _TOML_ESCAPES.get(c) or f"\\u{ord(c):04x}"

    return '"' + _NEEDS_ESCAPE.sub(escape, s) + '"'


def _key(part: str) -> str:
    return part if _BARE_KEY.fullmatch(part) else _quote(part)


def _float(f: float) -> str:
    if math.isnan(f):
        return "-nan" if math.copysign(1.0, f) < 0 else "nan"
    if math.isinf(f):
        return "-inf" if f < 0 else "inf"
    text = format_float(f, "g", -1, 64)
    return text if ("." in text or "e" in text) else text + ".0"


def _is_table(value: Any) -> bool:
    if isinstance(value, dict):
        return True
    return (
        isinstance(value, list | tuple)
        and len(value) > 0
        and all(isinstance(v, dict) for v in value)
    )


def _is_nil(value: Any) -> bool:
    """BurntSushi's isNil: nil, or a typed nil map or slice."""
    return value is None or getattr(value, "go_nil", False) is True


def _split_keys(
    table: dict[Any, Any], keep_nil: bool = False
) -> tuple[list[tuple[str, Any]], list[tuple[str, Any]]]:
    """eMap: plain values first then tables, each group sorted (nil ones dropped)."""
    keys = sorted((str(k), k) for k in table if keep_nil or not _is_nil(table[k]))
    direct = [(name, k) for name, k in keys if not _is_table(table[k])]
    nested = [(name, k) for name, k in keys if _is_table(table[k])]
    return direct, nested


class _Encoder:
    def __init__(self) -> None:
        self.out: list[str] = []

    def newline(self) -> None:
        if self.out:
            self.out.append("\n")

    def element(self, value: Any) -> str:
        if value is True or value is False:
            return "true" if value else "false"
        if isinstance(value, float):
            return _float(value)
        if isinstance(value, int):
            return str(int(value))
        if isinstance(value, str):
            return _quote(value)
        if isinstance(value, datetime):
            return gojson.time_text(value)
        if isinstance(value, dict):
            return self.inline_table(value)
        if isinstance(value, list | tuple):
            if any(v is None for v in value):
                raise TOMLError("toml: cannot encode array with nil element")
            return "[" + ", ".join(self.element(v) for v in value) + "]"
        if value is None:
            raise TOMLError("toml: cannot encode a nil value")
        return self.element(gojson.json_shape(value))

    def inline_table(self, table: dict[Any, Any]) -> str:
        direct, nested = _split_keys(table, keep_nil=True)
        parts = ["{"]
        for group, trail in ((direct, bool(nested)), (nested, False)):
            for i, (name, k) in enumerate(group):
                if _is_nil(table[k]):
                    continue
                parts.append(f"{_key(name)} = {self.element(table[k])}")
                # BurntSushi counts skipped nil entries when placing ", ".
                if trail or i != len(group) - 1:
                    parts.append(", ")
        parts.append("}")
        return "".join(parts)

    def table(self, path: list[str], table: dict[Any, Any]) -> None:
        if len(path) == 1:
            self.newline()
        if path:
            self.out.append("  " * (len(path) - 1) + "[" + ".".join(map(_key, path)) + "]")
            self.newline()
        self.body(path, table)

    def body(self, path: list[str], table: dict[Any, Any]) -> None:
        direct, nested = _split_keys(table)
        indent = "  " * len(path)
        for name, k in direct:
            self.out.append(f"{indent}{_key(name)} = {self.element(table[k])}")
            self.newline()
        for name, k in nested:
            value = table[k]
            if isinstance(value, dict):
                self.table([*path, name], value)
            else:
                self.table_array([*path, name], value)

    def table_array(self, path: list[str], items: Any) -> None:
        header = "  " * (len(path) - 1) + "[[" + ".".join(map(_key, path)) + "]]"
        for item in items:
            self.newline()
            self.out.append(header)
            self.newline()
            self.body(path, item)


def dump(value: Any) -> str:
    """toml.NewEncoder(w).Encode(value) as text."""
    encoder = _Encoder()
    if _is_table(value) and not isinstance(value, dict):
        raise TOMLError("toml: top-level values must be Go maps or structs")
    if isinstance(value, dict):
        encoder.table([], value)
    else:
        encoder.out.append(encoder.element(value))
    return "".join(encoder.out)


def _go_value(value: Any) -> Any:
    if isinstance(value, bool | float | str):
        return value
    if isinstance(value, int):
        return Int64(value)
    if isinstance(value, dict):
        return {k: _go_value(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_go_value(v) for v in value]
    if isinstance(value, datetime):
        return value if value.tzinfo else value.replace(tzinfo=UTC)
    if isinstance(value, date):
        return datetime(value.year, value.month, value.day, tzinfo=UTC)
    if isinstance(value, time):
        return datetime(1, 1, 1, value.hour, value.minute, value.second, value.microsecond, UTC)
    return value


def load(text: str) -> dict[str, Any]:
    """toml.Unmarshal into map[string]interface{}; raises TOMLError."""
    try:
        return _go_value(tomllib.loads(text))
    except tomllib.TOMLDecodeError as exc:
        relaxed = _without_trailing_comma(text, str(exc))
        if relaxed is not None:
            return load(relaxed)
        raise TOMLError(burntsushi_message(text, str(exc))) from None


def _without_trailing_comma(text: str, message: str) -> str | None:
    """BurntSushi accepts `{a = 1,}` (TOML 1.1); drop that one comma and read again."""
    found = re.search(
        r"Invalid initial character for a key part \(at line (\d+), column (\d+)\)", message
    )
    if not found:
        return None
    lines = text.split("\n")
    at = sum(len(raw) + 1 for raw in lines[: int(found[1]) - 1]) + int(found[2]) - 1
    if at >= len(text) or text[at] != "}":
        return None
    comma = text.rfind(",", 0, at)
    if comma < 0 or text[comma + 1 : at].strip():
        return None
    return text[:comma] + text[comma + 1 :]
