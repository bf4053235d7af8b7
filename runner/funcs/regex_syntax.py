"""Go's regexp/syntax parsed, checked with Go's errors, and re-emitted for RE2.

The parser walks the pattern the way Go's regexp/syntax parse loop does, so
that every pattern Go rejects is rejected here with Go's error text (the
same error code and the same offending text: `error parsing regexp: missing
closing ): `(a``). Accepted patterns are re-emitted for the RE2 engine
(google-re2, runner.funcs.regex) with every construct spelled out, so that
what RE2 reads differently from Go never matters:

- classes are computed as rune ranges (POSIX `[[:alpha:]]`, Perl and Unicode
  classes, negated ones inside brackets) and printed as `\\x{...}` ranges:
  Go's `\\p` names (`\\p{Letter}`, `\\p{greek}`) are not all RE2's;
- flags `(?i) (?m) (?s) (?U)` are applied per atom, as Go scopes them;
- capture groups are emitted unnamed and their Go names kept aside for
  `Expand` (`${name}`), so any name Go accepts works (RE2 rejects duplicates);
- literal `{`, digits after escapes and the like are always escaped.

RE2 runs the result in linear time; leftmost-first matching, empty-width
assertions and submatch rules are the same as Go's (Go's regexp is a port).

Unicode classes `\\pL`, `\\p{Lu}`, `\\p{Letter}` come from unicodedata; of the
scripts only the common ones are known (by character names).
"""

from __future__ import annotations

import unicodedata
from functools import lru_cache

MAX_RUNE = 0x10FFFF
Ranges = list[tuple[int, int]]

FOLD, ONE_LINE, DOT_NL, NON_GREEDY = 1, 2, 4, 8
_PERL_FLAGS = ONE_LINE  # regexp.Compile: syntax.Perl (ClassNL, OneLine, PerlX, UnicodeGroups)


class RegexSyntaxError(ValueError):
    """A pattern Go's regexp/syntax rejects; str() is Go's Error() text."""

    def __init__(self, code: str, expr: str) -> None:
        super().__init__(f"error parsing regexp: {code}: `{expr}`")


MISSING_BRACKET = "missing closing ]"
MISSING_PAREN = "missing closing )"
UNEXPECTED_PAREN = "unexpected )"
INVALID_ESCAPE = "invalid escape sequence"
INVALID_RANGE = "invalid character class range"
INVALID_NAMED = "invalid named capture"
INVALID_PERL_OP = "invalid or unsupported Perl syntax"
NESTED_REPEAT = "invalid nested repetition operator"
REPEAT_SIZE = "invalid repeat count"
MISSING_REPEAT_ARG = "missing argument to repetition operator"
TRAILING_BACKSLASH = "trailing backslash at end of expression"
INVALID_UTF8 = "invalid UTF-8"

_DIGIT: Ranges = [(0x30, 0x39)]
_SPACE: Ranges = [(0x09, 0x0A), (0x0C, 0x0D), (0x20, 0x20)]
_WORD: Ranges = [(0x30, 0x39), (0x41, 0x5A), (0x5F, 0x5F), (0x61, 0x7A)]
_PERL_GROUPS: dict[str, tuple[int, Ranges]] = {
    "\\d": (1, _DIGIT), "\\D": (-1, _DIGIT),
    "\\s": (1, _SPACE), "\\S": (-1, _SPACE),
    "\\w": (1, _WORD), "\\W": (-1, _WORD),
}  # fmt: skip
_POSIX: dict[str, Ranges] = {
    "alnum": [(0x30, 0x39), (0x41, 0x5A), (0x61, 0x7A)],
    "alpha": [(0x41, 0x5A), (0x61, 0x7A)],
    "ascii": [(0x00, 0x7F)],
    "blank": [(0x09, 0x09), (0x20, 0x20)],
    "cntrl": [(0x00, 0x1F), (0x7F, 0x7F)],
    "digit": [(0x30, 0x39)],
    "graph": [(0x21, 0x7E)],
    "lower": [(0x61, 0x7A)],
    "print": [(0x20, 0x7E)],
    "punct": [(0x21, 0x2F), (0x3A, 0x40), (0x5B, 0x60), (0x7B, 0x7E)],
    "space": [(0x09, 0x0D), (0x20, 0x20)],
    "upper": [(0x41, 0x5A)],
    "word": [(0x30, 0x39), (0x41, 0x5A), (0x5F, 0x5F), (0x61, 0x7A)],
    "xdigit": [(0x30, 0x39), (0x41, 0x46), (0x61, 0x66)],
}



