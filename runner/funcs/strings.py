"""Template functions: Sprig's strings family (sprig v3.3.0 strings.go and functions.go).

Go strings are UTF-8 byte sequences. Where Sprig or its helper libraries
(Masterminds/goutils v1.1.1, huandu/xstrings v1.5.0) index or walk bytes,
so do we: `trunc`, `substr`, `abbrev`, `wrap` cut at byte offsets, and
`nospace` / `initials` turn each byte into a rune (so non-ASCII text comes
out mangled exactly as in Helm). Bytes that do not form valid UTF-8 after a
cut are carried as surrogate escapes (Python's "surrogateescape"), which
re-encode to the original bytes.

Case mappings are Go's `unicode` simple (one rune to one rune) mappings,
not Python's full mappings: `upper "ß"` stays "ß".
"""

from __future__ import annotations

import base64
import binascii
import re
import secrets
import string
import unicodedata
from functools import lru_cache
from typing import Any

from runner.funcs import textcase
from runner.funcs.registry import FuncError, alias, gofunc
from runner.template.gocast import strval
from runner.template.gotypes import StringMap, StringSlice, format_value
from runner.template.lex import go_quote

# unicode.IsSpace: the Latin-1 spaces plus the White_Space property.
GO_SPACES = "\t\n\v\f\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000"
_GO_SPACE_SET = frozenset(GO_SPACES)
# The bytes b for which unicode.IsSpace(rune(b)) holds (goutils walks bytes).
_SPACE_BYTES = frozenset(b"\t\n\v\f\r \x85\xa0")


def to_utf8(s: str) -> bytes:
    """The Go bytes of a string (surrogate escapes back to their raw bytes)."""
    return s.encode("utf-8", "surrogateescape")


def from_utf8(b: bytes) -> str:
    """A Go string from raw bytes; invalid UTF-8 survives as surrogate escapes."""
    return b.decode("utf-8", "surrogateescape")


def byte_len(s: str) -> int:
    """len(s) in Go: the number of UTF-8 bytes."""
    return len(s) if s.isascii() else len(to_utf8(s))


def slice_bytes(s: str, start: int, end: int | None = None) -> str:
    """s[start:end] on Go's bytes (bounds already checked by the caller)."""
    if s.isascii():
        return s[start:end]
    return from_utf8(to_utf8(s)[start:end])


# ------------------------------------------------------------ unicode helpers


@lru_cache(maxsize=4096)
def upper_rune(c: str) -> str:
    """unicode.ToUpper: the simple mapping, one rune to one rune."""
    u = c.upper()
    if len(u) == 1:
        return u
    t = c.title()  # e.g. U+1FB3 has a single-rune title/upper form
    return t if len(t) == 1 else c


@lru_cache(maxsize=4096)
def lower_rune(c: str) -> str:
    """unicode.ToLower: the simple mapping (U+0130 lowers to plain "i")."""
    low = c.lower()
    if len(low) == 1:
        return low
    return "i" if c == "\u0130" else c


@lru_cache(maxsize=4096)
def title_rune(c: str) -> str:
    """unicode.ToTitle: the simple titlecase mapping."""
    t = c.title()
    if len(t) == 1:
        return t
    return upper_rune(c)


def go_upper(s: str) -> str:
    """strings.ToUpper."""
    if s.isascii():
        return s.upper()
    u = s.upper()
    if len(u) == len(s):  # every rune mapped to one rune: full == simple mapping
        return u
    return "".join(map(upper_rune, s))


def go_lower(s: str) -> str:
    """strings.ToLower (no final-sigma rule, unlike Python)."""
    if s.isascii():
        return s.lower()
    if "\u03a3" not in s:
        low = s.lower()
        if len(low) == len(s):
            return low
    return "".join(map(lower_rune, s))


def is_upper(c: str) -> bool:
    """unicode.IsUpper (category Lu)."""
    return "A" <= c <= "Z" if c < "\x80" else unicodedata.category(c) == "Lu"


def is_lower(c: str) -> bool:
    """unicode.IsLower (category Ll)."""
    return "a" <= c <= "z" if c < "\x80" else unicodedata.category(c) == "Ll"


def is_letter(c: str) -> bool:
    """unicode.IsLetter (categories L*)."""
    return unicodedata.category(c)[0] == "L"


def is_space(c: str) -> bool:
    """unicode.IsSpace."""
    return c in _GO_SPACE_SET


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
    """goutils.DeleteWhiteSpace: walks bytes, each kept byte becomes a rune."""
    if s.isascii():
        return s.translate(_ASCII_SPACE_DELETE)
    return _nospace_bytes(s)


_ASCII_SPACE_DELETE = str.maketrans("", "", "\t\n\v\f\r ")


