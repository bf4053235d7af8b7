"""Masterminds/goutils v1.1.1 string helpers as Sprig calls them.

Several of them walk the string's bytes and turn each byte into a rune
(`DeleteWhiteSpace`, `Initials`), so non-ASCII text comes out re-encoded as
Latin-1 runes exactly as in Helm; `Abbreviate*` and `WrapCustom` cut at byte
offsets. Their argument errors (a width below 4) come back as "" because
Sprig ignores them.
"""

from __future__ import annotations

import unicodedata

from runner.funcs.gotext import (
    SPACE_BYTES,
    from_utf8,
    is_space,
    lower_rune,
    title_rune,
    to_utf8,
    upper_rune,
)

_ASCII_SPACE_DELETE = str.maketrans("", "", "\t\n\v\f\r ")


def delete_white_space(s: str) -> str:
    """DeleteWhiteSpace: walks bytes, each kept byte becomes a rune."""
    if s.isascii():
        return s.translate(_ASCII_SPACE_DELETE)
    data = to_utf8(s)
    kept = [b for b in data if b not in SPACE_BYTES]
    if len(kept) == len(data):
        return s  # nothing removed: goutils returns its input untouched
    return "".join(map(chr, kept))


def uncapitalize(s: str) -> str:
    """Uncapitalize: lower the first rune of each space-separated word."""
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


def swap_case(s: str) -> str:
    """SwapCase: a lower rune after whitespace goes to title case."""
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


def abbreviate_full(s: str, offset: int, width: int) -> str:
    """AbbreviateFull on bytes; its width errors come back as ""."""
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
        return "..." + abbreviate_full(from_utf8(data[offset:]), 0, width - 3)
    return "..." + from_utf8(data[n - (width - 3) :])



def initials(s: str) -> str:
    """Initials: walks bytes; each initial byte becomes a rune."""
    out = []
    last_was_gap = True
    for b in to_utf8(s):
        if b in SPACE_BYTES:
            last_was_gap = True
        elif last_was_gap:
            out.append(chr(b))
            last_was_gap = False
    return "".join(out)


def wrap_custom(s: str, width: int, newline: str, wrap_long_words: bool) -> str:
    """WrapCustom over bytes, breaking at spaces."""
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
