"""Go literal syntax for the parser: numbers (parse.newNumber) and strconv.Unquote."""

from __future__ import annotations

import re

from runner.template.gocast import underscore_ok
from runner.template.lex import T
from runner.template.nodes import NumberNode

# Patterns go through re's own cache: compiled when a template first needs them.
_INT_DIGITS = {16: "0123456789abcdefABCDEF_", 8: "01234567_", 2: "01_", 10: "0123456789_"}
_PREFIX = {"x": 16, "o": 8, "b": 2}
_DEC_FLOAT = r"[+-]?(\d[\d_]*)?(\.[\d_]*)?([eE][+-]?[\d_]+)?"
_HEX_FLOAT = r"[+-]?0[xX]([0-9a-fA-F_]*)(\.[0-9a-fA-F_]*)?([pP][+-]?[\d_]+)?"


def _parse_uint(text: str) -> int | None:
    """strconv.ParseUint(text, 0, 64)."""
    if not text or text[0] in "+-":
        return None
    base, body = 10, text
    if len(text) >= 2 and text[0] == "0":
        prefix = text[1].lower()
        if prefix in _PREFIX:
            base, body = _PREFIX[prefix], text[2:]
        else:
            base, body = 8, text[1:]
    if not body or body.strip(_INT_DIGITS[base]):  # a character outside the base's digits
        return None
    if "_" in text and not underscore_ok(text):
        return None
    digits = body.replace("_", "")
    if not digits:
        return None
    value = int(digits, base)
    return value if value < 1 << 64 else None


def _parse_int(text: str) -> int | None:
    """strconv.ParseInt(text, 0, 64)."""
    sign = 1
    body = text
    if text[:1] in ("+", "-"):
        sign = -1 if text[0] == "-" else 1
        body = text[1:]
    value = _parse_uint(body)
    if value is None:
        return None
    value *= sign
    return value if -(1 << 63) <= value < 1 << 63 else None


def parse_float(text: str) -> float | None:
    """strconv.ParseFloat(text, 64) for the syntax the lexer lets through."""
    if "_" in text and not underscore_ok(text):
        return None
    clean = text.replace("_", "")
    try:
        if re.fullmatch(_HEX_FLOAT, text):
            if not re.search(r"[pP]", clean):
                return None  # hex floats need a p exponent
            value = float.fromhex(clean)
        elif re.fullmatch(_DEC_FLOAT, text) and re.search(r"\d", clean):
            value = float(clean)
        else:
            return None
    except (ValueError, OverflowError):
        return None
    if value in (float("inf"), float("-inf")):
        return None  # ErrRange
    return value


def _exact_int(f: float) -> tuple[bool, int]:
    if f != f or f in (float("inf"), float("-inf")):
        return False, 0
    i = int(f)
    return (-(1 << 63) <= i < (1 << 63) and float(i) == f), i


def _exact_uint(f: float) -> tuple[bool, int]:
    if f != f or f < 0 or f in (float("inf"),):
        return False, 0
    i = int(f)
    return (i < (1 << 64) and float(i) == f), i


def _simplify_complex(n: NumberNode) -> None:
    n.is_float = n.complex128.imag == 0
    if n.is_float:
        n.float64 = n.complex128.real
        n.is_int, n.int64 = _exact_int(n.float64)
        n.is_uint, n.uint64 = _exact_uint(n.float64)


def parse_number(pos: int, text: str, typ: int) -> tuple[NumberNode, str | None]:
    """parse.Tree.newNumber: every reading of the literal; an error text if none."""
    n = NumberNode(pos, text)
    if typ == T.CHAR_CONSTANT:
        return _char_number(n, text)
    if typ == T.COMPLEX:
        try:
            n.complex128 = complex(text.replace("_", "").rstrip("i") + "j")
        except ValueError:
            return n, "expected integer"
        n.is_complex = True
        _simplify_complex(n)
        return n, None
    if text.endswith("i"):  # imaginary constants are complex unless zero
        f = parse_float(text[:-1])
        if f is None:
            f_int = _parse_int(text[:-1])
            f = float(f_int) if f_int is not None else None
        if f is not None:
            n.is_complex = True
            n.complex128 = complex(0, f)
            _simplify_complex(n)
            return n, None
    return _real_number(n, text)


