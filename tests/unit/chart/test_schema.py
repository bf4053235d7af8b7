"""values.schema.json validation: messages compared with Helm 4.1.4.

Helm lists sibling violations in Go map order (random between runs), so
multi-error reports are compared as sorted lines; the header and chart lines
are compared exactly.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from runner.chart.errors import SchemaError
from runner.chart.loader import load_chart
from runner.chart.prepare import prepare_render_values
from runner.chart.schema import validate_single
from runner.chart.uservalues import merge_user_values
from tests.corpus import corpus_chart
from tests.unit.chart._helm import helm_template, write_chart

KITCHEN_SINK = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "required": ["req1", "req2"],
    "properties": {
        "t": {"type": "integer"},
        "t2": {"type": ["string", "null"]},
        "e": {"enum": ["a", 1, None]},
        "c": {"const": "x"},
        "min": {"minimum": 5},
        "max": {"maximum": 5},
        "emin": {"exclusiveMinimum": 5},
        "emax": {"exclusiveMaximum": 5},
        "minl": {"minLength": 3},
        "maxl": {"maxLength": 1},
        "pat": {"pattern": "^a+$"},
        "mini": {"minItems": 2},
        "maxi": {"maxItems": 0},
        "uniq": {"uniqueItems": True},
        "ap": {"type": "object", "additionalProperties": False, "properties": {"k": {}}},
        "minp": {"minProperties": 2},
        "maxp": {"maxProperties": 0},
        "mult": {"multipleOf": 3},
        "not": {"not": {"type": "string"}},
        "any": {"anyOf": [{"type": "string"}, {"type": "integer"}]},
        "one": {"oneOf": [{"type": "number"}, {"type": "integer"}]},
        "one2": {"oneOf": [{"type": "string"}, {"type": "boolean"}]},
        "all": {"allOf": [{"type": "string"}, {"minLength": 5}]},
        "fmt": {"format": "email"},
        "cont": {"contains": {"type": "string"}},
        "dep": {"dependentRequired": {"a": ["b"]}},
        "pn": {"propertyNames": {"pattern": "^x"}},
        "f": {"type": "boolean"},
        "int": {"type": "integer"},
        "ref": {"$ref": "#/$defs/s"},
        "mx": {"maximum": 1000},
        "en": {"enum": [{"a": 1}, [1, "x"], 1.5, True]},
        "o": {
            "type": "object",
            "properties": {
                "pn": {"propertyNames": {"maxLength": 2}},
                "r": {"required": ["x"]},
                "ap": {"additionalProperties": False},
                "big": {"type": "string"},
                "lst": {"type": "array", "items": {"type": "string"}},
            },
        },
    },
    "$defs": {"s": {"type": "string"}},
}

KITCHEN_VALUES = """\
t: "str"
t2: 1
e: b
c: y
min: 1
max: 10
emin: 5
emax: 5
minl: ab
maxl: ab
pat: b
mini: [1]
maxi: [1]
uniq: [1, 1]
ap: {k: 1, z: 2, y: 3}
minp: {a: 1}
maxp: {a: 1}
mult: 4
not: s
any: 1.5
one: 1
one2: 1
all: ab
fmt: notanemail
cont: [1]
dep: {a: 1}
pn: {y: 1}
f: 1.5
int: 1.0
ref: 1
mx: 1234567.5
en: 2
o:
  pn: {abc: 1}
  r: {}
  ap: {z: 1}
  big: 10000000
  lst: [a, 1]
