"""Sprig's regex family (sprig v3.3.0 regex.go) with Go regexp (RE2) semantics.

Expectations come from Sprig's regex_test.go and the Go regexp package's
documentation and examples (FindAllString, ReplaceAllString, Expand, Split,
QuoteMeta), and regexp/syntax's error codes for rejected patterns.
"""

from __future__ import annotations

from typing import Any

import pytest

import runner.funcs.regex  # noqa: F401 - registers the family
from runner.funcs.registry import registered
from runner.golang.gofunc import FuncError
from runner.golang.types import StringSlice


def call(name: str, *args: Any) -> Any:
    return registered()[name].impl(*args)


EMAIL = "[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\\.[A-Za-z]{2,}"


@pytest.mark.parametrize("name", ["regexMatch", "mustRegexMatch"])
@pytest.mark.parametrize(
    ("text", "want"),
    [("test@acme.com", True), ("Test@Acme.Com", True), ("test", False), ("test.com", False), ("test@acme", False)],
)
def test_regex_match(name: str, text: str, want: bool) -> None:
    assert call(name, EMAIL, text) is want  # TestRegexMatch


@pytest.mark.parametrize("name", ["regexFindAll", "mustRegexFindAll"])
def test_regex_find_all(name: str) -> None:
    assert len(call(name, "a{2}", "aa", -1)) == 1  # TestRegexFindAll
    assert len(call(name, "a{2}", "aaaaaaaa", 1)) == 1
    assert len(call(name, "a{2}", "aaaa", -1)) == 2
    assert len(call(name, "a{2}", "none", -1)) == 0
    assert type(call(name, "a", "a", -1)) is StringSlice


def test_find_all_empty_matches_follow_go() -> None:
    # regexp example: FindAllString("a*", "baaab") skips the empty match after "aaa".
    assert call("regexFindAll", "a*", "baaab", -1) == ["", "aaa", ""]
    assert call("regexFindAll", "a*", "baaa", -1) == ["", "aaa"]


@pytest.mark.parametrize("name", ["regexFind", "mustRegexFind"])
def test_regex_find(name: str) -> None:
    assert call(name, "fo.?", "foorbar") == "foo"  # TestRegexFind
    assert call(name, "fo.?", "foo foe fome") == "foo"
    assert call(name, "fo.?", "none") == ""


@pytest.mark.parametrize("name", ["regexReplaceAll", "mustRegexReplaceAll"])
def test_regex_replace_all_expands_templates(name: str) -> None:
    assert call(name, "a(x*)b", "-ab-axxb-", "T") == "-T-T-"  # TestRegexReplaceAll
    assert call(name, "a(x*)b", "-ab-axxb-", "$1") == "--xx-"
    assert call(name, "a(x*)b", "-ab-axxb-", "$1W") == "---"  # $1W names group "1W"
    assert call(name, "a(x*)b", "-ab-axxb-", "${1}W") == "-W-xxW-"


def test_expand_named_groups_and_dollars() -> None:
    pattern = "(?P<first>\\w+) (?P<last>\\w+)"
    assert call("regexReplaceAll", pattern, "john smith", "${last}, $first") == "smith, john"
    assert call("regexReplaceAll", pattern, "john smith", "$$1 costs $") == "$1 costs $"
    assert call("regexReplaceAll", "(?<x>a)", "a", "[${x}]") == "[a]"


@pytest.mark.parametrize("name", ["regexReplaceAllLiteral", "mustRegexReplaceAllLiteral"])
def test_regex_replace_all_literal(name: str) -> None:
    assert call(name, "a(x*)b", "-ab-axxb-", "T") == "-T-T-"  # TestRegexReplaceAllLiteral
    assert call(name, "a(x*)b", "-ab-axxb-", "$1") == "-$1-$1-"
    assert call(name, "a(x*)b", "-ab-axxb-", "${1}") == "-${1}-${1}-"


def test_replace_all_with_empty_matches() -> None:
    # Go inserts the replacement at each empty match, not right after a match.
    assert call("regexReplaceAll", "x*", "abc", "-") == "-a-b-c-"
    assert call("regexReplaceAll", "a*", "baaac", "-") == "-b-c-"


@pytest.mark.parametrize("name", ["regexSplit", "mustRegexSplit"])
def test_regex_split(name: str) -> None:
    assert len(call(name, "a", "banana", -1)) == 4  # TestRegexSplit
    assert len(call(name, "a", "banana", 0)) == 0
    assert len(call(name, "a", "banana", 1)) == 1
    assert len(call(name, "a", "banana", 2)) == 2
    assert len(call(name, "z+", "pizza", -1)) == 2
    # regexp.Split examples
    assert call(name, "a", "banana", -1) == ["b", "n", "n", ""]
    assert call(name, "z+", "pizza", -1) == ["pi", "a"]
    assert call(name, "", "abc", -1) == ["a", "b", "c"]
    assert call(name, "x*", "axbxc", -1) == ["a", "b", "c"]


def test_regex_quote_meta() -> None:
    assert call("regexQuoteMeta", "1.2.3") == "1\\.2\\.3"  # TestRegexQuoteMeta
    assert call("regexQuoteMeta", "pretzel") == "pretzel"
    assert call("regexQuoteMeta", "a+b*[c]{d}(e)|^$\\") == "a\\+b\\*\\[c\\]\\{d\\}\\(e\\)\\|\\^\\$\\\\"


