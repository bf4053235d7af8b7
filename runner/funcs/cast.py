"""Go's numeric conversions as Sprig uses them: spf13/cast and Sprig's strval.

Sprig v3.3.0 converts its `interface {}` arguments with spf13/cast v1.7.0
(`cast.ToInt64`, `ToInt`, `ToFloat64`, errors swallowed into 0) and turns
values into strings with its own `strval`. Every function family imports
these from here so that `add "3" 1.9`, `int "0x1F"` and `toString 1e6`
agree everywhere.
"""

from __future__ import annotations

from runner.golang.strconv import NumError, parse_float, parse_int
from runner.golang.types import Int64, StringSlice, Uint64, format_value

TYPE_CHECKING = False  # `typing` costs ~2 ms at every start: see docs/speed.md
if TYPE_CHECKING:
    from typing import Any

INT64_MIN = -(1 << 63)
INT64_MAX = (1 << 63) - 1


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
