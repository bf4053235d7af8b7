"""The Go value model: Go type names, kinds, template truth and `%v` printing.

Python values stand for Go values as docs/engine.md ("Go values in Python")
lays out. Objects that stand for Go structs may define:

- `go_type` (class attribute): the `%T` name, e.g. "*chart.Metadata";
- `go_kind` (class attribute): the reflect Kind name, "ptr" when absent;
- `String()` (method): Go's fmt.Stringer, used by `%v`, `%s`, `%q`, `%x`;
- `__go_str__()` (method): the `%v` text when the Go type has no String
  method (e.g. "{a b}" for a struct);
- `go_fields()` (method, with `go_kind = "struct"`): [(Go field name, value)]
  in declaration order, for `%+v`, `%#v` and verbs applied field by field;
- `go_string_addr_only` (class attribute): String has a pointer receiver on a
  struct held by value, so only an addressable field prints through it
  (`{{ .Capabilities.KubeVersion }}`); fmt and copies print the struct;
- `go_elem_str()` (method): for a pointer to a struct without String, the
  struct's `%v` (text/template indirects pointers before printing: no "&");
- `go_nil` (class attribute): a typed nil map or slice (NilMap, NilSlice, ...).

Everything here sits on the rendering hot path: dispatch is by exact type
through dicts, with isinstance only as a fallback for unusual subclasses.
"""

from __future__ import annotations

import math
import re
import sys
from collections.abc import Callable

TYPE_CHECKING = False  # `typing` costs ~2 ms at every start: see docs/speed.md
if TYPE_CHECKING:
    from datetime import datetime
    from typing import Any


def is_time(v: object) -> bool:
    """Whether v is a Go time.Time: a datetime (or runner.funcs.gotime.GoTime).

    Most renders make no time value, so `datetime` (~1 ms) is not imported to
    ask: whatever makes one (the date functions, fromToml, PyYAML) has
    imported the module first, and until then no value can be a datetime.
    Time values therefore sit in no exact-type table; they take the fallbacks."""
    module = sys.modules.get("datetime")
    return module is not None and isinstance(v, module.datetime)


class Int64(int):
    """Go int64 (Sprig math results, `--set` integers, the `int64` function)."""

    __slots__ = ()
    go_type = "int64"


class Uint64(int):
    """Go uint64 (semver's Major, Minor, Patch)."""

    __slots__ = ()
    go_type = "uint64"
    go_kind = "uint64"


class Uint8(int):
    """Go uint8: an element of a []byte seen on its own (reflection, fmt)."""

    __slots__ = ()
    go_type = "uint8"
    go_kind = "uint8"


class Duration(Int64):
    """Go time.Duration: nanoseconds, printed as `1h0m0s` by `%v`."""

    __slots__ = ()
    go_type = "time.Duration"

    def String(self) -> str:  # noqa: N802 - Go's method name
        return duration_string(self)


class StringSlice(list):
    """Go []string (splitList, keys, toStrings, ...)."""

    __slots__ = ()
    go_type = "[]string"


class IntSlice(list):
    """Go []int (until, untilStep)."""

    __slots__ = ()
    go_type = "[]int"


class StringMap(dict):
    """Go map[string]string (split, splitn)."""

    __slots__ = ()
    go_type = "map[string]string"


class NilMap(dict):
    """A nil Go map[string]interface {} (fromJson "null"): no entries, prints `map[]`,
    encodes as JSON null (go-yaml v3: `{}`). Always a fresh instance: Go panics on
    assignment to a nil map, here it would just stop being nil."""

    __slots__ = ()
    go_nil = True


class NilStringMap(StringMap):
    """A nil Go map[string]string (.Chart.Annotations of a chart without them)."""

    __slots__ = ()
    go_nil = True


class NilSlice(list):
    """A nil Go []interface {} (rest of an empty list, fromJsonArray "null"): prints `[]`,
    encodes as JSON null (go-yaml v3: `[]`)."""

    __slots__ = ()
    go_nil = True


class NilStringSlice(StringSlice):
    """A nil Go []string (regexFindAll without a match)."""

    __slots__ = ()
    go_nil = True


def is_go_nil(v: Any) -> bool:
    """A typed nil map or slice (not Python None, Go's untyped nil)."""
    return getattr(v, "go_nil", False) is True


# ---------------------------------------------------------------- type names

_NIL_TYPE = type(None)

_TYPE_NAMES: dict[type, str] = {
    _NIL_TYPE: "<nil>",
    bool: "bool",
    int: "int",
    Int64: "int64",
    Uint64: "uint64",
    Duration: "time.Duration",
    float: "float64",
    str: "string",
    bytes: "[]uint8",
    bytearray: "[]uint8",
    list: "[]interface {}",
    tuple: "[]interface {}",
    StringSlice: "[]string",
    IntSlice: "[]int",
    dict: "map[string]interface {}",
    StringMap: "map[string]string",
    complex: "complex128",
}

