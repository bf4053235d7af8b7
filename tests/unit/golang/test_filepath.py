"""Go's path/filepath.Match: cases from Go's path/filepath match_test.go."""

from __future__ import annotations

import pytest

from runner.golang.filepath import ErrBadPattern, match

MATCHES = [
    ("abc", "abc", True),
    ("*", "abc", True),
    ("*c", "abc", True),
    ("a*", "a", True),
    ("a*", "abc", True),
    ("a*", "ab/c", False),
    ("a*/b", "abc/b", True),
    ("a*/b", "a/c/b", False),
    ("a*b*c*d*e*/f", "axbxcxdxe/f", True),
    ("a*b*c*d*e*/f", "axbxcxdxexxx/f", True),
    ("a*b*c*d*e*/f", "axbxcxdxe/xxx/f", False),
    ("a*b*c*d*e*/f", "axbxcxdxexxx/fff", False),
    ("a*b?c*x", "abxbbxdbxebxczzx", True),
    ("a*b?c*x", "abxbbxdbxebxczzy", False),
    ("ab[c]", "abc", True),
    ("ab[b-d]", "abc", True),
    ("ab[e-g]", "abc", False),
    ("ab[^c]", "abc", False),
    ("ab[^b-d]", "abc", False),
    ("ab[^e-g]", "abc", True),
    ("a\\*b", "a*b", True),
    ("a\\*b", "ab", False),
    ("a?b", "a☺b", True),
    ("a[^a]b", "a☺b", True),
    ("a???b", "a☺b", False),
    ("a[^a][^a][^a]b", "a☺b", False),
    ("[a-ζ]*", "α", True),
    ("*[a-ζ]", "A", False),
    ("a?b", "a/b", False),
    ("a*b", "a/b", False),
    ("[\\]a]", "]", True),
    ("[\\-]", "-", True),
    ("[x\\-]", "x", True),
    ("[x\\-]", "-", True),
    ("[x\\-]", "z", False),
    ("[\\-x]", "x", True),
    ("[\\-x]", "-", True),
    ("[\\-x]", "a", False),
    ("*x", "xxx", True),
    # Not fnmatch: `!` is no negation, `\\` escapes (helm template --show-only relies on both).
    ("templates/[!a].yaml", "templates/b.yaml", False),
    ("templates/[!a].yaml", "templates/!.yaml", True),
    ("templates/a\\*b.yaml", "templates/a*b.yaml", True),
    ("templates/a\\*b.yaml", "templates/axb.yaml", False),
]

BAD = [
    ("[]a]", "]"),
    ("[-]", "-"),
    ("[x-]", "x"),
    ("[-x]", "a"),
    ("\\", "a"),
    ("[a-b-c]", "a"),
    ("[", "a"),
    ("[^", "a"),
    ("[^bc", "a"),
    ("a[", "a"),
    ("a[", "x"),
    ("a/b[", "x"),
    ("[\udcff]", "x"),  # an invalid UTF-8 byte in a class
]


@pytest.mark.parametrize(("pattern", "name", "expected"), MATCHES)
def test_match(pattern: str, name: str, expected: bool) -> None:
    assert match(pattern, name) is expected


@pytest.mark.parametrize(("pattern", "name"), BAD)
def test_match_bad_pattern(pattern: str, name: str) -> None:
    with pytest.raises(ErrBadPattern):
        match(pattern, name)


def test_bad_pattern_reads_as_go_error() -> None:
    with pytest.raises(ErrBadPattern, match="^syntax error in pattern$"):
        match("[", "a")
