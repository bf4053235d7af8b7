"""Template functions: Sprig's strings family (sprig v3.3.0 strings.go and functions.go).

Go strings are UTF-8 byte sequences (see runner.funcs.gotext). Where Sprig or
its helper libraries (Masterminds/goutils v1.1.1 in runner.funcs.goutils,
huandu/xstrings v1.5.0 in runner.funcs.textcase) index or walk bytes, so do
we: `trunc`, `substr`, `abbrev`, `wrap` cut at byte offsets, and `nospace` /
`initials` turn each byte into a rune, so non-ASCII text comes out as in Helm.
Case mappings are Go's simple ones: `upper "ß"` stays "ß".
"""

from __future__ import annotations

import unicodedata

from runner.funcs import goutils, textcase
from runner.funcs.cast import strval
from runner.funcs.gotext import (
    GO_SPACES,
    byte_len,
    go_lower,
    go_upper,
    is_letter,
    is_space,
    slice_bytes,
    title_rune,
    to_utf8,
)
from runner.funcs.registry import alias, gofunc
from runner.golang.gofunc import FuncError
from runner.golang.strconv import quote as go_quote
from runner.golang.types import StringMap, StringSlice, format_value

TYPE_CHECKING = False  # `typing` costs ~2 ms at every start: see docs/speed.md
if TYPE_CHECKING:
    from typing import Any

# ------------------------------------------------------------------ trimming


@gofunc("trim", ("string",), returns="string")
def trim(s: str) -> str:
    """strings.TrimSpace."""
    return s.strip(GO_SPACES)


@gofunc("trimAll", ("string", "string"), returns="string")
def trim_all(cutset: str, s: str) -> str:
    """strings.Trim(s, cutset): arguments swapped for pipelines."""
    return s.strip(cutset) if cutset else s


alias("trimall", "trimAll")  # deprecated spelling Sprig still registers


@gofunc("trimPrefix", ("string", "string"), returns="string")
def trim_prefix(prefix: str, s: str) -> str:
    return s.removeprefix(prefix)


@gofunc("trimSuffix", ("string", "string"), returns="string")
def trim_suffix(suffix: str, s: str) -> str:
    return s.removesuffix(suffix)


@gofunc("nospace", ("string",), returns="string")
def nospace(s: str) -> str:
    return goutils.delete_white_space(s)


# ------------------------------------------------------------------- casing


@gofunc("upper", ("string",), returns="string")
def upper(s: str) -> str:
    return go_upper(s)


@gofunc("lower", ("string",), returns="string")
def lower(s: str) -> str:
    return go_lower(s)


def _is_title_separator(c: str) -> bool:
    """strings.Title's isSeparator."""
    if c < "\x80":
        return not (c.isalnum() or c == "_")
    if is_letter(c) or unicodedata.category(c) == "Nd":
        return False
    return is_space(c)


@gofunc("title", ("string",), returns="string")
def title(s: str) -> str:
    """strings.Title: the first rune after each separator to title case."""
    out = []
    prev = " "
    for c in s:
        out.append(title_rune(c) if _is_title_separator(prev) else c)
        prev = c
    return "".join(out)


@gofunc("untitle", ("string",), returns="string")
def untitle(s: str) -> str:
    return goutils.uncapitalize(s)


@gofunc("swapcase", ("string",), returns="string")
def swapcase(s: str) -> str:
    return goutils.swap_case(s)


# ------------------------------------------------------ cutting and padding


def _slice_panic(spec: str) -> FuncError:
    return FuncError(f"runtime error: slice bounds out of range {spec}")


@gofunc("trunc", ("int", "string"), returns="string")
def trunc(c: int, s: str) -> str:
    """Sprig's trunc: the first c bytes, or the last -c bytes when c < 0."""
    n = byte_len(s)
    if c < 0 and n + c > 0:
        return slice_bytes(s, n + c)
    if c >= 0 and n > c:
        return slice_bytes(s, 0, c)
    return s


@gofunc("substr", ("int", "int", "string"), returns="string")
def substr(start: int, end: int, s: str) -> str:
    """Sprig's substring: byte offsets; Go's slice panics become errors."""
    n = byte_len(s)
    if start < 0:
        if end < 0:
            raise _slice_panic(f"[:{end}]")
        if end > n:
            raise _slice_panic(f"[:{end}] with length {n}")
        return slice_bytes(s, 0, end)
    if end < 0 or end > n:
        if start > n:
            raise _slice_panic(f"[{start}:{n}]")
        return slice_bytes(s, start)
    if start > end:
        raise _slice_panic(f"[{start}:{end}]")
    return slice_bytes(s, start, end)


