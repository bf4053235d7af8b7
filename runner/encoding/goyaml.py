"""YAML as Helm reads and writes it: sigs.k8s.io/yaml over go-yaml v2.

Reading (`load`) is sigs.k8s.io/yaml.Unmarshal into interface{}: go-yaml v2
decodes the first document with YAML 1.1 scalars (`y`, `yes`, `on`, `off`
are booleans, also as keys; `0x1F`, `017`, `1_000` are ints; timestamps stay
the text they were written as), map keys become strings, then a JSON round
trip turns every number into a float64 (Python float) unless `ints=True`.
libyaml (PyYAML's CParser) does the scanning and parsing — go-yaml v2 is a
port of the same C code, so its error texts match — and this module applies
go-yaml's resolution, merge-key and key rules on the node tree.

Where go-yaml v2's scanner differs from libyaml 0.2.5 (':' and '?' in flow
plain scalars, some escapes, redefined anchors) runner.encoding.goscan takes
over. Writing (`dump`, toYaml; `dump_pretty`, toYamlPretty) lives in
runner.encoding.yamlemit.
"""

from __future__ import annotations

import math
import re
from typing import Any

from yaml import MarkedYAMLError, YAMLError
from yaml._yaml import CParser
from yaml.nodes import MappingNode, ScalarNode, SequenceNode

from runner.encoding import goscan
from runner.encoding.yamlemit import EncodeError, dump, dump_pretty  # noqa: F401 - public API
from runner.template.gotypes import format_float

__all__ = [
    "EncodeError",
    "GoYAMLError",
    "Timestamp",
    "dump",
    "dump_pretty",
    "load",
    "load_all",
    "load_fields",
    "load_into",
    "resolve_plain",
]

_PLAIN = "?"  # resolver tag for an untagged plain scalar
_QUOTED = "!"  # resolver tag for an untagged quoted (or "!"-tagged) scalar
_TAG = "tag:yaml.org,2002:"


class GoYAMLError(ValueError):
    """A YAML document Helm would reject; str() is go-yaml's (or encoding/json's) text.

    `unmarshal_message` is the whole sigs.k8s.io/yaml.Unmarshal error, as
    fromYaml shows it: "error converting YAML to JSON: yaml: line 2: ...".
    """

    def __init__(self, message: str, *, stage: str = "error converting YAML to JSON") -> None:
        super().__init__(message)
        self.unmarshal_message = f"{stage}: {message}"


class _Composer(CParser):
    """libyaml's composer with tag resolution left to go-yaml's rules below."""

    def resolve(self, kind: type, value: Any, implicit: tuple[bool, bool]) -> str:
        if kind is ScalarNode:
            return _PLAIN if implicit[0] else _QUOTED
        return ""

    def descend_resolver(self, *_: Any) -> None:
        return None

    def ascend_resolver(self, *_: Any) -> None:
        return None


# ------------------------------------------------------------ resolution

# go-yaml v2 resolve.go: words looked up before any number parsing.
_RESOLVE_MAP: dict[str, Any] = {}
for _words, _value in (
    (("y", "Y", "yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON"), True),
    (("n", "N", "no", "No", "NO", "false", "False", "FALSE", "off", "Off", "OFF"), False),
    (("", "~", "null", "Null", "NULL"), None),
    ((".nan", ".NaN", ".NAN"), math.nan),
    ((".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF"), math.inf),
    (("-.inf", "-.Inf", "-.INF"), -math.inf),
):
    for _word in _words:
        _RESOLVE_MAP[_word] = _value

_YAML_STYLE_FLOAT = re.compile(r"[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?")
_GO_DOT_FLOAT = re.compile(r"\.[0-9]+([eE][-+]?[0-9]+)?")
_GO_INT = re.compile(r"([-+]?)(0[xX][0-9a-fA-F]+|0[oO][0-7]+|0[bB][01]+|0[0-7]*|[1-9][0-9]*)")
_TIMESTAMP = re.compile(
    r"(\d{4})-(\d{1,2})-(\d{1,2})"
    r"(?:(?:[Tt](\d{1,2}):(\d{1,2}):(\d{1,2})(?:[.,]\d+)?(?:Z|[+-]\d\d:\d\d))"
    r"|(?: (\d{1,2}):(\d{1,2}):(\d{1,2})(?:[.,]\d+)?))?"
)
_INT64_MIN, _INT64_MAX, _UINT64_MAX = -(1 << 63), (1 << 63) - 1, (1 << 64) - 1
_DAYS = (31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)


class Timestamp(str):
    """Marks a plain scalar go-yaml resolves as !!timestamp (kept as its text)."""

    __slots__ = ()


