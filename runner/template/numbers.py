"""Go number literals for the parser (parse.newNumber); strings go through
runner.golang.strconv.unquote."""

from __future__ import annotations

import re

from runner.golang.strconv import quote, underscore_ok, unquote_char
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
                return n, f"integer overflow: {quote(text)}"
            n.is_float, n.float64 = True, f
            if not n.is_int:
                n.is_int, n.int64 = _exact_int(f)
            if not n.is_uint:
                n.is_uint, n.uint64 = _exact_uint(f)
    if not (n.is_int or n.is_uint or n.is_float):
        return n, f"illegal number syntax: {quote(text)}"
    return n, None


def _char_number(n: NumberNode, text: str) -> tuple[NumberNode, str | None]:
    value, tail, err = unquote_char(text[1:], "'")
    if err is not None:
        return n, err
    if tail != "'":
        return n, f"malformed character constant: {text}"
    n.int64 = n.uint64 = value
    n.is_int = n.is_uint = n.is_float = True
    n.float64 = float(value)
    return n, None