def _go_repeat(s: str, count: int) -> str:
    """strings.Repeat with its panics."""
    if count < 0:
        raise FuncError("strings: negative Repeat count")
    if count and byte_len(s) * count > (1 << 63) - 1:
        raise FuncError("strings: Repeat output length overflow")
    return s * count


@gofunc("repeat", ("int", "string"), returns="string")
def repeat(count: int, s: str) -> str:
    return _go_repeat(s, count)


_PADS: dict[int, tuple[str, str]] = {}


def _pads(spaces: int) -> tuple[str, str]:
    """(pad, newline + pad) for an indent width, cached: indent is on the hot path."""
    pads = _PADS.get(spaces)
    if pads is None:
        pad = _go_repeat(" ", spaces)
        pads = (pad, "\n" + pad)
        if len(_PADS) < 256:
            _PADS[spaces] = pads
    return pads


@gofunc("indent", ("int", "string"), returns="string")
def indent(spaces: int, v: str) -> str:
    pad, newline_pad = _PADS.get(spaces) or _pads(spaces)
    return pad + v.replace("\n", newline_pad)


@gofunc("nindent", ("int", "string"), returns="string")
def nindent(spaces: int, v: str) -> str:
    pad, newline_pad = _PADS.get(spaces) or _pads(spaces)
    return newline_pad + v.replace("\n", newline_pad)


@gofunc("abbrev", ("int", "string"), returns="string")
def abbrev(width: int, s: str) -> str:
    if width < 4:
        return s
    return goutils.abbreviate_full(s, 0, width)


@gofunc("abbrevboth", ("int", "int", "string"), returns="string")
def abbrevboth(left: int, right: int, s: str) -> str:
    if right < 4 or (left > 0 and right < 7):
        return s
    return goutils.abbreviate_full(s, left, right)


@gofunc("initials", ("string",), returns="string")
def initials(s: str) -> str:
    return goutils.initials(s)


@gofunc("wrap", ("int", "string"), returns="string")
def wrap(length: int, s: str) -> str:
    return goutils.wrap_custom(s, length, "", False)


@gofunc("wrapWith", ("int", "string", "string"), returns="string")
def wrap_with(length: int, sep: str, s: str) -> str:
    return goutils.wrap_custom(s, length, sep, True)


# ------------------------------------------------------------ predicates


@gofunc("contains", ("string", "string"), returns="bool")
def contains(substr: str, s: str) -> bool:
    return substr in s


@gofunc("hasPrefix", ("string", "string"), returns="bool")
def has_prefix(prefix: str, s: str) -> bool:
    return s.startswith(prefix)


@gofunc("hasSuffix", ("string", "string"), returns="bool")
def has_suffix(suffix: str, s: str) -> bool:
    return s.endswith(suffix)


# ----------------------------------------------------------------- quoting


@gofunc("quote", (), variadic="interface {}", returns="string")
def quote(*values: Any) -> str:
    """fmt's %q of each value's strval: strconv.Quote."""
    if len(values) == 1 and type(values[0]) is str:  # the usual `{{ .x | quote }}`
        return go_quote(values[0])
    return " ".join([go_quote(strval(v)) for v in values if v is not None])


@gofunc("squote", (), variadic="interface {}", returns="string")
def squote(*values: Any) -> str:
    return " ".join(["'" + format_value(v) + "'" for v in values if v is not None])


@gofunc("cat", (), variadic="interface {}", returns="string")
def cat(*values: Any) -> str:
    return " ".join([format_value(v) for v in values if v is not None])


@gofunc("replace", ("string", "string", "string"), returns="string")
def replace(old: str, new: str, src: str) -> str:
    return src.replace(old, new)


@gofunc("plural", ("string", "string", "int"), returns="string")
def plural(one: str, many: str, count: int) -> str:
    return one if count == 1 else many


@gofunc("hello", (), returns="string")
def hello() -> str:
    return "Hello!"


# --------------------------------------------------------------- splitting


def go_split(s: str, sep: str, n: int = -1) -> list[str]:
    """strings.SplitN (n < 0: all parts; n == 0: none; "" sep: per rune)."""
    if n == 0:
        return []
    if sep == "":
        runes = list(s)
        if 0 < n < len(runes):
            return runes[: n - 1] + ["".join(runes[n - 1 :])]
        return runes
    return s.split(sep) if n < 0 else s.split(sep, n - 1)


