""".helmignore rules, as Helm's pkg/ignore evaluates them.

Patterns are Go `filepath.Match` globs (`*` and `?` never cross `/`, classes
use `^` for negation, `\\` escapes). A pattern without a slash matches the
base name only, a leading `/` anchors it at the chart root, a trailing `/`
restricts it to directories, `**` is an error. Helm's negation is kept as it
is: a `!pattern` rule ignores every path it does NOT match.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from runner.chart.errors import ChartError
from runner.golang.filepath import ErrBadPattern, match

HELM_IGNORE = ".helmignore"


_GLOB_SPECIALS = frozenset("*?[\\")


def glob_matcher(pattern: str) -> Callable[[str], bool] | None:
    """A test equivalent to a valid Go glob (None when Python cannot express it).

    A literal or `*literal` glob (most .helmignore lines) is a string test:
    compiling a regex for each line cost every chart load ~1 ms.
    """
    if not _GLOB_SPECIALS.intersection(pattern):
        return pattern.__eq__
    suffix = pattern[1:]
    if pattern.startswith("*") and not _GLOB_SPECIALS.intersection(suffix):
        return lambda name: name.endswith(suffix) and "/" not in name[: len(name) - len(suffix)]
    regex = _glob_regex(pattern)
    return None if regex is None else lambda name: regex.fullmatch(name) is not None


def _glob_regex(pattern: str) -> re.Pattern[str] | None:
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


class _Pattern:
    """One rule: its glob, what it applies to, and its test."""

    __slots__ = ("raw", "glob", "negate", "must_dir", "anchored", "structural", "matcher")

    def __init__(self, raw: str, glob: str, negate: bool, must_dir: bool, anchored: bool,
                 structural: bool) -> None:
        self.raw = raw
        self.glob = glob
        self.negate = negate
        self.must_dir = must_dir
        self.anchored = anchored
        self.structural = structural
        self.matcher = glob_matcher(glob)

    def match(self, path: str, base: str) -> bool:
        """Whether the glob matches `path` (or its last element `base`, for a bare name)."""
        name = path if self.anchored or self.structural else base
        if self.matcher is not None:
            return self.matcher(name)
        try:
            return match(self.glob, name)
        except ErrBadPattern:
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
            match(rule, "abc")
        except ErrBadPattern as err:
            raise ChartError(str(err)) from None
        glob, negate, must_dir = rule.removeprefix("!"), rule.startswith("!"), False
        if glob.endswith("/"):
            must_dir, glob = True, glob[:-1]
        anchored = glob.startswith("/")
        glob = glob.removeprefix("/")
        structural = not anchored and "/" in glob
        self.patterns.append(_Pattern(rule, glob, negate, must_dir, anchored, structural))

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
