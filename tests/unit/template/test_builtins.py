"""text/template's builtins against funcs.go."""

from __future__ import annotations

import pytest

from runner.template.gotypes import Int64, StringSlice

from .helpers import exec_error, render


def test_and_or_return_an_argument_and_short_circuit() -> None:
    # funcs.go: and returns the first false argument or the last; or the first true or the last.
    assert render('{{ and 1 "" 3 }}|{{ and 1 2 }}|{{ or 0 "" "x" }}|{{ or 0 "" }}') == "|2|x|"
    # The second argument would fail if evaluated.
    assert render("{{ and false .x.y.z }}{{ or true .x.y.z }}", {}) == "falsetrue"


def test_not() -> None:
    assert render('{{ not 0 }} {{ not "a" }} {{ not .missing }}', {}) == "true false true"


def test_len() -> None:
    assert render('{{ len "héllo" }} {{ len .l }} {{ len .m }}', {"l": [1, 2], "m": {"a": 1}}) == "6 2 1"
    assert exec_error("{{ len 3 }}").endswith("error calling len: len of type int")
    assert exec_error("{{ len .x }}", {}).endswith("error calling len: len of nil pointer")


def test_index() -> None:
    data = {"l": ["a", "b"], "m": {"k": {"n": "v"}}, "s": "abc"}
    assert render('{{ index .l 1 }} {{ index .m "k" "n" }} {{ index .m "nope" }} {{ index .s 0 }}', data) == "b v <no value> 97"
    assert exec_error("{{ index .l 5 }}", data).endswith("error calling index: index out of range: 5")
    assert exec_error("{{ index .l 2 }}", data).endswith("error calling index: reflect: slice index out of range")
    assert exec_error('{{ index .l "a" }}', data).endswith("cannot index slice/array with type string")
    assert exec_error("{{ index .m 1 }}", data).endswith("value has type int; should be string")
    assert exec_error("{{ index nil 1 }}").endswith("error calling index: index of untyped nil")
    assert exec_error("{{ index 3 1 }}").endswith("can't index item of type int")


def test_slice() -> None:
    data = {"l": StringSlice(["a", "b", "c"]), "s": "hello"}
    assert render("{{ slice .l 1 }} {{ slice .l 1 2 }} {{ slice .s 1 3 }} {{ slice .l }}", data) == "[b c] [b] el [a b c]"
    assert exec_error("{{ slice .l 2 1 }}", data).endswith("invalid slice index: 2 > 1")
    assert exec_error("{{ slice .s 1 2 3 }}", data).endswith("cannot 3-index slice a string")


@pytest.mark.parametrize(
    ("expr", "want"),
    [
        ("eq 1 1", "true"),
        ('eq "a" "b" "a"', "true"),
        ("eq .f 1.0", "true"),
        ("eq .i64 3", "true"),  # int and int64 are both integer kinds
        ("eq .missing nil", "true"),
        ("ne 1 2", "true"),
        ("lt 1 2", "true"),
        ('lt "a" "b"', "true"),
        ("le 2 2", "true"),
        ("gt 2.5 1.5", "true"),
        ("ge 1 2", "false"),
    ],
)
def test_comparisons(expr: str, want: str) -> None:
    assert render("{{ " + expr + " }}", {"f": 1.0, "i64": Int64(3)}) == want


def test_comparison_errors() -> None:
    assert exec_error("{{ eq .f 1 }}", {"f": 1.0}).endswith(
        "error calling eq: incompatible types for comparison: float64 and int"
    )
    assert exec_error("{{ lt true false }}").endswith("error calling lt: invalid type for comparison")
    assert exec_error("{{ lt .x 1 }}", {}).endswith("error calling lt: invalid type for comparison")
    assert exec_error("{{ eq 1 }}").endswith("error calling eq: missing argument for comparison")
    # funcs.go formats the operand with %s: a number inside prints as %!s(int=1).
    assert exec_error("{{ eq .l .l }}", {"l": [1]}).endswith("non-comparable type [%!s(int=1)]: []interface {}")


def test_html_js_urlquery() -> None:
    assert render("{{ html \"<a href='x'>&\" }}") == "&lt;a href=&#39;x&#39;&gt;&amp;"
    assert render("{{ js \"a'b\\\"c<d>=&\" }}") == "a\\'b\\\"c\\u003Cd\\u003E\\u003D\\u0026"
    assert render('{{ urlquery "a b&c=d/é" }}') == "a+b%26c%3Dd%2F%C3%A9"
    assert render("{{ html .missing }}", {}) == "&lt;no value&gt;"


def test_print_family() -> None:
    assert render('{{ print "a" 1 2 "b" }}|{{ printf "%s-%d" "x" 5 }}|{{ println 1 2 }}') == "a1 2b|x-5|1 2\n"


def test_call_builtin() -> None:
    from runner.funcs.registry import GoFunc

    data = {"f": GoFunc("add", lambda a, b: a + b, ("int", "int"))}
    assert render("{{ call .f 1 2 }}", data) == "3"
    assert exec_error("{{ call .f 1 }}", data).endswith("error calling call: wrong number of args for .f: got 1 want 2")
    assert exec_error("{{ call .x }}", {}).endswith("error calling call: call of nil")