@gofunc("split", ("string", "string"), returns="map[string]string")
def split(sep: str, orig: str) -> StringMap:
    return StringMap({f"_{i}": part for i, part in enumerate(go_split(orig, sep))})


@gofunc("splitn", ("string", "int", "string"), returns="map[string]string")
def splitn(sep: str, n: int, orig: str) -> StringMap:
    return StringMap({f"_{i}": part for i, part in enumerate(go_split(orig, sep, n))})


@gofunc("splitList", ("string", "string"), returns="[]string")
def split_list(sep: str, orig: str) -> StringSlice:
    return StringSlice(go_split(orig, sep))


@gofunc("join", ("string", "interface {}"), returns="string")
def join(sep: str, v: Any) -> str:
    if type(v) is StringSlice:
        return sep.join(v)
    return sep.join(_join_items(v))


def _join_items(v: Any) -> list[str]:
    """Sprig's strslice: nil elements of a []interface {} are dropped."""
    if isinstance(v, (list, tuple)):
        if isinstance(v, StringSlice):
            return list(v)
        return [strval(e) for e in v if e is not None]
    if isinstance(v, (bytes, bytearray)):
        return [str(b) for b in v]
    if v is None:
        return []
    return [strval(v)]


# ---------------------------------------------------------------- encodings


@gofunc("b64enc", ("string",), returns="string")
def b64enc(s: str) -> str:
    import base64  # with binascii ~0.5 ms: loaded by the charts that encode

    return base64.b64encode(to_utf8(s)).decode("ascii")


@gofunc("b64dec", ("string",), returns="string")
def b64dec(s: str) -> str:
    """Sprig returns the decoder's error text in place of a result."""
    from runner.funcs import basexx  # Go's decoding loops, for the rare chart that decodes

    return basexx.b64_decode(s)


@gofunc("b32enc", ("string",), returns="string")
def b32enc(s: str) -> str:
    import base64

    return base64.b32encode(to_utf8(s)).decode("ascii")


@gofunc("b32dec", ("string",), returns="string")
def b32dec(s: str) -> str:
    from runner.funcs import basexx

    return basexx.b32_decode(s)


# ------------------------------------------------------------------ random

_LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"  # string.ascii_letters
_DIGITS = "0123456789"
_ASCII_PRINTABLE = "".join(chr(c) for c in range(32, 127))


def _random_string(count: int, alphabet: str) -> str:
    """goutils.CryptoRandom*: crypto-random runes; a negative count gives ""."""
    if count <= 0:
        return ""
    # secrets.choice is SystemRandom().choice; secrets itself imports hmac, which loads
    # OpenSSL (~3 ms), and random is imported only here, where it is used.
    from random import SystemRandom

    choice = SystemRandom().choice
    return "".join(choice(alphabet) for _ in range(count))


@gofunc("randAlphaNum", ("int",), returns="string")
def rand_alpha_num(count: int) -> str:
    return _random_string(count, _LETTERS + _DIGITS)


@gofunc("randAlpha", ("int",), returns="string")
def rand_alpha(count: int) -> str:
    return _random_string(count, _LETTERS)


@gofunc("randNumeric", ("int",), returns="string")
def rand_numeric(count: int) -> str:
    return _random_string(count, _DIGITS)


@gofunc("randAscii", ("int",), returns="string")
def rand_ascii(count: int) -> str:
    return _random_string(count, _ASCII_PRINTABLE)


@gofunc("shuffle", ("string",), returns="string")
def shuffle(s: str) -> str:
    """xstrings.Shuffle: the runes in random order."""
    from random import SystemRandom  # not secrets: see _random_string

    runes = list(s)
    SystemRandom().shuffle(runes)
    return "".join(runes)


# ------------------------------------------------------------ word casing


@gofunc("snakecase", ("string",), returns="string")
def snakecase(s: str) -> str:
    return textcase.camel_to_lower(s, "_")


@gofunc("kebabcase", ("string",), returns="string")
def kebabcase(s: str) -> str:
    return textcase.camel_to_lower(s, "-")


@gofunc("camelcase", ("string",), returns="string")
def camelcase(s: str) -> str:
    """xstrings.ToPascalCase (Sprig 3.3.0 kept camelcase upper-camel)."""
    return textcase.to_camel(s, True)
