"""toYaml's writer: sigs.k8s.io/yaml.Marshal = encoding/json, then go-yaml v2's emitter.

Marshal first writes the value as JSON (map keys become strings, floats take
encoding/json's text, NaN/Inf are errors), reads that JSON back with go-yaml
v2 (integers stay integers, other numbers are float64) and emits it with
go-yaml v2: keys in its "natural" order (sorter.go), strings quoted only when
they would read back as something else (resolve.go, encode.go stringv), the
scalar style chosen by libyaml's analysis (emitterc.go analyze_scalar /
select_scalar_style), long lines folded past column 80, sequences inside
mappings not indented. This module does all of that in one pass over the
Python value instead of building the JSON text.
"""

from __future__ import annotations

import re
import unicodedata
from datetime import datetime
from functools import cmp_to_key
from typing import Any

from runner.encoding import gojson
from runner.template.gotypes import format_float

BEST_WIDTH = 80
_BREAKS = "\r\n\x85\u2028\u2029"
_PLAIN, _SINGLE, _DOUBLE, _LITERAL = range(4)


class EncodeError(ValueError):
    """yaml.Marshal failed; str() is the Go error text ("error marshaling into JSON: ...")."""


# ------------------------------------------------------------ scalar analysis

_NON_PRINTABLE = re.compile("[^\n\x20-\x7e\xa0-\ud7ff\ue000-\ufefe\uff00-\ufffd]")
_LINE_BREAK = re.compile("[\r\n\x85\u2028\u2029]")
_BREAK_SPACE = re.compile("[\r\n\x85\u2028\u2029] ")
_SPACE_BREAK = re.compile(" [\r\n\x85\u2028\u2029]")
_FLOW_INNER = re.compile(r"[,?\[\]{}]")
_COLON_BLANK = re.compile(r":(?:[ \t]|\Z)")
_BLANKZ_HASH = re.compile("[ \t\r\n\x85\u2028\u2029\x00]#")
_SAFE_PLAIN = re.compile(r"[A-Za-z0-9_./=+][A-Za-z0-9_./=+@%$^()~<>;-]*")
_BASE60 = re.compile(r"[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?")
_STYLE_CACHE: dict[str, tuple[int, bool, bool, bool, bool]] = {}


def _resolves_to_string(text: str) -> bool:
    """stringv's canUsePlain: plain text reads back as the same string (and is no base 60 float)."""
    from runner.encoding.goyaml import resolve_plain

    value = resolve_plain(text)
    if type(value) is not str:
        return False
    return not (":" in text and _BASE60.fullmatch(text))


def _indicators(s: str) -> tuple[bool, bool]:
    """(flow_indicators, block_indicators) as emitterc.go yaml_emitter_analyze_scalar finds them."""
    flow = block = False
    if s.startswith(("---", "...")):
        flow = block = True
    first = s[0]
    followed = len(s) == 1 or s[1] in " \t"
    if first in "#,[]{}&*!|>'\"%@`":
        flow = block = True
    elif first in "?:":
        flow = True
        block = block or followed
    elif first == "-" and followed:
        flow = block = True
    if _FLOW_INNER.search(s, 1):
        flow = True
    if _COLON_BLANK.search(s, 1):
        flow = block = True
    elif s.find(":", 1) > 0:
        flow = True
    if _BLANKZ_HASH.search(s):
        flow = block = True
    return flow, block


def _analyze(s: str, v3: bool = False) -> tuple[int, bool, bool, bool, bool]:
    """(requested style, block_plain_allowed, single_quoted_allowed, block_allowed, multiline)."""
    cached = _STYLE_CACHE.get(s)
    if cached is not None and not (v3 and "\t" in s):
        return cached
    if _SAFE_PLAIN.fullmatch(s) and not s.startswith(("---", "...")):
        result = (_PLAIN if _resolves_to_string(s) else _DOUBLE, True, True, True, False)
    elif not s:
        result = (_DOUBLE, True, True, False, False)
    elif v3 and "\t" in s:
        return _analyze_v3_tabs(s)
    else:
        result = _analyze_full(s)
    if len(_STYLE_CACHE) > 4096:
        _STYLE_CACHE.clear()
    _STYLE_CACHE[s] = result
    return result


