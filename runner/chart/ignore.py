""".helmignore rules, as Helm's pkg/ignore evaluates them.

Patterns are Go `filepath.Match` globs (`*` and `?` never cross `/`, classes
use `^` for negation, `\\` escapes). A pattern without a slash matches the
base name only, a leading `/` anchors it at the chart root, a trailing `/`
restricts it to directories, `**` is an error. Helm's negation is kept as it
is: a `!pattern` rule ignores every path it does NOT match.
"""

from __future__ import annotations

import re

from runner.chart.errors import ChartError
from runner.records import Record

HELM_IGNORE = ".helmignore"


class BadPattern(Exception):
    """Go's filepath.ErrBadPattern."""


def go_match(pattern: str, name: str) -> bool:
    """Go's path/filepath.Match on slash-separated names; BadPattern on a malformed glob."""
    while pattern:
        star, chunk, pattern = _scan_chunk(pattern)
        if star and not chunk:
            return "/" not in name  # trailing * matches the rest if it holds no separator
        rest, ok = _match_chunk(chunk, name)
        if ok and (not rest or pattern):
            name = rest
            continue
        if star:
            matched = False
            for i in range(len(name)):
                if name[i] == "/":
                    break
                rest, ok = _match_chunk(chunk, name[i + 1 :])
                if ok:
                    if not pattern and rest:
                        continue
                    name, matched = rest, True
                    break
            if matched:
                continue
        _check_rest(pattern)
        return False
    return not name


def _check_rest(pattern: str) -> None:
    # Go reports a bad pattern even after a mismatch, by scanning what is left.
    while pattern:
        _, chunk, pattern = _scan_chunk(pattern)
        _match_chunk(chunk, "")


def _scan_chunk(pattern: str) -> tuple[bool, str, str]:
    star = False
    while pattern.startswith("*"):
        pattern, star = pattern[1:], True
    in_range = False
    i = 0
    while i < len(pattern):
        c = pattern[i]
        if c == "\\" and i + 1 < len(pattern):
            i += 1
        elif c == "[":
            in_range = True
        elif c == "]":
            in_range = False
        elif c == "*" and not in_range:
            break
        i += 1
    return star, pattern[:i], pattern[i:]


def _match_chunk(chunk: str, s: str) -> tuple[str, bool]:
    failed = False
    while chunk:
        if not failed and not s:
            failed = True
        c = chunk[0]
        if c == "[":
            r = "" if failed else s[0]
            if not failed:
                s = s[1:]
            chunk = chunk[1:]
            negated = chunk.startswith("^")
            if negated:
                chunk = chunk[1:]
            matched, nrange = False, 0
            while True:
                if chunk.startswith("]") and nrange > 0:
                    chunk = chunk[1:]
                    break
                lo, chunk = _get_esc(chunk)
                hi = lo
                if chunk.startswith("-"):
                    hi, chunk = _get_esc(chunk[1:])
                if lo <= r <= hi and r:
                    matched = True
                nrange += 1
            if matched == negated:
                failed = True
        elif c == "?":
            if not failed:
                if s[0] == "/":
                    failed = True
                s = s[1:]
            chunk = chunk[1:]
        else:
            if c == "\\":
                chunk = chunk[1:]
                if not chunk:
                    raise BadPattern
            if not failed:
                if chunk[0] != s[0]:
                    failed = True
                s = s[1:]
            chunk = chunk[1:]
    if failed:
        return "", False
    return s, True


def _get_esc(chunk: str) -> tuple[str, str]:
    if not chunk or chunk[0] in "-]":
        raise BadPattern
    c = chunk[0]
    if c == "\\":
        chunk = chunk[1:]
        if not chunk:
            raise BadPattern
        c = chunk[0]
    chunk = chunk[1:]
    if not chunk:
        raise BadPattern
    return c, chunk


