"""Helm's own template functions (pkg/engine/funcs.go) and Sprig's JSON family.

Helm 4.1.4's funcMap starts from Sprig's TxtFuncMap, deletes env/expandenv
and sets toToml, fromToml, toYaml, mustToYaml, toYamlPretty, fromYaml,
fromYamlArray, toJson, mustToJson, fromJson, fromJsonArray (overriding
Sprig's toJson/mustToJson/fromJson), plus the engine-bound include, tpl,
required and lookup (runner.engine). Sprig still supplies toPrettyJson,
mustToPrettyJson, toRawJson, mustToRawJson, mustFromJson and fail.

Error behaviour follows the Go code: the non-must writers swallow errors
(empty string; toToml returns the error text), the readers put the error
into the result (`Error` key, or the only list item), the must* ones fail
the render ("error calling mustToYaml: ...").
"""

from __future__ import annotations

from runner.encoding import gojson, goyaml
from runner.funcs.registry import gofunc
from runner.golang.gofunc import FuncError

TYPE_CHECKING = False  # `typing` costs ~2 ms at every start: see docs/speed.md
if TYPE_CHECKING:
    from typing import Any

ANY = "interface {}"
MAP = "map[string]interface {}"
LIST = "[]interface {}"


def _trim_newline(text: str) -> str:
    return text[:-1] if text.endswith("\n") else text


# ------------------------------------------------------------ YAML


@gofunc("toYaml", (ANY,), returns="string")
def to_yaml(value: Any) -> str:
    """sigs.k8s.io/yaml.Marshal without its final newline; "" on error."""
    try:
        return _trim_newline(goyaml.dump(value))
    except goyaml.EncodeError:
        return ""


@gofunc("mustToYaml", (ANY,), returns="string")
def must_to_yaml(value: Any) -> str:
    """toYaml, but a marshal error fails the render (Go panics with it)."""
    try:
        return _trim_newline(goyaml.dump(value))
    except goyaml.EncodeError as exc:
        raise FuncError(str(exc)) from None


@gofunc("toYamlPretty", (ANY,), returns="string")
def to_yaml_pretty(value: Any) -> str:
    """go-yaml v3 Encoder with SetIndent(2), final newline trimmed; "" on error."""
    try:
        return _trim_newline(goyaml.dump_pretty(value))
    except goyaml.EncodeError:
        return ""


@gofunc("fromYaml", ("string",), returns=MAP)
def from_yaml(text: str) -> dict[str, Any]:
    """A YAML mapping as a dict; on error {"Error": message} (plus what was read)."""
    try:
        return goyaml.load_into(text, dict)
    except goyaml.GoYAMLError as exc:
        return {"Error": exc.unmarshal_message}


@gofunc("fromYamlArray", ("string",), returns=LIST)
def from_yaml_array(text: str) -> list[Any]:
    """A YAML sequence as a list; on error a list holding only the message."""
    try:
        return goyaml.load_into(text, list)
    except goyaml.GoYAMLError as exc:
        return [exc.unmarshal_message]


# ------------------------------------------------------------ JSON


@gofunc("toJson", (ANY,), returns="string")
def to_json(value: Any) -> str:
    """json.Marshal (HTML-escaped); "" on error."""
    try:
        return gojson.marshal(value)
    except gojson.MarshalError:
        return ""


@gofunc("mustToJson", (ANY,), returns="string")
def must_to_json(value: Any) -> str:
    """json.Marshal; an error fails the render (Helm 4 panics with it)."""
    try:
        return gojson.marshal(value)
    except gojson.MarshalError as exc:
        raise FuncError(str(exc)) from None


@gofunc("toPrettyJson", (ANY,), returns="string")
def to_pretty_json(value: Any) -> str:
    """Sprig: json.MarshalIndent(v, "", "  "); "" on error."""
    try:
        return gojson.marshal_indent(value, "", "  ")
    except gojson.MarshalError:
        return ""


@gofunc("mustToPrettyJson", (ANY,), returns="string", fallible=True)
def must_to_pretty_json(value: Any) -> str:
    try:
        return gojson.marshal_indent(value, "", "  ")
    except gojson.MarshalError as exc:
        raise FuncError(str(exc)) from None


def _raw_json(value: Any) -> str:
    """Sprig mustToRawJson: an Encoder with SetEscapeHTML(false), newline trimmed."""
    try:
        return gojson.marshal(value, escape_html=False)
    except gojson.MarshalError as exc:
        raise FuncError(str(exc)) from None


@gofunc("toRawJson", (ANY,), returns="string")
def to_raw_json(value: Any) -> str:
    """Sprig toRawJson panics on error, so unlike toJson it fails the render."""
    return _raw_json(value)


@gofunc("mustToRawJson", (ANY,), returns="string", fallible=True)
def must_to_raw_json(value: Any) -> str:
    return _raw_json(value)


@gofunc("fromJson", ("string",), returns=MAP)
def from_json(text: str) -> dict[str, Any]:
    """A JSON object as a dict; on error the message under "Error"."""
    try:
        return gojson.unmarshal_into(text, dict)
    except gojson.UnmarshalError as exc:
        result = exc.partial if isinstance(exc.partial, dict) else {}
        result["Error"] = str(exc)
        return result


@gofunc("fromJsonArray", ("string",), returns=LIST)
def from_json_array(text: str) -> list[Any]:
    """A JSON array as a list; on error a list holding only the message."""
    try:
        return gojson.unmarshal_into(text, list)
    except gojson.UnmarshalError as exc:
        return [str(exc)]


@gofunc("mustFromJson", ("string",), returns=ANY, fallible=True)
def must_from_json(text: str) -> Any:
    """Sprig: json.Unmarshal into interface{}; the error fails the render."""
    try:
        return gojson.unmarshal(text)
    except gojson.UnmarshalError as exc:
        raise FuncError(str(exc)) from None


# ------------------------------------------------------------ TOML


@gofunc("toToml", (ANY,), returns="string")
def to_toml(value: Any) -> str:
    """BurntSushi/toml Encoder; on error the error's text (not an empty string)."""
    if value is None:
        # The encoder reflects on the nil interface and panics.
        raise FuncError("reflect: call of reflect.Value.Type on zero Value")
    from runner.encoding import gotoml  # tomllib and the TOML tables only when used

    try:
        return gotoml.dump(value)
    except gotoml.TOMLError as exc:
        return str(exc)


@gofunc("fromToml", ("string",), returns=MAP)
def from_toml(text: str) -> dict[str, Any]:
    """toml.Unmarshal into a map; on error the message under "Error"."""
    from runner.encoding import gotoml

    try:
        return gotoml.load(text)
    except gotoml.TOMLError as exc:
        return {"Error": str(exc)}


# ------------------------------------------------------------ flow control


@gofunc("fail", ("string",), returns="string", fallible=True)
def fail(message: str) -> str:
    """Sprig's fail: always an error with the given text.

    Helm's engine rebinds fail per render (it wraps the text so the error
    reads "execution error at (<template>:<line>:<col>): <message>"); this is
    the plain Sprig function for renders outside the engine.
    """
    raise FuncError(message)