"""


def _schema_chart(root: Path, schema: dict, values: str) -> Path:
    return write_chart(
        root,
        {
            "values.schema.json": json.dumps(schema),
            "values.yaml": values,
            "templates/a.yaml": "a: b",
        },
    )


def _our_error(chart_dir: Path, *sets: str) -> str:
    user = merge_user_values([], {"set": list(sets)}) if sets else {}
    with pytest.raises(SchemaError) as caught:
        prepare_render_values(load_chart(chart_dir), user)
    return str(caught.value)


def _helm_error(chart_dir: Path, *sets: str) -> str:
    args = [a for s in sets for a in ("--set", s)]
    helm = helm_template(chart_dir, *args)
    assert helm.returncode != 0
    # The CLI prints "Error: " + err.Error() + "\n"; err.Error() itself ends with "\n".
    return helm.stderr.removeprefix("Error: ").removesuffix("\n")


def _normalized(report: str) -> list[str]:
    """Sorted lines; the names in an additional-properties line sorted too (Go map order)."""
    lines = []
    for line in report.splitlines():
        match = re.match(r"(.*additional properties )(.*)( not allowed)$", line)
        if match:
            names = ", ".join(sorted(match.group(2).split(", ")))
            line = f"{match.group(1)}{names}{match.group(3)}"
        lines.append(line)
    return sorted(lines)


def test_every_keyword_reports_helms_message(tmp_path: Path) -> None:
    chart = _schema_chart(tmp_path / "s", KITCHEN_SINK, KITCHEN_VALUES)
    ours, helm = _our_error(chart), _helm_error(chart)
    assert ours.splitlines()[:2] == helm.splitlines()[:2]
    assert _normalized(ours) == _normalized(helm)


@pytest.mark.parametrize(
    ("schema", "values"),
    [
        ({"properties": {"x": {"maximum": 1}}}, "x: 1000000\n"),
        ({"properties": {"x": {"minimum": 1}}}, "x: 0.00001\n"),
        ({"properties": {"x": {"minimum": 5000}}}, "x: 1234.5\n"),
        (
            {
                "$schema": "http://json-schema.org/draft-04/schema#",
                "properties": {"x": {"maximum": 5, "exclusiveMaximum": True}},
            },
            "x: 5\n",
        ),
        (
            {
                "$schema": "http://json-schema.org/draft-07/schema#",
                "properties": {"x": {"type": "integer"}},
            },
            "x: 1.5\n",
        ),
        ({"$schema": "http://json-schema.org/draft-06/schema#", "required": ["only"]}, "a: 1\n"),
        ({"properties": {"s": {"enum": ["it's"]}}}, "s: x\n"),
        ({"properties": {"a": {"$ref": "#/$defs/nope"}}}, "a: 1\n"),
        ({"properties": {"a": {"$ref": "other-file-that-does-not-exist.json"}}}, "a: 1\n"),
        (
            {"properties": {"a": {"type": "object", "properties": {"b": {"type": "string"}}}}},
            "a: {b: 1}\n",
        ),
        (
            {"properties": {"a": {"type": "object", "additionalProperties": {"type": "integer"}}}},
            "a: {b: x}\n",
        ),
        (
            {"items": {"type": "string"}, "properties": {"l": {"items": {"minimum": 3}}}},
            "l: [5, 1]\n",
        ),
        # santhosh stops at the first of type, const, enum, format that fails (one line, no
        # "validation failed" group): external-dns's `policy` left null
        ({"properties": {"p": {"type": "string", "enum": ["a", "b"]}}}, "p: null\n"),
        ({"properties": {"p": {"type": "string", "const": "a", "enum": ["b"]}}}, "p: 1\n"),
        ({"properties": {"p": {"const": "a", "enum": ["b"], "minLength": 5}}}, "p: c\n"),
        ({"properties": {"p": {"enum": ["abcdef"], "minLength": 5, "pattern": "^z"}}}, "p: c\n"),
        ({"properties": {"p": {"minLength": 5, "pattern": "^z"}}}, "p: c\n"),
    ],
)
def test_single_violation_matches_helm_exactly(tmp_path: Path, schema: dict, values: str) -> None:
    chart = _schema_chart(tmp_path / "one", schema, values)
    assert _our_error(chart) == _helm_error(chart)


@pytest.mark.parametrize(
    ("schema", "values"),
    [
        ({"$ref": "#"}, "a: 1\n"),
        ({"$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"$ref": "#/$defs/a"}}, "$ref": "#/$defs/a"},
         "a: 1\n"),
        ({"properties": {"x": {"$ref": "#/properties/y"}, "y": {"$ref": "#/properties/x"}}},
         "x: 1\n"),
        ({"definitions": {"a": {"$ref": "#/definitions/a"}},
          "properties": {"x": {"$ref": "#/definitions/a"}}}, "x: [1]\n"),
        ({"allOf": [{"$ref": "#"}]}, "a: 1\n"),
        ({"anyOf": [{"$ref": "#"}, {"type": "string"}]}, "a: 1\n"),
        ({"$schema": "http://json-schema.org/draft-07/schema#",
          "definitions": {"a": {"$ref": "#/definitions/a"}}, "$ref": "#/definitions/a"}, "a: 1\n"),
        ({"$defs": {"a~b/c": {"$ref": "#/$defs/a~0b~1c"}}, "$ref": "#/$defs/a~0b~1c"}, "a: 1\n"),
    ],
)
def test_reference_cycles_report_like_helm(tmp_path: Path, schema: dict, values: str) -> None:
    """santhosh's cycle check, not a crash: the process used to die on these (SIGSEGV)."""
    chart = _schema_chart(tmp_path / "cycle", schema, values)
    assert _our_error(chart) == _helm_error(chart)


