"""Go's numeric conversions as Sprig uses them: strconv parsing and spf13/cast.

Sprig v3.3.0 converts its `interface {}` arguments with spf13/cast v1.7.0
(`cast.ToInt64`, `ToInt`, `ToFloat64`, errors swallowed into 0) and turns
values into strings with its own `strval`. Every function family imports
these from here so that `add "3" 1.9`, `int "0x1F"` and `toString 1e6`
agree everywhere.
"""

from __future__ import annotations

import math
import re

from runner.template.gotypes import Duration, Int64, StringSlice, Uint64, format_value

TYPE_CHECKING = False  # `typing` costs ~2 ms at every start: see docs/speed.md
if TYPE_CHECKING:
    from typing import Any

INT64_MIN = -(1 << 63)
INT64_MAX = (1 << 63) - 1


class NumError(ValueError):
    """strconv.NumError: `strconv.ParseInt: parsing "x": invalid syntax`.

    `value` is what Go returns alongside the error (the clamped value for a
    range error, 0 for a syntax error).
    """

    def __init__(self, func: str, text: str, reason: str, value: Any = 0) -> None:
        super().__init__(f'strconv.{func}: parsing "{text}": {reason}')
        self.value = value


_SYNTAX = "invalid syntax"
_RANGE = "value out of range"


# ------------------------------------------------------------------ strconv


def underscore_ok(s: str) -> bool:
    """strconv's underscoreOK: '_' only between digits or after a base prefix."""
    saw = "^"
    i = 0
    if s[:1] in ("-", "+"):
        s = s[1:]
    hexa = False
    if len(s) >= 2 and s[0] == "0" and s[1].lower() in "box":
        i = 2
        saw = "0"
        hexa = s[1].lower() == "x"
    for ch in s[i:]:
        if "0" <= ch <= "9" or (hexa and "a" <= ch.lower() <= "f"):
            saw = "0"
        elif ch == "_":
            if saw != "0":
                return False
            saw = "_"
        elif saw == "_":
            return False
        else:
            saw = "!"
    return saw != "_"


def _digit_value(ch: str) -> int:
    if "0" <= ch <= "9":
        return ord(ch) - 48
    low = ch.lower()
    if "a" <= low <= "z" and ch.isascii():
        return ord(low) - 87
    return 99


def _split_base(s: str, base: int) -> tuple[str, int]:
    """Base-0 prefix detection as ParseUint does it (0x, 0o, 0b, leading 0)."""
    if base != 0:
        return s, base
    if s[0] != "0":
        return s, 10
    if len(s) >= 3 and s[1].lower() in "box":
        return s[2:], {"b": 2, "o": 8, "x": 16}[s[1].lower()]
    return s[1:], 8


def parse_uint(s: str, base: int = 10, bits: int = 64, func: str = "ParseUint") -> int:
    """strconv.ParseUint; raises NumError (value = clamped result on range errors)."""
    if not s:
        raise NumError(func, s, _SYNTAX)
    base0 = base == 0
    digits, base = _split_base(s, base)
    n = 0
    underscores = False
    for ch in digits:
        if ch == "_" and base0:
            underscores = True
            continue
        d = _digit_value(ch)
        if d >= base:
            raise NumError(func, s, _SYNTAX)
        n = n * base + d
    if underscores and not underscore_ok(s):
        raise NumError(func, s, _SYNTAX)
    limit = (1 << bits) - 1
    if n > limit:
        raise NumError(func, s, _RANGE, limit)
    return n


def parse_int(s: str, base: int = 10, bits: int = 64) -> int:
    """strconv.ParseInt(s, base, bits) (bits 0 means 64)."""
    if not s:
        raise NumError("ParseInt", s, _SYNTAX)
    bits = bits or 64
    neg = s[0] == "-"
    body = s[1:] if s[0] in "+-" else s
    try:
        un = parse_uint(body, base, 64, "ParseInt")
    except NumError as err:
        if "syntax" in str(err):
            raise NumError("ParseInt", s, _SYNTAX) from None
        un = 1 << 64  # beyond uint64: reported below as int range error
    cutoff = 1 << (bits - 1)
    if not neg and un >= cutoff:
        raise NumError("ParseInt", s, _RANGE, cutoff - 1)
    if neg and un > cutoff:
        raise NumError("ParseInt", s, _RANGE, -cutoff)
    return -un if neg else un


def atoi(s: str) -> int:
    """strconv.Atoi: base 10, no prefixes; raises NumError like Go."""
    if 0 < len(s) < 19:
        body = s[1:] if s[0] in "+-" else s
        if not body or not body.isascii() or not body.isdigit():
            raise NumError("Atoi", s, _SYNTAX)
        return -int(body) if s[0] == "-" else int(body)
    try:
        return parse_int(s, 10, 64)
    except NumError as err:
        raise NumError("Atoi", s, str(err).rsplit(": ", 1)[1], err.value) from None


# Compiled through re's cache when first used: most renders parse no float.
_DECIMAL_FLOAT = r"[+-]?(?:[0-9_]+\.?[0-9_]*|\.[0-9_]+)(?:[eE][+-]?[0-9_]+)?"
_HEX_FLOAT = r"[+-]?0[xX](?:[0-9a-fA-F_]+\.?[0-9a-fA-F_]*|\.[0-9a-fA-F_]+)[pP][+-]?[0-9_]+"