def _analyze_v3_tabs(s: str) -> tuple[int, bool, bool, bool, bool]:
    """go-yaml v3 lets tabs into literal blocks (never into plain or single-quoted text)."""
    requested, _, _, _, multiline = _analyze_full(s)
    rest = _analyze_full(s.replace("\t", "x"))
    return requested, False, False, rest[3], multiline


def _analyze_full(s: str) -> tuple[int, bool, bool, bool, bool]:
    if "\n" in s:
        requested = _LITERAL
    elif _resolves_to_string(s):
        requested = _PLAIN
    else:
        requested = _DOUBLE
    _, block_ind = _indicators(s)
    special = _NON_PRINTABLE.search(s) is not None
    multiline = _LINE_BREAK.search(s) is not None
    edge_space = s[0] == " " or s[-1] == " "
    edge_break = s[0] in _BREAKS or s[-1] in _BREAKS
    break_space = _BREAK_SPACE.search(s) is not None
    space_break = _SPACE_BREAK.search(s) is not None
    plain = not (edge_space or edge_break or break_space or space_break or special)
    plain = plain and not multiline and not block_ind
    single = not (break_space or space_break or special)
    block = not (s[-1] == " " or space_break or special)
    return requested, plain, single, block, multiline


def _select_style(s: str, simple_key: bool, v3: bool = False) -> int:
    """emitterc.go yaml_emitter_select_scalar_style, block context."""
    style, plain_ok, single_ok, block_ok, _ = _analyze(s, v3)
    if style == _PLAIN and not plain_ok:
        style = _SINGLE
    if style == _SINGLE and not single_ok:
        style = _DOUBLE
    if style == _LITERAL and (not block_ok or simple_key):
        style = _DOUBLE
    return style


# ------------------------------------------------------------ JSON text quirks

_JSON_RAW_TROUBLE = re.compile("[\x7f-\x9f\ufffe\uffff\ud800-\udfff]")
_NOT_READABLE = re.compile("[\x7f-\x84\x86-\x9f\ufffe\uffff]")
_NEL_RUN = re.compile(" *((?:\x85 *)+)")


def _through_json(s: str, key: bool) -> str:
    """What go-yaml reads back from encoding/json's text of s.

    encoding/json leaves DEL, C1 controls and NEL unescaped: go-yaml's reader
    rejects the controls, and takes NEL for a line break inside the quoted
    scalar, folding it (one break -> a space, n breaks -> n-1 newlines).
    Lone surrogates were written as U+FFFD.
    """
    if not _JSON_RAW_TROUBLE.search(s):
        return s
    s = re.sub("[\ud800-\udfff]", "\ufffd", s)
    if _NOT_READABLE.search(s):
        raise gojson.MarshalError("yaml: control characters are not allowed", stage="json-to-yaml")
    if "\x85" not in s:
        return s
    if key:
        raise gojson.MarshalError(
            "yaml: line 1: did not find expected ',' or '}'", stage="json-to-yaml"
        )
    return _NEL_RUN.sub(
        lambda m: " " if m[1].count("\x85") == 1 else "\n" * (m[1].count("\x85") - 1), s
    )


# ------------------------------------------------------------ key order


def _is_letter(c: str) -> bool:
    return c.isalpha()


def _is_digit(c: str) -> bool:
    return unicodedata.category(c) == "Nd"


