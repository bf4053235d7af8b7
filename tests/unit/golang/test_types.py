"""The Go value model. Expected texts are what Go 1.26 prints (fmt.Sprint,
%T, reflect Kind, time.Duration.String, time.Time.String, strconv and
encoding/json float formatting), run once to derive them."""

from __future__ import annotations

import math
from datetime import UTC, datetime, timedelta, timezone

import pytest

from runner.golang.strconv import format_float, json_float
from runner.golang.time import duration_string, time_string
from runner.golang.types import (
    Duration,
    Int64,
    IntSlice,
    StringMap,
    StringSlice,
    Uint8,
    format_value,
    go_type_name,
    is_true,
    kind_of,
)
from runner.template.values import print_value


@pytest.mark.parametrize(
    ("value", "type_name", "kind"),
    [
        (None, "<nil>", "invalid"),
        (True, "bool", "bool"),
        (1, "int", "int"),
        (Int64(1), "int64", "int64"),
        (1.5, "float64", "float64"),
        ("s", "string", "string"),
        (b"x", "[]uint8", "slice"),
        ([], "[]interface {}", "slice"),
        (StringSlice(), "[]string", "slice"),
        (IntSlice(), "[]int", "slice"),
        ({}, "map[string]interface {}", "map"),
        (StringMap(), "map[string]string", "map"),
        (datetime(2024, 1, 1, tzinfo=UTC), "time.Time", "struct"),
        (Duration(10**9), "time.Duration", "int64"),
        (Uint8(1), "uint8", "uint8"),
    ],
)
def test_type_name_and_kind_match_go(value: object, type_name: str, kind: str) -> None:
    assert go_type_name(value) == type_name
    assert kind_of(value) == kind


def test_objects_name_their_go_type_and_kind() -> None:
    class Metadata:
        go_type = "*chart.Metadata"

    class Files(dict):
        go_type = "engine.files"

    assert go_type_name(Metadata()) == "*chart.Metadata"
    assert kind_of(Metadata()) == "ptr"
    assert go_type_name(Files()) == "engine.files"
    assert kind_of(Files()) == "map"


@pytest.mark.parametrize(
    ("value", "truth"),
    [
        (None, False),
        (0, False),
        (Int64(0), False),
        (0.0, False),
        ("", False),
        ([], False),
        ({}, False),
        (False, False),
        (b"", False),
        (1, True),
        (-0.5, True),
        (math.nan, True),  # NaN != 0 in Go's isTrue
        ("0", True),
        ([None], True),
        ({"a": None}, True),
        (datetime(1, 1, 1, tzinfo=UTC), True),  # structs are always true
        (object(), True),  # a non-nil pointer
    ],
)
def test_is_true_follows_text_template(value: object, truth: bool) -> None:
    assert is_true(value) == (truth, True)


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (1e6, "1e+06"),
        (1e21, "1e+21"),
        (123456.0, "123456"),
        (1e-5, "1e-05"),
        (0.0001, "0.0001"),
        (3.0, "3"),
        (0.1, "0.1"),
        (math.inf, "+Inf"),
        (-math.inf, "-Inf"),
        (math.nan, "NaN"),
        (None, "<nil>"),
        (True, "true"),
        (Int64(-7), "-7"),
        (b"hi", "[104 105]"),
        ([1, "a", None, 4.5], "[1 a <nil> 4.5]"),
        (
            {"z": {"y": [], "x": None}, "a": StringSlice(["p", "q"]), "m": b"hi"},
            "map[a:[p q] m:[104 105] z:map[x:<nil> y:[]]]",
        ),
        (Duration(3661000000001), "1h1m1.000000001s"),
    ],
)
def test_format_value_is_fmt_sprint(value: object, text: str) -> None:
    assert format_value(value) == text


def test_objects_print_through_string_or_go_str() -> None:
    class Version:
        def String(self) -> str:  # noqa: N802 - Go method name
            return "1.2.3"

    class Point:
        def __go_str__(self) -> str:
            return "{1 2}"

    assert format_value(Version()) == "1.2.3"
    assert format_value([Point(), Version()]) == "[{1 2} 1.2.3]"


def test_print_value_shows_no_value_for_nil() -> None:
    assert print_value(None) == "<no value>"
    assert print_value({"a": None}) == "map[a:<nil>]"


@pytest.mark.parametrize(
    ("nanos", "text"),
    [
        (0, "0s"),
        (1, "1ns"),
        (999, "999ns"),
        (1000, "1µs"),
        (1500, "1.5µs"),
        (1234567, "1.234567ms"),
        (999999999, "999.999999ms"),
        (1000000000, "1s"),
        (1500000000, "1.5s"),
        (60000000000, "1m0s"),
        (3600000000000, "1h0m0s"),
        (3661000000001, "1h1m1.000000001s"),
        (-90000000000, "-1m30s"),
        (360000000000000, "100h0m0s"),
    ],
)
def test_duration_string(nanos: int, text: str) -> None:
    assert duration_string(nanos) == text
    assert format_value(Duration(nanos)) == text


def test_time_string_matches_go() -> None:
    assert time_string(datetime(2024, 1, 2, 3, 4, 5, 120000, tzinfo=UTC)) == (
        "2024-01-02 03:04:05.12 +0000 UTC"
    )
    # An unnamed fixed zone prints its offset as the zone name.
    minus7 = timezone(timedelta(hours=-7))
    assert time_string(datetime(2024, 1, 2, 3, 4, 5, tzinfo=minus7)) == (
        "2024-01-02 03:04:05 -0700 -0700"
    )
    cet = timezone(timedelta(hours=1), "CET")
    assert time_string(datetime(999, 12, 31, 23, 59, 59, 1, tzinfo=cet)) == (
        "0999-12-31 23:59:59.000001 +0100 CET"
    )


# strconv.FormatFloat(v, fmt, prec, bits) as Go prints it.
@pytest.mark.parametrize(
    ("value", "fmt", "prec", "bits", "text"),
    [
        (1e6, "g", -1, 64, "1e+06"),
        (123456789.0, "g", -1, 64, "1.23456789e+08"),
        (0.1, "g", -1, 32, "0.1"),
        (0.1, "f", 20, 64, "0.10000000000000000555"),
        (2.5, "f", 0, 64, "2"),
        (0.125, "f", 2, 64, "0.12"),
        (100.0, "g", 2, 64, "1e+02"),
        (1.0, "g", 3, 64, "1"),
        (1.0, "e", -1, 64, "1e+00"),
        (123.456, "E", 2, 64, "1.23E+02"),
        (1e100, "e", 3, 64, "1.000e+100"),
        (5e-324, "g", -1, 64, "5e-324"),
        (-0.0, "g", -1, 64, "-0"),
        (1.0, "b", -1, 64, "4503599627370496p-52"),
        (1.0, "x", -1, 64, "0x1p+00"),
        (3.14159265358979, "x", 3, 64, "0x1.922p+01"),
        (1e100, "g", -1, 32, "+Inf"),
        (math.nan, "f", 2, 64, "NaN"),
    ],
)
def test_format_float_is_strconv(value: float, fmt: str, prec: int, bits: int, text: str) -> None:
    assert format_float(value, fmt, prec, bits) == text


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (1e20, "100000000000000000000"),
        (1e21, "1e+21"),
        (1e-6, "0.000001"),
        (1e-7, "1e-7"),
        (0.000001234, "0.000001234"),
        (123.456, "123.456"),
        (1e100, "1e+100"),
        (-5e-324, "-5e-324"),
        (0.0, "0"),
    ],
)
def test_json_float_is_encoding_json(value: float, text: str) -> None:
    assert json_float(value) == text