# ------------------------------------------------------------ rune ranges


def clean(ranges: Ranges) -> Ranges:
    """Sorted, merged ranges (Go's cleanClass)."""
    out: Ranges = []
    for lo, hi in sorted(ranges):
        if out and lo <= out[-1][1] + 1:
            if hi > out[-1][1]:
                out[-1] = (out[-1][0], hi)
        else:
            out.append((lo, hi))
    return out


def negate(ranges: Ranges) -> Ranges:
    """The complement of clean ranges within [0, MaxRune]."""
    out: Ranges = []
    nxt = 0
    for lo, hi in ranges:
        if lo > nxt:
            out.append((nxt, lo - 1))
        nxt = hi + 1
    if nxt <= MAX_RUNE:
        out.append((nxt, MAX_RUNE))
    return out


def _char(o: int) -> str:
    """One rune as an RE2 pattern character, escaped unless ASCII alphanumeric."""
    if o < 0x80 and chr(o).isalnum():
        return chr(o)
    return f"\\x{{{o:x}}}"


def class_text(ranges: Ranges, negated: bool = False) -> str:
    """An RE2 character class for clean ranges."""
    if not ranges:
        return "[\\x{0}-\\x{10ffff}]" if negated else "[^\\x{0}-\\x{10ffff}]"
    body = "".join(_char(lo) if lo == hi else f"{_char(lo)}-{_char(hi)}" for lo, hi in ranges)
    return ("[^" if negated else "[") + body + "]"


def has_case(ranges: Ranges) -> bool:
    """Whether folding could change what the ranges match (letters inside)."""
    for lo, hi in ranges:
        if hi - lo > 64:
            return True
        for o in range(lo, hi + 1):
            c = chr(o)
            if c.lower() != c or c.upper() != c:
                return True
    return False


# -------------------------------------------------------- unicode tables