def _key_less(a: str, b: str, v3: bool = False) -> bool:
    """go-yaml sorter.go keyList.Less for two string keys (v3: letters first after a digit)."""
    digits = False
    for i in range(min(len(a), len(b))):
        ca, cb = a[i], b[i]
        if ca == cb:
            digits = v3 and _is_digit(ca)
            continue
        al, bl = _is_letter(ca), _is_letter(cb)
        if al and bl:
            return ca < cb
        if al or bl:
            return al if digits else bl
        an = bn = 0
        if ca == "0" or cb == "0":
            j = i - 1
            while j >= 0 and _is_digit(a[j]):
                if a[j] != "0":
                    an = bn = 1
                    break
                j -= 1
        ai = i
        while ai < len(a) and _is_digit(a[ai]):
            an = an * 10 + ord(a[ai]) - 48
            ai += 1
        bi = i
        while bi < len(b) and _is_digit(b[bi]):
            bn = bn * 10 + ord(b[bi]) - 48
            bi += 1
        if an != bn:
            return an < bn
        if ai != bi:
            return ai < bi
        return ca < cb
    return len(a) < len(b)


def _key_cmp(a: str, b: str) -> int:
    if _key_less(a, b):
        return -1
    return 1 if _key_less(b, a) else 0


def _key_cmp_v3(a: str, b: str) -> int:
    if _key_less(a, b, True):
        return -1
    return 1 if _key_less(b, a, True) else 0


_ORDER_CACHE: dict[tuple[bool, tuple[str, ...]], list[str]] = {}


def sorted_keys(keys: list[str], v3: bool = False) -> list[str]:
    """Keys in go-yaml's order (letters by code point, digit runs by value, others first)."""
    if all(k.isalpha() for k in keys):
        return sorted(keys)  # letter-only keys: plain code point order is the same
    signature = (v3, tuple(keys))
    order = _ORDER_CACHE.get(signature)
    if order is None:
        order = sorted(keys, key=cmp_to_key(_key_cmp_v3 if v3 else _key_cmp))
        if len(_ORDER_CACHE) > 2048:
            _ORDER_CACHE.clear()
        _ORDER_CACHE[signature] = order
    return order


# ------------------------------------------------------------ numbers


def number_text(value: int | float) -> str:
    """A number after the JSON round trip, as go-yaml v2 writes it."""
    if type(value) is not float:
        return str(int(value))
    text = gojson.float_text(value)  # raises for NaN/Inf like json.Marshal
    if "." not in text and "e" not in text:
        number = int(text)
        if -(1 << 63) <= number < (1 << 64):
            return str(number)  # go-yaml reads the JSON digits back as an int
    return format_float(float(text), "g", -1, 64)


# ------------------------------------------------------------ the emitter

_KEY_ORDER_CACHE: dict[tuple[bool, tuple[Any, ...]], list[tuple[Any, str | None, str]]] = {}
_STYLES: dict[tuple[bool, bool], dict[str, int]] = {
    (v3, simple): {} for v3 in (False, True) for simple in (False, True)
}


def _is_simple_key(key: str) -> bool:
    """yaml_emitter_check_simple_key: one line and at most 128 bytes."""
    if len(key) > 128 or (not key.isascii() and len(key.encode()) > 128):
        return False
    return not _analyze(key)[4]