def _go_parse_int(text: str) -> int | None:
    """strconv.ParseInt/ParseUint(text, 0, 64) syntax (underscores already removed)."""
    m = _GO_INT.fullmatch(text)
    if m is None:
        return None
    sign, body = m.groups()
    if len(body) > 1 and body[0] == "0":
        base = {"x": 16, "o": 8, "b": 2}.get(body[1].lower(), 8)
        digits = body[2:] if base != 8 or body[1] in "oO" else body[1:]
        value = int(digits, base)
    else:
        value = int(body)
    return -value if sign == "-" else value


def _is_timestamp(text: str) -> bool:
    """go-yaml v2 parseTimestamp: time.Parse with its four layouts (range-checked)."""
    m = _TIMESTAMP.fullmatch(text)
    if m is None:
        return False
    year, month, day = int(m[1]), int(m[2]), int(m[3])
    if not 1 <= month <= 12 or not 1 <= day <= _DAYS[month - 1]:
        return False
    leap = year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)
    if month == 2 and day == 29 and not leap:
        return False
    clock = m.group(4, 5, 6) if m[4] is not None else m.group(7, 8, 9)
    if clock[0] is None:
        return True
    hour, minute, second = (int(x) for x in clock)
    return hour < 24 and minute < 60 and second < 60


def resolve_plain(text: str) -> Any:
    """What go-yaml v2 makes of an untagged plain scalar (its resolve("", text)).

    Returns None, bool, int, float, a `Timestamp` (str subclass) or the str.
    """
    if text in _RESOLVE_MAP:
        return _RESOLVE_MAP[text]
    if not text:
        return text
    hint = text[0]
    if hint == ".":
        if _GO_DOT_FLOAT.fullmatch(text):
            value = float(text)
            if not math.isinf(value):
                return value
        return text
    if hint not in "+-0123456789":
        return text
    if _is_timestamp(text):
        return Timestamp(text)
    plain = text.replace("_", "")
    value = _go_parse_int(plain)
    if value is not None and _INT64_MIN <= value <= _UINT64_MAX:
        return value
    if _YAML_STYLE_FLOAT.fullmatch(plain):
        number = float(plain)
        if not math.isinf(number):
            return number
    if re.fullmatch(r"-0b[01]+", plain):
        value = -int(plain[3:], 2)
        if value >= _INT64_MIN:
            return value
    return text


# ------------------------------------------------------------ construction


