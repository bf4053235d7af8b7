"""Sprig's strings family (sprig v3.3.0 strings.go, functions.go).

Expected values come from Sprig's strings_test.go and docs/strings.md, the
tests of the helper libraries it calls (Masterminds/goutils v1.1.1
wordutils_test.go, huandu/xstrings v1.5.0 convert_test.go) and the Go
standard library's documented behaviour (strings, strconv.Quote,
encoding/base64 and base32 CorruptInputError, runtime slice-bounds panics).
"""

from __future__ import annotations

import string
from typing import Any

import pytest

import runner.funcs.strings  # noqa: F401 - registers the family
from runner.funcs.registry import registered
from runner.golang.gofunc import FuncError
from runner.golang.types import StringMap, StringSlice, go_type_name


def call(name: str, *args: Any) -> Any:
    return registered()[name].impl(*args)


# ------------------------------------------------------ strings_test.go


@pytest.mark.parametrize(
    ("args", "want"),
    [
        ((0, 3, "fooo"), "foo"),  # TestSubstr
        ((0, 10, "foo"), "foo"),  # TestSubstr_shorterString
        ((-1, 2, "hello"), "he"),  # docs: start < 0 means s[:end]
        ((2, -1, "hello"), "llo"),  # end < 0 means s[start:]
    ],
)
def test_substr(args: tuple[int, int, str], want: str) -> None:
    assert call("substr", *args) == want


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ((-1, 10, "foo"), "runtime error: slice bounds out of range [:10] with length 3"),
        ((-1, -2, "foo"), "runtime error: slice bounds out of range [:-2]"),
        ((2, 1, "foo"), "runtime error: slice bounds out of range [2:1]"),
        ((5, 10, "foo"), "runtime error: slice bounds out of range [5:3]"),
    ],
)
def test_substr_out_of_range_is_gos_slice_panic(args: tuple[int, int, str], message: str) -> None:
    with pytest.raises(FuncError) as caught:
        call("substr", *args)
    assert str(caught.value) == message


@pytest.mark.parametrize(
    ("count", "text", "want"),
    [
        (3, "foooooo", "foo"),  # TestTrunc
        (-3, "baaaaaar", "aar"),
        (-999, "baaaaaar", "baaaaaar"),
        (0, "baaaaaz", ""),
    ],
)
def test_trunc(count: int, text: str, want: str) -> None:
    assert call("trunc", count, text) == want


def test_trunc_counts_bytes_like_go() -> None:
    # "é" is two UTF-8 bytes: trunc 3 keeps "h" and the whole "é".
    assert call("trunc", 3, "héllo") == "hé"
    assert call("trunc", 2, "héllo").encode("utf-8", "surrogateescape") == b"h\xc3"


def test_quote_and_squote() -> None:
    assert call("quote", "a", "b", "c") == '"a" "b" "c"'  # TestQuote
    assert call("quote", '"a"', "b") == '"\\"a\\"" "b"'
    assert call("quote", 1, 2, 3) == '"1" "2" "3"'
    assert call("quote", None) == ""  # nil arguments are skipped
    assert call("quote", 1e6) == '"1e+06"'  # strval = fmt %v of a float64
    assert call("quote", "tab\there\n") == '"tab\\there\\n"'  # strconv.Quote escapes
    assert call("squote", "a", "b", "c") == "'a' 'b' 'c'"  # TestSquote
    assert call("squote", 1, 2, 3) == "'1' '2' '3'"
    assert call("squote", None) == ""


def test_contains_prefix_suffix() -> None:
    assert call("contains", "cat", "fair catch") is True  # TestContains
    assert call("contains", "dog", "fair catch") is False
    assert call("hasPrefix", "cat", "catch") is True
    assert call("hasSuffix", "cat", "ducat") is True


@pytest.mark.parametrize(
    ("name", "args"),
    [
        ("trim", ("   5.00   ",)),  # TestTrim
        ("trimAll", ("$", "$5.00$")),
        ("trimall", ("$", "$5.00$")),
        ("trimPrefix", ("$", "$5.00")),
        ("trimSuffix", ("$", "5.00$")),
    ],
)
def test_trim_family(name: str, args: tuple[str, ...]) -> None:
    assert call(name, *args) == "5.00"


