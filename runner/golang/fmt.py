"""Go's fmt package: Sprintf, Sprint and Sprintln with Go's exact output.

A port of the rules in Go's src/fmt (print.go: doPrintf, printArg,
printValue, badVerb; format.go: padding, integers, floats, strings) onto the
Python values of docs/engine.md. Unknown verbs print `%!d(string=hi)`,
missing operands `%!d(MISSING)`, unused ones `%!(EXTRA string=x)`. A bare
`%v` of one value (fmt.Sprint) is runner.golang.types.format_value, which
every render needs without the rest of this module.
"""

from __future__ import annotations

from runner.golang.strconv import (
    can_backquote,
    format_float,
    is_print,
    quote,
    quote_rune,
)
from runner.golang.types import (
    Duration,
    HelmValues,
    Int64,
    IntSlice,
    StringMap,
    StringSlice,
    Uint8,
    Uint64,
    format_value,
    go_type_name,
    is_time,
    sort_map_keys,
    time_text,
)

TYPE_CHECKING = False  # `typing` costs ~2 ms at every start: see docs/speed.md
if TYPE_CHECKING:
    from typing import Any

_NONE: Any = object()  # "no operand" marker (Go's nil p.arg / invalid p.value)
_LDIGITS = "0123456789abcdefx"
_UDIGITS = "0123456789ABCDEFX"
_MAX_RUNE = 0x10FFFF
_MASK64 = (1 << 64) - 1
_INT_TYPES = (int, Int64, Duration)


# ----------------------------------------------------------------- printer


def _too_large(x: int) -> bool:
    return x > 1_000_000 or x < -1_000_000


def _parsenum(s: str, start: int, end: int) -> tuple[int, bool, int]:
    """fmt's parsenum: digits at s[start:end] -> (number, found, next index)."""
    if start >= end:
        return 0, False, end
    num, isnum, i = 0, False, start
    while i < end and "0" <= s[i] <= "9":
        if _too_large(num):
            return 0, False, end
        num = num * 10 + ord(s[i]) - 48
        isnum = True
        i += 1
    return num, isnum, i


def _parse_arg_number(fmt: str) -> tuple[int, int, bool]:
    """fmt's parseArgNumber for a "[n]" at the start of fmt: (index, width, ok)."""
    if len(fmt) < 3:
        return 0, 1, False
    for i in range(1, len(fmt)):
        if fmt[i] == "]":
            width, ok, newi = _parsenum(fmt, 1, i)
            if not ok or newi != i:
                return 0, i + 1, False
            return width - 1, i + 1, True
    return 0, 1, False


def _int_from_arg(args: list[Any], arg_num: int) -> tuple[int, bool, int]:
    """fmt's intFromArg: a `*` width or precision taken from an integer operand."""
    if arg_num >= len(args):
        return 0, False, arg_num
    value = args[arg_num]
    num, is_int = 0, False
    if type(value) in _INT_TYPES or (isinstance(value, int) and not isinstance(value, bool)):
        num, is_int = int(value), True
    if _too_large(num):
        num, is_int = 0, False
    return num, is_int, arg_num + 1


