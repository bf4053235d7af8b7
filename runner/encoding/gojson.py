"""encoding/json as Helm's templates see it: Marshal, MarshalIndent, Unmarshal.

Marshal: map keys sorted, floats in encoding/json's text ('f' for
1e-6 <= |x| < 1e21, else 'e' with "e-07" trimmed to "e-7"), `<`, `>`, `&`,
U+2028 and U+2029 escaped as \\u003c ... (unless escape_html=False, as
json.Encoder.SetEscapeHTML(false) for toRawJson), invalid UTF-8 (lone
surrogates here) as U+FFFD, []byte (bytes) as base64, time.Time (datetime)
as RFC 3339 with nanoseconds. NaN and infinities are errors, as in Go.

Objects standing for Go structs marshal through a hook: a `__go_json__()`
(or `go_json()`) method returning the plain value (dict/list/str/...) Go
would encode; a struct returns a `StructFields` (its JSON names in field
declaration order, written in that order). Typed nil maps and slices
(runner.golang.types.NilMap, ...) marshal as null.

Unmarshal into interface{}: numbers are float64 (Python float), errors carry
Go's text ("invalid character 'x' looking for beginning of value",
"unexpected end of JSON input").

Python's json is imported where it is used: every render loads this module
(the YAML emitter uses it), and most charts never call toJson or fromJson.
"""

from __future__ import annotations

import math

from runner.golang.strconv import format_float, json_float
from runner.golang.types import HelmValues, NilMap, NilSlice, go_type_name, is_time
from runner.lazy_pattern import LazyPattern

TYPE_CHECKING = False  # `typing` costs ~2 ms at every start: see docs/speed.md
if TYPE_CHECKING:
    from datetime import datetime
    from typing import Any


class StructFields(dict):
    """A Go struct's JSON object: encoding/json writes struct fields in declaration
    order (with their json tags), not sorted as map keys. A `go_json()` hook returns
    one for a struct; toYaml still sorts it, as sigs.k8s.io/yaml reads the JSON
    back into a map."""

    __slots__ = ()


class MarshalError(ValueError):
    """json.Marshal failed; str() is Go's text ("json: unsupported value: NaN")."""

    def __init__(self, message: str, stage: str = "marshal") -> None:
        super().__init__(message)
        self.stage = stage


class UnmarshalError(ValueError):
    """json.Unmarshal failed; str() is Go's text. `partial` is what Go would have filled in."""

    def __init__(self, message: str, partial: Any = None) -> None:
        super().__init__(message)
        self.partial = partial


# ------------------------------------------------------------ marshal

_SURROGATE = LazyPattern("[\ud800-\udfff]")


def _has_surrogate(text: str) -> bool:
    """Whether text holds a surrogate (how a Go string's invalid UTF-8 reads):
    strict UTF-8 encoding fails on nothing else, and needs no class compiled."""
    if text.isascii():
        return False
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def _escape_specials(text: str, escape_html: bool) -> str:
    """encoding/json's escapes of <, > and & (with HTML escaping) and of U+2028 / U+2029."""
    if escape_html:
        text = text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
    if not text.isascii():
        text = text.replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")
    return text


def quote(s: str, escape_html: bool = True) -> str:
    """encoding/json's string text (Go 1.22+: \\b and \\f short escapes)."""
    from json.encoder import encode_basestring  # type: ignore[attr-defined]

    if _has_surrogate(s):
        s = _SURROGATE.sub("\ufffd", s)
    return _escape_specials(encode_basestring(s), escape_html)


def float_text(f: float) -> str:
    """A float64 as encoding/json writes it; NaN and ±Inf raise MarshalError."""
    if math.isnan(f) or math.isinf(f):
        raise MarshalError(f"json: unsupported value: {format_float(f)}")
    return json_float(f)


def time_text(t: datetime) -> str:
    """time.Time.MarshalJSON's text without quotes (RFC 3339, trailing zeros trimmed)."""
    if t.tzinfo is None:
        from datetime import UTC  # loaded: t is a datetime

        t = t.replace(tzinfo=UTC)
    nanos = t.microsecond * 1000 + getattr(t, "extra_ns", 0)  # GoTime keeps nanoseconds
    frac = f".{nanos:09d}".rstrip("0") if nanos else ""
    offset = t.utcoffset()
    if not offset:
        zone = "Z"
    else:
        minutes = int(offset.total_seconds()) // 60
        hours, mins = divmod(abs(minutes), 60)
        zone = f"{'-' if minutes < 0 else '+'}{hours:02d}:{mins:02d}"
    return f"{t.year:04d}-{t.month:02d}-{t.day:02d}T{t.hour:02d}:{t.minute:02d}:{t.second:02d}{frac}{zone}"