@pytest.mark.parametrize(
    ("pattern", "text", "want"),
    [
        ("^b$", "a\nb", False),  # ^ and $ are text anchors without (?m)
        ("(?m)^b$", "a\nb\n", True),
        ("a$", "a\n", False),  # unlike Python's $, no match before a final newline
        ("\\d", "\u0663", False),  # \d is ASCII only
        ("\\s", "\v", False),  # \s is [\t\n\f\r ]
        ("\\w", "é", False),
        ("\\bfoo\\b", "éfooé", True),  # \b is an ASCII word boundary
        ("[[:alpha:]]+$", "abc", True),
        ("[[:^digit:]]", "1", False),
        ("\\pL", "é", True),
        ("\\p{Greek}", "λ", True),
        ("\\PL", "é", False),
        ("(?i)straße", "STRAßE", True),
        ("(?s)a.b", "a\nb", True),
        ("a.b", "a\nb", False),
        ("\\Qa.b\\E", "axb", False),
        ("a{,2}", "a{,2}", True),  # not a repeat in Go: literal text
        ("\\12", "\n", True),  # octal escape, not a backreference
        ("x*", "", True),
        ("^\\B$", "", True),  # no word characters around: not a boundary
        ("\\p{Tamil}", "\u0b85", True),
    ],
)
def test_re2_semantics(pattern: str, text: str, want: bool) -> None:
    assert call("mustRegexMatch", pattern, text) is want


def test_ungreedy_flag_swaps_greediness() -> None:
    assert call("regexFind", "(?U)a+", "aaa") == "a"
    assert call("regexFind", "(?U)a+?", "aaa") == "aaa"


@pytest.mark.parametrize(
    ("pattern", "message"),
    [
        ("(", "missing closing ): `(`"),
        ("a)", "unexpected ): `a)`"),
        ("[a", "missing closing ]: `[a`"),
        ("[z-a]", "invalid character class range: `z-a`"),
        ("[[:foo:]]", "invalid character class range: `[:foo:]`"),
        ("\\1", "invalid escape sequence: `\\1`"),
        ("\\Z", "invalid escape sequence: `\\Z`"),
        ("a\\", "trailing backslash at end of expression: ``"),
        ("*", "missing argument to repetition operator: `*`"),
        ("a**", "invalid nested repetition operator: `**`"),
        ("a{1001}", "invalid repeat count: `{1001}`"),
        ("(a{500}){3}", "invalid repeat count: `{3}`"),
        ("(?=a)", "invalid or unsupported Perl syntax: `(?=`"),
        ("(?P<n-x>a)", "invalid named capture: `(?P<n-x>`"),
        ("\\p{Foo}", "invalid character class range: `\\p{Foo}`"),
    ],
)
def test_rejected_patterns_report_go_errors(pattern: str, message: str) -> None:
    with pytest.raises(FuncError) as must:
        call("mustRegexFind", pattern, "x")
    assert str(must.value) == f"error parsing regexp: {message}"
    with pytest.raises(FuncError) as plain:
        call("regexFind", pattern, "x")  # MustCompile's panic
    assert str(plain.value) == f"regexp: Compile(`{pattern}`): error parsing regexp: {message}"
    assert call("regexMatch", pattern, "x") is False


def test_must_compile_quotes_patterns_that_cannot_be_backquoted() -> None:
    with pytest.raises(FuncError) as caught:
        call("regexSplit", "a`(", "x", -1)
    assert str(caught.value) == 'regexp: Compile("a`("): error parsing regexp: missing closing ): `a`(`'


@pytest.mark.timeout(60)
def test_nested_repetition_runs_in_linear_time() -> None:
    # A backtracking engine takes time doubling with each "a" here (the former translation
    # to Python's re: 0.7-1 s for 24 of them); RE2, as Go's regexp, scans the text once.
    assert call("regexMatch", "^(a+)+$", "a" * 5000 + "!") is False
    assert call("regexMatch", "^(a+)+$", "a" * 5000) is True
    assert call("regexFind", "(x+x+)+y", "x" * 5000) == ""


def test_positions_are_characters_of_the_go_string() -> None:
    # Non-ASCII text and invalid UTF-8 (a surrogate escape): RE2 matches UTF-8 bytes, and
    # Go reads an invalid byte as U+FFFD, one character wide.
    assert call("regexReplaceAll", "(.)é", "aé bé", "<$1>") == "<a> <b>"
    assert call("regexFindAll", ".", "h\udcffi", -1) == ["h", "\udcff", "i"]
    assert call("regexSplit", "\\x{FFFD}", "a\udcffb\ufffdc", -1) == ["a", "b", "c"]
    assert call("regexReplaceAll", "", "é\U0001f600", "-") == "-é-\U0001f600-"


def test_a_pattern_beyond_re2s_budget_reads_as_too_large() -> None:
    # Known difference (docs/functions.md): Go compiles `\pL{1000}`; RE2's program for it
    # exceeds its default 8 MB budget (a larger one costs seconds and ~150 MB per pattern).
    with pytest.raises(FuncError) as caught:
        call("mustRegexMatch", "\\pL{1000}", "x")
    assert str(caught.value) == "error parsing regexp: expression too large: `\\pL{1000}`"
    assert call("regexMatch", "\\pL{1000}", "x") is False
