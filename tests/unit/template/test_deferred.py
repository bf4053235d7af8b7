"""Variables in nested branches: each keeps its own frame slot (runner.template.compiler)."""

from __future__ import annotations

from tests.unit.template.helpers import exec_error, render


def test_variables_in_nested_branches_keep_their_own_slots() -> None:
    src = (
        "{{$a := 1}}{{if .x}}{{$b := 2}}{{if .y}}{{$c := 3}}{{$a}}{{$b}}{{$c}}{{end}}"
        "{{$d := 4}}{{$d}}{{end}}{{$e := 5}}{{$a}}{{$e}}"
    )
    assert render(src, {"x": True, "y": True}) == "123415"
    assert render(src, {"x": True, "y": False}) == "415"
    assert render(src, {"x": False}) == "15"


def test_else_does_not_see_a_variable_declared_in_the_if_body() -> None:
    """Go's parser accepts it (the body's variables stay declared), but at run time the
    body never ran: `undefined variable`, as helm template reports."""
    src = "{{if .x}}{{$v := 1}}{{$v}}{{else}}[{{$v}}]{{end}}"
    assert render(src, {"x": True}) == "1"
    assert "undefined variable: $v" in exec_error(src, {"x": False})


def test_a_branch_sees_variables_declared_before_it_and_assigns_them() -> None:
    src = "{{$v := 0}}{{range $i, $e := .}}{{if $e}}{{$v = $i}}{{end}}{{end}}{{$v}}"
    assert render(src, [True, False, True, False]) == "2"


def test_with_branches_see_their_own_dot_and_else_the_outer_one() -> None:
    src = "{{with .a}}{{$x := .}}[{{$x}}]{{else}}{{with .b}}<{{.}}>{{end}}{{end}}"
    assert render(src, {"a": "A"}) == "[A]"
    assert render(src, {"b": "B"}) == "<B>"


def test_a_recursive_template_first_running_a_branch_in_its_inner_call() -> None:
    src = (
        '{{define "down"}}{{if gt . 0}}{{$n := .}}{{template "down" (sub1 .)}}'
        "{{$n}}{{else}}{{$zero := 0}}{{$zero}}:{{end}}{{end}}"
        '{{template "down" 3}}'
    )
    funcs = {"sub1": _sub1()}
    assert render(src, None, funcs=funcs) == "0:123"


def test_branches_run_many_times_give_the_same_output() -> None:
    src = "{{range .}}{{if .}}{{$s := printf \"%v!\" .}}{{$s}}{{else}}-{{end}}{{end}}"
    assert render(src, [1, 0, 2, 0, 3]) == "1!-2!-3!"


def _sub1():  # noqa: ANN202 - a GoFunc
    from runner.golang.gofunc import GoFunc

    return GoFunc("sub1", lambda n: n - 1, ("int",), returns="int")