class _Emitter:
    """The parts of go-yaml's emitter state that decide layout."""

    __slots__ = ("out", "column", "whitespace", "indention", "indent", "best_indent", "v3")

    def __init__(self, best_indent: int = 2, v3: bool = False) -> None:
        self.out: list[str] = []
        self.column = 0
        self.whitespace = True
        self.indention = True
        self.indent = -1
        self.best_indent = best_indent
        # go-yaml v3 straight on the Go value (toYamlPretty): no JSON round
        # trip, no line folding, sequences indented inside mappings.
        self.v3 = v3

    def number(self, value: int | float) -> str:
        if not self.v3:
            return number_text(value)
        if type(value) is float or isinstance(value, float):
            text = format_float(float(value), "g", -1, 64)
            return {"+Inf": ".inf", "-Inf": "-.inf", "NaN": ".nan"}.get(text, text)
        return str(int(value))

    def text(self, s: str, key: bool) -> str:
        return s if self.v3 else _through_json(s, key)

    @property
    def width(self) -> float:
        return float("inf") if self.v3 else BEST_WIDTH

    def put(self, text: str) -> None:
        self.out.append(text)
        self.column += len(text)

    def put_break(self) -> None:
        self.out.append("\n")
        self.column = 0

    def write_indent(self) -> None:
        indent = self.indent if self.indent > 0 else 0
        if (
            not self.indention
            or self.column > indent
            or (self.column == indent and not self.whitespace)
        ):
            self.put_break()
        if self.column < indent:
            self.put(" " * (indent - self.column))
        self.whitespace = True
        self.indention = True

    def write_indicator(self, text: str, need_ws: bool, is_ws: bool, is_indention: bool) -> None:
        if need_ws and not self.whitespace:
            self.put(" ")
        self.put(text)
        self.whitespace = is_ws
        self.indention = self.indention and is_indention

    def increase_indent(self, flow: bool, indentless: bool) -> None:
        if self.indent < 0:
            self.indent = self.best_indent if flow else 0
        elif not indentless:
            self.indent += self.best_indent

    # -- nodes

    def node(self, value: Any, mapping: bool = False) -> None:
        kind = type(value)
        if kind is str:
            if not self.v3 and _JSON_RAW_TROUBLE.search(value):
                value = _through_json(value, False)
            self.string(value, simple_key=False)
        elif kind is dict or kind is list:
            self.collection(value, mapping)
        elif value is None:
            self.atom("null")
        elif kind is bool:
            self.atom("true" if value else "false")
        elif kind is int or kind is float:
            self.atom(self.number(value))
        else:
            self.other(value, mapping)

    def other(self, value: Any, mapping: bool) -> None:
        if isinstance(value, bool):
            self.atom("true" if value else "false")
        elif isinstance(value, int | float):
            self.atom(self.number(value))
        elif isinstance(value, str):
            self.string(self.text(str(value), False), simple_key=False)
        elif isinstance(value, dict | list | tuple):
            self.collection(value, mapping)
        elif self.v3 and isinstance(value, datetime):
            self.atom(gojson.time_text(value))  # v3 writes time.Time as a plain timestamp
        elif self.v3 and hasattr(value, "go_yaml_v3"):
            self.struct(value.go_yaml_v3())
        else:
            self.node(gojson.json_shape(value), mapping)

    def collection(self, value: Any, mapping: bool) -> None:
        if not value:
            self.write_indicator("{" if isinstance(value, dict) else "[", True, True, False)
            self.write_indicator("}" if isinstance(value, dict) else "]", False, False, False)
        elif isinstance(value, dict):
            self.mapping(value)
        else:
            self.sequence(value, mapping)

    def atom(self, text: str) -> None:
        """A plain scalar that never needs analysis (null, booleans, numbers)."""
        if not self.whitespace:
            self.put(" ")
        self.put(text)
        self.whitespace = False
        self.indention = False

    def sequence(self, items: Any, mapping: bool) -> None:
        saved = self.indent
        self.increase_indent(False, not self.v3 and mapping and not self.indention)
        for item in items:
            self.write_indent()
            self.write_indicator("-", True, False, True)
            self.node(item)
        self.indent = saved

    def mapping(self, value: dict[Any, Any]) -> None:
        saved = self.indent
        self.increase_indent(False, False)
        out = self.out
        for original, fast, key in self.key_order(value):
            self.write_indent()
            if fast is not None:
                out.append(fast)  # a plain simple key and its ':' (after indentation)
                self.column += len(fast)
                self.whitespace = self.indention = False
            else:
                self.key(key)
            self.node(value[original], mapping=True)
        self.indent = saved

    def struct(self, fields: list[tuple[str, Any]]) -> None:
        """A Go struct for go-yaml v3: fields in declaration order, not sorted."""
        if not fields:
            self.collection({}, False)
            return
        saved = self.indent
        self.increase_indent(False, False)
        for name, item in fields:
            self.write_indent()
            self.key(name)
            self.node(item, mapping=True)
        self.indent = saved

    def key_order(self, value: dict[Any, Any]) -> list[tuple[Any, str | None, str]]:
        """(key, its "key:" text when plain and simple, its string) in go-yaml order; cached."""
        names = tuple(value)
        signature = (self.v3, names)
        order = _KEY_ORDER_CACHE.get(signature)
        if order is None:
            texts = {gojson.key_text(k): k for k in names}
            order = []
            for text in sorted_keys(list(texts), self.v3):
                key = self.text(text, True)
                simple = _is_simple_key(key)
                plain = simple and _select_style(key, True, self.v3) == _PLAIN
                order.append((texts[text], key + ":" if plain else None, key))
            if len(_KEY_ORDER_CACHE) > 4096:
                _KEY_ORDER_CACHE.clear()
            _KEY_ORDER_CACHE[signature] = order
        return order

    def key(self, key: str) -> None:
        if _is_simple_key(key):
            self.string(key, simple_key=True)
            self.write_indicator(":", False, False, False)
            return
        self.write_indicator("?", True, False, True)
        self.string(key, simple_key=False)
        self.write_indent()
        self.write_indicator(":", True, False, True)

    # -- scalars

    def string(self, s: str, simple_key: bool) -> None:
        cache = _STYLES[(self.v3, simple_key)]
        style = cache.get(s)
        if style is None:
            style = _select_style(s, simple_key, self.v3)
            if len(cache) > 8192:
                cache.clear()
            cache[s] = style
        if style == _PLAIN:
            column = self.column if self.whitespace else self.column + 1
            if simple_key or self.v3 or column + len(s) <= BEST_WIDTH + 1 or " " not in s:
                text = s if self.whitespace else " " + s
                self.out.append(text)
                self.column += len(text)
                self.whitespace = self.indention = False
                return
        saved = self.indent
        self.increase_indent(True, False)
        if style == _PLAIN:
            self.plain(s, not simple_key)
        elif style == _SINGLE:
            self.single_quoted(s, not simple_key)
        elif style == _DOUBLE:
            self.double_quoted(s, not simple_key)
        else:
            self.literal(s)
        self.indent = saved

    def plain(self, s: str, allow_breaks: bool) -> None:
        if not self.whitespace:
            self.put(" ")
        if self.v3 or not allow_breaks or self.column + len(s) <= BEST_WIDTH + 1 or " " not in s:
            self.put(s)
        else:
            self.folded_plain(s)
        self.whitespace = False
        self.indention = False

    def folded_plain(self, s: str) -> None:
        spaces = False
        n = len(s)
        for i, c in enumerate(s):
            if c == " ":
                if not spaces and self.column > self.width and (i + 1 >= n or s[i + 1] != " "):
                    self.write_indent()
                else:
                    self.put(c)
                spaces = True
            else:
                self.put(c)
                self.indention = False
                spaces = False

    def single_quoted(self, s: str, allow_breaks: bool) -> None:
        self.write_indicator("'", True, False, False)
        spaces = breaks = False
        n = len(s)
        for i, c in enumerate(s):
            if c == " ":
                if (
                    allow_breaks
                    and not spaces
                    and self.column > self.width
                    and 0 < i < n - 1
                    and s[i + 1] != " "
                ):
                    self.write_indent()
                else:
                    self.put(c)
                spaces = True
            elif c in _BREAKS:
                if not breaks and c == "\n":
                    self.put_break()
                self.write_break(c)
                self.indention = True
                breaks = True
            else:
                if breaks:
                    self.write_indent()
                self.put("''" if c == "'" else c)
                self.indention = False
                spaces = breaks = False
        self.write_indicator("'", False, False, False)
        self.whitespace = False
        self.indention = False

    def write_break(self, c: str) -> None:
        if c == "\n":
            self.put_break()
        else:
            self.out.append(c)
            self.column = 0

    def double_quoted(self, s: str, allow_breaks: bool) -> None:
        self.write_indicator('"', True, False, False)
        spaces = False
        n = len(s)
        # go-yaml's is_bom looks at the start of the value, not at i: a value
        # that starts with U+FEFF gets every character escaped.
        bom = s.startswith("\ufeff")
        for i, c in enumerate(s):
            if bom or c in '"\\' or c in _BREAKS or _NON_PRINTABLE.match(c):
                self.put(_escape(c))
                spaces = False
            elif c == " ":
                if allow_breaks and not spaces and self.column > self.width and 0 < i < n - 1:
                    self.write_indent()
                    if s[i + 1] == " ":
                        self.put("\\")
                else:
                    self.put(c)
                spaces = True
            else:
                self.put(c)
                spaces = False
        self.write_indicator('"', False, False, False)
        self.whitespace = False
        self.indention = False

    def literal(self, s: str) -> None:
        self.write_indicator("|", True, False, False)
        if s[0] == " " or s[0] in _BREAKS:
            self.write_indicator(str(self.best_indent), False, False, False)
        chomp = _chomp_hint(s)
        if chomp:
            self.write_indicator(chomp, False, False, False)
        self.put_break()
        self.indention = True
        self.whitespace = True
        breaks = True
        for c in s:
            if c in _BREAKS:
                self.write_break(c)
                self.indention = True
                breaks = True
            else:
                if breaks:
                    self.write_indent()
                self.put(c)
                self.indention = False
                breaks = False


