"""go-yaml v2's resolution of plain scalars (resolve.go): what an untagged plain scalar reads as.

Asked by the decoder (runner.encoding.yamldecode) for every plain scalar, by
toYaml's quoting (runner.encoding.yamlstyle: does a string read back as
itself?) and by runner.heads_cache (a document's head read back from its
spans), none of which needs the rest of runner.encoding.goyaml.
"""

from __future__ import annotations

import math
import re

from runner.lazy_pattern import LazyPattern

TYPE_CHECKING = False  # `typing` costs ~2 ms at every start: see docs/speed.md
if TYPE_CHECKING:
    from typing import Any

# go-yaml v2 resolve.go: words looked up before any number parsing.
RESOLVE_MAP: dict[str, Any] = {}
for _words, _value in (
    (("y", "Y", "yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON"), True),
    (("n", "N", "no", "No", "NO", "false", "False", "FALSE", "off", "Off", "OFF"), False),
    (("", "~", "null", "Null", "NULL"), None),
    ((".nan", ".NaN", ".NAN"), math.nan),
    ((".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF"), math.inf),
    (("-.inf", "-.Inf", "-.INF"), -math.inf),
):
    for _word in _words:
        RESOLVE_MAP[_word] = _value

_YAML_STYLE_FLOAT = LazyPattern(r"[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?")
_GO_DOT_FLOAT = LazyPattern(r"\.[0-9]+([eE][-+]?[0-9]+)?")
_GO_INT = LazyPattern(r"([-+]?)(0[xX][0-9a-fA-F]+|0[oO][0-7]+|0[bB][01]+|0[0-7]*|[1-9][0-9]*)")
_TIMESTAMP = LazyPattern(
    r"(\d{4})-(\d{1,2})-(\d{1,2})"
    r"(?:(?:[Tt](\d{1,2}):(\d{1,2}):(\d{1,2})(?:[.,]\d+)?(?:Z|[+-]\d\d:\d\d))"
    r"|(?: (\d{1,2}):(\d{1,2}):(\d{1,2})(?:[.,]\d+)?))?"
)
INT64_MIN, INT64_MAX, UINT64_MAX = -(1 << 63), (1 << 63) - 1, (1 << 64) - 1
_DAYS = (31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)


class Timestamp(str):
    """Marks a plain scalar go-yaml resolves as !!timestamp (kept as its text)."""

    __slots__ = ()


# What the patterns can match at all: most scalars toYaml checks ("100Mi", "1.2.3")
# are told apart without compiling them.
_INT_CHARS = frozenset("+-0123456789abcdefABCDEFxXoObB")
_FLOAT_CHARS = frozenset("+-0123456789.eE")


def _go_parse_int(text: str) -> int | None:
    """strconv.ParseInt/ParseUint(text, 0, 64) syntax (underscores already removed)."""
    if text.isdigit() and text.isascii() and (text[0] != "0" or len(text) == 1):
        return int(text)
    if not _INT_CHARS.issuperset(text):
        return None
    m = _GO_INT.fullmatch(text)
    if m is None:
        return None
    sign, body = m.groups()
    if len(body) > 1 and body[0] == "0":
        base = {"x": 16, "o": 8, "b": 2}.get(body[1].lower(), 8)
        digits = body[2:] if base != 8 or body[1] in "oO" else body[1:]
        value = int(digits, base)
    else:
        value = int(body)
    return -value if sign == "-" else value


def _is_timestamp(text: str) -> bool:
    """go-yaml v2 parseTimestamp: time.Parse with its four layouts (range-checked)."""
    if len(text) < 8 or text[4] != "-":
        return False
    m = _TIMESTAMP.fullmatch(text)
    if m is None:
        return False
    year, month, day = int(m[1]), int(m[2]), int(m[3])
    if not 1 <= month <= 12 or not 1 <= day <= _DAYS[month - 1]:
        return False
    leap = year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)
    if month == 2 and day == 29 and not leap:
        return False
    clock = m.group(4, 5, 6) if m[4] is not None else m.group(7, 8, 9)
    if clock[0] is None:
        return True
    hour, minute, second = (int(x) for x in clock)
    return hour < 24 and minute < 60 and second < 60


def resolve_plain(text: str) -> Any:
    """What go-yaml v2 makes of an untagged plain scalar (its resolve("", text)).

    Returns None, bool, int, float, a `Timestamp` (str subclass) or the str.
    """
    if text in RESOLVE_MAP:
        return RESOLVE_MAP[text]
    if not text:
        return text
    hint = text[0]
    if hint == ".":
        if _GO_DOT_FLOAT.fullmatch(text):
            value = float(text)
            if not math.isinf(value):
                return value
        return text
    if hint not in "+-0123456789":
        return text
    if _is_timestamp(text):
        return Timestamp(text)
    plain = text.replace("_", "")
    value = _go_parse_int(plain)
    if value is not None and INT64_MIN <= value <= UINT64_MAX:
        return value
    if plain.count(".") <= 1 and _FLOAT_CHARS.issuperset(plain) and _YAML_STYLE_FLOAT.fullmatch(plain):
        number = float(plain)
        if not math.isinf(number):
            return number
    if plain.startswith("-0b") and re.fullmatch(r"-0b[01]+", plain):
        value = -int(plain[3:], 2)
        if value >= INT64_MIN:
            return value
    return text