def _real_number(n: NumberNode, text: str) -> tuple[NumberNode, str | None]:
    u = _parse_uint(text)
    if u is not None:
        n.is_uint, n.uint64 = True, u
    i = _parse_int(text)
    if i is not None:
        n.is_int, n.int64 = True, i
        if i == 0:
            n.is_uint, n.uint64 = True, 0  # in case of -0
    if n.is_int:
        n.is_float, n.float64 = True, float(n.int64)
    elif n.is_uint:
        n.is_float, n.float64 = True, float(n.uint64)
    else:
        f = parse_float(text)
        if f is not None:
            # A float that looks like an integer is one too large for int64.
            if not any(c in text for c in ".eEpP"):
                return n, f"integer overflow: {_quote(text)}"
            n.is_float, n.float64 = True, f
            if not n.is_int:
                n.is_int, n.int64 = _exact_int(f)
            if not n.is_uint:
                n.is_uint, n.uint64 = _exact_uint(f)
    if not (n.is_int or n.is_uint or n.is_float):
        return n, f"illegal number syntax: {_quote(text)}"
    return n, None


def _char_number(n: NumberNode, text: str) -> tuple[NumberNode, str | None]:
    value, tail, err = _unquote_char(text[1:], "'")
    if err is not None:
        return n, err
    if tail != "'":
        return n, f"malformed character constant: {text}"
    n.int64 = n.uint64 = value
    n.is_int = n.is_uint = n.is_float = True
    n.float64 = float(value)
    return n, None


# ---------------------------------------------------------------- unquote

_SIMPLE = {"a": 7, "b": 8, "f": 12, "n": 10, "r": 13, "t": 9, "v": 11, "\\": 92}
_SYNTAX = "invalid syntax"


def _unquote_char(s: str, quote: str) -> tuple[int, str, str | None]:
    """strconv.UnquoteChar: (value, tail, error). Values above 0x10FFFF can't occur."""
    if not s:
        return 0, s, _SYNTAX
    c = s[0]
    if c == quote and quote in "'\"":
        return 0, s, _SYNTAX
    if c != "\\":
        return ord(c), s[1:], None
    if len(s) <= 1:
        return 0, s, _SYNTAX
    e, s = s[1], s[2:]
    if e in _SIMPLE:
        return _SIMPLE[e], s, None
    if e in "xuU":
        size = {"x": 2, "u": 4, "U": 8}[e]
        digits = s[:size]
        if len(digits) < size or not re.fullmatch(r"[0-9a-fA-F]+", digits):
            return 0, s, _SYNTAX
        value = int(digits, 16)
        if e != "x" and (value > 0x10FFFF or 0xD800 <= value <= 0xDFFF):
            return 0, s, _SYNTAX
        return value, s[size:], None
    if "0" <= e <= "7":
        digits = e + s[:2]
        if len(digits) < 3 or not re.fullmatch(r"[0-7]+", digits) or int(digits, 8) > 255:
            return 0, s, _SYNTAX
        return int(digits, 8), s[2:], None
    if e in "'\"" and e == quote:
        return ord(e), s, None
    return 0, s, _SYNTAX


def unquote(quoted: str) -> tuple[str, str | None]:
    """strconv.Unquote for "..." and `...` literals: (text, error text)."""
    if len(quoted) < 2 or quoted[0] != quoted[-1]:
        return "", _SYNTAX
    quote, body = quoted[0], quoted[1:-1]
    if quote == "`":
        if "`" in body:
            return "", _SYNTAX
        return body.replace("\r", ""), None
    if quote != '"' or "\n" in body:
        return "", _SYNTAX
    if "\\" not in body:
        return body, None
    out = bytearray()
    while body:
        is_escape = body[0] == "\\"
        byte_escape = is_escape and len(body) > 1 and (body[1] == "x" or "0" <= body[1] <= "7")
        value, body, err = _unquote_char(body, '"')
        if err is not None:
            return "", err
        if byte_escape:
            out.append(value)  # \x and octal escapes are bytes, not runes
        else:
            out.extend(chr(value).encode("utf-8", "surrogatepass"))
    return out.decode("utf-8", "surrogateescape"), None


def _quote(s: str) -> str:
    from runner.template.lex import go_quote

    return go_quote(s)