@pytest.mark.parametrize(
    ("schema", "values"),
    [
        ({"properties": {"x": {"$ref": "#/properties/x"}}}, "a: 1\n"),  # x absent: not followed
        ({"properties": {"x": {"items": {"$ref": "#/properties/x"}}}}, "x: [[[1]]]\n"),
    ],
)
def test_recursive_schemas_that_move_on_in_the_values_pass(
        tmp_path: Path, schema: dict, values: str) -> None:
    chart = _schema_chart(tmp_path / "recursive", schema, values)
    prepare_render_values(load_chart(chart), {})
    assert helm_template(chart).returncode == 0


def test_subchart_schemas_are_checked_against_their_own_values(tmp_path: Path) -> None:
    chart = tmp_path / "c"
    shutil.copytree(corpus_chart("helmtest-schema-and-subchart"), chart)
    sets = ("subchart-with-schema.age=-1", "lastname=1")
    ours, helm = _our_error(chart, *sets), _helm_error(chart, *sets)
    assert ours == helm


def test_valid_values_give_no_report() -> None:
    schema = json.dumps({"type": "object", "properties": {"a": {"type": "integer"}}}).encode()
    assert validate_single({"a": 1.0}, schema) == ""


@pytest.mark.parametrize(
    "schema",
    [
        {"type": "object", "properties": {"a": {"type": "foo"}}},
        {"properties": {"a": {"minLength": -1}}, "required": "x"},
        {
            "$schema": "http://json-schema.org/draft-07/schema#",
            "properties": {"a": {"type": "foo"}},
        },
    ],
)
def test_schema_rejected_by_its_metaschema_reports_like_helm(tmp_path: Path, schema: dict) -> None:
    chart = _schema_chart(tmp_path / "meta", schema, "a: 1\n")
    ours, helm = _our_error(chart), _helm_error(chart)
    assert ours.splitlines()[:3] == helm.splitlines()[:3]
    assert _normalized(ours) == _normalized(helm)


@pytest.mark.parametrize("text", [
    '{"type": "object",', '{"type": x}', '{"a": 1,}', "[1] x",
    # cut short by the end of input (Go's io.ErrUnexpectedEOF), or nothing at all (io.EOF)
    "", " \n\t", "tru", "nul", "-", '{"a": 1.', "1e", '"abc', "[1, ",
    # Python's extensions that Go's decoder rejects
    "NaN", '{"minimum": NaN}', "Infinity", "-Infinity",
    # invalid UTF-8 in a string: Go reads it as U+FFFD, the schema compiles
    b'{"description": "\xff", "type": "string"}',
])
def test_schema_that_is_not_json_reports_like_helm(tmp_path: Path, text: str | bytes) -> None:
    chart = write_chart(
        tmp_path / "notjson",
        {"values.schema.json": text, "values.yaml": "a: 1\n", "templates/a.yaml": "a: b"},
    )
    assert _our_error(chart) == _helm_error(chart)