class _Printer:
    """One Sprintf/Sprint call: Go's pp plus its fmt state."""

    __slots__ = (
        "buf",
        "wid",
        "prec",
        "wid_present",
        "prec_present",
        "minus",
        "plus",
        "sharp",
        "space",
        "zero",
        "plus_v",
        "sharp_v",
        "arg",
        "value",
        "erroring",
        "reordered",
        "good_arg_num",
    )

    def __init__(self) -> None:
        self.buf: list[str] = []
        self.erroring = False
        self.reordered = False
        self.good_arg_num = True
        self.arg: Any = _NONE
        self.value: Any = _NONE
        self.clear_flags()

    def clear_flags(self) -> None:
        self.wid = self.prec = 0
        self.wid_present = self.prec_present = False
        self.minus = self.plus = self.sharp = self.space = self.zero = False
        self.plus_v = self.sharp_v = False

    # -- padding (format.go)

    def write_padding(self, n: int) -> None:
        if n > 0:
            self.buf.append(("0" if self.zero and not self.minus else " ") * n)

    def pad(self, s: str) -> None:
        if not self.wid_present or self.wid == 0:
            self.buf.append(s)
            return
        width = self.wid - len(s)
        if not self.minus:
            self.write_padding(width)
            self.buf.append(s)
        else:
            self.buf.append(s)
            self.write_padding(width)

    def pad_unzeroed(self, s: str) -> None:
        """pad with the zero flag off (numbers that did their own zero fill)."""
        old_zero = self.zero
        self.zero = False
        self.pad(s)
        self.zero = old_zero

    # -- integers

    def fmt_integer(self, v: int, base: int, verb: str, digits: str) -> None:
        """format.go fmtInteger: precision as minimum digits, # prefixes, signs."""
        negative = v < 0
        u = -v if negative else v
        prec = 0
        if self.prec_present:
            prec = self.prec
            if prec == 0 and u == 0:
                old_zero = self.zero
                self.zero = False
                self.write_padding(self.wid)
                self.zero = old_zero
                return
        elif self.zero and not self.minus and self.wid_present:
            prec = self.wid
            if negative or self.plus or self.space:
                prec -= 1  # leave room for the sign
        text = _int_digits(u, base, digits)
        if len(text) < prec:
            text = "0" * (prec - len(text)) + text
        if self.sharp:
            if base == 2:
                text = "0b" + text
            elif base == 8 and text[0] != "0":
                text = "0" + text
            elif base == 16:
                text = "0" + digits[16] + text
        if verb == "O":
            text = "0o" + text
        if negative:
            text = "-" + text
        elif self.plus:
            text = "+" + text
        elif self.space:
            text = " " + text
        self.pad_unzeroed(text)

    def fmt_unicode(self, u: int) -> None:
        """format.go fmtUnicode: U+0041, with # also the quoted character."""
        u &= _MASK64
        prec = self.prec if self.prec_present and self.prec > 4 else 4
        text = "U+" + f"{u:X}".rjust(prec, "0")
        if self.sharp and u <= _MAX_RUNE and is_print(chr(u)) and not 0xD800 <= u <= 0xDFFF:
            text += " '" + chr(u) + "'"
        self.pad_unzeroed(text)

    def fmt_c(self, c: int) -> None:
        c &= _MASK64
        if c > _MAX_RUNE or 0xD800 <= c <= 0xDFFF:
            c = 0xFFFD
        self.pad(chr(c))

    def fmt_qc(self, c: int) -> None:
        c &= _MASK64
        self.pad(quote_rune(c, self.plus))

    def print_integer(self, v: int, verb: str) -> None:
        """print.go fmtInteger: verb dispatch for signed integers."""
        if verb in "vd":
            self.fmt_integer(v, 10, verb, _LDIGITS)
        elif verb == "b":
            self.fmt_integer(v, 2, verb, _LDIGITS)
        elif verb in "oO":
            self.fmt_integer(v, 8, verb, _LDIGITS)
        elif verb == "x":
            self.fmt_integer(v, 16, verb, _LDIGITS)
        elif verb == "X":
            self.fmt_integer(v, 16, verb, _UDIGITS)
        elif verb == "c":
            self.fmt_c(v)
        elif verb == "q":
            self.fmt_qc(v)
        elif verb == "U":
            self.fmt_unicode(v)
        else:
            self.bad_verb(verb)

    # -- floats

    def fmt_float(self, v: float, size: int, verb: str, prec: int) -> None:
        """format.go fmtFloat: signs, Inf/NaN, # decimal point, zero padding."""
        if self.prec_present:
            prec = self.prec
        num = format_float(v, verb, prec, size)
        num = num if num[0] in "+-" else "+" + num
        if self.space and num[0] == "+" and not self.plus:
            num = " " + num[1:]
        if num[1] in "IN":
            if num[1] == "N" and not self.space and not self.plus:
                num = num[1:]
            self.pad_unzeroed(num)
            return
        if self.sharp and verb != "b":
            num = _sharp_float(num, verb, prec)
        if self.plus or num[0] != "+":
            if self.zero and not self.minus and self.wid_present and self.wid > len(num):
                self.buf.append(num[0])
                self.write_padding(self.wid - len(num))
                self.buf.append(num[1:])
                return
            self.pad(num)
            return
        self.pad(num[1:])

    def print_float(self, v: float, verb: str) -> None:
        if verb == "v":
            self.fmt_float(v, 64, "g", -1)
        elif verb in "bgGxX":
            self.fmt_float(v, 64, verb, -1)
        elif verb in "feE":
            self.fmt_float(v, 64, verb, 6)
        elif verb == "F":
            self.fmt_float(v, 64, "f", 6)
        else:
            self.bad_verb(verb)

    def print_complex(self, v: complex, verb: str) -> None:
        """print.go fmtComplex: (real+imagi), each part formatted with the verb."""
        if verb not in "vbgGxXfFeE":
            self.bad_verb(verb)
            return
        old_plus = self.plus
        self.buf.append("(")
        self.print_float(v.real, verb)
        self.plus = True  # the imaginary part always has a sign
        self.print_float(v.imag, verb)
        self.buf.append("i)")
        self.plus = old_plus

    # -- strings and bytes

    def truncate(self, s: str) -> str:
        if self.prec_present and self.prec < len(s):
            return s[: self.prec]
        return s

    def fmt_sbx(self, data: bytes, digits: str) -> None:
        """format.go fmtSbx: hex of bytes, ' ' separating and # prefixing."""
        length = len(data)
        if self.prec_present and self.prec < length:
            length = self.prec
        width = 2 * length
        if width <= 0:
            if self.wid_present:
                self.write_padding(self.wid)
            return
        if self.space:
            if self.sharp:
                width *= 2
            width += length - 1
        elif self.sharp:
            width += 2
        if self.wid_present and self.wid > width and not self.minus:
            self.write_padding(self.wid - width)
        prefix = "0" + digits[16] if self.sharp else ""
        parts = [digits[c >> 4] + digits[c & 15] for c in data[:length]]
        text = prefix + (" " + prefix).join(parts) if self.space else prefix + "".join(parts)
        self.buf.append(text)
        if self.wid_present and self.wid > width and self.minus:
            self.write_padding(self.wid - width)

    def fmt_q(self, s: str) -> None:
        s = self.truncate(s)
        if self.sharp and can_backquote(s):
            self.pad("`" + s + "`")
            return
        self.pad(quote(s, self.plus))

    def print_string(self, v: str, verb: str) -> None:
        """print.go fmtString."""
        if verb == "v":
            if self.sharp_v:
                self.fmt_q(v)
            else:
                self.pad(self.truncate(v))
        elif verb == "s":
            self.pad(self.truncate(v))
        elif verb == "x":
            self.fmt_sbx(v.encode("utf-8", "surrogateescape"), _LDIGITS)
        elif verb == "X":
            self.fmt_sbx(v.encode("utf-8", "surrogateescape"), _UDIGITS)
        elif verb == "q":
            self.fmt_q(v)
        else:
            self.bad_verb(verb)

    def print_bytes(self, v: bytes, verb: str, type_name: str) -> None:
        """print.go fmtBytes: [104 105] for %v/%d, text for %s/%q, hex for %x."""
        if verb in "vd":
            if self.sharp_v:
                items = ", ".join(f"0x{c:x}" for c in v)
                self.buf.append(type_name + "{" + items + "}")
            else:
                self.buf.append("[")
                for i, c in enumerate(v):
                    if i:
                        self.buf.append(" ")
                    self.fmt_integer(c, 10, verb, _LDIGITS)
                self.buf.append("]")
        elif verb == "s":
            self.pad(self.truncate(_bytes_text(v)))
        elif verb in "xX":
            self.fmt_sbx(bytes(v), _LDIGITS if verb == "x" else _UDIGITS)
        elif verb == "q":
            self.fmt_q(v.decode("utf-8", "surrogateescape"))  # bad bytes quote as \xff
        else:
            self.print_list([Uint8(c) for c in v], verb, 0, type_name)

    # -- errors

    def bad_verb(self, verb: str) -> None:
        """print.go badVerb: %!verb(type=value)."""
        self.erroring = True
        self.buf.append("%!" + verb + "(")
        if self.arg is not _NONE and self.arg is not None:
            self.buf.append(go_type_name(self.arg) + "=")
            self.print_arg(self.arg, "v")
        elif self.value is not _NONE:
            self.buf.append(go_type_name(self.value) + "=")
            self.print_value(self.value, "v", 0)
        else:
            self.buf.append("<nil>")
        self.buf.append(")")
        self.erroring = False

    # -- operands

    def handle_methods(self, verb: str) -> bool:
        """Stringer values (time.Duration, time.Time, objects with String) for %v %s %x %X %q."""
        if self.erroring or self.sharp_v or verb not in "vsxXq":
            return False
        arg = self.arg
        t = type(arg)
        if t is Duration or isinstance(arg, Duration):
            text = arg.String()
        elif t in _PLAIN_TYPES:
            return False
        elif is_time(arg):
            method = getattr(arg, "String", None)  # GoTime: nanoseconds, now's m=+...
            text = method() if callable(method) else time_text(arg)
        else:
            method = getattr(arg, "String", None)
            if not callable(method) or getattr(arg, "go_string_addr_only", False):
                return False  # no String, or one with a pointer receiver on a copied struct
            text = method()
        self.print_string(text, verb)
        return True

    def print_arg(self, arg: Any, verb: str) -> None:
        """print.go printArg: nil, %T, then dispatch on the operand's type."""
        self.arg = arg
        self.value = _NONE
        if arg is None:
            if verb in "Tv":
                self.pad("<nil>")
            else:
                self.bad_verb(verb)
            return
        if verb == "T":
            self.pad(self.truncate(go_type_name(arg)))
            return
        t = type(arg)
        if t is str:
            self.print_string(arg, verb)
        elif t is int or t is Int64:
            self.print_integer(arg, verb)
        elif t is float:
            self.print_float(arg, verb)
        elif t is bool:
            self.print_bool(arg, verb)
        elif t is bytes or t is bytearray:
            self.print_bytes(bytes(arg), verb, "[]byte")
        elif t is complex:
            self.print_complex(arg, verb)
        elif not self.handle_methods(verb):
            self.print_value(arg, verb, 0)

    def print_bool(self, v: bool, verb: str) -> None:
        if verb in "tv":
            self.pad("true" if v else "false")
        else:
            self.bad_verb(verb)

    def print_value(self, value: Any, verb: str, depth: int) -> None:
        """print.go printValue: composites recurse with the same verb and flags."""
        if depth > 0 and value is not None:
            self.arg = value
            if self.handle_methods(verb):
                return
        self.arg = _NONE
        self.value = value
        if value is None:
            self.buf.append("interface {}(nil)" if self.sharp_v else "<nil>")
            return
        t = type(value)
        if t is bool:
            self.print_bool(value, verb)
        elif t is str:
            self.print_string(value, verb)
        elif t is float:
            self.print_float(value, verb)
        elif t is complex:
            self.print_complex(value, verb)
        elif isinstance(value, int):
            self.print_integer(int(value), verb)
        elif isinstance(value, dict):
            self.print_map(value, verb, depth)
        elif isinstance(value, (bytes, bytearray)):
            if verb in "sqxX":
                self.print_bytes(bytes(value), verb, go_type_name(value))
            else:
                self.print_list([Uint8(c) for c in value], verb, depth, go_type_name(value))
        elif isinstance(value, (list, tuple)):
            self.print_list(value, verb, depth, go_type_name(value))
        elif is_time(value):
            self.buf.append("{" + time_text(value) + "}")
        else:
            self.print_object(value, verb, depth)

    def print_map(self, value: dict[Any, Any], verb: str, depth: int) -> None:
        if self.sharp_v and getattr(value, "go_nil", False):
            self.buf.append(go_type_name(value) + "(nil)")
            return
        sep = ", " if self.sharp_v else " "
        self.buf.append(go_type_name(value) + "{" if self.sharp_v else "map[")
        for i, key in enumerate(sort_map_keys(list(value))):
            if i:
                self.buf.append(sep)
            self.print_value(key, verb, depth + 1)
            self.buf.append(":")
            self.print_value(value[key], verb, depth + 1)
        self.buf.append("}" if self.sharp_v else "]")

    def print_list(self, value: Any, verb: str, depth: int, type_name: str) -> None:
        if self.sharp_v and getattr(value, "go_nil", False):
            self.buf.append(type_name + "(nil)")
            return
        sep = ", " if self.sharp_v else " "
        self.buf.append(type_name + "{" if self.sharp_v else "[")
        for i, item in enumerate(value):
            if i:
                self.buf.append(sep)
            self.print_value(item, verb, depth + 1)
        self.buf.append("}" if self.sharp_v else "]")

    def print_object(self, value: Any, verb: str, depth: int = 0) -> None:
        """Objects without String(): a struct's fields (go_fields) with the verb, else
        their __go_str__ text."""
        fields = getattr(value, "go_fields", None)
        if fields is not None and getattr(value, "go_kind", None) == "struct":
            self.print_struct(value, fields(), verb, depth)
            return
        method = getattr(value, "__go_str__", None)
        text = method() if callable(method) else str(value)
        if verb in "vs":
            self.pad(text)
        else:
            self.bad_verb(verb)

    def print_struct(self, value: Any, fields: list[tuple[str, Any]], verb: str, depth: int) -> None:
        """print.go printValue for a struct: {a b}, %+v {A:a B:b}, %#v pkg.T{A:"a", B:"b"}."""
        if self.sharp_v:
            self.buf.append(go_type_name(value))
        self.buf.append("{")
        for i, (name, item) in enumerate(fields):
            if i:
                self.buf.append(", " if self.sharp_v else " ")
            if self.plus_v or self.sharp_v:
                self.buf.append(name + ":")
            self.print_value(item, verb, depth + 1)
        self.buf.append("}")

    # -- the format loop (print.go doPrintf)

    def arg_number(self, arg_num: int, fmt: str, i: int, num_args: int) -> tuple[int, int, bool]:
        if i >= len(fmt) or fmt[i] != "[":
            return arg_num, i, False
        self.reordered = True
        index, wid, ok = _parse_arg_number(fmt[i:])
        if ok and 0 <= index < num_args:
            return index, i + wid, True
        self.good_arg_num = False
        return arg_num, i + wid, ok

    def do_printf(self, fmt: str, args: list[Any]) -> None:
        end = len(fmt)
        arg_num = 0
        after_index = False
        self.reordered = False
        i = 0
        while i < end:
            self.good_arg_num = True
            pct = fmt.find("%", i)
            if pct < 0:
                self.buf.append(fmt[i:])
                break
            if pct > i:
                self.buf.append(fmt[i:pct])
            i = pct + 1
            self.clear_flags()
            i, arg_num, done = self.parse_flags(fmt, i, args, arg_num)
            if done:
                continue
            arg_num, i, after_index = self.arg_number(arg_num, fmt, i, len(args))
            i, arg_num, after_index = self.parse_width(fmt, i, args, arg_num, after_index)
            i, arg_num, after_index = self.parse_precision(fmt, i, args, arg_num, after_index)
            if not after_index:
                arg_num, i, after_index = self.arg_number(arg_num, fmt, i, len(args))
            if i >= end:
                self.buf.append("%!(NOVERB)")
                break
            verb = fmt[i]
            i += 1
            arg_num = self.print_verb(verb, args, arg_num)
        if not self.reordered and arg_num < len(args):
            self.write_extra(args[arg_num:])

    def parse_flags(self, fmt: str, i: int, args: list[Any], arg_num: int) -> tuple[int, int, bool]:
        """Flags, and the fast path of a plain lowercase verb right after them."""
        end = len(fmt)
        while i < end:
            c = fmt[i]
            if c == "#":
                self.sharp = True
            elif c == "0":
                self.zero = True
            elif c == "+":
                self.plus = True
            elif c == "-":
                self.minus = True
            elif c == " ":
                self.space = True
            else:
                if "a" <= c <= "z" and arg_num < len(args):
                    if c == "v":
                        self.set_v_flags()
                    self.print_arg(args[arg_num], c)
                    return i + 1, arg_num + 1, True
                break
            i += 1
        return i, arg_num, False

    def set_v_flags(self) -> None:
        """%#v and %+v are flagless formats of their own."""
        self.sharp_v, self.sharp = self.sharp, False
        self.plus_v, self.plus = self.plus, False

    def parse_width(
        self, fmt: str, i: int, args: list[Any], arg_num: int, after_index: bool
    ) -> tuple[int, int, bool]:
        end = len(fmt)
        if i < end and fmt[i] == "*":
            self.wid, self.wid_present, arg_num = _int_from_arg(args, arg_num)
            if not self.wid_present:
                self.buf.append("%!(BADWIDTH)")
            if self.wid < 0:
                self.wid = -self.wid
                self.minus = True
                self.zero = False  # no zero padding to the right
            return i + 1, arg_num, False
        self.wid, self.wid_present, i = _parsenum(fmt, i, end)
        if after_index and self.wid_present:
            self.good_arg_num = False  # "%[3]2d"
        return i, arg_num, after_index

    def parse_precision(
        self, fmt: str, i: int, args: list[Any], arg_num: int, after_index: bool
    ) -> tuple[int, int, bool]:
        end = len(fmt)
        if not (i + 1 < end and fmt[i] == "."):
            return i, arg_num, after_index
        i += 1
        if after_index:
            self.good_arg_num = False  # "%[3].2d"
        arg_num, i, after_index = self.arg_number(arg_num, fmt, i, len(args))
        if i < end and fmt[i] == "*":
            self.prec, self.prec_present, arg_num = _int_from_arg(args, arg_num)
            if self.prec < 0:
                self.prec, self.prec_present = 0, False
            if not self.prec_present:
                self.buf.append("%!(BADPREC)")
            return i + 1, arg_num, False
        self.prec, self.prec_present, i = _parsenum(fmt, i, end)
        if not self.prec_present:
            self.prec, self.prec_present = 0, True
        return i, arg_num, after_index

    def print_verb(self, verb: str, args: list[Any], arg_num: int) -> int:
        if verb == "%":
            self.buf.append("%")  # takes no operand, ignores width and precision
        elif not self.good_arg_num:
            self.buf.append("%!" + verb + "(BADINDEX)")
        elif arg_num >= len(args):
            self.buf.append("%!" + verb + "(MISSING)")
        else:
            if verb == "v":
                self.set_v_flags()
            self.print_arg(args[arg_num], verb)
            arg_num += 1
        return arg_num

    def write_extra(self, extra: list[Any]) -> None:
        self.clear_flags()
        self.buf.append("%!(EXTRA ")
        for i, arg in enumerate(extra):
            if i:
                self.buf.append(", ")
            if arg is None:
                self.buf.append("<nil>")
            else:
                self.buf.append(go_type_name(arg) + "=")
                self.print_arg(arg, "v")
        self.buf.append(")")


