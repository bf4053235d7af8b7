"""runner.lazy_pattern: a pattern compiled on first use behaves as re.compile's."""

from __future__ import annotations

import re

import pytest

from runner.lazy_pattern import LazyPattern

SOURCE = "[\u2028\u2029]|(a+)"


def test_nothing_is_compiled_before_the_first_call() -> None:
    re.purge()
    LazyPattern(SOURCE)
    assert (str, SOURCE, 0) not in re._cache  # type: ignore[attr-defined]  # noqa: SLF001


@pytest.mark.parametrize("method", ["search", "match", "fullmatch", "split", "findall"])
def test_methods_answer_as_the_compiled_pattern(method: str) -> None:
    lazy, compiled = LazyPattern(SOURCE, re.I), re.compile(SOURCE, re.I)
    for text in ("xAay\u2028", "aa", ""):
        first, again = getattr(lazy, method)(text), getattr(lazy, method)(text)
        expected = getattr(compiled, method)(text)
        if isinstance(expected, re.Match):
            assert first is not None and again is not None
            assert (first.span(), first.groups()) == (expected.span(), expected.groups())
            assert (again.span(), again.groups()) == (expected.span(), expected.groups())
        else:
            assert first == again == expected


def test_sub_subn_and_finditer() -> None:
    lazy = LazyPattern(r"(\d)")
    assert lazy.sub(r"<\1>", "a1b2") == "a<1>b<2>"
    assert lazy.subn("", "123") == ("", 3)
    assert [m.group(1) for m in lazy.finditer("4x5")] == ["4", "5"]


def test_other_attributes_are_not_there() -> None:
    with pytest.raises(AttributeError):
        LazyPattern("a").groupindex  # noqa: B018


def test_a_bad_pattern_fails_on_first_use() -> None:
    lazy = LazyPattern("(")
    with pytest.raises(re.error):
        lazy.search("x")
