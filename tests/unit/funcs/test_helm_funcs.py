"""Helm's pkg/engine/funcs.go functions and Sprig's JSON family and fail.

Expected values are those of Helm v4.1.4's pkg/engine/funcs_test.go where it
has them, otherwise what the Go code does: toYaml/toJson/toPrettyJson
swallow errors (""), toToml returns the error text, fromYaml/fromJson put
the error under "Error", the *Array readers return [message], mustToYaml,
mustToJson and toRawJson panic (text/template reports the panic value),
Sprig's must* functions return the error.
"""

from __future__ import annotations

from typing import Any

import pytest

import runner.funcs.helm  # noqa: F401 - registers the family
from runner.funcs.registry import registered
from runner.golang.gofunc import FuncError

FUNCS = registered()
NAN = float("nan")


def call(name: str, *args: Any) -> Any:
    return FUNCS[name].impl(*args)


@pytest.mark.parametrize(
    ("name", "params", "returns", "fallible"),
    [
        ("toYaml", ("interface {}",), "string", False),
        ("mustToYaml", ("interface {}",), "string", False),
        ("toYamlPretty", ("interface {}",), "string", False),
        ("fromYaml", ("string",), "map[string]interface {}", False),
        ("fromYamlArray", ("string",), "[]interface {}", False),
        ("toJson", ("interface {}",), "string", False),
        ("mustToJson", ("interface {}",), "string", False),
        ("fromJson", ("string",), "map[string]interface {}", False),
        ("fromJsonArray", ("string",), "[]interface {}", False),
        ("toToml", ("interface {}",), "string", False),
        ("fromToml", ("string",), "map[string]interface {}", False),
        ("toPrettyJson", ("interface {}",), "string", False),
        ("mustToPrettyJson", ("interface {}",), "string", True),
        ("toRawJson", ("interface {}",), "string", False),
        ("mustToRawJson", ("interface {}",), "string", True),
        ("mustFromJson", ("string",), "interface {}", True),
        ("fail", ("string",), "string", True),
    ],
)
def test_go_signatures(name: str, params: tuple[str, ...], returns: str, fallible: bool) -> None:
    func = FUNCS[name]
    assert (func.params, func.returns, func.fallible, func.variadic) == (
        params,
        returns,
        fallible,
        None,
    )


# -- cases from Helm's funcs_test.go


def test_to_yaml() -> None:
    assert call("toYaml", {"foo": "bar"}) == "foo: bar"


def test_to_toml() -> None:
    assert call("toToml", {"foo": "bar"}) == 'foo = "bar"\n'
    assert call("toToml", {"mast": {"sail": "white"}}) == '[mast]\n  sail = "white"\n'


def test_to_json() -> None:
    assert call("toJson", {"foo": "bar"}) == '{"foo":"bar"}'


def test_from_yaml() -> None:
    assert call("fromYaml", "hello: world") == {"hello": "world"}
    assert call("fromYaml", "- one\n- two\n") == {
        "Error": "error unmarshaling JSON: while decoding JSON: json: cannot unmarshal array "
        "into Go value of type map[string]interface {}"
    }


def test_from_yaml_array() -> None:
    assert call("fromYamlArray", "- one\n- 2\n- name: helm\n") == ["one", 2.0, {"name": "helm"}]
    assert call("fromYamlArray", '["one", 2, { "name": "helm" }]') == ["one", 2.0, {"name": "helm"}]
    assert call("fromYamlArray", "hello: world") == [
        "error unmarshaling JSON: while decoding JSON: json: cannot unmarshal object "
        "into Go value of type []interface {}"
    ]


def test_from_json() -> None:
    assert call("fromJson", '{"hello":"world"}') == {"hello": "world"}
    assert call("fromJson", '["one", "two"]') == {
        "Error": "json: cannot unmarshal array into Go value of type map[string]interface {}"
    }


def test_from_json_array() -> None:
    assert call("fromJsonArray", '["one", 2, { "name": "helm" }]') == ["one", 2.0, {"name": "helm"}]
    assert call("fromJsonArray", '{"hello": "world"}') == [
        "json: cannot unmarshal object into Go value of type []interface {}"
    ]


# -- error behaviour of the Go code


def test_writers_that_swallow_errors() -> None:
    assert call("toYaml", NAN) == ""
    assert call("toJson", NAN) == ""
    assert call("toPrettyJson", [NAN]) == ""


def test_must_writers_fail_the_render() -> None:
    with pytest.raises(
        FuncError, match="^error marshaling into JSON: json: unsupported value: NaN$"
    ):
        call("mustToYaml", NAN)
    with pytest.raises(FuncError, match=r"^json: unsupported value: \+Inf$"):
        call("mustToJson", float("inf"))
    with pytest.raises(FuncError, match="^json: unsupported value: NaN$"):
        call("mustToPrettyJson", NAN)


def test_raw_json_keeps_html_and_panics_on_error() -> None:
    assert call("toRawJson", {"a": "<&>"}) == '{"a":"<&>"}'
    assert call("mustToRawJson", "<b>") == '"<b>"'
    with pytest.raises(FuncError, match="^json: unsupported value: -Inf$"):
        call("toRawJson", float("-inf"))


def test_pretty_json() -> None:
    assert call("toPrettyJson", {"a": [1.0, {}]}) == '{\n  "a": [\n    1,\n    {}\n  ]\n}'


def test_to_yaml_pretty() -> None:
    assert call("toYamlPretty", {"list": ["a", "b"], "n": 1e6}) == 'list:\n  - a\n  - b\n"n": 1e+06'


def test_from_json_errors_keep_what_was_read() -> None:
    assert call("fromJson", '{"a": 1e400, "b": 2}') == {
        "Error": "json: cannot unmarshal number 1e400 into Go value of type float64",
        "a": None,
        "b": 2.0,
    }
    assert call("fromJson", "") == {"Error": "unexpected end of JSON input"}


def test_must_from_json() -> None:
    assert call("mustFromJson", "[1, 2]") == [1.0, 2.0]
    with pytest.raises(FuncError, match="^invalid character ']' looking for beginning of value$"):
        call("mustFromJson", "[1,]")


def test_to_toml_errors_are_returned_as_text() -> None:
    assert call("toToml", {"a": [None]}) == "toml: cannot encode array with nil element"
    with pytest.raises(FuncError, match="reflect: call of reflect.Value.Type on zero Value"):
        call("toToml", None)


def test_from_toml() -> None:
    assert call("fromToml", "a = 1\nb = [1, 2.5]") == {"a": 1, "b": [1, 2.5]}
    assert call("fromToml", "a = ")["Error"].startswith("toml: line 1")


def test_fail() -> None:
    with pytest.raises(FuncError, match="^boom$"):
        call("fail", "boom")
