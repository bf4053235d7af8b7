"""YAML as Helm reads and writes it: sigs.k8s.io/yaml over go-yaml v2.

Reading (`load`) is sigs.k8s.io/yaml.Unmarshal into interface{}: go-yaml v2
decodes the first document with YAML 1.1 scalars (`y`, `yes`, `on`, `off`
are booleans, also as keys; `0x1F`, `017`, `1_000` are ints; timestamps stay
the text they were written as), map keys become strings, then a JSON round
trip turns every number into a float64 (Python float) unless `ints=True`.
libyaml (PyYAML's CParser) does the scanning and parsing — go-yaml v2 is a
port of the same C code, so its error texts match — and
runner.encoding.yamldecode applies go-yaml's resolution, merge-key and key
rules on the node tree. It (with PyYAML) is imported at the first parse:
writing YAML and resolving scalars (`resolve_plain`) never load it.

Where go-yaml v2's scanner differs from libyaml 0.2.5 (':' and '?' in flow
plain scalars, some escapes, redefined anchors) runner.encoding.goscan takes
over. Writing (`dump`, toYaml; `dump_pretty`, toYamlPretty) lives in
runner.encoding.yamlemit.
"""

from __future__ import annotations

import math
import re

from runner.encoding.yamlemit import EncodeError, dump, dump_pretty  # noqa: F401 - public API
from runner.lazy_pattern import LazyPattern

TYPE_CHECKING = False  # `typing` costs ~2 ms at every start: see docs/speed.md
if TYPE_CHECKING:
    from typing import Any

__all__ = [
    "EncodeError",
    "GoYAMLError",
    "Timestamp",
    "dump",
    "decode",
    "dump_pretty",
    "load",
    "load_all",
    "load_fields",
    "load_fields_and_node",
    "load_into",
    "resolve_plain",
]

class GoYAMLError(ValueError):
    """A YAML document Helm would reject; str() is go-yaml's (or encoding/json's) text.

    `unmarshal_message` is the whole sigs.k8s.io/yaml.Unmarshal error, as
    fromYaml shows it: "error converting YAML to JSON: yaml: line 2: ...".
    """

    def __init__(self, message: str, *, stage: str = "error converting YAML to JSON") -> None:
        super().__init__(message)
        self.unmarshal_message = f"{stage}: {message}"


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

_YAML_STYLE_FLOAT = LazyPattern(r"[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?")
_GO_DOT_FLOAT = LazyPattern(r"\.[0-9]+([eE][-+]?[0-9]+)?")
_GO_INT = LazyPattern(r"([-+]?)(0[xX][0-9a-fA-F]+|0[oO][0-7]+|0[bB][01]+|0[0-7]*|[1-9][0-9]*)")
_TIMESTAMP = LazyPattern(
    r"(\d{4})-(\d{1,2})-(\d{1,2})"
    r"(?:(?:[Tt](\d{1,2}):(\d{1,2}):(\d{1,2})(?:[.,]\d+)?(?:Z|[+-]\d\d:\d\d))"
    r"|(?: (\d{1,2}):(\d{1,2}):(\d{1,2})(?:[.,]\d+)?))?"
)
_INT64_MIN, _INT64_MAX, _UINT64_MAX = -(1 << 63), (1 << 63) - 1, (1 << 64) - 1
_DAYS = (31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)


class Timestamp(str):
    """Marks a plain scalar go-yaml resolves as !!timestamp (kept as its text)."""

    __slots__ = ()


# What the patterns can match at all: most scalars toYaml checks ("100Mi", "1.2.3")
# are told apart without compiling them.
_INT_CHARS = frozenset("+-0123456789abcdefABCDEFxXoObB")
_FLOAT_CHARS = frozenset("+-0123456789.eE")


def _go_parse_int(text: str) -> int | None:
    """strconv.ParseInt/ParseUint(text, 0, 64) syntax (underscores already removed)."""
    if text.isdigit() and text.isascii() and (text[0] != "0" or len(text) == 1):
        return int(text)
    if not _INT_CHARS.issuperset(text):
        return None
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
    if len(text) < 8 or text[4] != "-":
        return False
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
    if plain.count(".") <= 1 and _FLOAT_CHARS.issuperset(plain) and _YAML_STYLE_FLOAT.fullmatch(plain):
        number = float(plain)
        if not math.isinf(number):
            return number
    if plain.startswith("-0b") and re.fullmatch(r"-0b[01]+", plain):
        value = -int(plain[3:], 2)
        if value >= _INT64_MIN:
            return value
    return text


# ------------------------------------------------------------ errors


def _error_text(exc: Exception, text: str) -> str:
    """go-yaml v2 parser.fail(): "yaml: line N: problem" with its line quirks (of a YAMLError)."""
    from yaml import MarkedYAMLError  # loaded: PyYAML raised `exc`

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


def _composer_problem(exc: Any, problem: str, text: str) -> str:
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


_CONTROL = LazyPattern("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x84\x86-\x9f\ud800-\udfff\ufffe\uffff]")


# ------------------------------------------------------------ public API


def _text(data: str | bytes) -> str:
    if isinstance(data, bytes):
        return data.decode("utf-8", "surrogateescape")  # bad bytes: see _reader_guard
    return data


def load(data: str | bytes, *, ints: bool = False) -> Any:
    """sigs.k8s.io/yaml.Unmarshal of the first document into interface{}.

    Numbers are float64 (Python float); `ints=True` keeps integers as int
    (go-yaml's own typing, as JSONToYAML sees it). An empty document is None.
    Raises GoYAMLError with go-yaml's / encoding/json's text. Trees come from
    this run's memory, else from `decode`. Only a chart's own files are kept
    across runs (runner.encoding.yamlcache, through chartfile): what reaches
    here (fromYaml's rendered text, -f values, lint's documents, repository
    indexes) may hold secrets, and nothing of it is written to disk.
    """
    text = _text(data)
    key = (text, ints)
    cached = _LOAD_CACHE.get(key, _MISSING)
    if cached is not _MISSING:
        return _copy(cached)
    value = decode(text, ints)
    if len(text) <= 65536:
        if len(_LOAD_CACHE) >= 256:
            _LOAD_CACHE.clear()
        _LOAD_CACHE[key] = _copy(value)
    return value


# fromYaml often reads the same text many times in one render (loops,
# include output); callers may mutate what they get, so hand out copies.
_LOAD_CACHE: dict[tuple[str, bool], Any] = {}
_MISSING = object()


def decode(data: str | bytes, ints: bool = False) -> Any:
    """`load` without its caches: the first document parsed now (PyYAML imported at the first)."""
    text = _text(data)
    _reader_guard(text)
    from runner.encoding import yamldecode

    return yamldecode.first_document(text, ints)


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
    from runner.encoding import yamldecode

    return yamldecode.first_document_fields(text, keys, ints)


def load_fields_and_node(data: str | bytes, keys: tuple[str, ...], *, ints: bool = False) -> Any:
    """`load_fields`, and the document's node tree (PyYAML nodes with their marks; None
    for an empty document)."""
    text = _text(data)
    _reader_guard(text)
    from runner.encoding import yamldecode

    return yamldecode.first_document_fields_and_node(text, keys, ints)


def load_all(data: str | bytes, *, ints: bool = False) -> list[Any]:
    """Every document of a stream, each as `load` would give it."""
    text = _text(data)
    _reader_guard(text)
    from runner.encoding import yamldecode

    return yamldecode.all_documents(text, ints)


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