def glob_regex(pattern: str) -> re.Pattern[str] | None:
    """The regex equivalent of a valid Go glob (None when Python cannot express it)."""
    out: list[str] = []
    i = 0
    while i < len(pattern):
        c = pattern[i]
        if c == "*":
            out.append("[^/]*")
        elif c == "?":
            out.append("[^/]")
        elif c == "\\":
            i += 1
            out.append(re.escape(pattern[i]))
        elif c == "[":
            end, text = _class_regex(pattern, i + 1)
            out.append(text)
            i = end
        else:
            out.append(re.escape(c))
        i += 1
    try:
        return re.compile("".join(out), re.DOTALL)
    except re.error:
        return None


def _class_regex(pattern: str, i: int) -> tuple[int, str]:
    """A Go character class starting after `[`: (index of its `]`, regex class)."""
    parts = ["["]
    if pattern[i] == "^":
        parts.append("^")
        i += 1
    first = True
    while first or pattern[i] != "]":
        first = False
        lo, i = _class_char(pattern, i)
        if pattern[i] == "-":
            hi, i = _class_char(pattern, i + 1)
            parts.append(f"{re.escape(lo)}-{re.escape(hi)}")
        else:
            parts.append(re.escape(lo))
    parts.append("]")
    return i, "".join(parts)


def _class_char(pattern: str, i: int) -> tuple[str, int]:
    if pattern[i] == "\\":
        i += 1
    return pattern[i], i + 1


class _Pattern(Record):
    __slots__ = ("raw", "glob", "negate", "must_dir", "anchored", "structural", "regex")

    def __init__(self, raw: str, glob: str, negate: bool, must_dir: bool, anchored: bool,
                 structural: bool, regex: re.Pattern[str] | None) -> None:
        self.raw = raw
        self.glob = glob
        self.negate = negate
        self.must_dir = must_dir
        self.anchored = anchored
        self.structural = structural
        self.regex = regex

    def match(self, path: str, base: str) -> bool:
        """Whether the glob matches `path` (or its last element `base`, for a bare name)."""
        name = path if self.anchored or self.structural else base
        if self.regex is not None:
            return self.regex.fullmatch(name) is not None
        try:
            return go_match(self.glob, name)
        except BadPattern:
            return False


class Rules:
    """An ordered list of ignore patterns (Helm's ignore.Rules)."""

    def __init__(self) -> None:
        self.patterns: list[_Pattern] = []

    @classmethod
    def parse(cls, text: str) -> Rules:
        """Rules from .helmignore text; a bad line fails with Helm's bare message."""
        rules = cls()
        for line in text.splitlines():
            rules.add(line)
        return rules

    def add_defaults(self) -> None:
        """Helm always ignores dotfiles under templates/."""
        self.add("templates/.?*")

    def add(self, rule: str) -> None:
        rule = rule.strip()
        if not rule or rule.startswith("#"):
            return
        if "**" in rule:
            raise ChartError("double-star (**) syntax is not supported")
        try:
            go_match(rule, "abc")
        except BadPattern:
            raise ChartError("syntax error in pattern") from None
        glob, negate, must_dir = rule.removeprefix("!"), rule.startswith("!"), False
        if glob.endswith("/"):
            must_dir, glob = True, glob[:-1]
        anchored = glob.startswith("/")
        glob = glob.removeprefix("/")
        structural = not anchored and "/" in glob
        self.patterns.append(
            _Pattern(rule, glob, negate, must_dir, anchored, structural, glob_regex(glob))
        )

    def ignore(self, path: str, is_dir: bool) -> bool:
        """True when `path` (slash-separated, relative to the chart root) is ignored."""
        if path in ("", ".", "./"):
            return False
        base = path.rsplit("/", 1)[-1]
        for pattern in self.patterns:
            if pattern.negate:
                if pattern.must_dir and not is_dir:
                    return True
                if not pattern.match(path, base):
                    return True
                continue
            if pattern.must_dir and not is_dir:
                continue
            if pattern.match(path, base):
                return True
        return False