_PLAIN_TYPES = frozenset(
    {
        str,
        int,
        Int64,
        Uint64,
        float,
        bool,
        bytes,
        bytearray,
        list,
        tuple,
        dict,
        StringSlice,
        IntSlice,
        StringMap,
        HelmValues,
        complex,
    }
)


def _int_digits(u: int, base: int, digits: str) -> str:
    if base == 10:
        return str(u)
    if base == 16:
        text = format(u, "x")
        return text.upper() if digits is _UDIGITS else text
    return format(u, "o" if base == 8 else "b")


def _bytes_text(v: bytes) -> str:
    return v.decode("utf-8", "replace")


def _sharp_float(num: str, verb: str, prec: int) -> str:
    """format.go's # flag on floats: keep a decimal point and trailing zeros."""
    digits = 0
    if verb in ("v", "g", "G", "x"):
        digits = 6 if prec == -1 else prec
    tail = ""
    has_point = False
    saw_nonzero = False
    body = num
    for i in range(1, len(num)):
        c = num[i]
        if c == ".":
            has_point = True
        elif c in "pP" or (c in "eE" and verb not in "xX"):
            tail = num[i:]
            body = num[:i]
            break
        else:
            if c != "0":
                saw_nonzero = True
            if saw_nonzero:
                digits -= 1
    if not has_point:
        if len(body) == 2 and body[1] == "0":
            digits -= 1
        body += "."
    if digits > 0:
        body += "0" * digits
    return body + tail


