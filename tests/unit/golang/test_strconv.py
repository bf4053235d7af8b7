"""Go's strconv: FormatFloat, encoding/json's float text, Quote and its relatives.

Expected texts are what Go 1.26 prints, the quoting rows from Go's own
strconv quote_test.go; the template-level cases (quote, printf %q %+q %#q)
run against Helm in tests/conformance/functions/cases/strings.yaml."""

from __future__ import annotations

import math

import pytest

from runner.golang.strconv import can_backquote, format_float, json_float, quote, quote_rune


# strconv.FormatFloat(v, fmt, prec, bits) as Go prints it.
@pytest.mark.parametrize(
    ("value", "fmt", "prec", "bits", "text"),
    [
        (1e6, "g", -1, 64, "1e+06"),
        (123456789.0, "g", -1, 64, "1.23456789e+08"),
        (0.1, "g", -1, 32, "0.1"),
        (0.1, "f", 20, 64, "0.10000000000000000555"),
        (2.5, "f", 0, 64, "2"),
        (0.125, "f", 2, 64, "0.12"),
        (100.0, "g", 2, 64, "1e+02"),
        (1.0, "g", 3, 64, "1"),
        (1.0, "e", -1, 64, "1e+00"),
        (123.456, "E", 2, 64, "1.23E+02"),
        (1e100, "e", 3, 64, "1.000e+100"),
        (5e-324, "g", -1, 64, "5e-324"),
        (-0.0, "g", -1, 64, "-0"),
        (1.0, "b", -1, 64, "4503599627370496p-52"),
        (1.0, "x", -1, 64, "0x1p+00"),
        (3.14159265358979, "x", 3, 64, "0x1.922p+01"),
        (1e100, "g", -1, 32, "+Inf"),
        (math.nan, "f", 2, 64, "NaN"),
    ],
)
def test_format_float_is_strconv(value: float, fmt: str, prec: int, bits: int, text: str) -> None:
    assert format_float(value, fmt, prec, bits) == text


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (1e20, "100000000000000000000"),
        (1e21, "1e+21"),
        (1e-6, "0.000001"),
        (1e-7, "1e-7"),
        (0.000001234, "0.000001234"),
        (123.456, "123.456"),
        (1e100, "1e+100"),
        (-5e-324, "-5e-324"),
        (0.0, "0"),
    ],
)
def test_json_float_is_encoding_json(value: float, text: str) -> None:
    assert json_float(value) == text


def test_quote_is_strconv_quote() -> None:
    assert quote('a"b\\c\n\t\x01\x7f') == '"a\\"b\\\\c\\n\\t\\x01\\x7f"'
    assert quote("\u2028\U0001f600") == '"\\u2028😀"'
    assert quote("é", ascii_only=True) == '"\\u00e9"'


# Go's quotetests: (in, Quote, QuoteToASCII). "\udcff" is the invalid byte 0xff as
# Python keeps it (surrogateescape), as our Go strings do.
@pytest.mark.parametrize(
    ("text", "quoted", "ascii"),
    [
        ("\a\b\f\r\n\t\v", '"\\a\\b\\f\\r\\n\\t\\v"', '"\\a\\b\\f\\r\\n\\t\\v"'),
        ("\\", '"\\\\"', '"\\\\"'),
        ("abc\udcffdef", '"abc\\xffdef"', '"abc\\xffdef"'),
        ("\u263a", '"\u263a"', '"\\u263a"'),
        ("\U0010ffff", '"\\U0010ffff"', '"\\U0010ffff"'),
        ("\x04", '"\\x04"', '"\\x04"'),
        ("!\u00a0!\u2000!\u3000!", '"!\\u00a0!\\u2000!\\u3000!"', '"!\\u00a0!\\u2000!\\u3000!"'),
        ("\x7f", '"\\x7f"', '"\\x7f"'),
        ("\x85\xad\u200b", '"\\u0085\\u00ad\\u200b"', '"\\u0085\\u00ad\\u200b"'),
    ],
)
def test_quote_matches_go(text: str, quoted: str, ascii: str) -> None:
    assert quote(text) == quoted
    assert quote(text, ascii_only=True) == ascii


def test_quote_rune_matches_go() -> None:
    assert [quote_rune(r) for r in (ord("a"), 0x263A, 0x7F, 0xD800, 0x110000)] == [
        "'a'", "'\u263a'", "'\\x7f'", "'\ufffd'", "'\ufffd'"]
    assert quote_rune(ord("'")) == "'\\''"


@pytest.mark.parametrize(
    ("text", "ok"),
    [("", True), ("abc", True), ("\t", True), ("\u263a", True), ("`", False), ("\x00", False),
     ("\n", False), ("\x7f", False), ("\ufeff", False), ("a\udcffb", False)],
)
def test_can_backquote_matches_go(text: str, ok: bool) -> None:
    assert can_backquote(text) is ok


def test_a_number_error_quotes_the_input_as_go_does():
    """NumError.Error quotes the input with strconv.Quote (compared with helm's text in
    tests/reliability/test_set_grammar.py: `--set-literal 'a\\[0\\]=x'`)."""
    from runner.golang.strconv import NumError, atoi, quote

    text = '0\\"\n'
    with pytest.raises(NumError) as raised:
        atoi(text)
    assert str(raised.value) == f"strconv.Atoi: parsing {quote(text)}: invalid syntax"
    assert quote(text) == '"0\\\\\\"\\n"'
