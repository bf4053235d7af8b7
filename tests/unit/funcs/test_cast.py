"""strconv parsing and spf13/cast conversions. Each row is what Go 1.26
printed for cast.ToInt64(s) (v1.7.0, as Sprig v3.3.0 uses it), strconv.Atoi(s)
(value, error == nil) and strconv.FormatFloat(cast.ToFloat64(s), 'g', -1, 64)."""

from __future__ import annotations

import pytest

from runner.funcs.cast import (
    float_to_int64,
    strslice,
    strval,
    to_float64,
    to_int,
    to_int64,
    wrap_int64,
)
from runner.golang.strconv import NumError, atoi, format_float, parse_int
from runner.golang.types import Duration, Int64, StringSlice

ROWS = [
    ("", 0, 0, False, "0"),
    ("0", 0, 0, True, "0"),
    ("1", 1, 1, True, "1"),
    ("-1", -1, -1, True, "-1"),
    ("+5", 5, 5, True, "5"),
    ("12", 12, 12, True, "12"),
    ("12.0", 12, 0, False, "12"),
    ("12.00", 12, 0, False, "12"),
    ("12.5", 0, 0, False, "12.5"),
    ("12.50", 0, 0, False, "12.5"),
    ("12.", 0, 0, False, "12"),
    ("0x1F", 31, 0, False, "0"),
    ("0X1f", 31, 0, False, "0"),
    ("0o17", 15, 0, False, "0"),
    ("017", 15, 17, True, "17"),
    ("08", 0, 8, True, "8"),
    ("0b101", 5, 0, False, "0"),
    ("1_000", 1000, 0, False, "1000"),
    ("0x_1F", 31, 0, False, "0"),
    ("1__0", 0, 0, False, "0"),
    ("_1", 0, 0, False, "0"),
    ("1_", 0, 0, False, "0"),
    (" 12", 0, 0, False, "0"),
    ("12 ", 0, 0, False, "0"),
    (
        "9223372036854775807",
        9223372036854775807,
        9223372036854775807,
        True,
        "9.223372036854776e+18",
    ),
    ("9223372036854775808", 0, 9223372036854775807, False, "9.223372036854776e+18"),
    (
        "-9223372036854775808",
        -9223372036854775808,
        -9223372036854775808,
        True,
        "-9.223372036854776e+18",
    ),
    ("-9223372036854775809", 0, -9223372036854775808, False, "-9.223372036854776e+18"),
    ("99999999999999999999", 0, 9223372036854775807, False, "1e+20"),
    ("1e3", 0, 0, False, "1000"),
    ("1.5e3", 0, 0, False, "1500"),
    ("inf", 0, 0, False, "+Inf"),
    ("+Inf", 0, 0, False, "+Inf"),
    ("-infinity", 0, 0, False, "-Inf"),
    ("nan", 0, 0, False, "NaN"),
    ("NaN", 0, 0, False, "NaN"),
    ("+nan", 0, 0, False, "0"),
    ("infin", 0, 0, False, "0"),
    (".5", 0, 0, False, "0.5"),
    ("5.", 0, 0, False, "5"),
    ("0x1p-2", 0, 0, False, "0.25"),
    ("0x1.8p1", 0, 0, False, "3"),
    ("0x1_0p0", 0, 0, False, "16"),
    ("1e400", 0, 0, False, "0"),
    ("-1e400", 0, 0, False, "0"),
    ("1e-400", 0, 0, False, "0"),
    ("abc", 0, 0, False, "0"),
    ("0x", 0, 0, False, "0"),
    ("0.0", 0, 0, False, "0"),
    ("-0", 0, 0, True, "-0"),
    ("٣", 0, 0, False, "0"),
    ("1_0.5", 0, 0, False, "10.5"),
    ("0b", 0, 0, False, "0"),
    ("00", 0, 0, True, "0"),
    ("0_7", 7, 0, False, "7"),
]


@pytest.mark.parametrize(("text", "int64", "atoi_value", "atoi_ok", "float_text"), ROWS)
def test_string_conversions_match_go(
    text: str, int64: int, atoi_value: int, atoi_ok: bool, float_text: str
) -> None:
    assert to_int64(text) == int64
    assert to_int(text) == int64
    try:
        got, ok = atoi(text), True
    except NumError as err:
        got, ok = err.value, False
    assert (got, ok) == (atoi_value, atoi_ok)
    assert format_float(to_float64(text)) == float_text


def test_non_string_operands() -> None:
    assert to_int64(3.99) == 3
    assert to_int64(-3.99) == -3
    assert to_int64(True) == 1
    assert to_int64(None) == 0
    assert to_int64(Duration(5)) == 0  # cast has no case for time.Duration
    assert to_int64([1]) == 0
    assert type(to_int64(1)) is Int64
    assert to_float64(Int64(2)) == 2.0
    assert to_float64(False) == 0.0
    assert to_float64({}) == 0.0


def test_go_integer_conversions() -> None:
    # int64(f) on amd64: NaN and out-of-range floats become MinInt64.
    assert float_to_int64(float("nan")) == -(1 << 63)
    assert float_to_int64(1e19) == -(1 << 63)
    assert float_to_int64(-2.5) == -2
    assert wrap_int64(1 << 63) == -(1 << 63)
    assert wrap_int64(-(1 << 63) - 1) == (1 << 63) - 1


def test_parse_int_bases_and_errors() -> None:
    assert parse_int("777", 8, 64) == 511
    assert parse_int("-ff", 16, 64) == -255
    with pytest.raises(NumError, match='strconv.ParseInt: parsing "8": invalid syntax'):
        parse_int("8", 8, 64)
    with pytest.raises(NumError, match="value out of range"):
        parse_int("128", 10, 8)


def test_strval_and_strslice_follow_sprig() -> None:
    assert strval(b"hi") == "hi"
    assert strval(1e6) == "1e+06"
    assert strval(None) == "<nil>"
    assert strval(Duration(90 * 10**9)) == "1m30s"
    assert strslice([1, None, "a"]) == ["1", "a"]
    assert strslice(None) == []
    assert type(strslice("x")) is StringSlice