def test_trim_uses_go_unicode_spaces() -> None:
    # unicode.IsSpace: NBSP and NEL are spaces, U+001C is not (Python disagrees).
    assert call("trim", "\u00a0x\u0085") == "x"
    assert call("trim", "\x1cx") == "\x1cx"


def test_split_family() -> None:
    parts = call("split", "$", "foo$bar$baz")  # TestSplit
    assert parts == {"_0": "foo", "_1": "bar", "_2": "baz"}
    assert go_type_name(parts) == "map[string]string"
    assert call("splitn", "$", 2, "foo$bar$baz") == StringMap({"_0": "foo", "_1": "bar$baz"})
    assert call("splitn", "$", 0, "a$b") == {}
    listed = call("splitList", ",", "a,b,,c")
    assert listed == ["a", "b", "", "c"] and type(listed) is StringSlice
    assert call("splitList", "", "abc") == ["a", "b", "c"]  # strings.Split by runes
    assert call("splitList", ",", "") == [""]


def test_join() -> None:
    assert call("join", "-", ["a", "b", "c"]) == "a-b-c"  # TestJoin
    assert call("join", "-", [1, 2, 3]) == "1-2-3"
    assert call("join", "-", StringSlice(["a", "b", "c"])) == "a-b-c"
    assert call("join", "-", "abc") == "abc"
    assert call("join", "-", ["1", None, "2"]) == "1-2"


def test_base64_and_base32_round_trip() -> None:
    assert call("b64enc", "coffee") == "Y29mZmVl"  # TestBase64EncodeDecode
    assert call("b64dec", "Y29mZmVl") == "coffee"
    assert call("b32enc", "coffee") == "MNXWMZTFMU======"  # TestBase32EncodeDecode
    assert call("b32dec", "MNXWMZTFMU======") == "coffee"


@pytest.mark.parametrize(
    ("name", "text", "want"),
    [
        # Sprig returns the decoder's error text instead of failing.
        ("b64dec", "Y29mZmVl!", "illegal base64 data at input byte 8"),
        ("b64dec", "YQ=", "illegal base64 data at input byte 3"),
        ("b64dec", "Y29m\nZmVl", "coffee"),  # newlines are skipped by encoding/base64
        ("b32dec", "MNXWMZTFMU=====", "illegal base32 data at input byte 15"),
        ("b32dec", "1", "illegal base32 data at input byte 0"),
    ],
)
def test_decoders_report_go_errors(name: str, text: str, want: str) -> None:
    assert call(name, text) == want


@pytest.mark.parametrize(
    ("name", "args", "want"),
    [
        # TestGoutils
        ("abbrev", (5, "hello world"), "he..."),
        ("abbrevboth", (5, 10, "1234 5678 9123"), "...5678..."),
        ("nospace", ("h e l l o ",), "hello"),
        ("untitle", ("First Try",), "first try"),
        ("initials", ("First Try",), "FT"),
        ("wrap", (5, "Hello World"), "Hello\nWorld"),
        ("wrapWith", (5, "\t", "Hello World"), "Hello\tWorld"),
        # goutils TestSwapCase
        ("swapcase", ("This Is A.Test",), "tHIS iS a.tEST"),
        # docs/strings.md
        ("abbrev", (3, "hello world"), "hello world"),
        ("title", ("hello world",), "Hello World"),
        ("upper", ("hello",), "HELLO"),
        ("lower", ("HELLO",), "hello"),
        ("repeat", (3, "hello"), "hellohellohello"),
        ("replace", (" ", "-", "I Am Henry VIII"), "I-Am-Henry-VIII"),
        ("plural", ("one anchovy", "many anchovies", 1), "one anchovy"),
        ("plural", ("one anchovy", "many anchovies", 2), "many anchovies"),
        ("indent", (4, "a\nb\nc"), "    a\n    b\n    c"),  # TestIndent
        ("nindent", (4, "a\nb\nc"), "\n    a\n    b\n    c"),  # TestNindent
        ("hello", (), "Hello!"),
    ],
)
def test_documented_examples(name: str, args: tuple[Any, ...], want: str) -> None:
    assert call(name, *args) == want


