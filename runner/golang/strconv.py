"""Go's strconv: FormatFloat, Quote and its relatives, Unquote, ParseInt/ParseUint/ParseFloat.

Ported from Go's src/strconv (ftoa.go, quote.go, atoi.go, atof.go) onto the
Python stand-ins of Go values (docs/engine.md): a Go string is a Python str
whose invalid UTF-8 bytes are carried as surrogate escapes (U+DC80-U+DCFF,
"surrogateescape"), so Quote can print them as `\\x..` the way Go does.
"""

from __future__ import annotations

import math
import re

TYPE_CHECKING = False  # `typing` costs ~2 ms at every start: see docs/speed.md
if TYPE_CHECKING:
    from typing import Any


# ---------------------------------------------------------------- FormatFloat


def _shortest_digits(a: float) -> tuple[str, int]:
    """Shortest round-tripping digits of a finite a > 0 and the decimal point.

    The value is 0.<digits> * 10**dp; Python's repr and Go's shortest
    formatting both pick the shortest digits that read back as the same
    float64, closest to the exact value.
    """
    text = repr(a)
    mantissa, _, exp = text.partition("e")
    int_part, _, frac_part = mantissa.partition(".")
    all_digits = int_part + frac_part
    stripped = all_digits.lstrip("0")
    dp = len(int_part) + (int(exp) if exp else 0) - (len(all_digits) - len(stripped))
    return stripped.rstrip("0"), dp


def to_float32(f: float) -> float:
    """Go's float32(f): round to nearest float32, overflowing to infinity."""
    import struct  # float32 and the b/x verbs only: not loaded by most renders

    try:
        return struct.unpack("f", struct.pack("f", f))[0]
    except OverflowError:
        return math.copysign(math.inf, f)


def _shortest_digits32(a: float) -> tuple[str, int]:
    """Shortest digits that read back as the same float32 (a is a float32)."""
    for prec in range(1, 10):
        text = f"{a:.{prec - 1}e}"
        if to_float32(float(text)) == a:
            return _digits_from_e(text)
    return _digits_from_e(f"{a:.8e}")


def _digits_from_e(text: str) -> tuple[str, int]:
    """Digits (trailing zeros trimmed) and decimal point from Python's %e text."""
    mantissa, _, exp = text.partition("e")
    digits = mantissa.replace(".", "").rstrip("0")
    if not digits:
        return "", 0
    return digits, int(exp) + 1


def _fixed_digits(a: float, count: int) -> tuple[str, int]:
    """a > 0 rounded (half to even, exactly) to `count` significant digits."""
    return _digits_from_e(f"{a:.{count - 1}e}")


def _fmt_e(neg: bool, digits: str, dp: int, prec: int, letter: str) -> str:
    """strconv's fmtE: d.ddddde±dd."""
    out = ["-" if neg else "", digits[0] if digits else "0"]
    if prec > 0:
        frac = digits[1 : prec + 1]
        out.append("." + frac + "0" * (prec - len(frac)))
    exp = dp - 1 if digits else 0
    sign = "-" if exp < 0 else "+"
    out.append(f"{letter}{sign}{abs(exp):02d}")
    return "".join(out)


def _fmt_f(neg: bool, digits: str, dp: int, prec: int) -> str:
    """strconv's fmtF: ddd.ddd, padding with zeros from the digit string."""
    whole = digits[:dp] + "0" * max(dp - len(digits), 0) if dp > 0 else "0"
    out = ("-" if neg else "") + whole
    if prec > 0:
        frac = "".join(digits[dp + i] if 0 <= dp + i < len(digits) else "0" for i in range(prec))
        out += "." + frac
    return out


def _fmt_g(neg: bool, digits: str, dp: int, prec: int, shortest: bool, letter: str) -> str:
    """strconv's formatDigits for 'g': %e for large/small exponents, else %f."""
    nd = len(digits)
    eprec = prec
    if eprec > nd and nd >= dp:
        eprec = nd
    if shortest:
        eprec = 6  # %v/%g without precision switches to %e at 1e+06
    exp = dp - 1
    if exp < -4 or exp >= eprec:
        prec = min(prec, nd)
        return _fmt_e(neg, digits, dp, prec - 1, letter)
    if prec > dp:
        prec = nd
    return _fmt_f(neg, digits, dp, max(prec - dp, 0))