# --------------------------------------------------------------- public API


_PLAN_CACHE: dict[str, tuple[tuple[str, str], ...] | None] = {}
_PLAN_CACHE_MAX = 2048


def _simple_plan(fmt: str) -> tuple[tuple[str, str], ...] | None:
    """(literal, verb) pairs when fmt uses only bare %s %d %v %%, else None."""
    plan: list[tuple[str, str]] = []
    literal: list[str] = []
    i, end = 0, len(fmt)
    while i < end:
        pct = fmt.find("%", i)
        if pct < 0:
            literal.append(fmt[i:])
            break
        literal.append(fmt[i:pct])
        verb = fmt[pct + 1 : pct + 2]
        if verb == "%":
            literal.append("%")
        elif verb in ("s", "d", "v"):
            plan.append(("".join(literal), verb))
            literal = []
        else:
            return None
        i = pct + 2
    plan.append(("".join(literal), ""))
    return tuple(plan)


def _simple_text(verb: str, arg: Any) -> str | None:
    """A bare verb's text for the everyday operand types; None to take the full path."""
    t = type(arg)
    if t is str:
        return arg if verb != "d" else None
    if t is int or t is Int64:
        return int.__repr__(arg) if verb != "s" else None  # %s of an int is %!s(int=1)
    if verb != "v":
        return None
    if t is float or t is bool or arg is None:
        return format_value(arg)
    return None


