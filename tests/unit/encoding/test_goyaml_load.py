"""goyaml.load: sigs.k8s.io/yaml.Unmarshal over go-yaml v2, as Helm reads values.

Expected values follow go-yaml v2's resolve.go (YAML 1.1 words, ParseInt
base 0, the float regexp, timestamps), decode.go (merge keys processed in
order, later duplicate keys win, timestamps into interface{} stay strings),
sigs.k8s.io/yaml's yaml.go (non-string keys stringified, float keys with
FormatFloat(f, 'g', -1, 32), the JSON round trip making numbers float64,
error wrapping) and go-yaml's parser.fail() line numbering.
"""

from __future__ import annotations

import math

import pytest

from runner.encoding import goyaml
from runner.encoding.goyaml import GoYAMLError


def test_numbers_are_float64_after_the_json_round_trip() -> None:
    value = goyaml.load("replicas: 3\nratio: 0.5\n")
    assert value == {"replicas": 3.0, "ratio": 0.5}
    assert type(value["replicas"]) is float


def test_ints_option_keeps_go_yaml_integers() -> None:
    value = goyaml.load("replicas: 3\nratio: 0.5\n", ints=True)
    assert type(value["replicas"]) is int and value["ratio"] == 0.5


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("y", True), ("Yes", True), ("ON", True), ("true", True),
        ("n", False), ("no", False), ("Off", False), ("FALSE", False),
        ("~", None), ("null", None), ("", None),
        ("0x1F", 31.0), ("0o17", 15.0), ("017", 15.0), ("0b101", 5.0), ("-0b11", -3.0),
        ("1_000", 1000.0), ("+5", 5.0), ("08", 8.0), (".5", 0.5), ("1e3", 1000.0),
        ("1e400", "1e400"),  # ParseFloat range error: stays a string
        ("2001-12-14", "2001-12-14"),  # timestamps decode to their text
        ("1.2.3", "1.2.3"), ("yes please", "yes please"), ("<<", "<<"),
        ("0", 0.0), ("8080", 8080.0), ("-12", -12.0), ("100Mi", "100Mi"), ("1.5Gi", "1.5Gi"),
        ("0x1G", "0x1G"), ("-0b2", "-0b2"), ("2024-1-1", "2024-1-1"), ("1-2-3", "1-2-3"),
    ],
)  # fmt: skip
def test_plain_scalars_resolve_as_go_yaml_v2(text: str, expected: object) -> None:
    assert goyaml.load(f"k: {text}\n") == {"k": expected}


def test_quoted_scalars_are_strings() -> None:
    assert goyaml.load("a: 'yes'\nb: \"1\"\nc: !!str 12\n") == {"a": "yes", "b": "1", "c": "12"}


def test_explicit_tags() -> None:
    value = goyaml.load("a: !!binary aGVsbG8=\nb: !!int '12'\nc: !!float 3\nd: !custom x\n")
    assert value == {"a": "hello", "b": 12.0, "c": 3.0, "d": "x"}


def test_yaml_1_1_boolean_and_number_keys_become_strings() -> None:
    assert goyaml.load("on: a\n1: b\nno: c\n") == {"true": "a", "1": "b", "false": "c"}


def test_float_keys_use_float32_precision() -> None:
    # sigs.k8s.io/yaml: strconv.FormatFloat(key, 'g', -1, 32)
    assert goyaml.load("3.14159265358979323846: v\n1e3: w\n") == {"3.1415927": "v", "1000": "w"}


def test_null_key_is_an_error() -> None:
    with pytest.raises(GoYAMLError) as info:
        goyaml.load("~: w\n")
    assert str(info.value) == 'unsupported map key of type: %!s(<nil>), key: <nil>, value: "w"'


def test_uint64_key_is_an_error() -> None:
    with pytest.raises(GoYAMLError) as info:
        goyaml.load("18446744073709551615: v\n")
    assert "unsupported map key of type: uint64, key: 0xffffffffffffffff" in str(info.value)


def test_later_duplicate_key_wins() -> None:
    assert goyaml.load("a: 1\na: 2\n") == {"a": 2.0}


def test_merge_keys_apply_in_document_order() -> None:
    # decode.go d.mapping: a `<<` entry merges where it stands, so it
    # overrides keys before it and is overridden by keys after it.
    assert goyaml.load("a: 1\n<<: {a: 2, b: 3}\n") == {"a": 2.0, "b": 3.0}
    assert goyaml.load("<<: {a: 2, b: 3}\na: 1\n") == {"a": 1.0, "b": 3.0}
    # In a list of maps the earlier map takes precedence.
    assert goyaml.load("<<: [{a: 1}, {a: 2, c: 3}]\n") == {"a": 1.0, "c": 3.0}


def test_merge_of_a_scalar_is_an_error() -> None:
    with pytest.raises(GoYAMLError, match="map merge requires map or sequence of maps"):
        goyaml.load("<<: 1\n")


