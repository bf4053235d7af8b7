"""Execution against Go's exec.go: printing, fields, missing keys, variables, control flow."""

from __future__ import annotations

from typing import Any

import pytest

from runner.golang.types import Int64

from .helpers import exec_error, render


def test_values_print_as_go_prints_them() -> None:
    data = {"f": 1000000.0, "i": 3, "l": ["a", 1.5], "m": {"b": 2.0, "a": True}, "n": None}
    out = render("{{.f}} {{.i}} {{.l}} {{.m}} {{.n}} {{.missing}}", data)
    assert out == "1e+06 3 [a 1.5] map[a:true b:2] <no value> <no value>"


def test_number_literals_take_go_ideal_constant_types() -> None:
    # exec.go idealConstant: floats only when the text has . e E p P (and is not hex).
    out = render("{{1e3}} {{0x10}} {{1_000}} {{0b101}} {{0o17}} {{017}} {{'a'}} {{1.5}} {{-2}}")
    assert out == "1000 16 1000 5 15 15 97 1.5 -2"


def test_literal_that_overflows_int_fails_when_executed() -> None:
    assert exec_error("{{ 18446744073709551615 }}") == (
        'template: t:1:3: executing "t" at <18446744073709551615>: 18446744073709551615 overflows int'
    )


def test_missing_key_zero_mode_nil_pointer_on_deeper_field() -> None:
    # Helm sets missingkey=zero: a missing map key yields a nil interface {},
    # and a field of that is "nil pointer evaluating interface {}.y".
    msg = exec_error("a\n  {{ .Values.x.y }}", {"Values": {}})
    assert msg == 'template: t:2:12: executing "t" at <.Values.x.y>: nil pointer evaluating interface {}.y'


def test_missing_key_default_mode_is_silent() -> None:
    assert render("{{ .Values.x.y }}", {"Values": {}}, missingkey="default") == "<no value>"


def test_missing_key_error_mode() -> None:
    msg = exec_error("{{ .Values.x }}", {"Values": {}}, missingkey="error")
    assert msg == 'template: t:1:10: executing "t" at <.Values.x>: map has no entry for key "x"'


def test_null_value_in_map_is_a_nil_pointer_for_deeper_fields() -> None:
    msg = exec_error("{{ .a.b }}", {"a": None}, missingkey="default")
    assert msg.endswith("nil pointer evaluating interface {}.b")


def test_field_of_a_nil_variable_is_silent() -> None:
    # A variable holds the pipeline's unwrapped value: an invalid value, not a nil interface.
    assert render("{{ $x := .a }}{{ $x.b }}", {"a": None}) == "<no value>"


def test_field_of_non_map_is_an_error() -> None:
    msg = exec_error("{{ $s := .s }}{{ $s.x }}", {"s": "str"})
    assert msg.endswith("can't evaluate field x in type string")
    msg = exec_error("{{ .s.x }}", {"s": "str"})
    assert msg.endswith("can't evaluate field x in type interface {}")


def test_map_field_with_arguments_is_an_error() -> None:
    msg = exec_error('{{ .m.k "x" }}', {"m": {"k": 1}})
    assert msg.endswith("k is not a method but has arguments")


class Files:
    """Stands for Helm's .Files: Go methods are attributes with Go names."""

    go_type = "engine.files"

    def __init__(self) -> None:
        self.Name = "files"

    def Get(self, name: str) -> str:  # noqa: N802 - Go method name
        return f"content of {name}"

    def Fail(self) -> str:  # noqa: N802
        from runner.golang.gofunc import FuncError

        raise FuncError("boom")


def test_methods_are_called_with_arguments_and_fields_read() -> None:
    out = render('{{ .Files.Get "a.txt" }} {{ .Files.Name }}', {"Files": Files()})
    assert out == "content of a.txt files"


def test_method_errors_are_reported_as_calls() -> None:
    msg = exec_error("{{ .Files.Fail }}", {"Files": Files()})
    assert msg == 'template: t:1:9: executing "t" at <.Files.Fail>: error calling Fail: boom'


def test_method_argument_count_is_checked() -> None:
    msg = exec_error("{{ .Files.Get }}", {"Files": Files()})
    assert msg.endswith("wrong number of args for Get: want 1 got 0")


def test_struct_field_with_arguments_is_an_error() -> None:
    msg = exec_error('{{ .Files.Name "x" }}', {"Files": Files()})
    assert msg.endswith("Name has arguments but cannot be invoked as function")


def test_unknown_attribute_names_the_go_type() -> None:
    # The receiver's static type: a map entry is an interface {}, a variable holds the concrete type.
    msg = exec_error("{{ .Files.Nope }}", {"Files": Files()})
    assert msg.endswith("can't evaluate field Nope in type interface {}")
    msg = exec_error("{{ $f := .Files }}{{ $f.Nope }}", {"Files": Files()})
    assert msg.endswith("can't evaluate field Nope in type engine.files")


def test_variables_declare_assign_and_scope() -> None:
    src = "{{$x := 1}}{{if true}}{{$x := 2}}{{$x}}{{end}}{{$x}}{{if true}}{{$x = 3}}{{end}}{{$x}}"
    assert render(src) == "213"


def test_dollar_is_the_data_inside_range() -> None:
    assert render("{{range .l}}{{$.n}}{{.}}{{end}}", {"l": ["a", "b"], "n": "-"}) == "-a-b"