def _nospace_bytes(s: str) -> str:
    data = to_utf8(s)
    kept = [b for b in data if b not in _SPACE_BYTES]
    if len(kept) == len(data):
        return s  # nothing removed: goutils returns its input untouched
    return "".join(map(chr, kept))


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
    """goutils.Uncapitalize: lower the first rune of each space-separated word."""
    out = []
    after_space = True
    for c in s:
        if is_space(c):
            after_space = True
        elif after_space:
            c = lower_rune(c)
            after_space = False
        out.append(c)
    return "".join(out)


@gofunc("swapcase", ("string",), returns="string")
def swapcase(s: str) -> str:
    """goutils.SwapCase: a lower rune after whitespace goes to title case."""
    out = []
    whitespace = True
    for c in s:
        category = unicodedata.category(c)
        if category in ("Lu", "Lt"):
            c = lower_rune(c)
            whitespace = False
        elif category == "Ll":
            c = title_rune(c) if whitespace else upper_rune(c)
            whitespace = False
        else:
            whitespace = is_space(c)
        out.append(c)
    return "".join(out)


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
    return _abbreviate_full(s, 0, width)


@gofunc("abbrevboth", ("int", "int", "string"), returns="string")
def abbrevboth(left: int, right: int, s: str) -> str:
    if right < 4 or (left > 0 and right < 7):
        return s
    return _abbreviate_full(s, left, right)


def _abbreviate_full(s: str, offset: int, width: int) -> str:
    """goutils.AbbreviateFull on bytes; its width errors come back as ""."""
    data = to_utf8(s)
    n = len(data)
    if n == 0 or width < 4:
        return ""
    if n <= width:
        return s
    offset = min(offset, n)
    if n - offset < width - 3:
        offset = n - (width - 3)
    if offset <= 4:
        return from_utf8(data[: width - 3]) + "..."
    if width < 7:
        return ""
    if offset + width - 3 < n:
        return "..." + _abbreviate_full(from_utf8(data[offset:]), 0, width - 3)
    return "..." + from_utf8(data[n - (width - 3) :])


@gofunc("initials", ("string",), returns="string")
def initials(s: str) -> str:
    """goutils.Initials: walks bytes; each initial byte becomes a rune."""
    out = []
    last_was_gap = True
    for b in to_utf8(s):
        if b in _SPACE_BYTES:
            last_was_gap = True
        elif last_was_gap:
            out.append(chr(b))
            last_was_gap = False
    return "".join(out)


@gofunc("wrap", ("int", "string"), returns="string")
def wrap(length: int, s: str) -> str:
    return _wrap_custom(s, length, "", False)


@gofunc("wrapWith", ("int", "string", "string"), returns="string")
def wrap_with(length: int, sep: str, s: str) -> str:
    return _wrap_custom(s, length, sep, True)


def _wrap_custom(s: str, width: int, newline: str, wrap_long_words: bool) -> str:
    """goutils.WrapCustom over bytes, breaking at spaces."""
    if s == "":
        return ""
    text = to_utf8(s)
    sep = to_utf8(newline or "\n")
    width = max(width, 1)
    n = len(text)
    offset = 0
    out = bytearray()
    while n - offset > width:
        if text[offset] == 0x20:
            offset += 1
            continue
        space = text.rfind(b" ", offset, width + offset + 1)
        if space >= offset:
            out += text[offset:space] + sep
            offset = space + 1
        elif wrap_long_words:
            out += text[offset : offset + width] + sep
            offset += width
        else:
            space = text.find(b" ", width + offset)
            if space == -1:
                out += text[offset:]
                offset = n
            else:
                out += text[offset:space] + sep
                offset = space + 1
    out += text[offset:]
    return from_utf8(bytes(out))


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


def quote_string(s: str) -> str:
    """fmt's %q of a string (strconv.Quote), with a fast path for plain ASCII."""
    if s.isascii() and s.isprintable() and '"' not in s and "\\" not in s:
        return '"' + s + '"'
    return go_quote(s)


@gofunc("quote", (), variadic="interface {}", returns="string")
def quote(*values: Any) -> str:
    if len(values) == 1 and type(values[0]) is str:  # the usual `{{ .x | quote }}`
        return quote_string(values[0])
    return " ".join([quote_string(strval(v)) for v in values if v is not None])


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
    return base64.b64encode(to_utf8(s)).decode("ascii")


_B64_CLEAN = re.compile(r"(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?")
_B64_ALPHABET = {c: i for i, c in enumerate(string.ascii_uppercase + string.ascii_lowercase + string.digits + "+/")}


@gofunc("b64dec", ("string",), returns="string")
def b64dec(s: str) -> str:
    """base64.StdEncoding.DecodeString; on error Sprig returns the error text."""
    if _B64_CLEAN.fullmatch(s):
        return from_utf8(binascii.a2b_base64(s))
    try:
        return from_utf8(_b64_decode_go(to_utf8(s)))
    except ValueError as err:
        return f"illegal base64 data at input byte {err.args[0]}"