# Subclass fallbacks, checked in order after the exact-type table misses.
_BASE_TYPE_NAMES: tuple[tuple[type, str], ...] = (
    (bool, "bool"),
    (int, "int"),
    (float, "float64"),
    (str, "string"),
    (bytes, "[]uint8"),
    (list, "[]interface {}"),
    (dict, "map[string]interface {}"),
)


def go_type_name(v: Any) -> str:
    """Go's `%T` of a value: "float64", "[]interface {}", "<nil>", ..."""
    name = _TYPE_NAMES.get(type(v))
    if name is not None:
        return name
    name = getattr(v, "go_type", None)
    if name is not None:
        return name
    for base, base_name in _BASE_TYPE_NAMES:
        if isinstance(v, base):
            return base_name
    return "time.Time" if is_time(v) else type(v).__name__


_KINDS: dict[type, str] = {
    _NIL_TYPE: "invalid",
    bool: "bool",
    int: "int",
    Int64: "int64",
    Uint64: "uint64",
    Duration: "int64",
    float: "float64",
    str: "string",
    bytes: "slice",
    bytearray: "slice",
    list: "slice",
    tuple: "slice",
    StringSlice: "slice",
    IntSlice: "slice",
    dict: "map",
    StringMap: "map",
    complex: "complex128",
}

_BASE_KINDS: tuple[tuple[type, str], ...] = (
    (bool, "bool"),
    (Int64, "int64"),
    (int, "int"),
    (float, "float64"),
    (str, "string"),
    (bytes, "slice"),
    (list, "slice"),
    (dict, "map"),
)


def kind_of(v: Any) -> str:
    """reflect.ValueOf(v).Kind().String(): "map", "slice", "int64", "invalid", ..."""
    kind = _KINDS.get(type(v))
    if kind is not None:
        return kind
    kind = getattr(v, "go_kind", None)
    if kind is not None:
        return kind
    for base, base_kind in _BASE_KINDS:
        if isinstance(v, base):
            return base_kind
    return "struct" if is_time(v) else "ptr"  # Go objects with methods are pointers to structs


# --------------------------------------------------------------------- truth

# Types whose Go truth is Python's bool(): zero numbers, empty strings and
# collections are false (float NaN is true in both languages).
_PLAIN_TRUTH = frozenset(
    {
        bool,
        int,
        Int64,
        Uint64,
        Duration,
        float,
        str,
        bytes,
        bytearray,
        list,
        tuple,
        StringSlice,
        IntSlice,
        dict,
        StringMap,
        complex,
    }
)


def is_true(v: Any) -> tuple[bool, bool]:
    """text/template's IsTrue: (truth, ok). Structs and non-nil pointers are true."""
    if v is None:
        return False, True
    if type(v) in _PLAIN_TRUTH:
        return bool(v), True
    if isinstance(v, (int, float, str, bytes, list, tuple, dict)):
        return bool(v), True
    return True, True


def truth(v: Any) -> bool:
    """Just the truth of is_true (every Python value is ok)."""
    if v is None:
        return False
    if type(v) in _PLAIN_TRUTH:
        return bool(v)
    return is_true(v)[0]


def is_empty(v: Any) -> bool:
    """Sprig's `empty`: nil, zero numbers, false, "" and empty collections.

    Differs from template truth only in name; structs (time.Time, objects)
    are never empty.
    """
    return not truth(v)


# ------------------------------------------------------------ float printing


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


# -------------------------------------------------------- time and duration


def _frac_text(value: int, prec: int) -> tuple[str, int]:
    """time's fmtFrac: '.ddd' without trailing zeros (or ''), and value // 10**prec."""
    whole, frac = divmod(value, 10**prec)
    if frac == 0:
        return "", whole
    return "." + f"{frac:0{prec}d}".rstrip("0"), whole


def duration_string(d: int) -> str:
    """time.Duration.String(): 1h2m3.5s, 1.5ms, 12µs, 0s."""
    neg = d < 0
    u = -d if neg else d
    if u < 1_000_000_000:
        if u == 0:
            return "0s"
        if u < 1_000:
            text = f"{u}ns"
        elif u < 1_000_000:
            frac, whole = _frac_text(u, 3)
            text = f"{whole}{frac}µs"
        else:
            frac, whole = _frac_text(u, 6)
            text = f"{whole}{frac}ms"
    else:
        frac, secs = _frac_text(u, 9)
        text = f"{secs % 60}{frac}s"
        mins = secs // 60
        if mins > 0:
            text = f"{mins % 60}m{text}"
            if mins // 60 > 0:
                text = f"{mins // 60}h{text}"
    return "-" + text if neg else text