def _float_bits(f: float, bits: int) -> tuple[bool, int, int]:
    """(negative, mantissa with implicit bit, unbiased exponent) as strconv splits them."""
    import struct

    if bits == 32:
        raw = struct.unpack(">I", struct.pack(">f", f))[0]
        mant_bits, exp_bits, bias = 23, 8, -127
    else:
        raw = struct.unpack(">Q", struct.pack(">d", f))[0]
        mant_bits, exp_bits, bias = 52, 11, -1023
    neg = raw >> (mant_bits + exp_bits) != 0
    exp = (raw >> mant_bits) & ((1 << exp_bits) - 1)
    mant = raw & ((1 << mant_bits) - 1)
    if exp == 0:
        exp += 1  # denormal
    else:
        mant |= 1 << mant_bits
    return neg, mant, exp + bias


def _fmt_b(f: float, bits: int) -> str:
    """strconv's 'b' format: mantissa p exponent, e.g. 4503599627370496p-52."""
    neg, mant, exp = _float_bits(f, bits)
    exp -= 23 if bits == 32 else 52
    sign = "+" if exp >= 0 else "-"
    return f"{'-' if neg else ''}{mant}p{sign}{abs(exp)}"


_MASK64 = (1 << 64) - 1


def _fmt_x(f: float, prec: int, letter: str, bits: int) -> str:
    """strconv's fmtX: hexadecimal mantissa and binary exponent, -0x1.23abcp+20."""
    neg, mant, exp = _float_bits(f, bits)
    mant_bits = 23 if bits == 32 else 52
    if mant == 0:
        exp = 0
    mant = (mant << (60 - mant_bits)) & _MASK64
    while mant != 0 and mant & (1 << 60) == 0:
        mant = (mant << 1) & _MASK64
        exp -= 1
    if 0 <= prec < 15:
        shift = prec * 4
        extra = (mant << shift) & ((1 << 60) - 1)
        mant >>= 60 - shift
        if extra | (mant & 1) > 1 << 59:
            mant += 1
        mant = (mant << (60 - shift)) & _MASK64
        if mant & (1 << 61):
            mant >>= 1
            exp += 1
    hexdigits = "0123456789ABCDEF" if letter == "X" else "0123456789abcdef"
    out = ["-" if neg else "", "0", letter, str((mant >> 60) & 1)]
    mant = (mant << 4) & _MASK64
    if (prec < 0 and mant != 0) or prec > 0:
        out.append(".")
        count = 0
        while (prec < 0 and mant != 0) or (prec > 0 and count < prec):
            out.append(hexdigits[(mant >> 60) & 15])
            mant = (mant << 4) & _MASK64
            count += 1
    out.append("P" if letter == "X" else "p")
    out.append("-" if exp < 0 else "+")
    out.append(f"{abs(exp):02d}")
    return "".join(out)


def format_float(f: float, fmt: str = "g", prec: int = -1, bits: int = 64) -> str:
    """strconv.FormatFloat(f, fmt, prec, bits) for fmt in b e E f g G x X.

    prec -1 means the shortest text that reads back as the same value.
    encoding/json writes floats as format_float(f, 'f', -1) when
    1e-6 <= |f| < 1e21 and as format_float(f, 'e', -1) otherwise (then
    trims "e-07" to "e-7"); see json_float below.
    """
    if bits == 32:
        f = to_float32(f)
    if f != f:
        return "NaN"
    if f in (math.inf, -math.inf):
        return "+Inf" if f > 0 else "-Inf"
    if fmt == "b":
        return _fmt_b(f, bits)
    if fmt in ("x", "X"):
        return _fmt_x(f, prec, fmt, bits)
    neg = math.copysign(1.0, f) < 0
    a = -f if neg else f
    shortest = prec < 0
    if fmt == "f" and not shortest:
        return ("-" if neg else "") + f"{a:.{prec}f}"
    if a == 0:
        digits, dp = "", 0
    elif shortest:
        digits, dp = _shortest_digits32(a) if bits == 32 else _shortest_digits(a)
    elif fmt in ("e", "E"):
        digits, dp = _fixed_digits(a, prec + 1)
    else:
        digits, dp = _fixed_digits(a, max(prec, 1))
    return _format_digits(neg, digits, dp, prec, shortest, fmt)


