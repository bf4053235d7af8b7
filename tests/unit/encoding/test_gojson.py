"""gojson: encoding/json Marshal, MarshalIndent and Unmarshal as Go 1.25 behaves.

Expectations follow encoding/json's encode.go (floatEncoder's 'f'/'e'
cutoffs at 1e-6 and 1e21 and its exponent trimming, appendString's escapes
incl. \\b and \\f, HTML escaping of <, >, & and of U+2028/U+2029, invalid
UTF-8 as U+FFFD, sorted map keys, []byte as base64, UnsupportedValueError),
indent.go (MarshalIndent layout, empty {} and [] kept compact), time.Time's
MarshalJSON (RFC 3339 with nanoseconds) and scanner.go's SyntaxError texts.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest

from runner.encoding import gojson
from runner.golang.types import Int64


@pytest.mark.parametrize(
    ("number", "text"),
    [
        (1.0, "1"),
        (1.5, "1.5"),
        (1e6, "1000000"),
        (123456789.0, "123456789"),
        (1e20, "100000000000000000000"),
        (1e21, "1e+21"),
        (1e-6, "0.000001"),
        (1e-7, "1e-7"),
        (-2.5e-7, "-2.5e-7"),
        (-0.0, "-0"),
        (0.1, "0.1"),
        (Int64(5), "5"),
        (True, "true"),
    ],
)
def test_numbers(number: float, text: str) -> None:
    assert gojson.marshal(number) == text


def test_objects_have_sorted_keys_and_no_spaces() -> None:
    assert gojson.marshal({"b": [1.0, None], "a": {"c": "d"}}) == '{"a":{"c":"d"},"b":[1,null]}'


def test_html_characters_and_line_separators_are_escaped() -> None:
    text = "<a href='x'>&\u2028\u2029"
    assert gojson.marshal(text) == "\"\\u003ca href='x'\\u003e\\u0026\\u2028\\u2029\""
    # SetEscapeHTML(false) keeps <, >, & but still escapes U+2028/U+2029.
    assert gojson.marshal(text, escape_html=False) == "\"<a href='x'>&\\u2028\\u2029\""


def test_control_characters() -> None:
    assert (
        gojson.marshal('"\\\n\r\t\b\f\x01\x1f\x7f') == '"\\"\\\\\\n\\r\\t\\b\\f\\u0001\\u001f\x7f"'
    )


def test_lone_surrogates_become_replacement_characters() -> None:
    assert gojson.marshal("a\ud800b") == '"a\ufffdb"'


def test_bytes_and_times() -> None:
    assert gojson.marshal(b"hi") == '"aGk="'
    moment = datetime(2021, 3, 4, 5, 6, 7, 120000, tzinfo=timezone(timedelta(hours=-5)))
    assert gojson.marshal(moment) == '"2021-03-04T05:06:07.12-05:00"'
    assert gojson.marshal(datetime(2021, 3, 4, tzinfo=UTC)) == '"2021-03-04T00:00:00Z"'


def test_objects_marshal_through_their_hook() -> None:
    class Version:
        def go_json(self) -> dict[str, str]:
            return {"Version": "v1.35.0", "Major": "1"}

    assert gojson.marshal({"v": Version()}) == '{"v":{"Major":"1","Version":"v1.35.0"}}'


@pytest.mark.parametrize(
    ("value", "shown"), [(float("nan"), "NaN"), (float("inf"), "+Inf"), (float("-inf"), "-Inf")]
)
def test_nan_and_infinities_are_unsupported(value: float, shown: str) -> None:
    with pytest.raises(gojson.MarshalError) as info:
        gojson.marshal([value])
    assert str(info.value) == f"json: unsupported value: {shown}"


def test_unsupported_type() -> None:
    with pytest.raises(gojson.MarshalError, match="json: unsupported type"):
        gojson.marshal(object())


def test_marshal_indent_layout() -> None:
    value = {"a": [1.0, {}], "b": {"c": []}, "d": "x"}
    assert gojson.marshal_indent(value, "", "  ") == (
        '{\n  "a": [\n    1,\n    {}\n  ],\n  "b": {\n    "c": []\n  },\n  "d": "x"\n}'
    )
    assert gojson.marshal_indent([1.0], ">", "\t") == "[\n>\t1\n>]"


def test_unmarshal_numbers_are_float64() -> None:
    value = gojson.unmarshal('{"a": 1, "b": [2.5, true, null, "s"]}')
    assert value == {"a": 1.0, "b": [2.5, True, None, "s"]}
    assert type(value["a"]) is float


def test_unmarshal_surrogate_escapes() -> None:
    assert gojson.unmarshal('["\\ud83d\\ude00", "\\ud800x"]') == ["\U0001f600", "\ufffdx"]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "unexpected end of JSON input"),
        ("{", "unexpected end of JSON input"),
        ('"abc', "unexpected end of JSON input"),
        ("x", "invalid character 'x' looking for beginning of value"),
        ("[1,]", "invalid character ']' looking for beginning of value"),
        ('{"a" 1}', "invalid character '1' after object key"),
        ('{"a":1 "b":2}', "invalid character '\"' after object key:value pair"),
        ("[1 2]", "invalid character '2' after array element"),
        ("{1:2}", "invalid character '1' looking for beginning of object key string"),
        ('{"a":1}x', "invalid character 'x' after top-level value"),
        ("tru", "invalid character ' ' in literal true (expecting 'e')"),
        ("nul", "invalid character ' ' in literal null (expecting 'l')"),
        ("1.", "invalid character ' ' after decimal point in numeric literal"),
        ("1e+", "invalid character ' ' in exponent of numeric literal"),
        ("-a", "invalid character 'a' in numeric literal"),
        ('"\\q"', "invalid character 'q' in string escape code"),
        ('"\\u12x"', "invalid character 'x' in \\u hexadecimal character escape"),
        ('"a\tb"', "invalid character '\\t' in string literal"),
        ("NaN", "invalid character 'N' looking for beginning of value"),
        ("'a'", "invalid character '\\'' looking for beginning of value"),
    ],
)
def test_syntax_errors(text: str, message: str) -> None:
    with pytest.raises(gojson.UnmarshalError) as info:
        gojson.unmarshal(text)
    assert str(info.value) == message


def test_number_out_of_range_keeps_the_rest() -> None:
    with pytest.raises(gojson.UnmarshalError) as info:
        gojson.unmarshal('{"a": 1e400, "b": 2}')
    assert str(info.value) == "json: cannot unmarshal number 1e400 into Go value of type float64"
    assert info.value.partial == {"a": None, "b": 2.0}


def test_unmarshal_into_typed_targets() -> None:
    assert gojson.unmarshal_into('{"hello":"world"}', dict) == {"hello": "world"}
    assert gojson.unmarshal_into("null", dict) == {}
    with pytest.raises(gojson.UnmarshalError) as info:
        gojson.unmarshal_into('["one", "two"]', dict)
    assert str(info.value) == (
        "json: cannot unmarshal array into Go value of type map[string]interface {}"
    )
    with pytest.raises(gojson.UnmarshalError) as info:
        gojson.unmarshal_into('{"hello": "world"}', list)
    assert str(info.value) == "json: cannot unmarshal object into Go value of type []interface {}"


def test_unmarshal_invalid_utf8_reads_as_replacement_characters() -> None:
    assert gojson.unmarshal(b'["a\xffb"]') == ["a\ufffdb"]