def _special_float(s: str) -> float | None:
    """strconv's special(): inf, infinity (signed), nan (unsigned), any case."""
    low = s.lower()
    body = low[1:] if low[:1] in "+-" else low
    if body in ("inf", "infinity"):
        return -math.inf if low[0] == "-" else math.inf
    if low == "nan":
        return math.nan
    return None


def parse_float(s: str) -> float:
    """strconv.ParseFloat(s, 64); raises NumError (value = ±Inf on overflow)."""
    special = _special_float(s)
    if special is not None:
        return special
    if re.fullmatch(_DECIMAL_FLOAT, s) and ("_" not in s or underscore_ok(s)):
        value = float(s.replace("_", ""))
    elif re.fullmatch(_HEX_FLOAT, s) and underscore_ok(s):
        value = float.fromhex(s.replace("_", ""))
    else:
        raise NumError("ParseFloat", s, _SYNTAX)
    if math.isinf(value):
        raise NumError("ParseFloat", s, _RANGE, value)
    return value


# ---------------------------------------------------------------- spf13/cast


def _trim_zero_decimal(s: str) -> str:
    """cast's trimZeroDecimal: "12.000" -> "12", "12.50" stays."""
    found_zero = False
    for i in range(len(s), 0, -1):
        ch = s[i - 1]
        if ch == ".":
            if found_zero:
                return s[: i - 1]
        elif ch == "0":
            found_zero = True
        else:
            return s
    return s


def float_to_int64(f: float) -> int:
    """Go's int64(f) on amd64: truncation; NaN and out of range give MinInt64."""
    if f != f or not (-9.223372036854775808e18 <= f < 9.223372036854775808e18):
        return INT64_MIN
    return int(f)


def wrap_int64(n: int) -> int:
    """Two's-complement wrap-around of Go int64 arithmetic."""
    return ((n + (1 << 63)) & ((1 << 64) - 1)) - (1 << 63)


def to_int64_e(v: Any) -> int:
    """cast.ToInt64E: raises ValueError where cast returns an error."""
    t = type(v)
    if t is int or t is Int64 or t is Uint64:
        return int(v)
    if t is float:
        return float_to_int64(v)
    if t is str:
        try:
            return parse_int(_trim_zero_decimal(v), 0, 0)
        except NumError:
            raise ValueError(f"unable to cast {v!r} of type string to int64") from None
    if t is bool:
        return 1 if v else 0
    if v is None:
        return 0
    # time.Duration and every other named or composite type: cast refuses.
    raise ValueError(f"unable to cast value of type {t.__name__} to int64")


def to_int64(v: Any) -> Int64:
    """cast.ToInt64 (Sprig's toInt64): errors become 0."""
    try:
        return Int64(to_int64_e(v))
    except ValueError:
        return Int64(0)


def to_int(v: Any) -> int:
    """cast.ToInt (Sprig's toInt): like to_int64 on a 64-bit platform, as Go int."""
    try:
        return to_int64_e(v)
    except ValueError:
        return 0


def to_float64_e(v: Any) -> float:
    """cast.ToFloat64E: raises ValueError where cast returns an error."""
    t = type(v)
    if t is float:
        return v
    if t is int or t is Int64 or t is Uint64:
        return float(v)
    if t is str:
        try:
            return parse_float(v)
        except NumError:
            raise ValueError(f"unable to cast {v!r} of type string to float64") from None
    if t is bool:
        return 1.0 if v else 0.0
    if v is None:
        return 0.0
    raise ValueError(f"unable to cast value of type {t.__name__} to float64")


def to_float64(v: Any) -> float:
    """cast.ToFloat64 (Sprig's toFloat64): errors become 0."""
    try:
        return to_float64_e(v)
    except ValueError:
        return 0.0


# ----------------------------------------------------------- Sprig strings


def strval(v: Any) -> str:
    """Sprig's strval (toString): strings as is, []byte as text, Stringers, else %v."""
    t = type(v)
    if t is str:
        return v
    if t is bytes or t is bytearray:
        return bytes(v).decode("utf-8", errors="replace")
    return format_value(v)


def strslice(v: Any) -> StringSlice:
    """Sprig's strslice (toStrings): nil elements dropped, others through strval."""
    if type(v) is StringSlice:
        return v
    if isinstance(v, (list, tuple)):
        return StringSlice(strval(e) for e in v if e is not None)
    if isinstance(v, (bytes, bytearray)):
        return StringSlice(str(b) for b in v)
    if v is None:
        return StringSlice()
    return StringSlice([strval(v)])


__all__ = [
    "INT64_MAX",
    "INT64_MIN",
    "Duration",
    "NumError",
    "atoi",
    "float_to_int64",
    "parse_float",
    "parse_int",
    "parse_uint",
    "strslice",
    "strval",
    "to_float64",
    "to_float64_e",
    "to_int",
    "to_int64",
    "to_int64_e",
    "wrap_int64",
]
