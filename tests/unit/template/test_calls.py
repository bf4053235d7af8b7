"""Function calls against exec.go evalCall/evalArg/validateType: conversion and errors."""

from __future__ import annotations

from typing import Any

from runner.golang.gofunc import FuncError, GoFunc
from runner.golang.types import Int64
from runner.template import Template

from .helpers import exec_error, render


def _fail(msg: str) -> str:
    raise FuncError(msg)


FUNCS = {
    "trunc": GoFunc("trunc", lambda c, s: s[:c], ("int", "string"), returns="string"),
    "half": GoFunc("half", lambda f: f / 2, ("float64",), returns="float64"),
    "typeOf": GoFunc("typeOf", lambda v: type(v).__name__, ("interface {}",), returns="string"),
    "join": GoFunc("join", lambda sep, *p: sep.join(p), ("string",), variadic="string", returns="string"),
    "i64": GoFunc("i64", lambda v: v + 1, ("int64",), returns="int64"),
    "fail": GoFunc("fail", _fail, ("string",), returns="string", fallible=True),
    "keys": GoFunc("keys", lambda m: "nil" if m is None else ",".join(m), ("map[string]interface {}",)),
    "nothing": GoFunc("nothing", lambda: None, ()),
}


def run(src: str, data: Any = None) -> str:
    return render(src, data, funcs=FUNCS)


def err(src: str, data: Any = None) -> str:
    return exec_error(src, data, funcs=FUNCS)


def test_number_literals_become_the_parameter_type() -> None:
    assert run('{{ trunc 2 "abc" }} {{ half 3 }} {{ typeOf 3 }} {{ typeOf 3.0 }} {{ i64 41 }}') == "ab 1.5 int float 42"


def test_literal_of_the_wrong_kind() -> None:
    assert err('{{ trunc 1.5 "abc" }}').endswith("at <1.5>: expected integer; found 1.5")
    assert err("{{ trunc 1 2 }}").endswith("at <2>: expected string; found 2")
    assert err('{{ half "x" }}').endswith('at <"x">: expected float; found "x"')
    assert err("{{ trunc nil nil }}").endswith("at <nil>: cannot assign nil to int")


def test_values_of_the_wrong_type() -> None:
    # YAML numbers are float64; an int parameter does not take them.
    msg = err('{{ trunc .n "abc" }}', {"n": 2.0})
    assert msg == 'template: t:1:9: executing "t" at <.n>: wrong type for value; expected int; got float64'
    assert err("{{ i64 .n }}", {"n": 1}).endswith("wrong type for value; expected int64; got int")
    assert run("{{ i64 .n }}", {"n": Int64(1)}) == "2"


def test_nil_arguments() -> None:
    # A missing key (zero mode) is a nil interface {}: wrong type for a string parameter;
    # a nil pipeline value is an invalid value.
    assert err("{{ trunc 1 .x }}", {}).endswith("wrong type for value; expected string; got interface {}")
    assert err("{{ .x | trunc 1 }}", {}).endswith("invalid value; expected string")
    assert run("{{ .x | keys }} {{ typeOf .x }}", {}) == "nil NoneType"


def test_argument_counts() -> None:
    assert err('{{ trunc "a" }}') == 'template: t:1:3: executing "t" at <trunc>: wrong number of args for trunc: want 2 got 1'
    assert err("{{ join }}").endswith("wrong number of args for join: want at least 1 got 0")
    assert run('{{ join "-" "a" "b" }} {{ "b" | join "-" "a" }}') == "a-b a-b"


def test_pipeline_value_is_the_last_argument() -> None:
    assert run('{{ "abcdef" | trunc 3 }}') == "abc"


def test_function_errors_are_wrapped_with_the_command() -> None:
    msg = err('{{ fail "bad thing" }}')
    assert msg == 'template: t:1:3: executing "t" at <fail "bad thing">: error calling fail: bad thing'


def test_function_returning_nil_prints_no_value() -> None:
    assert run("{{ nothing }}") == "<no value>"


def test_user_function_overrides_builtin() -> None:
    funcs = {"len": GoFunc("len", lambda v: "mine", ("interface {}",))}
    assert render("{{ len 3 }}", funcs=funcs) == "mine"


def test_functions_added_at_execute_time() -> None:
    tmpl = Template("gotpl", funcs={"f": GoFunc("f", lambda: "a", ())})
    tmpl.parse("t", "{{ f }}")
    assert tmpl.execute("t", None, funcs={"f": GoFunc("f", lambda: "b", ())}) == "b"
    assert tmpl.execute("t", None) == "a"


class _Methods:
    def two(self, a: Any, b: Any = 1) -> None: ...
    def rest(self, a: Any, *more: Any, flag: bool = False, **named: Any) -> None: ...
    def none(self) -> None: ...
    def only(self, a: Any, /, b: Any) -> None: ...

    @classmethod
    def klass(cls, a: Any) -> None: ...

    @staticmethod
    def static(a: Any, b: Any, c: Any) -> None: ...


def test_undeclared_method_signatures_match_inspect() -> None:
    import inspect

    from runner.template.calls import ANY, method_signature

    obj = _Methods()
    for method in (obj.two, obj.rest, obj.none, obj.only, obj.klass, obj.static, "s".upper, len):
        params = inspect.signature(method).parameters.values()
        fixed = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
        variadic = ANY if any(p.kind == p.VAR_POSITIONAL for p in params) else None
        sig = method_signature(method)
        assert (sig.params, sig.variadic) == ((ANY,) * len(fixed), variadic), method
