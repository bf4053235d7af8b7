"""The lexer against Go's lex.go: item types, positions, trim markers, numbers."""

from runner.template.lex import T, lex


def kinds(text: str) -> list[tuple[T, str]]:
    return [(i.typ, i.val) for i in lex(text)]


def test_text_and_action_items_carry_byte_positions_and_lines() -> None:
    items = lex("é\n{{ .A }}")
    assert [(i.typ, i.pos, i.line) for i in items] == [
        (T.TEXT, 0, 1),
        (T.LEFT_DELIM, 3, 2),  # "é" is two bytes in UTF-8, Go's Pos counts bytes
        (T.SPACE, 5, 2),
        (T.FIELD, 6, 2),
        (T.SPACE, 8, 2),
        (T.RIGHT_DELIM, 9, 2),
        (T.EOF, 11, 2),
    ]


def test_trim_markers_remove_adjacent_space_including_newlines() -> None:
    # lex.go: "{{- " trims all trailing white space of the preceding text, " -}}" the following.
    assert kinds("a \n {{- 3 -}} \n b") == [
        (T.TEXT, "a"),
        (T.LEFT_DELIM, "{{"),
        (T.NUMBER, "3"),
        (T.RIGHT_DELIM, "}}"),
        (T.TEXT, "b"),
        (T.EOF, ""),
    ]


def test_minus_without_space_is_a_negative_number_not_a_trim_marker() -> None:
    assert kinds("{{-3}}")[1] == (T.NUMBER, "-3")


def test_comments_are_dropped_and_may_trim() -> None:
    assert kinds("x {{- /* c */ -}} y") == [(T.TEXT, "x"), (T.TEXT, "y"), (T.EOF, "")]


def test_go_number_syntaxes_lex_as_one_number() -> None:
    for text in ["0x1F", "0o17", "0b101", "1_000", "1.5e-3", "0x1p-2", ".5", "2i", "'a'"]:
        typ = T.CHAR_CONSTANT if text.startswith("'") else T.NUMBER
        assert kinds("{{" + text + "}}")[1] == (typ, text)


def test_complex_literal_is_one_item() -> None:
    assert kinds("{{1+2i}}")[1] == (T.COMPLEX, "1+2i")


def test_keywords_variables_and_declarations() -> None:
    got = [t for t, _ in kinds("{{range $i, $v := .}}{{end}}")]
    assert got[:10] == [
        T.LEFT_DELIM, T.RANGE, T.SPACE, T.VARIABLE, T.CHAR, T.SPACE, T.VARIABLE, T.SPACE, T.DECLARE, T.SPACE,
    ]  # fmt: skip


def test_break_is_an_identifier_when_a_function_of_that_name_exists() -> None:
    # lex.go: breakOK is false when the template has a "break" function.
    assert lex("{{break}}", break_ok=False)[1].typ == T.IDENTIFIER


def test_errors_end_the_stream() -> None:
    assert kinds("{{ .a")[-1] == (T.ERROR, "unclosed action")
    assert kinds("{{ `x")[-1] == (T.ERROR, "unterminated raw quoted string")
    assert kinds("{{ 3x }}")[-1] == (T.ERROR, 'bad number syntax: "3x"')
    assert kinds("{{/* x }}")[-1] == (T.ERROR, "unclosed comment")
    assert kinds("{{/* x */ }}")[-1] == (T.ERROR, "comment ends before closing delimiter")
    assert kinds("{{ ) }}")[-1] == (T.ERROR, "unexpected right paren")