def test_anchors_and_aliases_copy_the_value() -> None:
    value = goyaml.load("a: &x {b: 1}\nc: *x\n")
    assert value == {"a": {"b": 1.0}, "c": {"b": 1.0}}
    assert value["a"] is not value["c"]


def test_only_the_first_document_is_read() -> None:
    assert goyaml.load("a: 1\n---\nb: 2\n") == {"a": 1.0}
    assert goyaml.load_all("a: 1\n---\nb: 2\n") == [{"a": 1.0}, {"b": 2.0}]


def test_block_scalars() -> None:
    value = goyaml.load("a: |\n  x\n  y\nb: >\n  folded\n  text\n")
    assert value == {"a": "x\ny\n", "b": "folded text\n"}


def test_nan_and_infinity_fail_the_json_round_trip() -> None:
    with pytest.raises(GoYAMLError) as info:
        goyaml.load("a: .nan\n")
    assert info.value.unmarshal_message == (
        "error converting YAML to JSON: json: unsupported value: NaN"
    )
    with pytest.raises(GoYAMLError, match=r"unsupported value: \+Inf"):
        goyaml.load("a: .inf\n")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("a: [", "yaml: line 1: did not find expected node content"),
        ("a: b: c", "yaml: mapping values are not allowed in this context"),
        ("\tx: 1", "yaml: found character that cannot start any token"),
        ("a: *x", "yaml: unknown anchor 'x' referenced"),
        ("a: \x01", "yaml: control characters are not allowed"),
        ("? [a]\n: b", 'yaml: invalid map key: []interface {}{"a"}'),
    ],
)
def test_error_texts(text: str, message: str) -> None:
    with pytest.raises(GoYAMLError) as info:
        goyaml.load(text)
    assert str(info.value) == message
    assert info.value.unmarshal_message == f"error converting YAML to JSON: {message}"


def test_load_into_map_reports_the_json_type_error() -> None:
    with pytest.raises(GoYAMLError) as info:
        goyaml.load_into("- one\n- two\n", dict)
    # The message Helm's own funcs_test.go expects from fromYaml.
    assert info.value.unmarshal_message == (
        "error unmarshaling JSON: while decoding JSON: json: cannot unmarshal array "
        "into Go value of type map[string]interface {}"
    )


def test_load_into_empty_documents_give_empty_values() -> None:
    assert goyaml.load_into("", dict) == {}
    assert goyaml.load_into("~", dict) == {}
    assert goyaml.load_into("", list) == []


def test_load_into_list() -> None:
    assert goyaml.load_into("- one\n- 2\n- name: helm\n", list) == ["one", 2.0, {"name": "helm"}]
    with pytest.raises(GoYAMLError, match=r"cannot unmarshal object into Go value of type \[\]"):
        goyaml.load_into("hello: world", list)


def test_bytes_input() -> None:
    assert goyaml.load(b"a: b\n") == {"a": "b"}


def test_resolve_plain_marks_timestamps() -> None:
    assert isinstance(goyaml.resolve_plain("2001-12-14T21:59:43.10-05:00"), goyaml.Timestamp)
    assert not isinstance(goyaml.resolve_plain("2001-02-30"), goyaml.Timestamp)
    assert math.isnan(goyaml.resolve_plain(".NaN"))


def test_question_mark_ends_a_plain_scalar_in_flow_context() -> None:
    # go-yaml v2's scanner (libyaml before 0.2) stops a plain scalar at '?'
    # inside [...] and {...}; outside flow context '?' is ordinary text.
    with pytest.raises(GoYAMLError) as info:
        goyaml.load("k: [http://x?y=1]\n")
    assert str(info.value) == "yaml: did not find expected ',' or ']'"
    with pytest.raises(GoYAMLError, match=r"^yaml: line 3: did not find expected ',' or '\]'$"):
        goyaml.load("a: 1\nk:\n  - [x,\n    a?b]\n")
    assert goyaml.load('k: ["a?b"]\nu: http://x?y=1\n') == {"k": ["a?b"], "u": "http://x?y=1"}


def test_colon_inside_a_flow_plain_scalar_is_text() -> None:
    # go-yaml ends a plain scalar at ':' only before a blank (libyaml 0.2.5
    # rejects these with "found unexpected ':'").
    assert goyaml.load("a: [b:]\nc: {d:, e: 1}\n") == {"a": ["b:"], "c": {"d:": None, "e": 1.0}}
    with pytest.raises(GoYAMLError, match=r"^yaml: did not find expected ',' or '\}'$"):
        goyaml.load("a: {b:{c: 1}}\n")


def test_double_quoted_escapes_go_yaml_accepts() -> None:
    assert goyaml.load('a: "x\\\'y"\nb: "x\\ y"\n') == {"a": "x'y", "b": "x y"}
    with pytest.raises(GoYAMLError, match="^yaml: found unknown escape character$"):
        goyaml.load('a: "x\\/y"\n')


