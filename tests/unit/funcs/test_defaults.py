"""Sprig's defaults.go: default, empty, coalesce, all, any, ternary."""

from __future__ import annotations

import pytest

from tests.unit.funcs._go_data import DATA, call, render


@pytest.mark.parametrize(
    ("given", "text"),
    [
        ([None], "d"),
        ([""], "d"),
        ([0], "d"),
        ([0.0], "d"),
        ([False], "d"),
        ([[]], "d"),
        ([{}], "d"),
        ([DATA["t"]], "2024-01-02 03:04:05 +0000 UTC"),  # structs are never empty
        (["hi"], "hi"),
        ([1.5], "1.5"),
        ([DATA["l1"]], "[1 <nil> a 2.5]"),
        ([], "d"),  # {{ default "d" }}
    ],
)
def test_default_uses_sprig_emptiness(given: list[object], text: str) -> None:
    assert render("default", "d", *given) == text


@pytest.mark.parametrize(
    ("key", "empty"),
    [
        ("n", True),
        ("i0", True),
        ("i64", False),
        ("f0", True),
        ("e", True),
        ("l", True),
        ("m", True),
        ("F", True),
        ("t", False),
        ("s", False),
        ("l1", False),
        ("b", False),
        ("d", False),
    ],
)
def test_empty(key: str, empty: bool) -> None:
    assert call("empty", DATA[key]) is empty


def test_coalesce_returns_first_non_empty_or_nil() -> None:
    assert render("coalesce", None, "", 0, [], "x", "y") == "x"
    assert render("coalesce", None, "") == "<no value>"
    assert render("coalesce") == "<no value>"
    assert render("coalesce", 0.0, 1.5) == "1.5"


def test_all_and_any() -> None:
    assert call("all") is True
    assert call("all", 1, "a", DATA["l1"]) is True
    assert call("all", 1, "") is False
    assert call("any") is False
    assert call("any", 0, "", None) is False
    assert call("any", 0, True) is True


def test_ternary() -> None:
    assert render("ternary", "a", "b", True) == "a"
    assert render("ternary", "a", "b", False) == "b"
    assert render("ternary", 1, None, False) == "<no value>"