class _Builder:
    """Turns libyaml nodes into Go values the way go-yaml v2 + the JSON round trip do."""

    def __init__(self, ints: bool) -> None:
        self.ints = ints
        # sigs.k8s.io/yaml turns go-yaml's value into JSON once go-yaml has decoded
        # the whole document: a key JSON cannot hold, then NaN or Inf (json.Marshal's
        # complaint), fail only when go-yaml itself found nothing wrong.
        self.key_error: GoYAMLError | None = None
        self.non_finite = False

    def document(self, node: Any) -> Any:
        """One document's value, or the error Helm reports first for it."""
        self.key_error, self.non_finite = None, False
        value = self.value(node)
        self.raise_json_errors(value)
        return value

    def raise_json_errors(self, value: Any) -> None:
        if self.key_error is not None:
            raise self.key_error
        if self.non_finite:
            bad = _first_non_finite(value)
            raise GoYAMLError(f"json: unsupported value: {format_float(bad)}")

    def value(self, node: Any) -> Any:
        if isinstance(node, ScalarNode):
            return self.json_value(self.scalar(node))
        if isinstance(node, SequenceNode):
            return [self.value(child) for child in node.value]
        return self.mapping(node)

    def json_value(self, value: Any) -> Any:
        """The JSON round trip: numbers become float64, NaN/Inf are errors (see __init__)."""
        if value is None or value is True or value is False or type(value) is str:
            return value
        if isinstance(value, float):
            if math.isnan(value) or math.isinf(value):
                self.non_finite = True
            return value
        if isinstance(value, int):
            return value if self.ints else float(value)
        return str(value)

    def scalar(self, node: Any) -> Any:
        tag, text = node.tag, node.value
        if tag == _PLAIN:
            value = resolve_plain(text)
            return str(value) if type(value) is Timestamp else value
        if tag == _QUOTED or tag == _TAG + "str" or not tag.startswith(_TAG):
            return text
        return self.tagged(tag[len(_TAG) :], text)

    def tagged(self, short: str, text: str) -> Any:
        if short == "binary":
            import base64

            # Go's base64.StdEncoding: padding required, only \r and \n skipped.
            data = text.replace("\r", "").replace("\n", "").encode("utf-8", "surrogateescape")
            try:
                return base64.b64decode(data, validate=True).decode("utf-8", "replace")
            except ValueError:
                raise GoYAMLError("yaml: !!binary value contains invalid base64 data") from None
        if short not in ("bool", "int", "float", "null", "timestamp"):
            return text
        value = resolve_plain(text)
        if short == "float" and type(value) is int:
            return float(value)
        if short == "timestamp" and type(value) is Timestamp:
            return str(value)
        expected = {"bool": bool, "int": int, "float": float, "null": type(None)}.get(short)
        if expected is not None and type(value) is not expected:
            shown = "!!" + {bool: "bool", int: "int", float: "float", type(None): "null"}.get(
                type(value), "str"
            )
            raise GoYAMLError(f"yaml: cannot decode {shown} `{text}` as a !!{short}")
        return value

    def mapping(self, node: Any) -> dict[str, Any]:
        out: dict[str, Any] = {}
        self.fill(node, out)
        return out

    def fill(self, node: Any, out: dict[str, Any]) -> None:
        """go-yaml v2 decoder.mapping: pairs in order, `<<` merges overwrite earlier keys."""
        for key_node, value_node in node.value:
            if (
                isinstance(key_node, ScalarNode)
                and key_node.value == "<<"
                and key_node.tag == _PLAIN
            ):
                self.merge(value_node, out)
                continue
            key = self.key(key_node, value_node)
            out[key] = self.value(value_node)

    def merge(self, node: Any, out: dict[str, Any]) -> None:
        if isinstance(node, MappingNode):
            self.fill(node, out)
            return
        if isinstance(node, SequenceNode) and all(isinstance(n, MappingNode) for n in node.value):
            for child in reversed(node.value):  # earlier maps take precedence
                self.fill(child, out)
            return
        raise GoYAMLError("yaml: map merge requires map or sequence of maps as the value")

    def key(self, node: Any, value_node: Any) -> str:
        """sigs.k8s.io/yaml convertToJSONableObject: non-string keys become strings."""
        if not isinstance(node, ScalarNode):
            raise GoYAMLError(f"yaml: invalid map key: {_go_syntax(self.raw(node))}")
        key = self.scalar(node)
        if type(key) is str:
            return key
        if key is True or key is False:
            return "true" if key else "false"
        if isinstance(key, float):
            # sigs.k8s.io/yaml formats float keys with float32 precision.
            text = format_float(key, "g", -1, 32)
            return {"+Inf": ".inf", "-Inf": "-.inf", "NaN": ".nan"}.get(text, text)
        if isinstance(key, int) and key <= _INT64_MAX:
            return str(key)
        if self.key_error is None:  # raised once the document is decoded (see __init__)
            value = _go_syntax(self.raw(value_node))
            self.key_error = GoYAMLError(
                f"unsupported map key of type: uint64, key: {key:#x}, value: {value}"
                if isinstance(key, int)
                else f"unsupported map key of type: %!s(<nil>), key: <nil>, value: {value}"
            )
        return str(key)

    def raw(self, node: Any) -> Any:
        """The go-yaml value before the JSON conversion (for error texts only)."""
        if isinstance(node, ScalarNode):
            return self.scalar(node)
        if isinstance(node, SequenceNode):
            return [self.raw(child) for child in node.value]
        return {self.raw(k): self.raw(v) for k, v in node.value}


class _Checker(_Builder):
    """Walks a node tree raising exactly what _Builder would, building nothing."""

    def value(self, node: Any) -> None:
        if isinstance(node, ScalarNode):
            # Only tagged scalars and go-yaml's words (.nan, .inf) can fail the JSON round trip.
            if node.tag != _QUOTED and (node.tag != _PLAIN or node.value in _RESOLVE_MAP):
                self.json_value(self.scalar(node))
        elif isinstance(node, SequenceNode):
            for child in node.value:
                self.value(child)
        else:
            self.fill(node, {})


class _NodePicker(_Builder):
    """A mapping's keys, merges applied, each to its value's node (left unbuilt)."""

    def value(self, node: Any) -> Any:
        return node


def _first_non_finite(value: Any) -> Any:
    """The NaN or Inf json.Marshal meets first (it writes map keys sorted), else None."""
    if isinstance(value, float) and (math.isnan(value) or math.isinf(value)):
        return value
    children = [value[k] for k in sorted(value)] if isinstance(value, dict) else value
    if isinstance(children, list):
        for child in children:
            found = _first_non_finite(child)
            if found is not None:
                return found
    return None