def format_complex(c: complex) -> str:
    """%v of a complex128: (real+imagi), the imaginary part always signed."""
    imag = format_float_v(c.imag)
    if imag[0] not in "+-":
        imag = "+" + imag
    return f"({format_float_v(c.real)}{imag}i)"


def format_float_v(f: float) -> str:
    """%v of a float64 (strconv 'g', shortest), fast for everyday values.

    Go switches to exponent form from 1e+06 up and below 1e-04; Python's repr
    gives the same shortest digits and is plain decimal over that range.
    """
    if -1e6 < f < 1e6:
        text = repr(f)
        if "e" not in text:
            return text[:-2] if text.endswith(".0") else text
    return format_float(f, "g", -1, 64)


def _format_digits(neg: bool, digits: str, dp: int, prec: int, shortest: bool, fmt: str) -> str:
    if shortest:
        if fmt in ("e", "E"):
            prec = max(len(digits) - 1, 0)
        elif fmt == "f":
            prec = max(len(digits) - dp, 0)
        else:
            prec = len(digits)
    if fmt in ("e", "E"):
        return _fmt_e(neg, digits, dp, prec, fmt)
    if fmt == "f":
        return _fmt_f(neg, digits, dp, prec)
    if fmt in ("g", "G"):
        if prec == 0:
            prec = 1
        return _fmt_g(neg, digits, dp, prec, shortest, "e" if fmt == "g" else "E")
    return "%" + fmt


def json_float(f: float, bits: int = 64) -> str:
    """encoding/json's float text (floatEncoder): 'f' or 'e' shortest, e-07 -> e-7.

    NaN and infinities are errors in encoding/json; callers check first.
    """
    a = abs(f)
    fmt = "f"
    if a != 0 and (a < 1e-6 or a >= 1e21):
        fmt = "e"
    text = format_float(f, fmt, -1, bits)
    if fmt == "e" and len(text) >= 4 and text[-4] == "e" and text[-3] == "-" and text[-2] == "0":
        text = text[:-2] + text[-1]
    return text



# ------------------------------------------------------------------ quoting

MAX_RUNE = 0x10FFFF

# strconv's one-letter escapes (appendEscapedRune).
GO_ESCAPES = {
    "\a": "\\a",
    "\b": "\\b",
    "\f": "\\f",
    "\n": "\\n",
    "\r": "\\r",
    "\t": "\\t",
    "\v": "\\v",
}


def is_print(ch: str) -> bool:
    """strconv.IsPrint (unicode.IsPrint): letters, marks, numbers, punctuation, symbols and ' '.

    Python's isprintable is false for exactly the other categories (C*, Z*) but
    keeps ' ', which is Go's set; the Unicode version is Python's."""
    return ch.isprintable() and not "\ud800" <= ch <= "\udfff"


def _invalid_byte(r: int) -> int:
    """The raw byte a surrogate escape carries (0x80-0xFF), or -1 for any other rune."""
    return r - 0xDC00 if 0xDC80 <= r <= 0xDCFF else -1