def key_text(key: Any) -> str:
    """A map key as encoding/json writes it (string keys as is, integers in decimal)."""
    if type(key) is str:
        return key
    if isinstance(key, bool) or not isinstance(key, int | str):
        raise MarshalError(f"json: unsupported type: map[{go_type_name(key)}]interface {{}}")
    return str(key) if isinstance(key, str) else str(int(key))


def json_shape(value: Any) -> Any:
    """An uncommon Go value as the plain value its JSON text stands for (one level)."""
    if is_time(value):
        return time_text(value)
    if isinstance(value, bytes | bytearray):
        import base64  # []byte values are rare: not loaded by most renders

        return base64.b64encode(bytes(value)).decode()
    hook = getattr(value, "__go_json__", None) or getattr(value, "go_json", None)
    if hook is not None:
        return hook()
    raise MarshalError(f"json: unsupported type: {go_type_name(value)}")


def _encode(value: Any, out: list[str], html: bool) -> None:
    kind = type(value)
    if kind is str:
        out.append(quote(value, html))
    elif kind is dict:
        _encode_map(value, out, html)
    elif kind is list:
        _encode_list(value, out, html)
    elif value is None:
        out.append("null")
    elif kind is bool:
        out.append("true" if value else "false")
    elif kind is float:
        out.append(float_text(value))
    elif kind is int:
        out.append(str(value))
    else:
        _encode_other(value, out, html)


def _encode_other(value: Any, out: list[str], html: bool) -> None:
    if getattr(value, "go_nil", False):
        out.append("null")  # a typed nil map or slice
    elif isinstance(value, StructFields):
        _encode_fields(value, out, html)
    elif isinstance(value, bool):
        out.append("true" if value else "false")
    elif isinstance(value, int):
        out.append(str(int(value)))
    elif isinstance(value, float):
        out.append(float_text(float(value)))
    elif isinstance(value, str):
        out.append(quote(str(value), html))
    elif isinstance(value, dict):
        _encode_map(value, out, html)
    elif isinstance(value, list | tuple):
        _encode_list(value, out, html)
    else:
        _encode(json_shape(value), out, html)


def _encode_map(value: dict[Any, Any], out: list[str], html: bool) -> None:
    if not value:
        out.append("{}")
        return
    keys = {key_text(k): k for k in value}
    sep = "{"
    for text in sorted(keys):
        out.append(sep)
        out.append(quote(text, html))
        out.append(":")
        _encode(value[keys[text]], out, html)
        sep = ","
    out.append("}")


def _encode_fields(value: StructFields, out: list[str], html: bool) -> None:
    sep = "{"
    for name, item in value.items():
        out.append(sep)
        out.append(quote(name, html))
        out.append(":")
        _encode(item, out, html)
        sep = ","
    out.append("}" if value else "{}")


def _encode_list(value: Any, out: list[str], html: bool) -> None:
    if not value:
        out.append("[]")
        return
    sep = "["
    for item in value:
        out.append(sep)
        _encode(item, out, html)
        sep = ","
    out.append("]")


def marshal(value: Any, escape_html: bool = True) -> str:
    """json.Marshal(value) as text; raises MarshalError with Go's message."""
    fast = _fast_dumps(value, escape_html, None)
    if fast is not None:
        return fast
    out: list[str] = []
    _encode(value, out, escape_html)
    return "".join(out)


def check_marshal(value: Any) -> None:
    """Raise the MarshalError json.Marshal meets first for a NaN or an infinity in `value`
    (map keys in sorted order), walking without recursion: `value` may nest very deep."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, float):
            float_text(item)  # raises for NaN and infinities
        elif isinstance(item, StructFields):
            stack.extend(reversed(list(item.values())))
        elif isinstance(item, dict):
            stack.extend(item[k] for k in sorted(item, key=str, reverse=True))
        elif isinstance(item, list | tuple):
            stack.extend(reversed(item))


def marshal_indent(
    value: Any, prefix: str = "", indent: str = "  ", escape_html: bool = True
) -> str:
    """json.MarshalIndent(value, prefix, indent): Marshal, then json.Indent's layout."""
    if not prefix:
        fast = _fast_dumps(value, escape_html, indent)
        if fast is not None:
            return fast
    out: list[str] = []
    _indent(value, out, escape_html, prefix, indent, 0)
    return "".join(out)