_CATEGORY_ALIASES = {
    "Other": "C", "Control": "Cc", "Cntrl": "Cc", "Format": "Cf", "Unassigned": "Cn",
    "Privateuse": "Co", "Surrogate": "Cs", "Letter": "L", "Casedletter": "Lc",
    "Lowercaseletter": "Ll", "Modifierletter": "Lm", "Otherletter": "Lo",
    "Titlecaseletter": "Lt", "Uppercaseletter": "Lu", "Mark": "M", "Combiningmark": "M",
    "Spacingmark": "Mc", "Enclosingmark": "Me", "Nonspacingmark": "Mn", "Number": "N",
    "Decimalnumber": "Nd", "Digit": "Nd", "Letternumber": "Nl", "Othernumber": "No",
    "Punctuation": "P", "Punct": "P", "Connectorpunctuation": "Pc", "Dashpunctuation": "Pd",
    "Closepunctuation": "Pe", "Finalpunctuation": "Pf", "Initialpunctuation": "Pi",
    "Otherpunctuation": "Po", "Openpunctuation": "Ps", "Symbol": "S", "Currencysymbol": "Sc",
    "Modifiersymbol": "Sk", "Mathsymbol": "Sm", "Othersymbol": "So", "Separator": "Z",
    "Lineseparator": "Zl", "Paragraphseparator": "Zp", "Spaceseparator": "Zs",
}  # fmt: skip
_CATEGORIES = frozenset(
    ["C", "Cc", "Cf", "Co", "Cs", "L", "Ll", "Lm", "Lo", "Lt", "Lu", "M", "Mc", "Me", "Mn", "N", "Nd", "Nl", "No", "P", "Pc", "Pd", "Pe", "Pf", "Pi", "Po", "Ps", "S", "Sc", "Sk", "Sm", "So", "Z", "Zl", "Zp", "Zs"]
)
# Go's single-word script names (multi-word ones like Old_Italic do not survive
# regexp/syntax's canonicalName in Go 1.25+). A script's characters are found by
# the prefix of their Unicode names, which is close to the Scripts property;
# Common and Inherited have no such prefix and are not supported.
_SCRIPTS = frozenset(
    """Adlam Ahom Arabic Armenian Avestan Balinese Bamum Batak Bengali Bhaiksuki Bopomofo Brahmi
    Braille Buginese Buhid Carian Chakma Cham Cherokee Chorasmian Coptic Cuneiform Cypriot
    Cyrillic Deseret Devanagari Dogra Duployan Elbasan Elymaic Ethiopic Georgian Glagolitic
    Gothic Grantha Greek Gujarati Gurmukhi Han Hangul Hanunoo Hatran Hebrew Hiragana Javanese
    Kaithi Kannada Katakana Kawi Kharoshthi Khmer Khojki Khudawadi Lao Latin Lepcha Limbu Lisu
    Lycian Lydian Mahajani Makasar Malayalam Mandaic Manichaean Marchen Medefaidrin Miao Modi
    Mongolian Mro Multani Myanmar Nabataean Nandinagari Newa Nko Nushu Ogham Oriya Osage Osmanya
    Palmyrene Phoenician Rejang Runic Samaritan Saurashtra Sharada Shavian Siddham Sinhala
    Sogdian Soyombo Sundanese Syriac Tagalog Tagbanwa Takri Tamil Tangsa Tangut Telugu Thaana
    Thai Tibetan Tifinagh Tirhuta Toto Ugaritic Vai Vithkuqi Wancho Yezidi Yi""".split()  # noqa: SIM905 - readable
)
_SCRIPT_PREFIXES = {
    "Latin": ("LATIN ", "FULLWIDTH LATIN "),
    "Katakana": ("KATAKANA ", "HALFWIDTH KATAKANA "),
    "Han": ("CJK UNIFIED IDEOGRAPH", "CJK COMPATIBILITY IDEOGRAPH"),
}


def canonical_name(name: str) -> str:
    """regexp/syntax canonicalName: drop _ - and spaces, capitalise the first letter."""
    out = []
    first = True
    for c in name:
        if c in "_- ":
            continue
        if first:
            out.append(c.upper() if "a" <= c <= "z" else c)
            first = False
        else:
            out.append(c.lower() if "A" <= c <= "Z" else c)
    return "".join(out)


@lru_cache(maxsize=1)
def _category_table() -> dict[str, Ranges]:
    """Ranges per two-letter general category, scanned once from unicodedata."""
    table: dict[str, Ranges] = {}
    category = unicodedata.category
    start, current = 0, category(chr(0))
    for o in range(1, MAX_RUNE + 2):
        cat = category(chr(o)) if o <= MAX_RUNE else ""
        if cat != current:
            table.setdefault(current, []).append((start, o - 1))
            start, current = o, cat
    return table


@lru_cache(maxsize=64)
def unicode_table(name: str) -> tuple[tuple[tuple[int, int], ...], int] | None:
    """Go's unicodeTable: (ranges, sign) for a \\p name, or None when unknown."""
    name = canonical_name(name)
    if name == "Any":
        return ((0, MAX_RUNE),), 1
    if name == "Ascii":
        return ((0, 0x7F),), 1
    if name == "Assigned":
        return tuple(_category_table().get("Cn", [])), -1
    name = _CATEGORY_ALIASES.get(name, name)
    if name == "Lc":
        return tuple(_categories(("Lu", "Ll", "Lt"))), 1
    if name in _CATEGORIES:
        wanted = [c for c in _category_table() if c.startswith(name) and c != "Cn"]
        return tuple(_categories(wanted)), 1
    if name in _SCRIPTS:
        return tuple(_script(name)), 1
    return None


def _categories(names: tuple[str, ...] | list[str]) -> Ranges:
    table = _category_table()
    return clean([r for n in names for r in table.get(n, [])])


