"""pflag's stringSlice parsing of flag values (-f a.yaml,b.yaml)."""

from __future__ import annotations

import csv

import pytest

from runner.cli.pflag import read_csv


@pytest.mark.parametrize(("value", "expected"), [
    ("", []),
    ("a.yaml", ["a.yaml"]),
    ("a.yaml,b.yaml", ["a.yaml", "b.yaml"]),
    ("a, b", ["a", " b"]),
    ("a,,", ["a", "", ""]),
    (",", ["", ""]),
    ('a,"b,c"', ["a", "b,c"]),
    ('"x""y",z', ['x"y', "z"]),
])
def test_read_csv_gives_the_first_csv_record(value: str, expected: list[str]) -> None:
    assert read_csv(value) == expected


@pytest.mark.parametrize("value", ["a,b", " a ,b ", "a\tb,c", "a;b", "ä,ö", 'a,"b"', 'a,b"c'])
def test_read_csv_agrees_with_the_csv_module(value: str) -> None:
    assert read_csv(value) == next(csv.reader([value]), [])
