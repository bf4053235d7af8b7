"""Go's filepath.Match as .helmignore uses it: cases from Go's path/filepath match_test.go."""

from __future__ import annotations

import pytest

from runner.chart.ignore import BadPattern, Rules, glob_matcher, go_match

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
]


@pytest.mark.parametrize(("pattern", "name", "expected"), MATCHES)
def test_go_match(pattern: str, name: str, expected: bool) -> None:
    assert go_match(pattern, name) is expected


@pytest.mark.parametrize(("pattern", "name"), BAD)
def test_go_match_bad_pattern(pattern: str, name: str) -> None:
    with pytest.raises(BadPattern):
        go_match(pattern, name)


def test_rules_follow_helms_pkg_ignore_semantics() -> None:
    # From Helm's pkg/ignore/rules_test.go: base-name rules, anchored rules, dir-only rules.
    rules = Rules.parse("*.txt\n/cargo/*.tmp\nmast/\n#comment\n\n")
    assert rules.ignore("helm.txt", False)
    assert rules.ignore("mast/a.txt", False)
    assert rules.ignore("cargo/a.tmp", False)
    assert not rules.ignore("cargo/b/a.tmp", False)
    assert rules.ignore("mast", True)
    assert not rules.ignore("mast", False)
    assert not rules.ignore(".", True)


@pytest.mark.parametrize(("pattern", "name", "expected"), MATCHES)
def test_glob_matcher_agrees_with_go_match(pattern: str, name: str, expected: bool) -> None:
    matcher = glob_matcher(pattern)
    assert matcher is not None
    assert matcher(name) is expected


@pytest.mark.parametrize("pattern", ["*.swp", "*~", "*/b", "*", ".git", "a/b", "templates/.?*"])
def test_glob_matcher_agrees_with_go_match_on_helmignore_shapes(pattern: str) -> None:
    # Literal and `*literal` globs are string tests, not regexes: same answers.
    names = ["", ".git", ".gitx", "x.git", "a.swp", ".swp", "a/b.swp", "a~", "~", "a/~",
             "b", "a/b", "x/a/b", "/b", "templates/.a", "templates/.", "templates/.a/b"]
    matcher = glob_matcher(pattern)
    assert matcher is not None
    assert [matcher(name) for name in names] == [go_match(pattern, name) for name in names]
