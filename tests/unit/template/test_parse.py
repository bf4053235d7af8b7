"""The parser against Go's parse.go: tree shapes printed back, and its error messages."""

from runner.template.parse import parse_text

from .helpers import parse_error


def tree_text(src: str, name: str = "t") -> str:
    return str(parse_text("t", src).trees[name].root)


def test_nodes_print_back_as_template_text() -> None:
    src = '{{$x := .A.B | printf "%d" 1}}{{range $i, $v := .L}}{{$v}}{{else}}e{{end}}'
    assert tree_text(src) == src


def test_else_if_nests_an_if_in_the_else_list() -> None:
    # parse.go parseControl: {{if a}}{{else if b}}{{end}} is {{if a}}{{else}}{{if b}}{{end}}{{end}}
    assert tree_text("{{if .a}}1{{else if .b}}2{{end}}") == "{{if .a}}1{{else}}{{if .b}}2{{end}}{{end}}"


def test_chained_fields_on_a_parenthesized_pipeline() -> None:
    assert tree_text("{{(index . 1).Name}}") == "{{(index . 1).Name}}"


def test_define_and_block_add_named_trees() -> None:
    trees = parse_text("t", '{{define "a"}}A{{end}}{{block "b" .}}B{{end}}').trees
    assert sorted(trees) == ["a", "b", "t"]
    assert str(trees["t"].root) == '{{template "b" .}}'
    assert str(trees["b"].root) == "B"


def test_parse_error_messages_match_go() -> None:
    assert parse_error("{{if}}") == "template: t:1: missing value for if"
    assert parse_error("{{end}}") == "template: t:1: unexpected {{end}}"
    assert parse_error("{{range .}}") == "template: t:1: unexpected EOF"
    assert parse_error("{{$x}}") == 'template: t:1: undefined variable "$x"'
    assert parse_error("{{break}}") == "template: t:1: {{break}} outside {{range}}"
    assert parse_error("{{ 1 | 2 }}") == "template: t:1: non executable command in pipeline stage 2"
    assert parse_error("{{ nosuch 1 }}") == 'template: t:1: function "nosuch" not defined'
    assert parse_error("{{ 99999999999999999999 }}") == 'template: t:1: integer overflow: "99999999999999999999"'
    assert parse_error('{{ "a }}') == "template: t:1: unterminated quoted string"
    assert parse_error("{{ 3.x }}") == 'template: t:1: bad number syntax: "3.x"'


def test_parse_error_line_is_the_line_of_the_last_token_read() -> None:
    assert parse_error("a\nb\n{{ if .x }}\n") == "template: t:4: unexpected EOF"


def test_unclosed_action_names_the_line_it_started_on() -> None:
    assert parse_error("x\n{{ .a\n .b") == "template: t:3: unclosed action started at t:2"


def test_multiple_non_empty_definitions_in_one_text_fail() -> None:
    src = '{{define "a"}}x{{end}}{{define "a"}}y{{end}}'
    assert parse_error(src) == 'template: t:1: template: multiple definition of template "a"'


def test_range_declarations() -> None:
    assert parse_error("{{range $a, $b, $c := .}}{{end}}") == "template: t:1: too many declarations in range"
    assert parse_error("{{$a, $b := 1}}") == "template: t:1: too many declarations in command"


def test_literal_cannot_have_fields() -> None:
    assert parse_error('{{ "x".y }}') == 'template: t:1: unexpected . after term "\\"x\\""'


def test_function_check_happens_before_a_later_syntax_error() -> None:
    assert parse_error("{{ nosuch }}{{ end }}") == 'template: t:1: function "nosuch" not defined'


def test_trees_pickle_without_compiled_code() -> None:
    import pickle

    result = parse_text("t", "{{ range .x }}{{ . }}{{ end }}")
    clone = pickle.loads(pickle.dumps(result.trees["t"]))
    assert str(clone.root) == str(result.trees["t"].root)
    assert clone.compiled is None


def test_fields_after_a_field_or_variable_extend_it_at_the_chain_position() -> None:
    # parse.go operand: newField/newVariable(chain.Position(), chain.String()); the
    # chain starts at the first field after the term.
    nodes = parse_text("t", "{{ .a.b }}{{ $x := 1 }}{{ $x.c.d }}").trees["t"].root.nodes
    field = nodes[0].pipe.cmds[0].args[0]
    variable = nodes[2].pipe.cmds[0].args[0]
    assert (type(field).__name__, field.ident, field.pos) == ("FieldNode", ["a", "b"], 5)
    assert (type(variable).__name__, variable.ident, variable.pos) == ("VariableNode", ["$x", "c", "d"], 28)


def test_block_clause_error_is_reported_at_the_block_actions_line() -> None:
    # blockControl calls t.errorf on the outer tree, whose last token is the
    # block action's closing delimiter, not the {{else}} the inner tree read.
    assert parse_error('{{block "b" .}}\nx{{else}}y{{end}}') == "template: t:1: unexpected {{else}} in block clause"