def test_a_redefined_anchor_replaces_the_earlier_one() -> None:
    assert goyaml.load("a: &x 1\nb: &x 2\nc: *x\n") == {"a": 1.0, "b": 2.0, "c": 2.0}


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"a: \xff\n", "yaml: invalid leading UTF-8 octet"),
        (b"a: \xc3x\n", "yaml: invalid trailing UTF-8 octet"),
        (b"a: \xc3", "yaml: incomplete UTF-8 octet sequence"),
    ],
)
def test_invalid_utf8_is_reported_by_the_reader(data: bytes, message: str) -> None:
    with pytest.raises(GoYAMLError) as info:
        goyaml.load(data)
    assert str(info.value) == message


def test_non_specific_tag_makes_a_string() -> None:
    # go-yaml resolves a "!"-tagged scalar as a string; "Hello! world" is plain text.
    assert goyaml.load("a: ! 2\nb: Hello! world\n") == {"a": "2", "b": "Hello! world"}


_FAILING_DEEP_INSIDE = [
    "kind: A\na: {b: [1, .nan]}\n",
    "kind: A\n? [a]\n: 1\n",
    "kind: A\n<<: 5\n",
    "kind: A\nb:\n  ~: 1\n",
    "kind: A\nx: [!!int abc]\n",
    "kind: A\nb: {18446744073709551615: 1}\n",
    "kind: A\nb: !!float .inf\n",
]


@pytest.mark.parametrize("text", _FAILING_DEEP_INSIDE)
def test_load_fields_fails_wherever_load_fails(text: str) -> None:
    # Helm converts the whole document to JSON before reading any field of it.
    with pytest.raises(GoYAMLError) as whole:
        goyaml.load(text, ints=True)
    with pytest.raises(GoYAMLError) as fields:
        goyaml.load_fields(text, ("kind",), ints=True)
    assert fields.value.unmarshal_message == whole.value.unmarshal_message


def test_load_fields_builds_only_the_keys_asked_for_merges_applied() -> None:
    text = "base: &b {name: n, labels: {a: '1'}}\nkind: A\nkind: B\nmetadata:\n  <<: *b\n  name: m\nspec: {x: 1}\n"
    assert goyaml.load_fields(text, ("kind", "metadata", "missing"), ints=True) == {
        "kind": "B",
        "metadata": {"name": "m", "labels": {"a": "1"}},
    }


@pytest.mark.parametrize("text", ["", "# only a comment\n", "- 1\n- x\n", "just text\n", "3\n"])
def test_load_fields_gives_other_documents_whole(text: str) -> None:
    assert goyaml.load_fields(text, ("kind",), ints=True) == goyaml.load(text, ints=True)


@pytest.mark.parametrize("text", ["a: !!binary '%%%'\n", "a: !!binary aGVsbG8\n", "a: !!binary 'aGVs bG8='\n"])
def test_binary_is_decoded_strictly_as_go_does(text: str) -> None:
    # base64.StdEncoding: padding required, nothing outside the alphabet (helm template agrees)
    with pytest.raises(GoYAMLError) as caught:
        goyaml.load(text)
    assert str(caught.value) == "yaml: !!binary value contains invalid base64 data"


def test_binary_skips_line_breaks() -> None:
    assert goyaml.load("a: !!binary |\n  aGVs\n  bG8=\n") == {"a": "hello"}


# sigs.k8s.io/yaml converts to JSON after go-yaml decoded the whole document:
# go-yaml's errors come first, then unsupported keys, then json.Marshal's NaN/Inf
# in its sorted-key order. Texts from `helm template` on these documents.
@pytest.mark.parametrize(("text", "message"), [
    ("kind: A\nz: .nan\n? [a]\n: 1\n", 'yaml: invalid map key: []interface {}{"a"}'),
    ("kind: A\n~: 1\n? [a]\n: 1\n", 'yaml: invalid map key: []interface {}{"a"}'),
    ("kind: A\n18446744073709551615: 1\nc:\n  <<: 5\n",
     "yaml: map merge requires map or sequence of maps as the value"),
    ("kind: A\na: .nan\nb: {~: 1}\n", "unsupported map key of type: %!s(<nil>), key: <nil>, value: 1"),
    ("kind: A\nb: .nan\na: [1, -.inf]\n", "json: unsupported value: -Inf"),
    ("kind: A\nb: {z: .nan, c: .inf}\n", "json: unsupported value: +Inf"),
])
def test_the_error_helm_reports_first(text: str, message: str) -> None:
    for read in (lambda: goyaml.load(text), lambda: goyaml.load_fields(text, ("kind",))):
        with pytest.raises(GoYAMLError) as caught:
            read()
        assert str(caught.value) == message


def test_a_nan_replaced_by_a_later_duplicate_key_is_no_error() -> None:
    # Found by tests/fuzz: go-yaml keeps the last value, so json.Marshal never sees the NaN.
    assert goyaml.load("{a: .nan, a: x}") == {"a": "x"}
    assert goyaml.load_fields("b: {a: .inf, a: 1}\n", ("b",)) == {"b": {"a": 1.0}}
    with pytest.raises(GoYAMLError, match="json: unsupported value: NaN"):
        goyaml.load("{a: x, a: .nan}")
