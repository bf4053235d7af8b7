"""Helm's pkg/ignore rules (.helmignore) over Go's filepath.Match (tests/unit/golang/test_filepath.py)."""

from __future__ import annotations

import pytest

from runner.chart.ignore import Rules, glob_matcher
from runner.golang.filepath import match as go_match
from tests.unit.golang.test_filepath import MATCHES


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
