"""Template functions: Sprig's regex family (sprig v3.3.0 regex.go) with Go's regexp semantics.

Patterns are Go's (RE2) syntax, checked by runner.funcs.regex_syntax (Go's
error texts) and matched by RE2 itself (google-re2), in time linear in the
text as Go's regexp guarantees: a chart's pattern cannot make a render
backtrack for ever. The match loops are Go's: FindAll skips an empty match
right after the previous match, ReplaceAll advances one rune past empty
matches, Split follows regexp.Split, and replacement templates use Go's
Expand (`$1`, `${1}`, `${name}`, `$$`; `$1a` names group "1a").

RE2 matches UTF-8 bytes; positions here are character offsets of the Go
string (a Python str whose invalid bytes are surrogate escapes). Go reads an
invalid byte as U+FFFD, one byte wide: RE2 sees U+FFFD in its place.

The plain variants use regexp.MustCompile, whose panic text Go's
text/template reports (`regexp: Compile(`(`): error parsing regexp: ...`);
the must* variants return the compile error itself; regexMatch answers
false on a bad pattern.
"""

from __future__ import annotations

import unicodedata
from bisect import bisect_left
from functools import lru_cache

from runner.funcs.registry import gofunc
from runner.golang.gofunc import FuncError
from runner.golang.strconv import can_backquote, quote
from runner.golang.types import NilStringSlice, StringSlice

TYPE_CHECKING = False  # `typing` costs ~2 ms at every start: see docs/speed.md
if TYPE_CHECKING:  # the RE2 translator is imported on the first pattern: it is large
    from runner.funcs.regex_syntax import RegexSyntaxError

# RE2's own default program budget: a pattern beyond it fails to compile (Go's
# limits are larger); it is reported as Go reports a pattern too large.
_MAX_MEM = 8 << 20


class GoRegexp:
    """A compiled pattern: RE2's program and Go's group names (SubexpNames)."""

    __slots__ = ("expr", "names", "program", "groups")

    def __init__(self, expr: str, pattern: str, names: list[str]) -> None:
        import re2  # google-re2 (its C++ library loads in ~2 ms) only when a template uses a regex

        options = re2.Options()
        options.log_errors = False  # RE2 would write its own message to stderr
        options.max_mem = _MAX_MEM
        self.expr = expr
        self.names = names
        self.program = re2.compile(pattern.encode("utf-8"), options)
        self.groups = range(len(names))

    def search(self, text: Subject, pos: int = 0) -> Match | None:
        """The leftmost-first match starting at or after character `pos` (Go's doExecute:
        the text before pos still decides `^`, `\\b`, `\\B`)."""
        found = self.program.search(text.data, text.byte_offset(pos))
        if found is None:
            return None
        char_offset = text.char_offset
        return Match(text, [char_offset(b) for i in self.groups for b in found.span(i)])

    def matches(self, s: str) -> bool:
        """MatchString."""
        return self.program.search(Subject(s).data) is not None

    def index(self, s: str) -> int:
        """Where the first match starts (FindStringIndex's [0]), -1 without one."""
        found = self.search(Subject(s))
        return -1 if found is None else found.start()


class Subject:
    """A Go string as RE2 reads it: UTF-8 bytes (an invalid byte as U+FFFD), with the
    mapping between character and byte offsets."""

    __slots__ = ("text", "data", "_starts")

    def __init__(self, text: str) -> None:
        self.text = text
        if text.isascii():
            self.data = text.encode("ascii")
            self._starts: list[int] | None = None  # offsets agree
            return
        readable = "".join(["\ufffd" if "\ud800" <= ch <= "\udfff" else ch for ch in text])
        self.data = readable.encode("utf-8")
        starts, at = [], 0
        for ch in readable:  # byte offset of each character, and of the end
            starts.append(at)
            at += 1 if ch < "\x80" else 2 if ch < "\u0800" else 3 if ch < "\U00010000" else 4
        starts.append(at)
        self._starts = starts

    def byte_offset(self, pos: int) -> int:
        return pos if self._starts is None else self._starts[pos]

    def char_offset(self, offset: int) -> int:
        """The character at a byte offset RE2 reported (always a character boundary), -1 stays."""
        if self._starts is None or offset < 0:
            return offset
        return bisect_left(self._starts, offset)


