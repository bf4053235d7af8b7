"""Word-case conversions as huandu/xstrings v1.5.0 does them (Sprig's snakecase,
kebabcase and camelcase, the last being xstrings.ToPascalCase since Sprig 3.3.0).

The word splitter follows xstrings' nextWord rune by rune: a word is a run of
connectors (`-`, `_`, spaces), of punctuation, of digits, an upper-case run
("HTTPServer" splits as "HTTP" + "Server"), or a capitalised / lower-case
alphabetic run. Invalid UTF-8 (surrogate escapes here) counts as Go's
utf8.RuneError.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable

from runner.funcs.gotext import is_space
from runner.funcs.gotext import lower_rune as _to_lower
from runner.funcs.gotext import upper_rune as _to_upper

INVALID, NUMBER, UPPER, ALPHA, CONNECTOR, PUNCT, OTHER = range(7)
_RUNE_ERROR = "\ufffd"


def _category(c: str) -> str:
    return unicodedata.category(c)


def _is_invalid(c: str) -> bool:
    return c == _RUNE_ERROR or "\udc80" <= c <= "\udcff"


def is_connector(c: str) -> bool:
    return c == "-" or c == "_" or is_space(c)


def _is_upper(c: str) -> bool:
    return _category(c) == "Lu"


def _is_alphabet(c: str) -> bool:
    """xstrings' isAlphabet: a letter that is not a CJK ideograph."""
    if _category(c)[0] != "L":
        return False
    o = ord(c)
    if o < 0x3400:
        return True
    return not (0x4E00 <= o <= 0x9FCC or 0x3400 <= o <= 0x4D85 or 0x20000 <= o <= 0x2B81D)


def _is_punct(c: str) -> bool:
    return _category(c)[0] == "P"


def _is_number(c: str) -> bool:
    return _category(c)[0] == "N"


class _Scanner:
    """xstrings' nextWord / nextValidRune over a rune list."""

    def __init__(self, text: str) -> None:
        self.runes = list(text)

    def next_valid(self, i: int, prev: str) -> tuple[str, int]:
        """The next valid rune at or after i, and how many runes it spans."""
        j = i
        while j < len(self.runes):
            c = self.runes[j]
            j += 1
            if not _is_invalid(c):
                return c, j - i
        return prev, j - i

    def next_word(self, i: int) -> tuple[int, int]:
        """(word type, end index) of the word starting at i."""
        r, size = self.next_valid(i, _RUNE_ERROR)
        if r == _RUNE_ERROR:
            return INVALID, i + size
        if is_connector(r):
            return CONNECTOR, self._run(i + size, r, is_connector)
        if _is_punct(r):
            return PUNCT, self._run(i + size, r, _is_punct)
        if _is_upper(r):
            return UPPER, self._upper_word(i + size, r)
        if _is_alphabet(r):
            return ALPHA, self._run(i + size, r, _is_lower_alpha)
        if _is_number(r):
            return NUMBER, self._run(i + size, r, _is_number)
        return OTHER, self._run(i + size, r, _is_other)

    def _run(self, j: int, r: str, keep: Callable[[str], bool]) -> int:
        while j < len(self.runes):
            r, size = self.next_valid(j, r)
            if not keep(r):
                break
            j += size
        return j

    def _upper_word(self, j: int, r: str) -> int:
        if j >= len(self.runes):
            return j
        r, size = self.next_valid(j, r)
        if _is_upper(r):
            prev_size = size
            j += size
            while j < len(self.runes):
                r, size = self.next_valid(j, r)
                if not _is_upper(r):
                    break
                prev_size = size
                j += size
            if j < len(self.runes) and _is_alphabet(r):
                j -= prev_size  # "HTTPServer": the last capital starts the next word
            return j
        if _is_alphabet(r):
            return self._run(j + size, r, _is_lower_alpha)
        return j


def _is_lower_alpha(c: str) -> bool:
    return _is_alphabet(c) and not _is_upper(c)


