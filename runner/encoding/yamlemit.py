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

from runner.encoding import gojson
from runner.encoding.yamlstyle import (
    BEST_WIDTH,
    BREAKS,
    DOUBLE,
    JSON_RAW_TROUBLE,
    NON_PRINTABLE,
    PLAIN,
    SINGLE,
    analyze,
    chomp_hint,
    escape,
    number_text,
    select_style,
    sorted_keys,
    through_json,
)
from runner.golang.strconv import format_float
from runner.golang.types import is_time

TYPE_CHECKING = False  # `typing` costs ~2 ms at every start: see docs/speed.md
if TYPE_CHECKING:
    from typing import Any


MAX_DEPTH = 10000  # go-yaml's max_flow_level


class EncodeError(ValueError):
    """yaml.Marshal failed; str() is the Go error text ("error marshaling into JSON: ...")."""


# ------------------------------------------------------------ the emitter

_KEY_ORDER_CACHE: dict[tuple[bool, tuple[Any, ...]], list[tuple[Any, str | None, str]]] = {}
_STYLES: dict[tuple[bool, bool], dict[str, int]] = {
    (v3, simple): {} for v3 in (False, True) for simple in (False, True)
}


def _is_simple_key(key: str) -> bool:
    """yaml_emitter_check_simple_key: one line and at most 128 bytes."""
    if len(key) > 128 or (not key.isascii() and len(key.encode()) > 128):
        return False
    return not analyze(key)[4]


class _Emitter:
    """The parts of go-yaml's emitter state that decide layout."""

    __slots__ = ("out", "column", "whitespace", "indention", "indent", "best_indent", "v3", "depth")

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
        self.depth = 0  # collections open: JSONToYAML's parse refuses over 10000

    def number(self, value: int | float) -> str:
        if not self.v3:
            return number_text(value)
        if type(value) is float or isinstance(value, float):
            text = format_float(float(value), "g", -1, 64)
            return {"+Inf": ".inf", "-Inf": "-.inf", "NaN": ".nan"}.get(text, text)
        return str(int(value))

    def text(self, s: str, key: bool) -> str:
        return s if self.v3 else through_json(s, key)

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
            if not self.v3 and JSON_RAW_TROUBLE.found_in(value):
                value = through_json(value, False)
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
        if not self.v3 and getattr(value, "go_nil", False):
            self.atom("null")  # a typed nil map or slice: JSON null first
        elif isinstance(value, bool):
            self.atom("true" if value else "false")
        elif isinstance(value, int | float):
            self.atom(self.number(value))
        elif isinstance(value, str):
            self.string(self.text(str(value), False), simple_key=False)
        elif isinstance(value, dict | list | tuple):
            self.collection(value, mapping)
        elif self.v3 and is_time(value):
            self.atom(gojson.time_text(value))  # v3 writes time.Time as a plain timestamp
        elif self.v3 and hasattr(value, "go_yaml_v3"):
            self.struct(value.go_yaml_v3())
        else:
            self.node(gojson.json_shape(value), mapping)

    def collection(self, value: Any, mapping: bool) -> None:
        self.depth += 1
        if self.depth > MAX_DEPTH and not self.v3:
            # sigs.k8s.io/yaml reads json.Marshal's text back with go-yaml, whose scanner
            # stops at a flow level over 10000 (the text is one line: no line number).
            raise gojson.MarshalError(f"yaml: exceeded max depth of {MAX_DEPTH}", stage="json-to-yaml")
        if not value:
            self.write_indicator("{" if isinstance(value, dict) else "[", True, True, False)
            self.write_indicator("}" if isinstance(value, dict) else "]", False, False, False)
        elif isinstance(value, dict):
            self.mapping(value)
        else:
            self.sequence(value, mapping)
        self.depth -= 1

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
                plain = simple and select_style(key, True, self.v3) == PLAIN
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
            style = select_style(s, simple_key, self.v3)
            if len(cache) > 8192:
                cache.clear()
            cache[s] = style
        if style == PLAIN:
            column = self.column if self.whitespace else self.column + 1
            if simple_key or self.v3 or column + len(s) <= BEST_WIDTH + 1 or " " not in s:
                text = s if self.whitespace else " " + s
                self.out.append(text)
                self.column += len(text)
                self.whitespace = self.indention = False
                return
        saved = self.indent
        self.increase_indent(True, False)
        if style == PLAIN:
            self.plain(s, not simple_key)
        elif style == SINGLE:
            self.single_quoted(s, not simple_key)
        elif style == DOUBLE:
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
            elif c in BREAKS:
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
            if bom or c in '"\\' or c in BREAKS or NON_PRINTABLE.found_in(c):
                self.put(escape(c))
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

    def block_header(self, indicator: str, s: str) -> None:
        """`|` or `>`, the indentation hint when the text starts with a space or break,
        the chomping hint, then the line break (go-yaml's block scalar header)."""
        self.write_indicator(indicator, True, False, False)
        if s[0] == " " or s[0] in BREAKS:
            self.write_indicator(str(self.best_indent), False, False, False)
        chomp = chomp_hint(s)
        if chomp:
            self.write_indicator(chomp, False, False, False)
        self.put_break()

    def literal(self, s: str) -> None:
        self.block_header("|", s)
        self.indention = True
        self.whitespace = True
        breaks = True
        for c in s:
            if c in BREAKS:
                self.write_break(c)
                self.indention = True
                breaks = True
            else:
                if breaks:
                    self.write_indent()
                self.put(c)
                self.indention = False
                breaks = False


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
        if exc.stage != "json-to-yaml":
            raise EncodeError(f"error marshaling into JSON: {exc}") from None
        # JSONToYAML returns go-yaml's error as it is, unless json.Marshal failed first.
        try:
            gojson.check_marshal(value)
        except gojson.MarshalError as first:
            raise EncodeError(f"error marshaling into JSON: {first}") from None
        raise EncodeError(str(exc)) from None
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
