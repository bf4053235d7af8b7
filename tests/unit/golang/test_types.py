"""The Go value model. Expected texts are what Go 1.26 prints (fmt.Sprint,
%T, reflect Kind), run once to derive them."""

from __future__ import annotations

import math
from datetime import UTC, datetime

import pytest

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
