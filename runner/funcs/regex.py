"""Template functions: Sprig's regex family (sprig v3.3.0 regex.go) with Go's regexp semantics.

Patterns are RE2 (see runner.funcs.regex_syntax for the translation to
Python `re`). The match loops are Go's, not Python's: FindAll skips an
empty match right after the previous match, ReplaceAll advances one rune
past empty matches, Split follows regexp.Split, and replacement templates
use Go's Expand (`$1`, `${1}`, `${name}`, `$$`; `$1a` names group "1a").

The plain variants use regexp.MustCompile, whose panic text Go's
text/template reports (`regexp: Compile(`(`): error parsing regexp: ...`);
the must* variants return the compile error itself; regexMatch answers
false on a bad pattern.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

from runner.funcs.registry import gofunc
from runner.golang.gofunc import FuncError
from runner.golang.strconv import can_backquote, quote
from runner.golang.types import NilStringSlice, StringSlice

TYPE_CHECKING = False  # `typing` costs ~2 ms at every start: see docs/speed.md
if TYPE_CHECKING:  # the RE2 translator is imported on the first pattern: it is large
    from runner.funcs.regex_syntax import RegexSyntaxError, Translation


class GoRegexp:
    """A compiled pattern with Go's group names."""

    __slots__ = ("expr", "names", "pattern")

    def __init__(self, expr: str, translation: Translation) -> None:
        self.expr = expr
        self.names = translation.names
        self.pattern = re.compile(translation.pattern)


@lru_cache(maxsize=1024)
def _compile_cached(expr: str) -> GoRegexp | RegexSyntaxError:
    from runner.funcs.regex_syntax import RegexSyntaxError, translate

    try:
        return GoRegexp(expr, translate(expr))
    except RegexSyntaxError as err:
        return err


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


def find_all_spans(rx: GoRegexp, s: str, n: int) -> list[re.Match[str]]:
    """regexp's allMatches: no empty match right after the previous match."""
    if n < 0:
        n = len(s) + 1
    out: list[re.Match[str]] = []
    pos, prev_end = 0, -1
    search = rx.pattern.search
    while len(out) < n and pos <= len(s):
        m = search(s, pos)
        if m is None:
            break
        start, end = m.span()
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


def expand(rx: GoRegexp, template: str, m: re.Match[str]) -> str:
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


def _group_text(rx: GoRegexp, m: re.Match[str], name: str, num: int) -> str:
    if num >= 0:
        if num < len(rx.names):
            return m.group(num) or ""
        return ""
    for i, group_name in enumerate(rx.names):
        if group_name == name and m.start(i) >= 0:
            return m.group(i)
    return ""


def replace_all(rx: GoRegexp, src: str, replace: str, literal: bool) -> str:
    """regexp's replaceAll loop."""
    out: list[str] = []
    last_end = 0
    pos = 0
    search = rx.pattern.search
    while pos <= len(src):
        m = search(src, pos)
        if m is None:
            break
        start, end = m.span()
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
    m = rx.pattern.search(s)
    return m.group(0) if m else ""


# ---------------------------------------------------------------- functions


@gofunc("regexMatch", ("string", "string"), returns="bool")
def regex_match(regex: str, s: str) -> bool:
    compiled = _compile_cached(regex)
    if not isinstance(compiled, GoRegexp):
        return False
    return compiled.pattern.search(s) is not None


@gofunc("mustRegexMatch", ("string", "string"), returns="bool", fallible=True)
def must_regex_match(regex: str, s: str) -> bool:
    return compile_go(regex).pattern.search(s) is not None


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
    return re.sub(r"[\\.+*?()|\[\]{}^$]", lambda m: "\\" + m.group(0), s)  # compiled on first use