def _script(name: str) -> Ranges:
    prefixes = _SCRIPT_PREFIXES.get(name, (name.upper() + " ",))
    out: Ranges = []
    lookup = unicodedata.name
    for category, ranges in _category_table().items():
        if category in ("Cn", "Co", "Cs"):  # unassigned, private use, surrogates: no names
            continue
        for lo, hi in ranges:
            out.extend((o, o) for o in range(lo, hi + 1) if lookup(chr(o), "").startswith(prefixes))
    return clean(out)


# ----------------------------------------------------------------- parser


# Plain slotted classes, not dataclasses: creating four dataclasses would cost
# ~2 ms on the first regex function call of every render that uses one.


class _Rep:
    """A {min,max} repeat and the repeats nested inside it (for repeatIsValid)."""

    __slots__ = ("min", "max", "inner")

    def __init__(self, min_count: int, max_count: int, inner: list[_Rep]) -> None:
        self.min = min_count
        self.max = max_count
        self.inner = inner


class _Item:
    """A translated piece of the pattern."""

    __slots__ = ("text", "simple", "reps")

    def __init__(self, text: str, simple: bool, reps: list[_Rep] | None = None) -> None:
        self.text = text
        self.simple = simple  # one atom: a quantifier may follow directly
        self.reps = [] if reps is None else reps  # the {n,m} repeats inside


class _Frame:
    """An open group (or the whole pattern) while parsing."""

    __slots__ = ("opener", "flags", "alternatives", "items")

    def __init__(self, opener: str, flags: int) -> None:
        self.opener = opener  # "(", "(?:" or "" for the whole pattern
        self.flags = flags  # flags to restore at ")"
        self.alternatives: list[list[_Item]] = []
        self.items: list[_Item] = []


class Translation:
    """The RE2 pattern for a Go regexp."""

    __slots__ = ("pattern", "names")

    def __init__(self, pattern: str, names: list[str]) -> None:
        self.pattern = pattern
        self.names = names  # Go's SubexpNames: "" for the whole match and unnamed groups


def _is_alnum(c: str) -> bool:
    return c.isascii() and c.isalnum()


