"""Sprig's lists family (sprig v3.3.0 list.go).

Expected texts are those of Sprig's list_test.go (what `{{ ... }}` prints,
so nil is `<no value>`), plus the error texts list.go returns and the Go
runtime panics it runs into (nil list, bad slice bounds, chunk sizes).
"""

from __future__ import annotations

from typing import Any

import pytest

import runner.funcs.lists  # noqa: F401 - registers the family
from runner.funcs.registry import registered
from runner.golang.gofunc import FuncError
from runner.golang.types import Int64, StringSlice, go_type_name
from runner.template.values import print_value


def call(name: str, *args: Any) -> Any:
    return registered()[name].impl(*args)


def shown(name: str, *args: Any) -> str:
    return print_value(call(name, *args))


FOO_BAR_BAZ = StringSlice(["foo", "bar", "baz"])  # regexSplit "/" "foo/bar/baz" -1


@pytest.mark.parametrize("prefix", ["", "must"])
@pytest.mark.parametrize(
    ("name", "args", "want"),
    [
        ("First", ([1, 2, 3],), "1"),
        ("First", ([],), "<no value>"),
        ("First", (StringSlice(["foo", "bar"]),), "foo"),
        ("Last", ([1, 2, 3],), "3"),
        ("Last", ([],), "<no value>"),
        ("Initial", ([1, 2, 3],), "[1 2]"),
        ("Initial", ([],), "[]"),
        ("Initial", (FOO_BAR_BAZ,), "[foo bar]"),
        ("Rest", ([1, 2, 3],), "[2 3]"),
        ("Rest", ([],), "[]"),
        ("Rest", (FOO_BAR_BAZ,), "[bar baz]"),
        ("Reverse", ([1, 2, 3, 4],), "[4 3 2 1]"),
        ("Reverse", ([],), "[]"),
        ("Reverse", (FOO_BAR_BAZ,), "[baz bar foo]"),
        ("Compact", ([1, 0, "", "hello"],), "[1 hello]"),
        ("Compact", (["", ""],), "[]"),
        ("Compact", (StringSlice(["foo", "", "bar"]),), "[foo bar]"),
        ("Uniq", ([1, 1, 1, 1, 2, 2, 2, 2],), "[1 2]"),
        ("Uniq", (["foo", 1, 1, 1, 1, "foo", "foo"],), "[foo 1]"),
        ("Uniq", (StringSlice(["foo", "foo", "bar"]),), "[foo bar]"),
        ("Without", ([1, 2, 3, 4], 1), "[2 3 4]"),
        ("Without", ([1, 1, 1, 1, 2], 1), "[2]"),
        ("Without", ([1, 2, 3],), "[1 2 3]"),
        ("Without", (FOO_BAR_BAZ, "foo"), "[bar baz]"),
        ("Has", (1, [1, 2, 3]), "true"),
        ("Has", (4, [1, 2, 3]), "false"),
        ("Has", ("bar", FOO_BAR_BAZ), "true"),
        ("Has", ("bar", None), "false"),
        ("Slice", ([1, 2, 3],), "[1 2 3]"),
        ("Slice", ([1, 2, 3], 0, 1), "[1]"),
        ("Slice", ([1, 2, 3], 1, 3), "[2 3]"),
        ("Slice", ([1, 2, 3], 1), "[2 3]"),
        ("Slice", (FOO_BAR_BAZ, 1, 2), "[bar]"),
        ("Push", ([1, 2, 3, 4], 5), "[1 2 3 4 5]"),
        ("Push", (FOO_BAR_BAZ, "qux"), "[foo bar baz qux]"),
        ("Append", ([1, 2, 3], 4), "[1 2 3 4]"),
        ("Prepend", ([1, 2, 3, 4], 0), "[0 1 2 3 4]"),
        ("Prepend", (FOO_BAR_BAZ, "qux"), "[qux foo bar baz]"),
    ],
)
def test_list_test_go_cases(prefix: str, name: str, args: tuple[Any, ...], want: str) -> None:
    function = prefix + name if prefix else name[0].lower() + name[1:]
    assert shown(function, *args) == want