def test_range_over_map_is_in_sorted_key_order() -> None:
    src = "{{range $k, $v := .}}{{$k}}={{$v}};{{end}}"
    assert render(src, {"b": 2.0, "a": 1.0, "c": 3.0}) == "a=1;b=2;c=3;"


def test_range_over_int_and_else() -> None:
    # Go 1.22: range over an integer n yields 0..n-1; empty ranges run else.
    assert render("{{range 3}}{{.}}{{end}}|{{range 0}}x{{else}}none{{end}}") == "012|none"
    assert render("{{range $i := .}}{{$i}}{{end}}", Int64(2)) == "01"


def test_range_over_int_with_two_variables_fails() -> None:
    msg = exec_error("{{range $i, $v := 3}}{{end}}")
    assert msg.endswith("can't use 3 to iterate over more than one variable")


def test_range_over_non_iterable_fails() -> None:
    assert exec_error("{{range .}}{{end}}", 1.5).endswith("range can't iterate over 1.5")


def test_range_over_nil_runs_else() -> None:
    assert render("{{range .x}}a{{else}}b{{end}}", {}) == "b"


def test_break_and_continue() -> None:
    src = "{{range .}}{{if eq . 2}}{{continue}}{{end}}{{if eq . 4}}{{break}}{{end}}{{.}}{{end}}"
    assert render(src, [1, 2, 3, 4, 5]) == "13"


def test_nil_element_in_range_is_a_nil_interface() -> None:
    msg = exec_error("{{range .}}{{.x}}{{end}}", [None])
    assert msg.endswith("nil pointer evaluating interface {}.x")


def test_with_sets_dot_and_else_with_chains() -> None:
    src = "{{with .a}}A{{.}}{{else with .b}}B{{.}}{{else}}C{{end}}"
    assert render(src, {"a": "1"}) == "A1"
    assert render(src, {"b": "2"}) == "B2"
    assert render(src, {}) == "C"


def test_truth_follows_go() -> None:
    data: dict[str, Any] = {"z": 0.0, "e": "", "l": [], "m": {}, "f": False, "o": Files()}
    src = "{{if .z}}1{{end}}{{if .e}}2{{end}}{{if .l}}3{{end}}{{if .m}}4{{end}}{{if .f}}5{{end}}{{if .o}}6{{end}}"
    assert render(src, data) == "6"


def test_template_and_define_and_block() -> None:
    src = '{{define "x"}}[{{.}}]{{end}}{{template "x" "a"}}{{block "y" 2}}<{{.}}>{{end}}{{template "x"}}'
    assert render(src) == "[a]<2>[<no value>]"


def test_template_call_sees_no_caller_variables() -> None:
    # exec.go walkTemplate: no dynamic scoping; $ is the template's dot.
    src = '{{define "x"}}{{$}}{{end}}{{$v := 1}}{{template "x" 5}}'
    assert render(src) == "5"


def test_undefined_template() -> None:
    msg = exec_error('{{template "nope"}}')
    assert msg == 'template: t:1:11: executing "t" at <{{template "nope"}}>: template "nope" not defined'


def test_errors_in_a_define_name_the_define_and_its_file() -> None:
    src = 'x\n{{define "d"}}\n  {{ .a.b }}{{end}}{{template "d" .}}'
    msg = exec_error(src, {"a": None})
    # A chained field node sits at its second field (parse.go operand: chain position).
    assert msg == 'template: t:3:7: executing "d" at <.a.b>: nil pointer evaluating interface {}.b'


def test_whitespace_trimming() -> None:
    assert render("a  {{- 1 -}}  \n b\n{{- /* c */}}\nc") == "a1b\nc"


def test_parenthesized_pipeline_and_chain() -> None:
    assert render("{{ (index . 0).k }}", [{"k": "v"}]) == "v"


def test_non_function_given_arguments() -> None:
    assert exec_error("{{ 1 2 }}").endswith("can't give argument to non-function 1")
    assert exec_error("{{ $x := 1 }}{{ 2 | $x }}").endswith("can't give argument to non-function $x")


def test_nil_is_not_a_command() -> None:
    assert exec_error("{{ nil }}").endswith("nil is not a command")


def test_deep_template_recursion_is_reported_not_crashed() -> None:
    src = '{{define "r"}}{{template "r" .}}{{end}}{{template "r" .}}'
    assert "exceeded maximum template depth (100000)" in exec_error(src)


@pytest.mark.parametrize("mode", ["zero", "default"])
def test_present_values_read_the_same_in_every_mode(mode: str) -> None:
    assert render("{{ .a.b }}", {"a": {"b": "x"}}, missingkey=mode) == "x"


class TypedFiles:
    from runner.template import gomethod

    @gomethod(("string",), returns="string")
    def Get(self, name: str) -> str:  # noqa: N802
        return name.upper()


def test_declared_method_signature_converts_and_checks_arguments() -> None:
    assert render('{{ .F.Get "a" }}', {"F": TypedFiles()}) == "A"
    assert exec_error("{{ .F.Get 1 }}", {"F": TypedFiles()}).endswith("at <1>: expected string; found 1")


def test_error_columns_count_utf8_bytes() -> None:
    # parse.Tree.ErrorContext: the column is a byte offset; "é" is two bytes.
    msg = exec_error("é{{ .a.b }}", {"a": None}, missingkey="default")
    assert msg.startswith('template: t:1:7: executing "t" at <.a.b>')
