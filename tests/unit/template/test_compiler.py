"""Shapes of generated code (runner.template.compiler): long runs of statements split
into functions, deep nesting, break/continue around them."""

from __future__ import annotations

from runner.template import compiler
from runner.template.parse import parse_text
from tests.unit.template.helpers import render

LONG = 3 * compiler._CHUNK  # statements: several generated functions


def source_of(src: str) -> str:
    return "\n".join(s for gen in compiler.generate(list(parse_text("t", src).trees.values())) for s in gen.sources)


def test_a_long_template_is_split_into_functions_and_keeps_its_order() -> None:
    src = "".join(f"{{{{if .a}}}}{{{{.a}}}}{i}{{{{end}}}}," for i in range(LONG))
    assert source_of(src).count("\ndef ") >= 2
    assert render(src, {"a": "x"}) == "".join(f"x{i}," for i in range(LONG))


def test_texts_and_printing_actions_in_a_row_are_one_site() -> None:
    src = 'a: {{ .a }}\nb: {{ .b | printf "%q" }}\n{{/* c */}}c: {{ print . | len }}\n'
    lines = source_of(src).strip().splitlines()
    assert lines[1:] == ["    S[5].run(st, dot, None)"]
    assert render(src, {"a": 1, "b": "x"}) == 'a: 1\nb: "x"\nc: 12\n'


def test_variables_and_dot_cross_the_split() -> None:
    body = "".join("{{if $n}}{{$n}}{{end}}{{.}}" for _ in range(LONG))
    src = f"{{{{$n := 1}}}}{{{{with .v}}}}{body}{{{{$n = 2}}}}{{{{end}}}}[{{{{$n}}}}]"
    assert render(src, {"v": "w"}) == "1w" * LONG + "[2]"


def test_break_and_continue_in_a_long_range_body() -> None:
    filler = "{{if .}}{{.}}{{end}}" * LONG
    src = (
        "{{range $i, $e := .}}{{if eq $i 1}}{{continue}}{{end}}"
        f"{filler}{{{{if eq $i 3}}}}{{{{break}}}}{{{{end}}}};{{{{end}}}}"
    )
    assert render(src, ["a", "b", "c", "d", "e"]) == "a" * LONG + ";" + "c" * LONG + ";" + "d" * LONG


def test_deep_nesting_beyond_pythons_block_limits() -> None:
    depth = 40
    src = "{{range .}}" * depth + "{{.}}" + "{{end}}" * depth
    data: object = ["x"]
    for _ in range(depth - 1):
        data = [data]
    assert render(src, data) == "x"
    ifs = "{{if .}}" * 120 + "{{.}}" + "{{end}}" * 120
    assert render(ifs, "y") == "y"


def test_break_in_a_nested_range_inside_deep_ifs() -> None:
    src = "{{range .}}" + "{{if true}}" * 30 + "{{if eq . 2}}{{break}}{{end}}{{.}}" + "{{end}}" * 30 + "{{end}}"
    assert render(src, [1, 2, 3]) == "1"


def test_adjacent_texts_are_one_append() -> None:
    src = "a{{/* note */}}b{{/* trimmed */ -}}  c"
    assert source_of(src).strip().splitlines()[1:] == ["    ap = st.out.append", "    ap('abc')"]
    assert render(src) == "abc"


def test_a_long_pipeline_in_a_condition() -> None:
    """Its commands nest in one expression, a few dozen at a time (Python's parser
    limits nested parentheses to 200)."""
    src = "{{if print 1" + " | print" * 300 + "}}yes{{end}}"
    assert render(src) == "yes"