class Match:
    """One match as character offsets: [start0, end0, start1, end1, ...], -1 for a group
    that took no part."""

    __slots__ = ("text", "offsets")

    def __init__(self, text: Subject, offsets: list[int]) -> None:
        self.text = text
        self.offsets = offsets

    def start(self, group: int = 0) -> int:
        return self.offsets[2 * group]

    def end(self, group: int = 0) -> int:
        return self.offsets[2 * group + 1]

    def group(self, group: int = 0) -> str | None:
        start = self.offsets[2 * group]
        return None if start < 0 else self.text.text[start : self.offsets[2 * group + 1]]


@lru_cache(maxsize=1024)
def _compile_cached(expr: str) -> GoRegexp | RegexSyntaxError:
    from runner.funcs.regex_syntax import RegexSyntaxError, translate

    try:
        translation = translate(expr)
    except RegexSyntaxError as err:
        return err
    import re2

    try:
        return GoRegexp(expr, translation.pattern, translation.names)
    except re2.error:  # beyond RE2's program budget, the only refusal left after Go's checks
        return RegexSyntaxError("expression too large", expr)


def compile_go(expr: str) -> GoRegexp:
    """regexp.Compile: FuncError carries Go's `error parsing regexp: ...` text."""
    compiled = _compile_cached(expr)
    if not isinstance(compiled, GoRegexp):
        raise FuncError(str(compiled))
    return compiled


def must_compile(expr: str) -> GoRegexp:
    """regexp.MustCompile: its panic message, as text/template reports it."""
    compiled = _compile_cached(expr)
    if not isinstance(compiled, GoRegexp):
        quoted = f"`{expr}`" if can_backquote(expr) else quote(expr)
        raise FuncError(f"regexp: Compile({quoted}): {compiled}")
    return compiled


# ------------------------------------------------------------ Go match loops


def find_all_spans(rx: GoRegexp, s: str, n: int) -> list[Match]:
    """regexp's allMatches: no empty match right after the previous match."""
    if n < 0:
        n = len(s) + 1
    out: list[Match] = []
    pos, prev_end = 0, -1
    text = Subject(s)
    while len(out) < n and pos <= len(s):
        m = rx.search(text, pos)
        if m is None:
            break
        start, end = m.start(), m.end()
        accept = True
        if end == pos:  # an empty match
            accept = start != prev_end
            pos += 1
        else:
            pos = end
        prev_end = end
        if accept:
            out.append(m)
    return out


def expand(rx: GoRegexp, template: str, m: Match) -> str:
    """regexp's Expand: $1, ${1}, ${name}, $$; malformed $ stays literal."""
    out: list[str] = []
    while template:
        before, dollar, after = template.partition("$")
        if not dollar:
            break
        out.append(before)
        template = after
        if template.startswith("$"):
            out.append("$")
            template = template[1:]
            continue
        extracted = _extract(template)
        if extracted is None:
            out.append("$")
            continue
        name, num, template = extracted
        out.append(_group_text(rx, m, name, num))
    out.append(template)
    return "".join(out)


def _extract(template: str) -> tuple[str, int, str] | None:
    """regexp's extract: a group name or number after $, and the rest."""
    brace = template.startswith("{")
    body = template[1:] if brace else template
    i = 0
    while i < len(body) and (body[i] == "_" or _is_letter_or_digit(body[i])):
        i += 1
    if i == 0:
        return None
    name = body[:i]
    if brace:
        if i >= len(body) or body[i] != "}":
            return None
        i += 1
    num = int(name) if name.isascii() and name.isdigit() and len(name) <= 9 else -1
    if name[0] == "0" and len(name) > 1:
        num = -1
    return name, num, body[i:]


def _is_letter_or_digit(c: str) -> bool:
    """unicode.IsLetter or unicode.IsDigit (Nd), which Go's extract accepts."""
    category = unicodedata.category(c)
    return category[0] == "L" or category == "Nd"


def _group_text(rx: GoRegexp, m: Match, name: str, num: int) -> str:
    if num >= 0:
        if num < len(rx.names):
            return m.group(num) or ""
        return ""
    for i, group_name in enumerate(rx.names):
        if group_name == name and m.start(i) >= 0:
            return m.group(i) or ""
    return ""