def _escaped_rune(ch: str, quote: str, ascii_only: bool) -> str:
    """strconv's appendEscapedRune (and, for a surrogate escape, appendQuotedWith's
    RuneError of width 1: the byte as \\xNN)."""
    if ch == quote or ch == "\\":
        return "\\" + ch
    r = ord(ch)
    if ascii_only:
        if r < 0x80 and is_print(ch):
            return ch
    elif is_print(ch):
        return ch
    simple = GO_ESCAPES.get(ch)
    if simple is not None:
        return simple
    if r < 0x20 or r == 0x7F:
        return f"\\x{r:02x}"
    byte = _invalid_byte(r)
    if byte >= 0:
        return f"\\x{byte:02x}"
    if 0xD800 <= r <= 0xDFFF:  # not a valid rune: Go quotes utf8.RuneError
        return "\ufffd" if not ascii_only else "\\ufffd"
    if r < 0x10000:
        return f"\\u{r:04x}"
    return f"\\U{r:08x}"


def quote(s: str, ascii_only: bool = False) -> str:
    """strconv.Quote (QuoteToASCII with ascii_only): a Go double-quoted literal."""
    if s.isascii() and s.isprintable() and '"' not in s and "\\" not in s:
        return '"' + s + '"'  # the usual string: nothing to escape
    return '"' + "".join([_escaped_rune(ch, '"', ascii_only) for ch in s]) + '"'


def quote_rune(r: int, ascii_only: bool = False) -> str:
    """strconv.QuoteRune: 'a', '\\n', '\\u00e9' with ascii_only."""
    if r > MAX_RUNE or r < 0 or 0xD800 <= r <= 0xDFFF:
        r = 0xFFFD
    return "'" + _escaped_rune(chr(r), "'", ascii_only) + "'"


def can_backquote(s: str) -> bool:
    """strconv.CanBackquote: no backquote, no control characters but tab, no BOM,
    no invalid UTF-8."""
    for ch in s:
        r = ord(ch)
        if (r < 0x20 and ch != "\t") or ch == "`" or r == 0x7F or r == 0xFEFF:
            return False
        if 0xD800 <= r <= 0xDFFF:
            return False
    return True


# ------------------------------------------------------------------ Unquote

_SIMPLE = {"a": 7, "b": 8, "f": 12, "n": 10, "r": 13, "t": 9, "v": 11, "\\": 92}
_SYNTAX = "invalid syntax"


def unquote_char(s: str, quote: str) -> tuple[int, str, str | None]:
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
        value, body, err = unquote_char(body, '"')
        if err is not None:
            return "", err
        if byte_escape:
            out.append(value)  # \x and octal escapes are bytes, not runes
        else:
            out.extend(chr(value).encode("utf-8", "surrogatepass"))
    return out.decode("utf-8", "surrogateescape"), None



# ------------------------------------------------------- ParseInt, ParseFloat

class NumError(ValueError):
    """strconv.NumError: `strconv.ParseInt: parsing "x": invalid syntax`.

    `value` is what Go returns alongside the error (the clamped value for a
    range error, 0 for a syntax error).
    """

    def __init__(self, func: str, text: str, reason: str, value: Any = 0) -> None:
        super().__init__(f"strconv.{func}: parsing {quote(text)}: {reason}")
        self.value = value


_SYNTAX = "invalid syntax"
_RANGE = "value out of range"


# ------------------------------------------------------------------ strconv


def underscore_ok(s: str) -> bool:
    """strconv's underscoreOK: '_' only between digits or after a base prefix."""
    saw = "^"
    i = 0
    if s[:1] in ("-", "+"):
        s = s[1:]
    hexa = False
    if len(s) >= 2 and s[0] == "0" and s[1].lower() in "box":
        i = 2
        saw = "0"
        hexa = s[1].lower() == "x"
    for ch in s[i:]:
        if "0" <= ch <= "9" or (hexa and "a" <= ch.lower() <= "f"):
            saw = "0"
        elif ch == "_":
            if saw != "0":
                return False
            saw = "_"
        elif saw == "_":
            return False
        else:
            saw = "!"
    return saw != "_"


def _digit_value(ch: str) -> int:
    if "0" <= ch <= "9":
        return ord(ch) - 48
    low = ch.lower()
    if "a" <= low <= "z" and ch.isascii():
        return ord(low) - 87
    return 99


