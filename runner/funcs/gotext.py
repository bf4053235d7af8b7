"""Go's view of text: UTF-8 bytes, unicode.IsSpace and the simple case mappings.

A Go string is a byte sequence; Python strings stand for it with invalid
UTF-8 bytes carried as surrogate escapes ("surrogateescape"), so
`to_utf8(from_utf8(b)) == b` for any bytes. Go's unicode package maps case
rune by rune (simple mappings): `ToUpper('ß')` is 'ß', not Python's "SS".
"""

from __future__ import annotations

import unicodedata
from functools import lru_cache

# unicode.IsSpace: the Latin-1 spaces plus the White_Space property.
GO_SPACES = "\t\n\v\f\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000"
_GO_SPACE_SET = frozenset(GO_SPACES)
# The bytes b for which unicode.IsSpace(rune(b)) holds (goutils walks bytes).
SPACE_BYTES = frozenset(b"\t\n\v\f\r \x85\xa0")


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

