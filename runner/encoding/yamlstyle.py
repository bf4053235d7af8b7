"""go-yaml's scalar decisions for toYaml/toYamlPretty: style, escapes, key order, numbers.

Ports of go-yaml's encode.go stringv (quote what would read back as another
type or a base-60 float; literal style for text with newlines), emitterc.go
yaml_emitter_analyze_scalar / select_scalar_style and the double-quoted
escapes, sorter.go (key order, v2 and v3), plus what the JSON round trip of
sigs.k8s.io/yaml.Marshal does to strings and numbers.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable
from functools import cmp_to_key

from runner.encoding import gojson
from runner.encoding.yamlresolve import resolve_plain
from runner.golang.strconv import format_float
from runner.lazy_pattern import LazyPattern

BEST_WIDTH = 80
BREAKS = "\r\n\x85\u2028\u2029"
PLAIN, SINGLE, DOUBLE, LITERAL = range(4)


# ------------------------------------------------------------ scalar analysis

class _AsciiSplit:
    """A character-class test in two forms: ASCII text is answered by `str`
    tests on the class's ASCII part, and only non-ASCII text compiles the whole
    class (classes beyond Latin-1 cost 0.2-4 ms to compile)."""

    __slots__ = ("_ascii_test", "_full")

    def __init__(self, ascii_test: Callable[[str], bool], full_source: str) -> None:
        self._ascii_test = ascii_test
        self._full = LazyPattern(full_source)

    def found_in(self, s: str) -> bool:
        if s.isascii():
            return self._ascii_test(s)
        return self._full.search(s) is not None


# go-yaml's !is_printable: besides "\n", ASCII's printable range is Python's.
NON_PRINTABLE = _AsciiSplit(lambda s: not s.replace("\n", "").isprintable(),
                            "[^\n\x20-\x7e\xa0-\ud7ff\ue000-\ufefe\uff00-\ufffd]")
_LINE_BREAK = _AsciiSplit(lambda s: "\n" in s or "\r" in s, "[\r\n\x85\u2028\u2029]")
_BREAK_SPACE = _AsciiSplit(lambda s: "\n " in s or "\r " in s, "[\r\n\x85\u2028\u2029] ")
_SPACE_BREAK = _AsciiSplit(lambda s: " \n" in s or " \r" in s, " [\r\n\x85\u2028\u2029]")
_BLANKZ_HASH = _AsciiSplit(lambda s: "#" in s and any(blank + "#" in s for blank in " \t\r\n\x00"),
                           "[ \t\r\n\x85\u2028\u2029\x00]#")
# Text that is plain whatever it holds: `[A-Za-z0-9_./=+][A-Za-z0-9_./=+@%$^()~<>;-]*`.
_SAFE_PLAIN_FIRST = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_./=+")
_SAFE_PLAIN_REST = _SAFE_PLAIN_FIRST | frozenset("@%$^()~<>;-")
_BASE60 = LazyPattern(r"[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?")
_STYLE_CACHE: dict[str, tuple[int, bool, bool, bool, bool]] = {}


def _resolves_to_string(text: str) -> bool:
    """stringv's canUsePlain: plain text reads back as the same string (and is no base 60 float)."""
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
    if any(s.find(inner, 1) > 0 for inner in ",?[]{}"):
        flow = True
    if s.find(":", 1) > 0:
        flow = True
        # ": ", ":\t" or a final ":" after the first character
        block = block or s.find(": ", 1) > 0 or s.find(":\t", 1) > 0 or s[-1] == ":"
    if _BLANKZ_HASH.found_in(s):
        flow = block = True
    return flow, block


def analyze(s: str, v3: bool = False) -> tuple[int, bool, bool, bool, bool]:
    """(requested style, block_plain_allowed, single_quoted_allowed, block_allowed, multiline)."""
    cached = _STYLE_CACHE.get(s)
    if cached is not None and not (v3 and "\t" in s):
        return cached
    if s[:1] in _SAFE_PLAIN_FIRST and _SAFE_PLAIN_REST.issuperset(s) and not s.startswith(("---", "...")):
        result = (PLAIN if _resolves_to_string(s) else DOUBLE, True, True, True, False)
    elif not s:
        result = (DOUBLE, True, True, False, False)
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
        requested = LITERAL
    elif _resolves_to_string(s):
        requested = PLAIN
    else:
        requested = DOUBLE
    _, block_ind = _indicators(s)
    special = NON_PRINTABLE.found_in(s)
    multiline = _LINE_BREAK.found_in(s)
    edge_space = s[0] == " " or s[-1] == " "
    edge_break = s[0] in BREAKS or s[-1] in BREAKS
    break_space = _BREAK_SPACE.found_in(s)
    space_break = _SPACE_BREAK.found_in(s)
    plain = not (edge_space or edge_break or break_space or space_break or special)
    plain = plain and not multiline and not block_ind
    single = not (break_space or space_break or special)
    block = not (s[-1] == " " or space_break or special)
    return requested, plain, single, block, multiline


def select_style(s: str, simple_key: bool, v3: bool = False) -> int:
    """emitterc.go yaml_emitter_select_scalar_style, block context."""
    style, plain_ok, single_ok, block_ok, _ = analyze(s, v3)
    if style == PLAIN and not plain_ok:
        style = SINGLE
    if style == SINGLE and not single_ok:
        style = DOUBLE
    if style == LITERAL and (not block_ok or simple_key):
        style = DOUBLE
    return style


# ------------------------------------------------------------ JSON text quirks

JSON_RAW_TROUBLE = _AsciiSplit(lambda s: "\x7f" in s, "[\x7f-\x9f\ufffe\uffff\ud800-\udfff]")
_NOT_READABLE = LazyPattern("[\x7f-\x84\x86-\x9f\ufffe\uffff]")
_NEL_RUN = LazyPattern(" *((?:\x85 *)+)")


def through_json(s: str, key: bool) -> str:
    """What go-yaml reads back from encoding/json's text of s.

    encoding/json leaves DEL, C1 controls and NEL unescaped: go-yaml's reader
    rejects the controls, and takes NEL for a line break inside the quoted
    scalar, folding it (one break -> a space, n breaks -> n-1 newlines).
    Lone surrogates were written as U+FFFD.
    """
    if not JSON_RAW_TROUBLE.found_in(s):
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
            an = _wrap64(an * 10 + ord(a[ai]) - 48)
            ai += 1
        bi = i
        while bi < len(b) and _is_digit(b[bi]):
            bn = _wrap64(bn * 10 + ord(b[bi]) - 48)
            bi += 1
        if an != bn:
            return an < bn
        if ai != bi:
            return ai < bi
        return ca < cb
    return len(a) < len(b)


def _wrap64(n: int) -> int:
    """Go's int64 arithmetic wraps: a long digit run can come out negative."""
    return ((n + (1 << 63)) % (1 << 64)) - (1 << 63)


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


_ESCAPES = {
    "\x00": "0", "\x07": "a", "\x08": "b", "\t": "t", "\n": "n", "\x0b": "v", "\x0c": "f",
    "\r": "r", "\x1b": "e", '"': '"', "\\": "\\", "\x85": "N", "\xa0": "_",
    "\u2028": "L", "\u2029": "P",
}  # fmt: skip


def escape(c: str) -> str:
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


def chomp_hint(s: str) -> str:
    """yaml_emitter_write_block_scalar_hints: '-' without a final break, '+' with two."""
    if s[-1] not in BREAKS:
        return "-"
    if len(s) == 1 or s[-2] in BREAKS:
        return "+"
    return ""
