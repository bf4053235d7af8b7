"""The lexer against Go's lex.go: item types, positions, trim markers, numbers."""

from runner.template.lex import T, lex


def kinds(text: str) -> list[tuple[T, str]]:
    return [(typ, val) for typ, _, val, _ in lex(text)]


def test_text_and_action_items_carry_byte_positions_and_lines() -> None:
    items = lex("é\n{{ .A }}")
    assert [(typ, pos, line) for typ, pos, _, line in items] == [
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
    assert lex("{{break}}", break_ok=False)[1][0] == T.IDENTIFIER
    assert lex("{{continue}}", break_ok=False)[1][0] == T.CONTINUE


def test_errors_end_the_stream() -> None:
    assert kinds("{{ .a")[-1] == (T.ERROR, "unclosed action")
    assert kinds("{{ `x")[-1] == (T.ERROR, "unterminated raw quoted string")
    assert kinds("{{ 3x }}")[-1] == (T.ERROR, 'bad number syntax: "3x"')
    assert kinds("{{/* x }}")[-1] == (T.ERROR, "unclosed comment")
    assert kinds("{{/* x */ }}")[-1] == (T.ERROR, "comment ends before closing delimiter")
    assert kinds("{{ ) }}")[-1] == (T.ERROR, "unexpected right paren")


def test_a_right_delimiter_inside_parentheses_is_an_error() -> None:
    assert kinds("{{ (1 }}")[-1] == (T.ERROR, "unclosed left paren")
    assert kinds("{{ (1 -}}")[-1] == (T.ERROR, "unclosed left paren")


def test_spaces_before_a_trim_marker_keep_all_but_the_last() -> None:
    # lex.go's lexSpace backs up one space when " -}}" follows a run of spaces.
    assert kinds("{{ 1  \t -}}")[3:] == [(T.SPACE, "  \t"), (T.RIGHT_DELIM, "}}"), (T.EOF, "")]


def test_lines_count_newlines_inside_actions_and_trimmed_text() -> None:
    items = lex("{{ `a\nb`\n.X\n-}}\n\n y {{/*\n*/}}{{ 1 }}")
    assert [(typ, line) for typ, _, _, line in items] == [
        (T.LEFT_DELIM, 1),
        (T.SPACE, 1),
        (T.RAW_STRING, 1),
        (T.SPACE, 2),
        (T.FIELD, 3),
        (T.RIGHT_DELIM, 4),  # the newline before "-}}" is its space
        (T.TEXT, 6),
        (T.LEFT_DELIM, 7),
        (T.SPACE, 7),
        (T.NUMBER, 7),
        (T.SPACE, 7),
        (T.RIGHT_DELIM, 7),
        (T.EOF, 7),
    ]


def test_non_ascii_names_and_positions_after_them() -> None:
    items = lex("{{ $é .ñ ü }}")
    assert [(typ, pos, val) for typ, pos, val, _ in items[2:7]] == [
        (T.VARIABLE, 3, "$é"),
        (T.SPACE, 6, " "),
        (T.FIELD, 7, ".ñ"),
        (T.SPACE, 10, " "),
        (T.IDENTIFIER, 11, "ü"),
    ]


def test_bad_characters_after_names_and_numbers() -> None:
    assert kinds("{{ .a-b }}")[-1] == (T.ERROR, "bad character U+002D '-'")
    assert kinds("{{ $x# }}")[-1] == (T.ERROR, "bad character U+0023 '#'")
    assert kinds("{{ 1-2 }}")[-1] == (T.ERROR, 'bad number syntax: "1-2"')
    assert kinds("{{ a: }}")[-1] == (T.ERROR, "expected :=")
