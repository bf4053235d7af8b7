"""Where errors point: Go reports the node its state last marked (exec.go state.at).

Each expectation was checked against `helm template` of Helm 4.1.4 on the
same text; the rule behind it is cited per test.
"""

from __future__ import annotations

from .helpers import exec_error

DATA = {"f": 1.5, "s": "str", "l": ["a", None, 2.0], "m": {"a": 1.0}}


def test_range_errors_point_into_the_pipeline() -> None:
    # walkRange errors after evalPipeline: the state points at the last command's node.
    assert exec_error("{{range $i, $v := 3}}{{end}}") == (
        "template: t:1:18: executing \"t\" at <3>: can't use 3 to iterate over more than one variable"
    )
    assert exec_error("{{range .f}}{{end}}", DATA) == (
        'template: t:1:8: executing "t" at <.f>: range can\'t iterate over 1.5'
    )


def test_chain_on_a_pipeline_points_at_the_receiver() -> None:
    # evalChainNode evaluates the receiver first; evalField errors keep that node.
    assert exec_error('{{ (print "a").x }}') == (
        'template: t:1:10: executing "t" at <"a">: can\'t evaluate field x in type string'
    )


def test_assignment_to_undeclared_variable_points_at_the_value() -> None:
    # setVar fails after evalPipeline evaluated the value.
    assert exec_error("{{ $x = 1 }}") == 'template: t:1:8: executing "t" at <1>: undefined variable: $x'


def test_field_given_pipeline_value() -> None:
    assert exec_error("{{ .s | .m }}", DATA) == (
        'template: t:1:8: executing "t" at <.m>: m is not a method but has arguments'
    )


def test_range_variable_holds_an_interface_value() -> None:
    assert exec_error("{{ range $i, $v := .l }}{{ $v.x }}{{ end }}", DATA) == (
        "template: t:1:29: executing \"t\" at <$v.x>: can't evaluate field x in type interface {}"
    )


def test_missing_key_through_a_variable() -> None:
    assert exec_error("{{ $m := .m }}{{ $m.zz.yy }}", DATA) == (
        'template: t:1:19: executing "t" at <$m.zz.yy>: nil pointer evaluating interface {}.yy'
    )


def test_index_through_a_nil_element() -> None:
    assert exec_error('{{ index .l 1 "x" }}', DATA) == (
        'template: t:1:3: executing "t" at <index .l 1 "x">: error calling index: index of nil pointer'
    )