# -- fast path: Python's C encoder, for values whose text it writes as Go does


class _NotPlain(Exception):
    """The value holds something only the Go-faithful encoder above writes right."""


_SAFE_INT = float(1 << 53)


def _plain(value: Any) -> Any:
    """A copy the C encoder writes as encoding/json would, or _NotPlain.

    Integral floats below 2**53 become ints (Go writes 80.0 as "80"); other
    floats in [1e-4, 1e16) are written alike by Python's repr and Go's
    shortest 'f' format; anything else takes the slow path.
    """
    kind = type(value)
    if kind is str or kind is int or kind is bool or value is None:
        return value
    if kind is float:
        magnitude = abs(value)
        if value.is_integer():
            if magnitude < _SAFE_INT and (value or math.copysign(1, value) > 0):
                return int(value)
            raise _NotPlain
        if 1e-4 <= magnitude < 1e16:
            return value
        raise _NotPlain
    if kind is dict or kind is HelmValues:  # `toJson .Values`
        out = {}
        for key, item in value.items():
            if type(key) is not str:
                raise _NotPlain
            out[key] = _plain(item)
        return out
    if kind is list:
        return [_plain(item) for item in value]
    if isinstance(value, bool):
        return bool(value)
    if isinstance(value, int):
        return int(value)
    if getattr(value, "go_nil", False):
        return None
    if isinstance(value, list | tuple):
        return [_plain(item) for item in value]
    raise _NotPlain


def _fast_dumps(value: Any, escape_html: bool, indent: str | None) -> str | None:
    try:
        plain = _plain(value)
    except _NotPlain:
        return None
    import json

    if indent is None:
        text = json.dumps(plain, ensure_ascii=False, separators=(",", ":"), sort_keys=True)
    else:
        text = json.dumps(
            plain, ensure_ascii=False, separators=(",", ": "), sort_keys=True, indent=indent
        )
    if _has_surrogate(text):
        return None
    return _escape_specials(text, escape_html)


def _indent(value: Any, out: list[str], html: bool, prefix: str, indent: str, depth: int) -> None:
    if isinstance(value, dict) and value:
        keys = {key_text(k): k for k in value}
        inner = "\n" + prefix + indent * (depth + 1)
        out.append("{")
        names = list(keys) if isinstance(value, StructFields) else sorted(keys)
        for i, text in enumerate(names):
            out.append(("," if i else "") + inner + quote(text, html) + ": ")
            _indent(value[keys[text]], out, html, prefix, indent, depth + 1)
        out.append("\n" + prefix + indent * depth + "}")
    elif isinstance(value, list | tuple) and value:
        inner = "\n" + prefix + indent * (depth + 1)
        out.append("[")
        for i, item in enumerate(value):
            out.append(("," if i else "") + inner)
            _indent(item, out, html, prefix, indent, depth + 1)
        out.append("\n" + prefix + indent * depth + "]")
    elif isinstance(value, dict | list | tuple | str | int | float) or value is None:
        _encode(value, out, html)
    else:
        _indent(json_shape(value), out, html, prefix, indent, depth)


# ------------------------------------------------------------ unmarshal


def _reject_constant(name: str) -> Any:
    raise ValueError(name)  # NaN/Infinity are not JSON; the scanner names the error


def unmarshal(text: str | bytes, *, ints: bool = False) -> Any:
    """json.Unmarshal(text, &v) with v interface{}: numbers float64 (int with ints=True).

    Raises UnmarshalError with Go's message; for a number out of float64's
    range, `partial` holds the value with that number as None, as Go leaves it.
    """
    import json

    if isinstance(text, bytes):
        text = text.decode("utf-8", "replace")
    range_errors: list[str] = []
    check_depth(text)
    try:
        result = _deep_enough(lambda: json.loads(
            text, parse_float=_numbers(range_errors, ints), parse_int=_numbers(range_errors, ints),
            parse_constant=_reject_constant), text)
    except ValueError as exc:
        # Python's decoder accepts what Go's scanner accepts; ask the scanner
        # port for Go's words only when something is wrong.
        from runner.encoding.jsonscan import syntax_error

        raise UnmarshalError(syntax_error(text) or str(exc)) from None
    if _has_surrogate(text) or ("\\u" in text and _SURROGATE_ESCAPE.search(text)):
        result = _replace_surrogates(result)  # invalid UTF-8 and lone escapes read as U+FFFD
    if range_errors:
        message = f"json: cannot unmarshal number {range_errors[0]} into Go value of type float64"
        raise UnmarshalError(message, partial=result)
    return result


