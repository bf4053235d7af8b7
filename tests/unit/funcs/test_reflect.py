"""Sprig's reflect.go and deepEqual (reflect.DeepEqual)."""

from __future__ import annotations

import pytest

from tests.unit.funcs._go_data import DATA, call


@pytest.mark.parametrize(
    ("value", "type_name"),
    [
        (DATA["n"], "<nil>"),
        (DATA["f1"], "float64"),
        (DATA["i0"], "int"),
        (DATA["i64"], "int64"),
        (DATA["s"], "string"),
        (DATA["l"], "[]interface {}"),
        (DATA["m"], "map[string]interface {}"),
        (DATA["b"], "[]uint8"),
        (DATA["ss"], "[]string"),
        (DATA["t"], "time.Time"),
        (DATA["d"], "time.Duration"),
    ],
)
def test_type_of(value: object, type_name: str) -> None:
    assert call("typeOf", value) == type_name


def test_results_of_conversions_have_go_types() -> None:
    assert call("typeOf", call("int64", 1)) == "int64"
    assert call("typeOf", call("toStrings", DATA["l1"])) == "[]string"
    assert call("typeOf", call("float64", 1)) == "float64"
    assert call("typeOf", call("toString", 1)) == "string"


@pytest.mark.parametrize(
    ("key", "kind"),
    [
        ("n", "invalid"),
        ("f1", "float64"),
        ("i64", "int64"),
        ("s", "string"),
        ("l", "slice"),
        ("m", "map"),
        ("b", "slice"),
        ("t", "struct"),
        ("d", "int64"),
        ("T", "bool"),
    ],
)
def test_kind_of(key: str, kind: str) -> None:
    assert call("kindOf", DATA[key]) == kind


def test_type_is_kind_is() -> None:
    assert call("typeIs", "float64", 1.5) is True
    assert call("typeIs", "int", 1.5) is False
    assert call("typeIsLike", "float64", 1.5) is True
    assert call("kindIs", "map", {}) is True
    assert call("kindIs", "slice", {}) is False
    assert call("kindIs", "invalid", None) is True


def test_type_is_like_accepts_a_pointer() -> None:
    class Metadata:
        go_type = "*chart.Metadata"

    assert call("typeIsLike", "chart.Metadata", Metadata()) is True
    assert call("typeIs", "chart.Metadata", Metadata()) is False


@pytest.mark.parametrize(
    ("x", "y", "equal"),
    [
        (1, 1, True),
        (1, 1.0, False),  # int vs float64
        (0, 0, True),
        (DATA["i64"].__class__(0), 0, False),  # int64 vs int
        (DATA["l1"], DATA["l1"], True),
        ([1, "a"], [1, "a"], True),
        ([1], [2], False),
        ({"a": 1}, {"a": 1}, True),
        ({"a": 1}, {"a": 1.0}, False),
        (None, None, True),
        (None, "", False),
        (DATA["ss"], ["x", "y"], False),  # []string vs []interface {}
        ("a", "a", True),
    ],
)
def test_deep_equal(x: object, y: object, equal: bool) -> None:
    assert call("deepEqual", x, y) is equal