def _is_other(c: str) -> bool:
    return not (is_connector(c) or _is_alphabet(c) or _is_number(c) or _is_punct(c))


def _lower_word(out: list[str], wt: int, word: list[str], connector: str) -> None:
    """xstrings' toLower: only upper-case and connector words are rewritten."""
    if wt != UPPER and wt != CONNECTOR:
        out.extend(word)
        return
    for c in word:
        if _is_invalid(c):
            out.append(_RUNE_ERROR)
        elif is_connector(c):
            out.append(connector)
        elif _is_upper(c):
            out.append(_to_lower(c))
        else:
            out.append(c)


def camel_to_lower(text: str, connector: str) -> str:
    """xstrings' camelCaseToLowerCase (ToSnakeCase with "_", ToKebabCase with "-")."""
    if text == "":
        return ""
    words = _Words(text)
    out: list[str] = []
    wt, word = words.next()
    while words.remaining():
        if wt != CONNECTOR:
            _lower_word(out, wt, word, connector)
        prev, last = wt, word
        wt, word = words.next()
        if prev == NUMBER:
            while wt in (ALPHA, NUMBER):
                _lower_word(out, wt, word, connector)
                wt, word = words.next()
            if wt not in (INVALID, PUNCT, CONNECTOR):
                out.append(connector)
        elif prev == CONNECTOR:
            _lower_word(out, prev, last, connector)
        elif prev != PUNCT:
            wt, word = _after_word(words, out, wt, word, connector)
    _lower_word(out, wt, word, connector)
    return "".join(out)


def _after_word(
    words: _Words, out: list[str], wt: int, word: list[str], connector: str
) -> tuple[int, list[str]]:
    """The `default:` branch of camelCaseToLowerCase (after an alphabetic word)."""
    if wt != NUMBER:
        if wt not in (CONNECTOR, PUNCT):
            out.append(connector)
        return wt, word
    if not words.remaining():
        return wt, word
    last = word
    wt, word = words.next()
    if wt != ALPHA:
        _lower_word(out, NUMBER, last, connector)
        if wt not in (CONNECTOR, PUNCT):
            out.append(connector)
        return wt, word
    out.append(connector)
    _lower_word(out, NUMBER, last, connector)
    while wt in (ALPHA, NUMBER):
        _lower_word(out, wt, word, connector)
        wt, word = words.next()
    if wt not in (INVALID, CONNECTOR, PUNCT):
        out.append(connector)
    return wt, word


class _Words:
    """Successive (type, runes) words of a text."""

    def __init__(self, text: str) -> None:
        self.scanner = _Scanner(text)
        self.pos = 0

    def remaining(self) -> bool:
        return self.pos < len(self.scanner.runes)

    def next(self) -> tuple[int, list[str]]:
        if not self.remaining():
            return INVALID, []
        wt, end = self.scanner.next_word(self.pos)
        word = self.scanner.runes[self.pos : end]
        self.pos = end
        return wt, word


def to_camel(text: str, big: bool) -> str:
    """xstrings' toCamelCase (ToPascalCase when big)."""
    if text == "":
        return ""
    runes = list(text)
    out: list[str] = []
    i = 0
    first_upper = False
    r0 = ""
    while i < len(runes):
        r0 = runes[i]
        i += 1
        if not is_connector(r0):
            first_upper = _is_upper(r0)
            r0 = _to_upper(r0) if big else _to_lower(r0)
            break
        out.append(r0)
    if i >= len(runes):
        out.append(r0)  # xstrings writes the last rune again, even a connector
        return "".join(out)
    for r in runes[i:]:
        r1, r0 = r0, r
        if is_connector(r0) and is_connector(r1):
            out.append(r1)
            continue
        if is_connector(r1):
            first_upper = _is_upper(r0)
            r0 = _to_upper(r0)
        else:
            if first_upper:
                if _is_upper(r0):
                    r0 = _to_lower(r0)
                else:
                    first_upper = False
            out.append(r1)
    if first_upper and not big:
        r0 = _to_lower(r0)
    out.append(r0)
    return "".join(out)