def _split_base(s: str, base: int) -> tuple[str, int]:
    """Base-0 prefix detection as ParseUint does it (0x, 0o, 0b, leading 0)."""
    if base != 0:
        return s, base
    if s[0] != "0":
        return s, 10
    if len(s) >= 3 and s[1].lower() in "box":
        return s[2:], {"b": 2, "o": 8, "x": 16}[s[1].lower()]
    return s[1:], 8


def parse_uint(s: str, base: int = 10, bits: int = 64, func: str = "ParseUint") -> int:
    """strconv.ParseUint; raises NumError (value = clamped result on range errors)."""
    if not s:
        raise NumError(func, s, _SYNTAX)
    base0 = base == 0
    digits, base = _split_base(s, base)
    n = 0
    underscores = False
    for ch in digits:
        if ch == "_" and base0:
            underscores = True
            continue
        d = _digit_value(ch)
        if d >= base:
            raise NumError(func, s, _SYNTAX)
        n = n * base + d
    if underscores and not underscore_ok(s):
        raise NumError(func, s, _SYNTAX)
    limit = (1 << bits) - 1
    if n > limit:
        raise NumError(func, s, _RANGE, limit)
    return n


def parse_int(s: str, base: int = 10, bits: int = 64) -> int:
    """strconv.ParseInt(s, base, bits) (bits 0 means 64)."""
    if not s:
        raise NumError("ParseInt", s, _SYNTAX)
    bits = bits or 64
    neg = s[0] == "-"
    body = s[1:] if s[0] in "+-" else s
    try:
        un = parse_uint(body, base, 64, "ParseInt")
    except NumError as err:
        if "syntax" in str(err):
            raise NumError("ParseInt", s, _SYNTAX) from None
        un = 1 << 64  # beyond uint64: reported below as int range error
    cutoff = 1 << (bits - 1)
    if not neg and un >= cutoff:
        raise NumError("ParseInt", s, _RANGE, cutoff - 1)
    if neg and un > cutoff:
        raise NumError("ParseInt", s, _RANGE, -cutoff)
    return -un if neg else un


def atoi(s: str) -> int:
    """strconv.Atoi: base 10, no prefixes; raises NumError like Go."""
    if 0 < len(s) < 19:
        body = s[1:] if s[0] in "+-" else s
        if not body or not body.isascii() or not body.isdigit():
            raise NumError("Atoi", s, _SYNTAX)
        return -int(body) if s[0] == "-" else int(body)
    try:
        return parse_int(s, 10, 64)
    except NumError as err:
        raise NumError("Atoi", s, str(err).rsplit(": ", 1)[1], err.value) from None


# Compiled through re's cache when first used: most renders parse no float.
_DECIMAL_FLOAT = r"[+-]?(?:[0-9_]+\.?[0-9_]*|\.[0-9_]+)(?:[eE][+-]?[0-9_]+)?"
_HEX_FLOAT = r"[+-]?0[xX](?:[0-9a-fA-F_]+\.?[0-9a-fA-F_]*|\.[0-9a-fA-F_]+)[pP][+-]?[0-9_]+"


def _special_float(s: str) -> float | None:
    """strconv's special(): inf, infinity (signed), nan (unsigned), any case."""
    low = s.lower()
    body = low[1:] if low[:1] in "+-" else low
    if body in ("inf", "infinity"):
        return -math.inf if low[0] == "-" else math.inf
    if low == "nan":
        return math.nan
    return None


def parse_float(s: str) -> float:
    """strconv.ParseFloat(s, 64); raises NumError (value = ±Inf on overflow)."""
    special = _special_float(s)
    if special is not None:
        return special
    if re.fullmatch(_DECIMAL_FLOAT, s) and ("_" not in s or underscore_ok(s)):
        value = float(s.replace("_", ""))
    elif re.fullmatch(_HEX_FLOAT, s) and underscore_ok(s):
        value = float.fromhex(s.replace("_", ""))
    else:
        raise NumError("ParseFloat", s, _SYNTAX)
    if math.isinf(value):
        raise NumError("ParseFloat", s, _RANGE, value)
    return value