_ESCAPES = {
    "\x00": "0", "\x07": "a", "\x08": "b", "\t": "t", "\n": "n", "\x0b": "v", "\x0c": "f",
    "\r": "r", "\x1b": "e", '"': '"', "\\": "\\", "\x85": "N", "\xa0": "_",
    "\u2028": "L", "\u2029": "P",
}  # fmt: skip


def _escape(c: str) -> str:
    """emitterc.go yaml_emitter_write_double_quoted_scalar's escapes (hex upper case)."""
    short = _ESCAPES.get(c)
    if short is not None:
        return "\\" + short
    code = ord(c)
    if code <= 0xFF:
        return f"\\x{code:02X}"
    if code <= 0xFFFF:
        return f"\\u{code:04X}"
    return f"\\U{code:08X}"


def _chomp_hint(s: str) -> str:
    """yaml_emitter_write_block_scalar_hints: '-' without a final break, '+' with two."""
    if s[-1] not in _BREAKS:
        return "-"
    if len(s) == 1 or s[-2] in _BREAKS:
        return "+"
    return ""


# ------------------------------------------------------------ public API


def dump(value: Any) -> str:
    """sigs.k8s.io/yaml.Marshal(value) as text (with its final newline).

    Raises EncodeError("error marshaling into JSON: json: unsupported value: NaN")
    and the like where Marshal returns an error.
    """
    emitter = _Emitter()
    try:
        emitter.node(value)
    except gojson.MarshalError as exc:
        stage = (
            "error converting JSON to YAML"
            if exc.stage == "json-to-yaml"
            else "error marshaling into JSON"
        )
        raise EncodeError(f"{stage}: {exc}") from None
    emitter.indent = -1
    emitter.write_indent()
    return "".join(emitter.out)


def dump_pretty(value: Any) -> str:
    """toYamlPretty's encoder: go-yaml v3's Encoder with SetIndent(2) on the value itself.

    No JSON round trip (float64 1000000 is 1e+06, NaN is .nan), no folding
    of long lines, sequences indented under their key. Objects standing for
    Go structs may define `go_yaml_v3()` returning [(field, value), ...] in
    declaration order with v3's names (the Go field name lowercased); others
    are written as their JSON shape.
    """
    emitter = _Emitter(v3=True)
    try:
        emitter.node(value)
    except gojson.MarshalError as exc:
        raise EncodeError(str(exc)) from None
    emitter.indent = -1
    emitter.write_indent()
    return "".join(emitter.out)
