"""goyaml.dump (toYaml) and goyaml.dump_pretty (toYamlPretty).

dump is sigs.k8s.io/yaml.Marshal: encoding/json first (float text, sorted
keys, NaN an error), go-yaml v2 reads the JSON back and its emitter writes
it. Expectations follow go-yaml v2's encode.go (stringv: quote what would
resolve to another type or a base-60 float; literal style for text with
newlines), sorter.go (key order), emitterc.go (analyze_scalar /
select_scalar_style, folding past best_width 80, indentless sequences in
mappings, block scalar indent/chomp hints, double-quoted escapes) and
encoding/json's floatEncoder. dump_pretty is go-yaml v3's Encoder with
SetIndent(2) on the value itself.
"""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from runner.encoding import goyaml
from runner.golang.types import Int64


def test_mapping_keys_sorted_and_sequences_not_indented() -> None:
    value = {"b": {"d": "e"}, "a": [1, {"c": [2, 3]}]}
    assert goyaml.dump(value) == "a:\n- 1\n- c:\n  - 2\n  - 3\nb:\n  d: e\n"


def test_key_order_is_go_yaml_natural_order() -> None:
    # sorter.go: digit runs compare by value, non-letters sort before letters.
    keys = {"a10": 1, "a9": 2, "a_b": 3, "aB": 4, "A": 5, "_": 6}
    assert goyaml.dump(keys) == "_: 6\nA: 5\na_b: 3\na9: 2\na10: 1\naB: 4\n"


@pytest.mark.parametrize(
    ("number", "text"),
    [
        (1e6, "1000000"),  # JSON "1000000" reads back as an int
        (123456789.0, "123456789"),
        (1.5, "1.5"),
        (1e-6, "1e-06"),  # JSON "0.000001" reads back as float64, 'g' format
        (1.5e20, "1.5e+20"),  # beyond int64 and uint64
        (1e21, "1e+21"),
        (-0.0, "0"),
        (Int64(5), "5"),
        (7, "7"),
    ],
)
def test_numbers(number: float, text: str) -> None:
    assert goyaml.dump(number) == text + "\n"


@pytest.mark.parametrize(
    ("value", "text"),
    [
        ("foo", "foo"),
        ("", '""'),
        ("yes", '"yes"'),
        ("y", '"y"'),
        ("1.0", '"1.0"'),
        ("0x1F", '"0x1F"'),
        ("null", '"null"'),
        ("2001-12-14", '"2001-12-14"'),  # would read back as a timestamp
        ("1:20", '"1:20"'),  # base 60 float
        ("<<", "<<"),
        (" lead", "' lead'"),
        ("x: y", "'x: y'"),
        ("- a", "'- a'"),
        ("#c", "'#c'"),
        ("it's", "it's"),
        ("tab\there", '"tab\\there"'),  # tab is not printable for the emitter
        ("a \nb", '"a \\nb"'),  # space before a break: no literal block
        ("é", "é"),
        ("\U0001f600", '"\\U0001F600"'),  # outside the BMP is not printable
        ("\x01", '"\\x01"'),
    ],
)
def test_string_styles(value: str, text: str) -> None:
    assert goyaml.dump(value) == text + "\n"


def test_literal_blocks_and_their_hints() -> None:
    assert goyaml.dump("a\nb") == "|-\n  a\n  b\n"
    assert goyaml.dump("a\nb\n") == "|\n  a\n  b\n"
    assert goyaml.dump("a\n\n") == "|+\n  a\n\n"
    assert goyaml.dump("\nlead") == "|2-\n\n  lead\n"
    assert goyaml.dump({"k": "x\ny"}) == "k: |-\n  x\n  y\n"


def test_long_plain_text_folds_after_column_80() -> None:
    text = " ".join(["word"] * 30)
    out = goyaml.dump({"long": text})
    first, second = out.splitlines()
    assert first == "long: " + " ".join(["word"] * 16)  # the space at column 85 breaks
    assert second == "  " + " ".join(["word"] * 14)
    assert goyaml.load(out) == {"long": text}