_SURROGATE_ESCAPE = LazyPattern(r"\\u[dD][89a-fA-F]")


def raw_decode(text: str, pos: int) -> tuple[Any, int]:
    """The JSON value starting at text[pos] and where it ends, as a json.Decoder reads one
    value into interface{} (numbers float64); UnmarshalError with Go's text on any problem."""
    import json

    check_depth(text[pos:])
    range_errors: list[str] = []
    number = _numbers(range_errors, False)
    decoder = json.JSONDecoder(parse_float=number, parse_int=number,
                               parse_constant=_reject_constant)
    try:
        value, end = _deep_enough(lambda: decoder.raw_decode(text, pos), text)
    except ValueError as exc:
        raise UnmarshalError(str(exc)) from None
    if range_errors:
        raise UnmarshalError(
            f"json: cannot unmarshal number {range_errors[0]} into Go value of type float64")
    return value, end


def _numbers(range_errors: list[str], ints: bool) -> Any:
    """A parse_float/parse_int hook: float64 as Go parses it, out of range noted (not inf)."""

    def number(literal: str) -> Any:
        value = float(literal)
        if math.isinf(value):
            range_errors.append(literal)
            return None
        if ints and "." not in literal and "e" not in literal and "E" not in literal:
            return int(literal)
        return value

    return number


MAX_DEPTH = 10000  # encoding/json's maxNestingDepth
_INLINE_DEPTH = 200  # deeper text decodes on a deep thread (Python's decoder recurses in C)
_STRINGS = LazyPattern(r'"(?:[^"\\]|\\.)*"')
_NOT_BRACKET = LazyPattern(r"[^\[\]{}]+")


def check_depth(text: str) -> None:
    """Go's scanner refuses a value nested over 10000 deep (`invalid character '[' exceeded
    max depth`) before Python's decoder would recurse that far."""
    if text.count("[") + text.count("{") <= MAX_DEPTH:
        return
    brackets = _NOT_BRACKET.sub("", _STRINGS.sub("", text))
    depth = deepest = 0
    for char in brackets:
        depth += 1 if char in "[{" else -1
        deepest = max(deepest, depth)
    if deepest > MAX_DEPTH:
        from runner.encoding.jsonscan import syntax_error

        raise UnmarshalError(syntax_error(text) or "exceeded max depth")


def _deep_enough(work: Any, text: str) -> Any:
    """`work()`, on a deep thread when `text` may nest deeper than this one's stack allows."""
    from runner.deepstack import on_deep_thread, run_deep

    if text.count("[") + text.count("{") > _INLINE_DEPTH and not on_deep_thread():
        return run_deep(work)
    return work()


def _replace_surrogates(value: Any) -> Any:
    """Go decodes a lone \\ud800-style escape as U+FFFD (Python keeps the surrogate)."""
    if isinstance(value, str):
        return _SURROGATE.sub("\ufffd", value)
    if isinstance(value, list):
        return [_replace_surrogates(v) for v in value]
    if isinstance(value, dict):
        return {_replace_surrogates(k): _replace_surrogates(v) for k, v in value.items()}
    return value


def json_kind(value: Any) -> str:
    """The kind encoding/json names for a decoded value in an UnmarshalTypeError
    ("json: cannot unmarshal number into Go value of type ..."): bool, number,
    string, array or object."""
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    return "object"


def unmarshal_into(text: str | bytes, target: type) -> Any:
    """json.Unmarshal into *map[string]interface{} (dict) or *[]interface{} (list).

    null sets the target to a typed nil (NilMap / NilSlice: printed `map[]` /
    `[]`, marshalled as null); another kind raises UnmarshalError with
    "json: cannot unmarshal array into Go value of type map[string]interface {}".
    """
    value = unmarshal(text)
    if value is None:
        return NilMap() if target is dict else NilSlice()
    if isinstance(value, target):
        return value
    go_target = "map[string]interface {}" if target is dict else "[]interface {}"
    kind = json_kind(value)
    raise UnmarshalError(
        f"json: cannot unmarshal {kind} into Go value of type {go_target}", partial=target()
    )