_PY_FIXED_ZONE = r"^UTC[+-]\d\d:\d\d(:\d\d)?$"  # compiled (and cached by re) on first use


def zone_name(t: datetime) -> str:
    """The zone abbreviation Go prints for MST; numeric (+0200) for unnamed zones."""
    name = t.tzname() or ""
    if name and not re.match(_PY_FIXED_ZONE, name):
        return name
    return zone_offset(t, "")


def zone_offset(t: datetime, sep: str = "") -> str:
    """-0700 (or -07:00 with sep=':') for t's UTC offset."""
    offset = t.utcoffset()
    minutes = int(offset.total_seconds()) // 60 if offset else 0
    sign = "-" if minutes < 0 else "+"
    hours, mins = divmod(abs(minutes), 60)
    return f"{sign}{hours:02d}{sep}{mins:02d}"


def time_string(t: datetime) -> str:
    """time.Time.String(): 2006-01-02 15:04:05.999999999 -0700 MST."""
    if t.tzinfo is None:
        from datetime import UTC  # loaded: t is a datetime

        t = t.replace(tzinfo=UTC)
    frac = f".{t.microsecond:06d}".rstrip("0").rstrip(".") if t.microsecond else ""
    return (
        f"{t.year:04d}-{t.month:02d}-{t.day:02d} "
        f"{t.hour:02d}:{t.minute:02d}:{t.second:02d}{frac} "
        f"{zone_offset(t)} {zone_name(t)}"
    )


# --------------------------------------------------------------- %v printing


def sort_map_keys(keys: list[Any]) -> list[Any]:
    """fmt's map key order (internal/fmtsort): strings and numbers ascending."""
    try:
        return sorted(keys)
    except TypeError:
        return sorted(keys, key=lambda k: (go_type_name(k), str(k)))


def _format_list(v: Any) -> str:
    return "[" + " ".join([format_value(e) for e in v]) + "]"


def _format_map(v: dict[Any, Any]) -> str:
    parts = [f"{format_value(k)}:{format_value(v[k])}" for k in sort_map_keys(list(v))]
    return "map[" + " ".join(parts) + "]"


def _format_bytes(v: bytes) -> str:
    return "[" + " ".join([str(b) for b in v]) + "]"


def _format_object(v: Any) -> str:
    """Stringer first (not a pointer-receiver String of a struct passed by value:
    go_string_addr_only), then the object's own %v text, then Python's str."""
    method = getattr(v, "String", None)
    if callable(method) and not getattr(v, "go_string_addr_only", False):
        return method()
    method = getattr(v, "__go_str__", None)
    if callable(method):
        return method()
    if isinstance(v, (list, tuple)):
        return _format_list(v)
    if isinstance(v, dict):
        return _format_map(v)
    if is_time(v):
        return time_string(v)
    return str(v)


_FORMATTERS: dict[type, Callable[[Any], str]] = {
    str: str.__str__,
    bool: lambda v: "true" if v else "false",
    int: int.__repr__,
    Int64: int.__repr__,
    Uint64: int.__repr__,
    Uint8: int.__repr__,
    Duration: duration_string,
    float: format_float_v,
    _NIL_TYPE: lambda v: "<nil>",
    list: _format_list,
    tuple: _format_list,
    StringSlice: _format_list,
    IntSlice: _format_list,
    dict: _format_map,
    StringMap: _format_map,
    bytes: _format_bytes,
    bytearray: _format_bytes,
    complex: format_complex,
}


def format_value(v: Any) -> str:
    """fmt.Sprint(v) of one value: Go's %v (`1e+06`, `map[a:1]`, `[a b]`, `<nil>`)."""
    formatter = _FORMATTERS.get(type(v))
    if formatter is not None:
        return formatter(v)
    return _format_object(v)


def print_value(v: Any) -> str:
    """What `{{ v }}` writes in text/template: `<no value>` for nil, else %v.

    The value is taken as addressable (a field, or a variable or dot holding
    one): a pointer-receiver String (go_string_addr_only) applies, as Go's
    printableValue takes the value's address. `print_copied_value` is the
    other case (a function's result, a range element)."""
    if v is None:
        return "<no value>"
    formatter = _FORMATTERS.get(type(v))
    if formatter is not None:
        return formatter(v)
    if getattr(v, "go_string_addr_only", False):
        return v.String()
    elem = getattr(v, "go_elem_str", None)
    if elem is not None:
        return elem()  # a pointer to a struct without String: printed indirected, no "&"
    return _format_object(v)


def print_copied_value(v: Any) -> str:
    """`{{ v }}` of a value that is not addressable: %v, `<no value>` for nil."""
    if v is None:
        return "<no value>"
    elem = getattr(v, "go_elem_str", None)
    return elem() if elem is not None else format_value(v)