def _sprintf_simple(
    plan: tuple[tuple[str, str], ...], args: list[Any] | tuple[Any, ...]
) -> str | None:
    if len(plan) - 1 != len(args):
        return None
    parts: list[str] = []
    for (literal, verb), arg in zip(plan, args, strict=False):
        text = _simple_text(verb, arg)
        if text is None:
            return None
        parts.append(literal)
        parts.append(text)
    parts.append(plan[-1][0])
    return "".join(parts)


def sprintf(fmt: str, args: list[Any] | tuple[Any, ...]) -> str:
    """fmt.Sprintf(fmt, args...)."""
    plan = _PLAN_CACHE.get(fmt, _NONE)
    if plan is _NONE:
        if len(_PLAN_CACHE) >= _PLAN_CACHE_MAX:
            _PLAN_CACHE.clear()
        plan = _PLAN_CACHE[fmt] = _simple_plan(fmt)
    if plan is not None:
        text = _sprintf_simple(plan, args)
        if text is not None:
            return text
    printer = _Printer()
    printer.do_printf(fmt, list(args))
    return "".join(printer.buf)


def sprint(args: list[Any] | tuple[Any, ...]) -> str:
    """fmt.Sprint: spaces between operands when neither side is a string."""
    parts: list[str] = []
    prev_string = False
    for i, arg in enumerate(args):
        is_string = isinstance(arg, str)
        if i > 0 and not is_string and not prev_string:
            parts.append(" ")
        parts.append(format_value(arg))
        prev_string = is_string
    return "".join(parts)


def sprintln(args: list[Any] | tuple[Any, ...]) -> str:
    """fmt.Sprintln: operands always separated by spaces, newline at the end."""
    return " ".join([format_value(arg) for arg in args]) + "\n"