def _go_syntax(value: Any, nested: bool = False) -> str:
    """A small `%#v` for go-yaml values in error texts."""
    if value is None:
        return "interface {}(nil)" if nested else "<nil>"
    if isinstance(value, str):
        from runner.template.gofmt import quote

        return quote(value)
    if value is True or value is False:
        return "true" if value else "false"
    if isinstance(value, list):
        return "[]interface {}{" + ", ".join(_go_syntax(v, True) for v in value) + "}"
    if isinstance(value, dict):
        ordered = sorted(value.items(), key=lambda kv: (not isinstance(kv[0], str), str(kv[0])))
        items = ", ".join(f"{_go_syntax(k, True)}:{_go_syntax(v, True)}" for k, v in ordered)
        return "map[interface {}]interface {}{" + items + "}"
    if isinstance(value, float):
        return format_float(value, "g", -1, 64)
    return str(value)


# ------------------------------------------------------------ errors


def _error_text(exc: YAMLError, text: str) -> str:
    """go-yaml v2 parser.fail(): "yaml: line N: problem" with its line quirks."""
    if not isinstance(exc, MarkedYAMLError):
        return "yaml: " + str(exc)
    name = type(exc).__name__
    if name == "ReaderError":
        return "yaml: control characters are not allowed"
    problem = exc.problem or "unknown problem parsing YAML content"
    if name == "ComposerError":
        return "yaml: " + _composer_problem(exc, problem, text)
    line = 0
    if exc.problem_mark is not None and exc.problem_mark.line != 0:
        line = exc.problem_mark.line + (1 if name == "ScannerError" else 0)
    elif exc.context_mark is not None:
        line = exc.context_mark.line
    where = f"line {line}: " if line else ""
    return f"yaml: {where}{problem}"


def _composer_problem(exc: MarkedYAMLError, problem: str, text: str) -> str:
    if problem.startswith("found undefined alias") and exc.problem_mark is not None:
        # libyaml does not name the alias; read it at the mark as go-yaml shows it.
        line = text.splitlines()[exc.problem_mark.line] if text else ""
        match = re.match(r"\*([0-9A-Za-z_-]*)", line[exc.problem_mark.column :])
        return f"unknown anchor '{match[1] if match else ''}' referenced"
    return problem


def _reader_guard(text: str) -> None:
    # go-yaml's reader rejects these before parsing (libyaml reports them later).
    found = _CONTROL.search(text)
    if found is None:
        return
    if "\ud800" <= found[0] <= "\udfff":
        raise GoYAMLError("yaml: " + _utf8_problem(text, found.start()))
    raise GoYAMLError("yaml: control characters are not allowed")


def _utf8_problem(text: str, at: int) -> str:
    """go-yaml's reader complaint for an invalid byte (kept as a surrogate escape)."""
    octet = ord(text[at]) - 0xDC00
    if 0xC2 <= octet <= 0xF4:
        return (
            "incomplete UTF-8 octet sequence"
            if at + 1 == len(text)
            else "invalid trailing UTF-8 octet"
        )
    return "invalid leading UTF-8 octet"


_CONTROL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x84\x86-\x9f\ud800-\udfff\ufffe\uffff]")


# ------------------------------------------------------------ public API


def _text(data: str | bytes) -> str:
    if isinstance(data, bytes):
        return data.decode("utf-8", "surrogateescape")  # bad bytes: see _reader_guard
    return data


def _nodes(text: str, first_only: bool) -> list[Any]:
    """Node trees of the documents (or just the first), parsed as go-yaml v2 would."""
    if goscan.needs_go_scanner(text):
        return _go_nodes(text, first_only)
    if "!" in text and _NON_SPECIFIC_TAG.search(text):  # the find is ~50x faster
        nodes = _event_nodes(text, first_only)  # sees a "!" tag libyaml's composer hides
    else:
        nodes = _libyaml_nodes(text, first_only)
    if goscan.may_split_on_question_mark(text) and goscan.has_flow_plain_question_mark(nodes):
        return _go_nodes(text, first_only)
    return nodes


# "! 2": go-yaml gives the non-specific tag's value as a string.
_NON_SPECIFIC_TAG = re.compile(r"(?:^|[\s\[{,])!(?=[\s\]},]|$)", re.M)


