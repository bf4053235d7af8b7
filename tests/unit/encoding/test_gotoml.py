"""gotoml: BurntSushi/toml's Encoder layout (Helm's toToml) and decoding (fromToml).

Expectations follow BurntSushi/toml encode.go (eMap: plain keys first then
tables, each sorted; a blank line before top-level tables; two-space
indentation per level; floats via FormatFloat 'g' plus ".0"; bare or quoted
keys; nil map values skipped; nil array elements an error) and Helm's
funcs_test.go toToml cases.
"""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from runner.encoding import gotoml
from runner.golang.types import Int64


def test_helm_funcs_test_cases() -> None:
    assert gotoml.dump({"foo": "bar"}) == 'foo = "bar"\n'
    assert gotoml.dump({"mast": {"sail": "white"}}) == '[mast]\n  sail = "white"\n'


def test_plain_keys_before_tables_and_arrays_of_tables() -> None:
    value = {
        "b": {"c": {"d": 1.0}, "e": "x"},
        "a": 1.0,
        "g": [{"h": 1.0}, {"h": 2.0}],
        "f": [1.0, 2.0],
    }
    assert gotoml.dump(value) == (
        'a = 1.0\nf = [1.0, 2.0]\n\n[b]\n  e = "x"\n  [b.c]\n    d = 1.0\n\n'
        "[[g]]\n  h = 1.0\n\n[[g]]\n  h = 2.0\n"
    )


@pytest.mark.parametrize(
    ("number", "text"),
    [(1.0, "1.0"), (100.0, "100.0"), (1e6, "1e+06"), (0.0001, "0.0001"), (-0.0, "-0.0"),
     (float("nan"), "nan"), (Int64(5), "5")],
)  # fmt: skip
def test_numbers(number: float, text: str) -> None:
    assert gotoml.dump({"a": number}) == f"a = {text}\n"


def test_keys_and_strings_are_quoted_when_needed() -> None:
    value = {"k v": 'q"\\\n\t\x01é', "": 1.0, "ok_key-1": True}
    assert gotoml.dump(value) == '"" = 1.0\n"k v" = "q\\"\\\\\\n\\t\\u0001é"\nok_key-1 = true\n'


def test_inline_tables_inside_arrays() -> None:
    assert gotoml.dump({"i": [1.0, {"j": 2.0}]}) == "i = [1.0, {j = 2.0}]\n"


def test_nil_values() -> None:
    assert gotoml.dump({"a": None, "b": 1.0}) == "b = 1.0\n"
    with pytest.raises(gotoml.TOMLError, match="toml: cannot encode array with nil element"):
        gotoml.dump({"a": [None]})


def test_top_level_array_of_tables_is_an_error() -> None:
    with pytest.raises(gotoml.TOMLError, match="top-level values must be Go maps or structs"):
        gotoml.dump([{"a": 1.0}])


def test_times() -> None:
    assert gotoml.dump({"t": datetime(2021, 3, 4, tzinfo=UTC)}) == "t = 2021-03-04T00:00:00Z\n"


def test_load_gives_go_types() -> None:
    value = gotoml.load('a = 1\nb = 1.5\nc = "x"\n[d]\ne = [1, 2]\nf = 1979-05-27\n')
    assert value == {
        "a": 1,
        "b": 1.5,
        "c": "x",
        "d": {"e": [1, 2], "f": datetime(1979, 5, 27, tzinfo=UTC)},
    }
    assert type(value["a"]) is Int64


def test_load_errors_carry_the_line() -> None:
    with pytest.raises(gotoml.TOMLError, match=r"^toml: line 2"):
        gotoml.load("a = 1\nb = \n")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        # BurntSushi/toml's ParseError: "toml: line N (last key \"k\"): msg" (parse.go, lex.go)
        ("a = ", 'toml: line 1 (last key "a"): unexpected EOF; expected value'),
        ("a = tru", 'toml: line 1 (last key "a"): expected value but found "tru" instead'),
        ("a = 1\na = 2", "toml: line 2 (last key \"a\"): Key 'a' has already been defined."),
        ("[t]\nx=1\n[t]\ny=2", "toml: line 3: Key 't' has already been defined."),
        ('a = "x', 'toml: line 1 (last key "a"): unexpected EOF; expected \'"\''),
        ("= 1", "toml: line 1: unexpected '=': key name appears blank"),
        ("a = 01", 'toml: line 1 (last key "a"): Invalid integer "01": cannot have leading zeroes'),
        (
            "a = [1 2]",
            "toml: line 1 (last key \"a\"): expected a comma (',') or array terminator (']'), "
            "but got '2'",
        ),
    ],
)
def test_load_errors_in_burntsushi_words(text: str, message: str) -> None:
    with pytest.raises(gotoml.TOMLError) as info:
        gotoml.load(text)
    assert str(info.value) == message


def test_load_accepts_a_trailing_comma_in_inline_tables() -> None:
    assert gotoml.load('a = {b = 1,}\nc = "x,}"') == {"a": {"b": 1}, "c": "x,}"}