def test_cat_skips_nil_and_prints_values_with_v() -> None:
    assert call("cat", "a", "b", "c") == "a b c"  # TestCat
    assert call("cat", "a", "b", None) == "a b"
    assert call("cat", 1.5, [1, "x"], {"k": 2}) == "1.5 [1 x] map[k:2]"


def test_case_mappings_are_gos_simple_mappings() -> None:
    assert call("upper", "straße") == "STRAßE"  # unicode.ToUpper('ß') == 'ß'
    assert call("lower", "ΟΔΟΣ") == "οδοσ"  # no final sigma in Go
    assert call("title", "o'neil is-here") == "O'Neil Is-Here"  # strings.Title separators


def test_byte_walking_helpers_mangle_non_ascii_as_goutils_does() -> None:
    # goutils walks bytes and writes each kept byte as a rune.
    assert call("initials", "Émile Zola") == "ÃZ"
    assert call("nospace", "é x") == "Ã©x"
    assert call("nospace", "éx") == "éx"  # nothing removed: input returned as is


@pytest.mark.parametrize(
    ("text", "snake"),
    [
        # huandu/xstrings TestToSnakeCaseAndToKebabCase
        ("HTTPServer", "http_server"),
        ("_camelCase", "_camel_case"),
        ("NoHTTPS", "no_https"),
        ("_AnotherTES_TCaseP", "_another_tes_t_case_p"),
        ("HELLO____WORLD", "hello____world"),
        ("http2xx", "http_2xx"),
        ("HTTP2XX", "http2_xx"),
        ("HTTP20xOK", "http_20x_ok"),
        ("Duration2m3s", "duration_2m3s"),
        ("Bld4Floor3rd", "bld4_floor_3rd"),
        (" _-_ ", "_____"),
        ("a1b2c3d", "a_1b2c3d"),
        ("混合ABCWords与123数字456", "混合_abc_words_与123_数字456"),
        ("FROM CamelCase to snake/kebab-case", "from_camel_case_to_snake/kebab_case"),
    ],
)
def test_snakecase_and_kebabcase(text: str, snake: str) -> None:
    assert call("snakecase", text) == snake
    assert call("kebabcase", text) == snake.replace("_", "-")


@pytest.mark.parametrize(
    ("text", "want"),
    [
        # huandu/xstrings TestToPascalCase (Sprig's camelcase since 3.3.0)
        ("http_server", "HttpServer"),
        ("_complex__case_", "_Complex_Case_"),
        (" complex -case ", " Complex Case "),
        ("GOLANG_IS_GREAT", "GolangIsGreat"),
        ("FROM CamelCase to snake/kebab-case", "FromCamelCaseToSnake/kebabCase"),
    ],
)
def test_camelcase_is_pascal_case(text: str, want: str) -> None:
    assert call("camelcase", text) == want


def test_go_panics_become_errors() -> None:
    with pytest.raises(FuncError, match="^strings: negative Repeat count$"):
        call("repeat", -1, "x")
    with pytest.raises(FuncError, match="^strings: negative Repeat count$"):
        call("indent", -2, "x")


# ------------------------------------------------------- random values


@pytest.mark.parametrize(
    ("name", "alphabet"),
    [
        ("randAlphaNum", string.ascii_letters + string.digits),
        ("randAlpha", string.ascii_letters),
        ("randNumeric", string.digits),
        ("randAscii", "".join(chr(c) for c in range(32, 127))),
    ],
)
def test_random_strings_have_length_and_alphabet(name: str, alphabet: str) -> None:
    value = call(name, 64)
    assert len(value) == 64
    assert set(value) <= set(alphabet)
    assert call(name, 0) == "" and call(name, -3) == ""


def test_shuffle_keeps_the_runes() -> None:
    text = "héllo wörld"
    assert sorted(call("shuffle", text)) == sorted(text)