@pytest.mark.parametrize("name", ["chunk", "mustChunk"])
def test_chunk(name: str) -> None:
    assert len(call(name, 3, [1, 2, 3, 4, 5, 6, 7])) == 3
    assert call(name, 3, []) == []
    assert call(name, 3, [1, 2, 3, 4, 5, 6, 7, 8]) == [[1, 2, 3], [4, 5, 6], [7, 8]]
    assert call(name, 3, [1, 2]) == [[1, 2]]
    assert go_type_name(call(name, 2, [1])) == "[][]interface {}"


def test_concat() -> None:
    assert shown("concat", [1, 2, 3]) == "[1 2 3]"
    assert shown("concat", [1, 2, 3], [4, 5], []) == "[1 2 3 4 5]"
    assert shown("concat", [1, 2, 3], [4, 5], [None]) == "[1 2 3 4 5 <nil>]"
    assert shown("concat", [1, 2, 3], [4, 5], [["foo"]]) == "[1 2 3 4 5 [foo]]"


def test_list_and_tuple() -> None:
    assert call("list", 1, "a", "foo") == [1, "a", "foo"]
    assert call("tuple", 1, "a", "foo") == [1, "a", "foo"]
    assert call("list") == []


def test_sort_alpha() -> None:
    assert call("sortAlpha", ["c", "a", "b"]) == ["a", "b", "c"]  # TestSortAlpha
    assert call("sortAlpha", [2, 1, 4, 3]) == ["1", "2", "3", "4"]
    assert type(call("sortAlpha", ["b"])) is StringSlice
    assert call("sortAlpha", "not a list") == ["not a list"]  # strval of a non-list
    assert call("sortAlpha", None) == ["<nil>"]


def test_uniq_and_has_compare_with_deep_equal() -> None:
    # reflect.DeepEqual: an int and a float64 1 differ, an int64 and an int too.
    assert call("uniq", [1, 1.0, Int64(1)]) == [1, 1.0, Int64(1)]
    assert call("has", 1, [1.0]) is False
    assert call("uniq", [{"a": [1]}, {"a": [1]}]) == [{"a": [1]}]


def test_slice_keeps_the_slice_type() -> None:
    assert type(call("slice", FOO_BAR_BAZ, 1)) is StringSlice
    assert call("slice", [], 0, 5) is None  # an empty list answers nil


@pytest.mark.parametrize(
    ("name", "args", "message"),
    [
        ("push", ("str", 1), "Cannot push on type string"),
        ("mustPush", ({"a": 1}, 1), "Cannot push on type map"),
        ("mustPrepend", (1.5, 1), "Cannot prepend on type float64"),
        ("first", (True,), "Cannot find first on type bool"),
        ("mustLast", (3,), "Cannot find last on type int"),
        ("rest", ("s",), "Cannot find rest on type string"),
        ("initial", ("s",), "Cannot find initial on type string"),
        ("reverse", ("s",), "Cannot find reverse on type string"),
        ("uniq", ("s",), "Cannot find uniq on type string"),
        ("without", ("s", 1), "Cannot find without on type string"),
        ("mustHas", (1, "s"), "Cannot find has on type string"),
        ("compact", ("s",), "Cannot compact on type string"),
        ("chunk", (2, "s"), "Cannot chunk type string"),
        ("slice", ("s", 1), "list should be type of slice or array but string"),
        ("concat", ([1], "s"), "Cannot concat type string as list"),
        ("first", (None,), "runtime error: invalid memory address or nil pointer dereference"),
        ("slice", ([1, 2], 1, 5), "reflect.Value.Slice: slice index out of bounds"),
        ("chunk", (0, [1, 2]), "runtime error: makeslice: len out of range"),
    ],
)
def test_errors_carry_sprigs_text(name: str, args: tuple[Any, ...], message: str) -> None:
    with pytest.raises(FuncError) as caught:
        call(name, *args)
    assert str(caught.value) == message


def test_results_are_new_lists() -> None:
    original = [1, 2]
    pushed = call("append", original, 3)
    assert original == [1, 2] and pushed == [1, 2, 3]