def test_long_single_quoted_text_folds_too() -> None:
    text = "long " * 30
    out = goyaml.dump(text)
    assert out.startswith("'long long") and "\n  long" in out and out.endswith(" '\n")
    assert goyaml.load(out) == text


def test_empty_collections_and_nil() -> None:
    assert goyaml.dump({}) == "{}\n"
    assert goyaml.dump([]) == "[]\n"
    assert goyaml.dump(None) == "null\n"
    assert goyaml.dump({"a": {}, "b": [], "c": None}) == "a: {}\nb: []\nc: null\n"


def test_nested_sequences() -> None:
    assert goyaml.dump([[1, 2], [3]]) == "- - 1\n  - 2\n- - 3\n"


def test_byte_order_mark_at_the_start_escapes_every_character() -> None:
    # go-yaml's is_bom checks the start of the value, not the current position.
    assert goyaml.dump("\ufeff0x") == '"\\uFEFF\\x30\\x78"\n'


def test_json_quirks() -> None:
    assert goyaml.dump(b"hi") == "aGk=\n"  # []byte is base64 in JSON
    assert goyaml.dump(datetime(2021, 3, 4, tzinfo=UTC)) == '"2021-03-04T00:00:00Z"\n'
    # encoding/json leaves NEL raw; go-yaml folds it like a line break.
    assert goyaml.dump("a\x85b") == "a b\n"


def test_nan_is_a_marshal_error() -> None:
    with pytest.raises(goyaml.EncodeError) as info:
        goyaml.dump({"a": float("nan")})
    assert str(info.value) == "error marshaling into JSON: json: unsupported value: NaN"


def test_round_trip_of_values() -> None:
    values = {
        "image": {"tag": "1.0", "pullPolicy": "IfNotPresent"},
        "ports": [80, 443],
        "on": "yes",
    }
    assert goyaml.load(goyaml.dump(values), ints=True) == values


def test_pretty_uses_go_yaml_v3_without_json() -> None:
    value = {"a": [1.0, {"b": [2.0, 3.0]}], "x": 1e6, "z": float("nan")}
    assert goyaml.dump_pretty(value) == (
        "a:\n  - 1\n  - b:\n      - 2\n      - 3\nx: 1e+06\nz: .nan\n"
    )


def test_pretty_does_not_fold_and_allows_tabs_in_literals() -> None:
    text = "long " * 30
    assert goyaml.dump_pretty(text) == "'" + text + "'\n"
    assert goyaml.dump_pretty("a\tb\nc") == "|-\n  a\tb\n  c\n"


def test_pretty_key_order_puts_letters_first_after_digits() -> None:
    # go-yaml v3 sorter.go: after equal digits a letter sorts before a non-letter.
    assert goyaml.dump_pretty({"1e3.": 1, "10<<": 2}) == "1e3.: 1\n10<<: 2\n"
    assert goyaml.dump({"1e3.": 1, "10<<": 2}).startswith("10<<")


def test_pretty_writes_timestamps_plain() -> None:
    assert goyaml.dump_pretty(datetime(2021, 3, 4, tzinfo=UTC)) == "2021-03-04T00:00:00Z\n"


def test_pretty_writes_structs_in_field_order() -> None:
    # go-yaml v3 marshals struct fields in declaration order under their
    # lowercased Go names (Helm's chartutil.KubeVersion: Version, Major, Minor).
    class KubeVersion:
        def go_yaml_v3(self) -> list[tuple[str, str]]:
            return [("version", "v1.35.0"), ("major", "1"), ("minor", "35")]

    assert goyaml.dump_pretty(KubeVersion()) == 'version: v1.35.0\nmajor: "1"\nminor: "35"\n'


def test_key_digit_runs_use_wrapping_int64_arithmetic() -> None:
    # sorter.go accumulates a digit run in an int64, which wraps past 2**63-1.
    assert goyaml.dump({"1": 1, "9223372036854775808": 2}) == ('"9223372036854775808": 2\n"1": 1\n')
