"""Go's path/filepath for slash-separated names, as on Linux: Base, and Match (match.go).

Not Python's fnmatch: a class is negated with `^` (`[!a]` is a class of `!`
and `a`), `\\` escapes the next character, `*` and `?` stop at '/', and a
malformed pattern is an error (ErrBadPattern) rather than a literal.
"""

from __future__ import annotations


def base(path: str) -> str:
    """filepath.Base (path.Base on Linux): the last element, trailing slashes removed."""
    if path == "":
        return "."
    path = path.rstrip("/")
    if path == "":
        return "/"
    return path[path.rfind("/") + 1 :]


class ErrBadPattern(ValueError):
    """filepath.ErrBadPattern: the glob is malformed."""

    def __init__(self) -> None:
        super().__init__("syntax error in pattern")


def match(pattern: str, name: str) -> bool:
    """filepath.Match(pattern, name) on slash-separated names: `*` and `?` never
    match '/', `[^...]` negates a class, `\\` escapes. Raises ErrBadPattern
    for a malformed pattern, also when the name already failed to match."""
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
                    raise ErrBadPattern
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
        raise ErrBadPattern
    c = chunk[0]
    if c == "\\":
        chunk = chunk[1:]
        if not chunk:
            raise ErrBadPattern
        c = chunk[0]
    if "\udc80" <= c <= "\udcff":
        raise ErrBadPattern  # an invalid UTF-8 byte (surrogate escape) is Go's RuneError
    chunk = chunk[1:]
    if not chunk:
        raise ErrBadPattern
    return c, chunk
