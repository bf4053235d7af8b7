"""Literal syntax against Go's parse.newNumber and strconv.Unquote."""

from __future__ import annotations

import pytest

from runner.golang.strconv import unquote
from runner.template.lex import T
from runner.template.numbers import parse_number


@pytest.mark.parametrize(
    ("text", "is_int", "value"),
    [
        ("42", True, 42),
        ("-7", True, -7),
        ("0x1F", True, 31),
        ("0o17", True, 15),
        ("017", True, 15),  # a leading 0 is octal for integers (strconv base 0)
        ("0b101", True, 5),
        ("1_000", True, 1000),
        ("1e3", True, 1000),  # a float that is integral is also an int (newNumber)
        ("1.5", False, 1.5),
    ],
)
def test_number_readings(text: str, is_int: bool, value: float) -> None:
    n, err = parse_number(0, text, T.NUMBER)
    assert err is None
    assert n.is_int == is_int
    assert (n.int64 if is_int else n.float64) == value
    assert n.is_float  # every integer literal can also be a float64


def test_hex_float_and_imaginary() -> None:
    n, _ = parse_number(0, "0x1p-2", T.NUMBER)
    assert n.float64 == 0.25 and not n.is_int
    n, _ = parse_number(0, "2i", T.NUMBER)
    assert n.is_complex and n.complex128 == 2j and not n.is_float


def test_number_errors() -> None:
    assert parse_number(0, "99999999999999999999", T.NUMBER)[1] == 'integer overflow: "99999999999999999999"'
    assert parse_number(0, "1__0", T.NUMBER)[1] == 'illegal number syntax: "1__0"'
    assert parse_number(0, "'ab'", T.CHAR_CONSTANT)[1] == "malformed character constant: 'ab'"
    assert parse_number(0, "0b12", T.NUMBER)[1] == 'illegal number syntax: "0b12"'  # 2 is no binary digit
    # Not octal, but ParseFloat reads it, so newNumber takes it for an integer too large.
    assert parse_number(0, "089", T.NUMBER)[1] == 'integer overflow: "089"'


def test_char_constants() -> None:
    assert parse_number(0, "'a'", T.CHAR_CONSTANT)[0].int64 == 97
    assert parse_number(0, "'\\n'", T.CHAR_CONSTANT)[0].int64 == 10
    assert parse_number(0, "'\\u00e9'", T.CHAR_CONSTANT)[0].int64 == 0xE9


def test_unquote() -> None:
    assert unquote('"a\\tb\\u00e9\\x41"') == ("a\tb\u00e9A", None)
    assert unquote("`raw\\n\r`") == ("raw\\n", None)  # raw strings drop carriage returns
    assert unquote('"\\q"') == ("", "invalid syntax")
    assert unquote('"\\\'"') == ("", "invalid syntax")  # \' only in character constants
