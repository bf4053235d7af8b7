"""base/dir/clean/ext/isAbs (Go's path) and the os* variants (path/filepath
on Linux). Expectations are the examples in Go's path package documentation
and path_test.go."""

from __future__ import annotations

import pytest

from runner.funcs import paths
from runner.funcs.registry import registered


def test_registered_names_and_signatures() -> None:
    funcs = registered()
    for name in ("base", "dir", "clean", "ext", "isAbs", "osBase", "osDir", "osClean", "osExt", "osIsAbs"):
        assert funcs[name].params == ("string",)
    assert funcs["isAbs"].returns == "bool" and funcs["osIsAbs"].returns == "bool"
    assert funcs["osBase"].impl is paths.base


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ("a/c", "a/c"),
        ("a//c", "a/c"),
        ("a/c/.", "a/c"),
        ("a/c/b/..", "a/c"),
        ("/../a/c", "/a/c"),
        ("/../a/b/../././/c", "/a/c"),
        ("", "."),
        ("../../a", "../../a"),
        ("a/../..", ".."),
        ("/", "/"),
        ("abc/", "abc"),
    ],
)
def test_clean(path: str, expected: str) -> None:
    assert paths.clean(path) == expected


@pytest.mark.parametrize(
    ("path", "expected"),
    [("/a/b", "b"), ("/", "/"), ("", "."), ("a/b/", "b"), ("//", "/"), ("x", "x")],
)
def test_base(path: str, expected: str) -> None:
    assert paths.base(path) == expected


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ("/a/b/c", "/a/b"),
        ("a/b/c", "a/b"),
        ("/a/", "/a"),
        ("a/", "a"),
        ("/", "/"),
        ("", "."),
        ("x", "."),
        ("/a/../b/c", "/b"),
    ],
)
def test_dir(path: str, expected: str) -> None:
    assert paths.dirname(path) == expected


@pytest.mark.parametrize(
    ("path", "expected"),
    [("/a/b/c/bar.css", ".css"), ("/", ""), ("", ""), ("a.tar.gz", ".gz"), ("a.d/b", "")],
)
def test_ext(path: str, expected: str) -> None:
    assert paths.ext(path) == expected


def test_is_abs() -> None:
    assert paths.is_abs("/dev/null") is True
    assert paths.is_abs("dev/null") is False
    assert paths.is_abs("") is False
