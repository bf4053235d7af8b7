"""Sprig's dicts family (sprig v3.3.0 dict.go, merging by dario.cat/mergo v1.0.1).

Expectations come from Sprig's dict_test.go and docs/dicts.md; the merge
edge cases (nil and empty values, map over scalar) follow mergo's deepMerge
for maps; dig's errors are Go's type-assertion panic texts.
"""

from __future__ import annotations

from typing import Any

import pytest

import runner.funcs.dicts  # noqa: F401 - registers the family
from runner.funcs.registry import registered
from runner.golang.gofunc import FuncError
from runner.golang.types import StringSlice, format_value


def call(name: str, *args: Any) -> Any:
    return registered()[name].impl(*args)


def test_dict_builds_string_keys() -> None:
    assert call("dict", 1, 2, "three", "four", 5) == {"1": 2, "three": "four", "5": ""}  # TestDict
    assert call("dict", "I", "shot", "the", "albatross")["the"] == "albatross"
    assert call("dict") == {}


def test_get_set_unset_has_key() -> None:
    d = call("dict", "one", 1, "two", 222222)
    assert call("get", d, "one") == 1  # TestGet
    assert call("get", {}, "two") == ""
    assert call("set", d, "three", 3) is d and d["three"] == 3  # TestSet mutates
    assert call("unset", d, "two") is d and "two" not in d  # TestUnset
    assert call("hasKey", d, "one") is True  # TestHasKey
    assert call("hasKey", d, "two") is False


def test_nil_maps() -> None:
    assert call("get", None, "a") == ""
    assert call("hasKey", None, "a") is False
    assert call("unset", None, "a") == {}
    with pytest.raises(FuncError, match="^assignment to entry in nil map$"):
        call("set", None, "a", 1)


def test_pluck_keys_values() -> None:
    d, d2, d3, d4 = {"one": 1, "two": 222222}, {"one": 1, "two": 33333}, {"one": 1}, {"two": 4444}
    assert format_value(call("pluck", "two", d, d2, d3, d4)) == "[222222 33333 4444]"  # TestPluck
    assert call("keys", {"foo": 1, "bar": 2}) == ["bar", "foo"]  # TestKeys (after sortAlpha)
    assert call("keys") == [] and type(call("keys", {})) is StringSlice
    # Several dicts: keys of each, duplicates kept (the test pipes to uniq).
    assert call("keys", {"foo": 1}, {"bar": 2}, {"bar": 3}) == ["foo", "bar", "bar"]
    assert call("values", {"a": "first", "b": 2}) == ["first", 2]  # TestValues (sorted by key)


def test_pick_and_omit() -> None:
    d = {"one": 1, "two": 222222}
    assert call("pick", d, "two") == {"two": 222222}  # TestPick
    assert len(call("pick", d, "one", "two", "three")) == 2
    assert call("omit", d, "one") == {"two": 222222}  # TestOmit
    assert call("omit", d, "one", "two") == {}
    assert call("pick", {}, "two") == {}


def _merge_fixture() -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
    """TestMerge / TestMergeOverwrite's data."""
    dst = {"a": "one", "c": 3, "d": {"f": 5}, "g": [8, 9], "i": "eye", "k": {"l": True}}
    src1 = {"a": 1, "b": 2, "d": {"e": "four"}, "g": [6, 7], "i": "aye", "j": "jay", "k": {"l": False}}
    src2 = {"h": 10, "i": "i", "j": "j"}
    return dst, src1, src2


def test_merge_keeps_destination_values() -> None:
    dst, src1, src2 = _merge_fixture()
    assert call("merge", dst, src1, src2) is dst
    assert dst == {
        "a": "one", "b": 2, "c": 3, "d": {"e": "four", "f": 5}, "g": [8, 9],
        "h": 10, "i": "eye", "j": "jay", "k": {"l": True},
    }  # fmt: skip


def test_merge_overwrite_lets_sources_win() -> None:
    dst, src1, src2 = _merge_fixture()
    assert call("mergeOverwrite", dst, src1, src2) == {
        "a": 1, "b": 2, "c": 3, "d": {"e": "four", "f": 5}, "g": [6, 7],
        "h": 10, "i": "i", "j": "j", "k": {"l": False},
    }  # fmt: skip


def test_merge_treats_empty_destination_values_as_unset() -> None:
    dst = {"s": "", "n": 0, "b": False, "l": [], "m": {}, "z": None}
    src = {"s": "x", "n": 1, "b": True, "l": [1], "m": {"k": 1}, "z": "set"}
    assert call("mustMerge", dst, src) == src


def test_merge_nil_sources_skip_or_overwrite() -> None:
    assert call("merge", {"a": 1}, {"a": None, "b": None}) == {"a": 1}
    assert call("mergeOverwrite", {"a": 1}, {"a": None}) == {"a": None}
    assert call("merge", None, {"a": 1}) == {"a": 1}  # mergo makes a nil destination
    assert call("merge", {"a": 1}, None) == {"a": 1}


def test_merge_map_over_scalar() -> None:
    assert call("merge", {"a": "x"}, {"a": {"k": 1}}) == {"a": "x"}
    assert call("mergeOverwrite", {"a": "x"}, {"a": {"k": 1}}) == {"a": {"k": 1}}
    # Overwriting never replaces a non-empty map by a map: it merges into it.
    assert call("mustMergeOverwrite", {"a": {"x": 1}}, {"a": {"y": 2}}) == {"a": {"x": 1, "y": 2}}


def test_deep_copy() -> None:
    original = {"a": [1, {"b": 2}], "s": StringSlice(["x"])}
    copied = call("deepCopy", original)
    assert copied == original and copied["a"] is not original["a"]
    assert type(copied["s"]) is StringSlice
    assert call("mustDeepCopy", "s") == "s"
    with pytest.raises(FuncError, match=r"^reflect: call of reflect.Value.Type on zero Value$"):
        call("deepCopy", None)


@pytest.mark.parametrize(
    ("args", "want"),
    [
        # TestDig
        (("a", "b", "c", "", {"a": {"b": {"c": 1}}}), 1),
        (("a", "b", "z", "2", {"a": {"b": {"c": 1}}}), "2"),
        (("a", "", {"a": 1}), 1),
        (("z", "2", {"a": 1}), "2"),
    ],
)
def test_dig(args: tuple[Any, ...], want: Any) -> None:
    assert call("dig", *args) == want


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("a", {}), "dig needs at least three arguments"),
        (("a", "d", "not a map"), "interface conversion: interface {} is string, not map[string]interface {}"),
        (("a", "d", None), "interface conversion: interface {} is nil, not map[string]interface {}"),
        ((1.0, "d", {}), "interface conversion: interface {} is float64, not string"),
        (("a", "b", "d", {"a": 1.0}), "interface conversion: interface {} is float64, not map[string]interface {}"),
    ],
)
def test_dig_panics_with_go_text(args: tuple[Any, ...], message: str) -> None:
    with pytest.raises(FuncError) as caught:
        call("dig", *args)
    assert str(caught.value) == message
