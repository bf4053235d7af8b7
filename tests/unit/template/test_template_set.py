"""The Template set: shared defines across files, replacement order, options, caching."""

from __future__ import annotations

import pytest

from runner.template import ExecError, Template, parse_cached


def test_defines_are_shared_across_files_and_later_ones_win() -> None:
    # text/template AddParseTree: a later definition replaces an earlier one.
    tmpl = Template("gotpl")
    tmpl.parse("a.tpl", '{{define "x"}}first{{end}}')
    tmpl.parse("b.tpl", '{{define "x"}}second{{end}}')
    tmpl.parse("main", '{{template "x"}}')
    assert tmpl.execute("main", None) == "second"


def test_an_empty_redefinition_does_not_replace() -> None:
    tmpl = Template("gotpl")
    tmpl.parse("a.tpl", '{{define "x"}}kept{{end}}')
    tmpl.parse("b.tpl", '{{define "x"}}  {{end}}')
    tmpl.parse("main", '{{template "x"}}')
    assert tmpl.execute("main", None) == "kept"


def test_file_of_only_defines_renders_its_whitespace() -> None:
    tmpl = Template("gotpl")
    tmpl.parse("_helpers.tpl", '{{define "x"}}X{{end}}\n')
    assert tmpl.execute("_helpers.tpl", None) == "\n"
    assert tmpl.lookup("x") is not None


def test_execute_unknown_template() -> None:
    tmpl = Template("gotpl")
    with pytest.raises(ExecError) as info:
        tmpl.execute("nope", None)
    assert str(info.value) == 'template: no template "nope" associated with template "gotpl"'


def test_missingkey_option() -> None:
    tmpl = Template("gotpl").option("missingkey=error")
    tmpl.parse("t", "{{ .x }}")
    with pytest.raises(ExecError, match='map has no entry for key "x"'):
        tmpl.execute("t", {})
    with pytest.raises(ValueError):
        tmpl.option("missingkey=maybe")


def test_parse_is_cached_by_name_and_text() -> None:
    funcs: dict[str, object] = {}
    first = parse_cached("c.yaml", "{{ . }}", funcs)
    assert parse_cached("c.yaml", "{{ . }}", funcs) is first
    assert parse_cached("d.yaml", "{{ . }}", funcs) is not first


def test_same_text_checks_functions_of_each_set() -> None:
    from runner.golang.gofunc import GoFunc
    from runner.template import ParseError

    with_f = Template("gotpl", funcs={"f": GoFunc("f", lambda: "ok", ())})
    with_f.parse("t", "{{ f }}")
    assert with_f.execute("t", None) == "ok"
    with pytest.raises(ParseError, match='function "f" not defined'):
        Template("gotpl").parse("t", "{{ f }}")


def test_executing_the_same_tree_repeatedly_is_stable() -> None:
    tmpl = Template("gotpl")
    tmpl.parse("t", "{{ range . }}{{ $x := . }}{{ $x }}{{ end }}")
    assert [tmpl.execute("t", [1, 2]) for _ in range(3)] == ["12"] * 3