def _repeat_is_valid(reps: list[_Rep], n: int) -> bool:
    """regexp/syntax repeatIsValid over the nested {n,m} counts."""
    for rep in reps:
        m = rep.min if rep.max < 0 else rep.max
        if rep.max == 0:
            continue
        if m > n or not _repeat_is_valid(rep.inner, n // m if m > 0 else n):
            return False
    return True


class _Parser:
    def __init__(self, pattern: str) -> None:
        self.whole = pattern
        self.flags = _PERL_FLAGS
        self.frames = [_Frame("", self.flags)]
        self.names = [""]

    # ---- pushing atoms

    def push(self, text: str, simple: bool = True, fold_sensitive: bool = False) -> None:
        if fold_sensitive and self.flags & FOLD:
            text = f"(?i:{text})"
        self.frames[-1].items.append(_Item(text, simple))

    def literal(self, c: str) -> None:
        o = ord(c)
        self.push(_char(o), fold_sensitive=c.lower() != c or c.upper() != c)

    def push_class(self, ranges: Ranges, negated: bool = False) -> None:
        self.push(class_text(ranges, negated), fold_sensitive=has_case(ranges))

    # ---- the main loop

    def parse(self) -> Translation:
        t = self.whole
        last_repeat = ""
        while t:
            repeat = ""
            c = t[0]
            if c == "(":
                t = self.open_group(t)
            elif c == "|":
                frame = self.frames[-1]
                frame.alternatives.append(frame.items)
                frame.items = []
                t = t[1:]
            elif c == ")":
                self.close_group()
                t = t[1:]
            elif c == "^":
                self.push("(?m:^)" if not self.flags & ONE_LINE else "\\A", simple=False)
                t = t[1:]
            elif c == "$":
                self.push("(?m:$)" if not self.flags & ONE_LINE else "\\z", simple=False)
                t = t[1:]
            elif c == ".":
                self.push("(?s:.)" if self.flags & DOT_NL else ".")
                t = t[1:]
            elif c == "[":
                t = self.parse_class(t)
            elif c in "*+?":
                repeat = t
                t = self.repeat(c, 0, 0, t, t[1:], last_repeat)
            elif c == "{":
                t, repeat = self.brace(t, last_repeat)
            elif c == "\\":
                t = self.backslash(t)
            else:
                _check_utf8(t)
                self.literal(c)
                t = t[1:]
            last_repeat = repeat
        return self.finish()

    def finish(self) -> Translation:
        if len(self.frames) != 1:
            raise RegexSyntaxError(MISSING_PAREN, self.whole)
        return Translation(self.joined(self.frames[0]), self.names)

    @staticmethod
    def joined(frame: _Frame) -> str:
        alternatives = [*frame.alternatives, frame.items]
        return "|".join("".join(item.text for item in alt) for alt in alternatives)

    # ---- groups and flags

    def open_group(self, t: str) -> str:
        if len(t) >= 2 and t[1] == "?":
            return self.perl_flags(t)
        self.frames.append(_Frame("(", self.flags))
        self.names.append("")
        return t[1:]

    def close_group(self) -> None:
        if len(self.frames) < 2:
            raise RegexSyntaxError(UNEXPECTED_PAREN, self.whole)
        frame = self.frames.pop()
        self.flags = frame.flags
        reps = [r for alt in [*frame.alternatives, frame.items] for item in alt for r in item.reps]
        self.frames[-1].items.append(_Item(frame.opener + self.joined(frame) + ")", True, reps))

    def perl_flags(self, s: str) -> str:
        """parsePerlFlags: named captures, (?flags) and (?flags:...)."""
        starts_p = len(s) > 4 and s[2] == "P" and s[3] == "<"
        starts_name = len(s) > 3 and s[2] == "<"
        if starts_p or starts_name:
            end = s.find(">")
            if end < 0:
                raise RegexSyntaxError(INVALID_NAMED, s)
            name = s[4 if starts_p else 3 : end]
            if not name or not all(c == "_" or _is_alnum(c) for c in name):
                raise RegexSyntaxError(INVALID_NAMED, s[: end + 1])
            self.frames.append(_Frame("(", self.flags))
            self.names.append(name)
            return s[end + 1 :]
        return self.flag_group(s)

    def flag_group(self, s: str) -> str:
        t = s[2:]
        flags = self.flags
        negative = False
        saw_flag = False
        bits = {"i": FOLD, "s": DOT_NL, "U": NON_GREEDY}
        while t:
            c, t = t[0], t[1:]
            if c in bits or c == "m":
                on = c != "m"  # (?m) clears OneLine
                bit = bits.get(c, ONE_LINE)
                flags = flags | bit if on != negative else flags & ~bit
                saw_flag = True
            elif c == "-" and not negative:
                negative = True
                saw_flag = False
            elif c in ":)":
                if negative and not saw_flag:
                    break
                if c == ":":
                    self.frames.append(_Frame("(?:", self.flags))
                self.flags = flags
                return t
            else:
                break
        raise RegexSyntaxError(INVALID_PERL_OP, s[: len(s) - len(t)])

    # ---- repetition

    def brace(self, t: str, last_repeat: str) -> tuple[str, str]:
        parsed = _parse_repeat(t)
        if parsed is None:
            self.literal("{")
            return t[1:], ""
        lo, hi, after = parsed
        if lo < 0 or lo > 1000 or hi > 1000 or (hi >= 0 and lo > hi):
            raise RegexSyntaxError(REPEAT_SIZE, t[: len(t) - len(after)])
        return self.repeat("{", lo, hi, t, after, last_repeat), t

    def repeat(self, op: str, lo: int, hi: int, before: str, after: str, last_repeat: str) -> str:
        lazy = bool(self.flags & NON_GREEDY)
        if after.startswith("?"):
            after = after[1:]
            lazy = not lazy
        if last_repeat:
            raise RegexSyntaxError(NESTED_REPEAT, last_repeat[: len(last_repeat) - len(after)])
        items = self.frames[-1].items
        if not items:
            raise RegexSyntaxError(MISSING_REPEAT_ARG, before[: len(before) - len(after)])
        item = items[-1]
        operand = item.text if item.simple else f"(?:{item.text})"
        if op == "{":
            quantifier = f"{{{lo}}}" if lo == hi else f"{{{lo},{'' if hi < 0 else hi}}}"
            reps = [_Rep(lo, hi, item.reps)]
            if (lo >= 2 or hi >= 2) and not _repeat_is_valid(reps, 1000):
                raise RegexSyntaxError(REPEAT_SIZE, before[: len(before) - len(after)])
        else:
            quantifier, reps = op, item.reps
        items[-1] = _Item(operand + quantifier + ("?" if lazy else ""), False, reps)
        return after

    # ---- escapes

    def backslash(self, t: str) -> str:
        if len(t) >= 2:
            c = t[1]
            simple = {"A": "\\A", "z": "\\z", "b": "\\b", "B": "\\B"}
            if c in simple:
                self.push(simple[c], simple=False)
                return t[2:]
            if c == "C":
                raise RegexSyntaxError(INVALID_ESCAPE, t[:2])
            if c == "Q":
                body, _, rest = t[2:].partition("\\E")
                for ch in body:
                    self.literal(ch)
                return rest
        if t[1:2] in ("p", "P"):
            ranges, sign, rest = self.unicode_class(t)
            self.push_class(ranges, negated=sign < 0)
            return rest
        group = _PERL_GROUPS.get(t[:2])
        if group is not None:
            self.push_class(group[1], negated=group[0] < 0)
            return t[2:]
        c, rest = parse_escape(t)
        self.literal(c)
        return rest

    def unicode_class(self, s: str) -> tuple[Ranges, int, str]:
        """parseUnicodeClass: \\pL, \\p{Greek}, \\P{^Lu}."""
        sign = -1 if s[1] == "P" else 1
        t = s[2:]
        if t[:1] != "{":
            seq = s[:3] if t else s[:2]
            name, rest = seq[2:], s[len(seq) :]
        else:
            end = s.find("}")
            if end < 0:
                raise RegexSyntaxError(INVALID_RANGE, s)
            seq, rest, name = s[: end + 1], s[end + 1 :], s[3:end]
        if name.startswith("^"):
            sign, name = -sign, name[1:]
        table = unicode_table(name)
        if table is None:
            raise RegexSyntaxError(INVALID_RANGE, seq)
        ranges, table_sign = table
        return list(ranges), sign * table_sign, rest

    # ---- bracketed classes

    def parse_class(self, s: str) -> str:
        t = s[1:]
        negated = t.startswith("^")
        if negated:
            t = t[1:]
        ranges: Ranges = []
        first = True
        while first or not t.startswith("]"):
            first = False
            if t.startswith("[:"):
                posix = _posix_class(t)
                if posix is not None:
                    more, t = posix
                    ranges += more
                    continue
            if t[:2] in ("\\p", "\\P"):
                more, sign, t = self.unicode_class(t)
                ranges += more if sign > 0 else negate(clean(more))
                continue
            group = _PERL_GROUPS.get(t[:2])
            if group is not None:
                ranges += group[1] if group[0] > 0 else negate(group[1])
                t = t[2:]
                continue
            t = self.class_range(t, s, ranges)
        self.push_class(clean(ranges), negated)
        return t[1:]

    def class_range(self, t: str, whole_class: str, ranges: Ranges) -> str:
        """One character or lo-hi range inside [...]."""
        start = t
        lo, t = _class_char(t, whole_class)
        hi = lo
        if len(t) >= 2 and t[0] == "-" and t[1] != "]":
            hi, t = _class_char(t[1:], whole_class)
            if ord(hi) < ord(lo):
                raise RegexSyntaxError(INVALID_RANGE, start[: len(start) - len(t)])
        ranges.append((ord(lo), ord(hi)))
        return t


def _posix_class(t: str) -> tuple[Ranges, str] | None:
    """parseNamedClass: [:alpha:] or [:^alpha:], None when not one."""
    end = t.find(":]", 2)
    if end < 0:
        return None
    name = t[: end + 2]
    word = name[2:-2]
    negated = word.startswith("^")
    ranges = _POSIX.get(word[1:] if negated else word)
    if ranges is None:
        raise RegexSyntaxError(INVALID_RANGE, name)
    return (negate(ranges) if negated else ranges), t[end + 2 :]


def _class_char(t: str, whole_class: str) -> tuple[str, str]:
    if not t:
        raise RegexSyntaxError(MISSING_BRACKET, whole_class)
    if t[0] == "\\":
        return parse_escape(t)
    _check_utf8(t)
    return t[0], t[1:]


def _check_utf8(t: str) -> None:
    """nextRune: an invalid byte (a surrogate escape here) is ErrInvalidUTF8."""
    if "\udc80" <= t[0] <= "\udcff":
        raise RegexSyntaxError(INVALID_UTF8, t)


def _parse_int(s: str) -> tuple[int, str] | None:
    """regexp/syntax parseInt: decimal digits, no leading zeros, -1 when huge."""
    if not s or not "0" <= s[0] <= "9":
        return None
    if len(s) >= 2 and s[0] == "0" and "0" <= s[1] <= "9":
        return None
    i = 0
    while i < len(s) and "0" <= s[i] <= "9":
        i += 1
    digits = s[:i]
    return (int(digits) if len(digits) <= 9 else -1), s[i:]


def _parse_repeat(s: str) -> tuple[int, int, str] | None:
    """parseRepeat: {n}, {n,}, {n,m} -> (min, max, rest); max -1 is unbounded."""
    first = _parse_int(s[1:])
    if first is None:
        return None
    lo, s = first
    if not s:
        return None
    if s[0] != ",":
        hi = lo
    else:
        s = s[1:]
        if not s:
            return None
        if s[0] == "}":
            hi = -1
        else:
            second = _parse_int(s)
            if second is None:
                return None
            hi, s = second
            if hi < 0:
                lo = -1
    if not s or s[0] != "}":
        return None
    return lo, hi, s[1:]


_C_ESCAPES = {"a": "\a", "f": "\f", "n": "\n", "r": "\r", "t": "\t", "v": "\v"}


def parse_escape(s: str) -> tuple[str, str]:
    """parseEscape: one escaped rune; backreferences and unknown letters are errors."""
    t = s[1:]
    if not t:
        raise RegexSyntaxError(TRAILING_BACKSLASH, "")
    c, t = t[0], t[1:]
    if c < "\x80" and not _is_alnum(c):
        return c, t
    if "1" <= c <= "7" and t[:1] and "0" <= t[0] <= "7" or c == "0":
        value = ord(c) - 0x30
        for _ in range(2):
            if not t or not "0" <= t[0] <= "7":
                break
            value = value * 8 + ord(t[0]) - 0x30
            t = t[1:]
        return chr(value), t
    if c == "x" and t:
        parsed = _hex_escape(t)
        if parsed is not None:
            return parsed
        t = _hex_error_rest(t)
    elif c in _C_ESCAPES:
        return _C_ESCAPES[c], t
    raise RegexSyntaxError(INVALID_ESCAPE, s[: len(s) - len(t)])


def _hex_escape(t: str) -> tuple[str, str] | None:
    if t[0] == "{":
        end = 1
        while end < len(t) and t[end] != "}" and t[end] in "0123456789abcdefABCDEF":
            end += 1
        if end == 1 or end >= len(t) or t[end] != "}":
            return None
        value = int(t[1:end], 16)
        return (chr(value), t[end + 1 :]) if value <= MAX_RUNE else None
    if len(t) >= 2 and all(ch in "0123456789abcdefABCDEF" for ch in t[:2]):
        return chr(int(t[:2], 16)), t[2:]
    return None


def _hex_error_rest(t: str) -> str:
    """Where Go's parseEscape stands when a \\x escape turns out malformed."""
    if t[0] != "{":
        return t[2:] if len(t) >= 2 else ""
    i = 1
    value = 0
    while i < len(t):
        ch = t[i]
        i += 1
        if ch == "}":
            return t[i:]  # reached only for an empty \x{}
        if ch not in "0123456789abcdefABCDEF":
            return t[i:]
        value = value * 16 + int(ch, 16)
        if value > MAX_RUNE:
            return t[i:]
    return ""


def translate(pattern: str) -> Translation:
    """Parse a Go (RE2) pattern; raise RegexSyntaxError with Go's message."""
    return _Parser(pattern).parse()