def _libyaml_nodes(text: str, first_only: bool) -> list[Any]:
    composer = _Composer(text)
    try:
        nodes = []
        while composer.check_node():
            nodes.append(composer.get_node())
            if first_only:
                break
        return nodes
    except YAMLError as exc:
        problem = getattr(exc, "problem", None) or ""
        if isinstance(exc, MarkedYAMLError) and goscan.differs_after_error(problem):
            return _go_nodes(text, first_only)
        if "duplicate anchor" in (getattr(exc, "context", None) or "") + problem:
            return _event_nodes(text, first_only)
        raise GoYAMLError(_error_text(exc, text)) from None
    finally:
        composer.dispose()


def _event_nodes(text: str, first_only: bool) -> list[Any]:
    parser = _Composer(text)
    try:
        return goscan.compose_events(parser, first_only)
    except YAMLError as exc:
        problem = getattr(exc, "problem", None) or ""
        if isinstance(exc, MarkedYAMLError) and goscan.differs_after_error(problem):
            return _go_nodes(text, first_only)
        raise GoYAMLError(_error_text(exc, text)) from None
    finally:
        parser.dispose()


def _go_nodes(text: str, first_only: bool) -> list[Any]:
    try:
        return goscan.compose(text, first_only)
    except MarkedYAMLError as exc:
        exc.problem = goscan.libyaml_problem(exc)
        raise GoYAMLError(_error_text(exc, text)) from None


def load(data: str | bytes, *, ints: bool = False) -> Any:
    """sigs.k8s.io/yaml.Unmarshal of the first document into interface{}.

    Numbers are float64 (Python float); `ints=True` keeps integers as int
    (go-yaml's own typing, as JSONToYAML sees it). An empty document is None.
    Raises GoYAMLError with go-yaml's / encoding/json's text.
    """
    text = _text(data)
    key = (text, ints)
    cached = _LOAD_CACHE.get(key, _MISSING)
    if cached is not _MISSING:
        return _copy(cached)
    _reader_guard(text)
    nodes = _nodes(text, first_only=True)
    value = _Builder(ints).document(nodes[0]) if nodes else None
    if len(text) <= 65536:
        if len(_LOAD_CACHE) >= 256:
            _LOAD_CACHE.clear()
        _LOAD_CACHE[key] = _copy(value)
    return value


# fromYaml often reads the same text many times in one render (loops,
# include output); callers may mutate what they get, so hand out copies.
_LOAD_CACHE: dict[tuple[str, bool], Any] = {}
_MISSING = object()


def _copy(value: Any) -> Any:
    kind = type(value)
    if kind is dict:
        return {k: _copy(v) if type(v) in (dict, list) else v for k, v in value.items()}
    if kind is list:
        return [_copy(v) if type(v) in (dict, list) else v for v in value]
    return value


def load_fields(data: str | bytes, keys: tuple[str, ...], *, ints: bool = False) -> Any:
    """`load` for a reader of a few top-level keys (Helm's SimpleHead, say).

    The whole document is checked as `load` checks it (same errors, same
    order), but of a mapping only the values of `keys` are built: the result
    holds those of them that are present. Any other document comes whole.
    """
    text = _text(data)
    _reader_guard(text)
    nodes = _nodes(text, first_only=True)
    if not nodes:
        return None
    top = nodes[0]
    builder = _Builder(ints)
    if not isinstance(top, MappingNode):
        return builder.document(top)
    checker = _Checker(ints)
    checker.value(top)
    if checker.key_error is not None or checker.non_finite:
        builder.document(top)  # raises: the whole value tells which NaN json.Marshal meets first
    picked: dict[str, Any] = {}
    _NodePicker(ints).fill(top, picked)
    return {key: builder.value(picked[key]) for key in keys if key in picked}


def load_all(data: str | bytes, *, ints: bool = False) -> list[Any]:
    """Every document of a stream, each as `load` would give it."""
    text = _text(data)
    _reader_guard(text)
    builder = _Builder(ints)
    return [builder.document(node) for node in _nodes(text, first_only=False)]


_JSON_KIND = {
    bool: "bool",
    str: "string",
    float: "number",
    int: "number",
    list: "array",
    dict: "object",
}


def load_into(data: str | bytes, target: type) -> Any:
    """sigs.k8s.io/yaml.Unmarshal into *map[string]interface{} (dict) or *[]interface{} (list).

    A null document gives an empty value; a document of another kind raises
    GoYAMLError whose unmarshal_message is the JSON decoder's complaint.
    """
    value = load(data)
    if value is None:
        return target()
    if isinstance(value, target):
        return value
    go_target = "map[string]interface {}" if target is dict else "[]interface {}"
    kind = _JSON_KIND.get(type(value), "object")
    raise GoYAMLError(
        f"while decoding JSON: json: cannot unmarshal {kind} into Go value of type {go_target}",
        stage="error unmarshaling JSON",
    )