def replace_all(rx: GoRegexp, src: str, replace: str, literal: bool) -> str:
    """regexp's replaceAll loop."""
    out: list[str] = []
    last_end = 0
    pos = 0
    text = Subject(src)
    while pos <= len(src):
        m = rx.search(text, pos)
        if m is None:
            break
        start, end = m.start(), m.end()
        out.append(src[last_end:start])
        if end > last_end or start == 0:
            out.append(replace if literal else expand(rx, replace, m))
        last_end = end
        pos = pos + 1 if pos + 1 > end else end
    out.append(src[last_end:])
    return "".join(out)


def split(rx: GoRegexp, s: str, n: int) -> StringSlice:
    """regexp.Split."""
    if n == 0:
        return NilStringSlice()
    if rx.expr and s == "":
        return StringSlice([""])
    parts = StringSlice()
    begin = end = 0
    for m in find_all_spans(rx, s, n):
        if n > 0 and len(parts) == n - 1:
            break
        end = m.start()
        if m.end() != 0:
            parts.append(s[begin:end])
        begin = m.end()
    if end != len(s):
        parts.append(s[begin:])
    return parts


def find_all(rx: GoRegexp, s: str, n: int) -> StringSlice:
    """FindAllString: nil (not an empty slice) without a match."""
    found = [m.group(0) for m in find_all_spans(rx, s, n)]
    return StringSlice(found) if found else NilStringSlice()


def find(rx: GoRegexp, s: str) -> str:
    m = rx.search(Subject(s))
    return m.group(0) or "" if m else ""


# ---------------------------------------------------------------- functions


@gofunc("regexMatch", ("string", "string"), returns="bool")
def regex_match(regex: str, s: str) -> bool:
    compiled = _compile_cached(regex)
    if not isinstance(compiled, GoRegexp):
        return False
    return compiled.matches(s)


@gofunc("mustRegexMatch", ("string", "string"), returns="bool", fallible=True)
def must_regex_match(regex: str, s: str) -> bool:
    return compile_go(regex).matches(s)


@gofunc("regexFindAll", ("string", "string", "int"), returns="[]string")
def regex_find_all(regex: str, s: str, n: int) -> StringSlice:
    return find_all(must_compile(regex), s, n)


@gofunc("mustRegexFindAll", ("string", "string", "int"), returns="[]string", fallible=True)
def must_regex_find_all(regex: str, s: str, n: int) -> StringSlice:
    return find_all(compile_go(regex), s, n)


@gofunc("regexFind", ("string", "string"), returns="string")
def regex_find(regex: str, s: str) -> str:
    return find(must_compile(regex), s)


@gofunc("mustRegexFind", ("string", "string"), returns="string", fallible=True)
def must_regex_find(regex: str, s: str) -> str:
    return find(compile_go(regex), s)


@gofunc("regexReplaceAll", ("string", "string", "string"), returns="string")
def regex_replace_all(regex: str, s: str, repl: str) -> str:
    return replace_all(must_compile(regex), s, repl, literal=False)


@gofunc("mustRegexReplaceAll", ("string", "string", "string"), returns="string", fallible=True)
def must_regex_replace_all(regex: str, s: str, repl: str) -> str:
    return replace_all(compile_go(regex), s, repl, literal=False)


@gofunc("regexReplaceAllLiteral", ("string", "string", "string"), returns="string")
def regex_replace_all_literal(regex: str, s: str, repl: str) -> str:
    return replace_all(must_compile(regex), s, repl, literal=True)


@gofunc("mustRegexReplaceAllLiteral", ("string", "string", "string"), returns="string", fallible=True)
def must_regex_replace_all_literal(regex: str, s: str, repl: str) -> str:
    return replace_all(compile_go(regex), s, repl, literal=True)


@gofunc("regexSplit", ("string", "string", "int"), returns="[]string")
def regex_split(regex: str, s: str, n: int) -> StringSlice:
    return split(must_compile(regex), s, n)


@gofunc("mustRegexSplit", ("string", "string", "int"), returns="[]string", fallible=True)
def must_regex_split(regex: str, s: str, n: int) -> StringSlice:
    return split(compile_go(regex), s, n)


@gofunc("regexQuoteMeta", ("string",), returns="string")
def regex_quote_meta(s: str) -> str:
    """regexp.QuoteMeta: a backslash before each of \\.+*?()|[]{}^$."""
    return "".join(["\\" + ch if ch in _META else ch for ch in s])


_META = frozenset("\\.+*?()|[]{}^$")
