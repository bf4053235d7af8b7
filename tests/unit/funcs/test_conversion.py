"""Sprig's conversions: atoi, int, int64, float64, toDecimal, toString, toStrings."""

from __future__ import annotations

import math

import pytest

from runner.golang.types import Int64, StringSlice
from tests.unit.funcs._go_data import DATA, call, render


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("12", 12),
        ("-3", -3),
        ("+4", 4),
        ("1.5", 0),
        ("0x10", 0),
        ("", 0),
        (" 1", 0),
        ("99999999999999999999", 9223372036854775807),  # Atoi's clamped range error
        ("1_000", 0),
    ],
)
def test_atoi(text: str, value: int) -> None:
    assert call("atoi", text) == value


@pytest.mark.parametrize(
    ("value", "result"),
    [
        ("12", 12),
        ("12.0", 12),  # cast trims a zero decimal
        ("12.5", 0),
        ("0x1F", 31),
        ("010", 8),  # leading 0 is octal
        ("08", 0),
        (3.9, 3),
        (-3.9, -3),
        (True, 1),
        (None, 0),
        (DATA["d"], 0),  # time.Duration is not a type cast knows
        ([], 0),
        ("abc", 0),
        (1e6, 1000000),
    ],
)
def test_int_follows_spf13_cast(value: object, result: int) -> None:
    got = call("int", value)
    assert got == result
    assert type(got) is int


def test_int64() -> None:
    assert call("int64", "12") == 12
    assert call("int64", 3.9) == 3
    assert type(call("int64", "1")) is Int64
    assert call("int64", "-0b101") == -5
    assert call("int64", "1_000") == 1000


@pytest.mark.parametrize(
    ("value", "text"),
    [
        ("1.5", "1.5"),
        ("1e3", "1000"),
        (3, "3"),
        (True, "1"),
        ("x", "0"),
        (None, "0"),
        ("1000000", "1e+06"),
        ("inf", "+Inf"),
        ("0x1p-2", "0.25"),
    ],
)
def test_float64(value: object, text: str) -> None:
    assert render("float64", value) == text


def test_float64_overflow_is_zero() -> None:
    assert call("float64", "1e400") == 0.0
    assert math.isnan(call("float64", "nan"))  # strconv.ParseFloat accepts "nan"


@pytest.mark.parametrize(
    ("value", "result"),
    [("0777", 511), ("777", 511), (777, 511), ("8", 0), (1e6, 0), ("-10", -8), (True, 0)],
)
def test_to_decimal_reads_octal(value: object, result: int) -> None:
    assert call("toDecimal", value) == result


@pytest.mark.parametrize(
    ("key", "text"),
    [
        ("f1", "1.5"),
        ("fbig", "1e+06"),
        ("n", "<nil>"),
        ("b", "hi"),
        ("l1", "[1 <nil> a 2.5]"),
        ("m1", "map[a:1]"),
        ("d", "1m30s"),
        ("T", "true"),
        ("t", "2024-01-02 03:04:05 +0000 UTC"),
    ],
)
def test_to_string(key: str, text: str) -> None:
    assert call("toString", DATA[key]) == text


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (DATA["l1"], "[1 a 2.5]"),  # nil elements are dropped
        (DATA["ss"], "[x y]"),
        (None, "[]"),
        ("a", "[a]"),
        (b"hi", "[104 105]"),
        (3, "[3]"),
    ],
)
def test_to_strings(value: object, text: str) -> None:
    result = call("toStrings", value)
    assert type(result) is StringSlice
    assert render("toStrings", value) == text