def _b64_decode_go(src: bytes) -> bytes:
    """encoding/base64's decode loop (newlines skipped); ValueError(offset) on bad input."""
    out = bytearray()
    si = 0
    n = len(src)
    while True:
        quantum: list[int] = []
        while len(quantum) < 4:
            if si == n:
                if not quantum:
                    return bytes(out)
                raise ValueError(si - len(quantum))
            c = src[si]
            si += 1
            if c in (0x0A, 0x0D):
                continue
            value = _B64_ALPHABET.get(chr(c))
            if value is not None:
                quantum.append(value)
                continue
            if c != 0x3D:
                raise ValueError(si - 1)
            _b64_check_padding(src, si, len(quantum))
            _b64_pack(out, quantum)
            return bytes(out)
        _b64_pack(out, quantum)


def _b64_check_padding(src: bytes, si: int, have: int) -> None:
    """After the first "=": validate padding and trailing newlines only."""
    n = len(src)
    if have < 2:
        raise ValueError(si - 1)
    if have == 2:
        while si < n and src[si] in (0x0A, 0x0D):
            si += 1
        if si == n:
            raise ValueError(n)
        if src[si] != 0x3D:
            raise ValueError(si - 1)
        si += 1
    while si < n and src[si] in (0x0A, 0x0D):
        si += 1
    if si < n:
        raise ValueError(si)


def _b64_pack(out: bytearray, quantum: list[int]) -> None:
    vals = quantum + [0] * (4 - len(quantum))
    word = vals[0] << 18 | vals[1] << 12 | vals[2] << 6 | vals[3]
    out += word.to_bytes(3, "big")[: len(quantum) - 1]


@gofunc("b32enc", ("string",), returns="string")
def b32enc(s: str) -> str:
    return base64.b32encode(to_utf8(s)).decode("ascii")


_B32_ALPHABET = {c: i for i, c in enumerate(string.ascii_uppercase + "234567")}


@gofunc("b32dec", ("string",), returns="string")
def b32dec(s: str) -> str:
    """base32.StdEncoding.DecodeString; on error Sprig returns the error text."""
    data = to_utf8(s).replace(b"\r", b"").replace(b"\n", b"")
    try:
        return from_utf8(_b32_decode_go(data))
    except ValueError as err:
        return f"illegal base32 data at input byte {err.args[0]}"


def _b32_decode_go(src: bytes) -> bytes:
    """encoding/base32's decode loop on newline-free input."""
    out = bytearray()
    total = len(src)
    pos = 0
    while pos < total:
        quantum: list[int] = []
        end = False
        while len(quantum) < 8:
            if pos == total:
                raise ValueError(pos - len(quantum))
            c = src[pos]
            pos += 1
            left = total - pos
            if c == 0x3D and len(quantum) >= 2 and left < 8:
                _b32_check_padding(src, pos, len(quantum))
                end = True
                break
            value = _B32_ALPHABET.get(chr(c))
            if value is None:
                raise ValueError(pos - 1)
            quantum.append(value)
        _b32_pack(out, quantum)
        if end:
            break
    return bytes(out)


def _b32_check_padding(src: bytes, pos: int, have: int) -> None:
    left = len(src) - pos
    if left + have < 7:
        raise ValueError(len(src))
    for k in range(7 - have):
        if left > k and src[pos + k] != 0x3D:
            raise ValueError(pos + k - 1)
    if have in (1, 3, 6):
        raise ValueError(pos - 1)


_B32_OUT_BYTES = {8: 5, 7: 4, 5: 3, 4: 2, 2: 1}


def _b32_pack(out: bytearray, quantum: list[int]) -> None:
    vals = quantum + [0] * (8 - len(quantum))
    word = 0
    for v in vals:
        word = word << 5 | v
    out += word.to_bytes(5, "big")[: _B32_OUT_BYTES[len(quantum)]]


# ------------------------------------------------------------------ random

_ALNUM = string.ascii_letters + string.digits
_ASCII_PRINTABLE = "".join(chr(c) for c in range(32, 127))


def _random_string(count: int, alphabet: str) -> str:
    """goutils.CryptoRandom*: crypto-random runes; a negative count gives ""."""
    if count <= 0:
        return ""
    return "".join(secrets.choice(alphabet) for _ in range(count))


@gofunc("randAlphaNum", ("int",), returns="string")
def rand_alpha_num(count: int) -> str:
    return _random_string(count, _ALNUM)


@gofunc("randAlpha", ("int",), returns="string")
def rand_alpha(count: int) -> str:
    return _random_string(count, string.ascii_letters)


@gofunc("randNumeric", ("int",), returns="string")
def rand_numeric(count: int) -> str:
    return _random_string(count, string.digits)


@gofunc("randAscii", ("int",), returns="string")
def rand_ascii(count: int) -> str:
    return _random_string(count, _ASCII_PRINTABLE)


@gofunc("shuffle", ("string",), returns="string")
def shuffle(s: str) -> str:
    """xstrings.Shuffle: the runes in random order."""
    runes = list(s)
    secrets.SystemRandom().shuffle(runes)
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
