"""The jsonschema-free fast validator agrees with jsonschema wherever it answers."""

from __future__ import annotations

import json

import pytest
from jsonschema import Draft202012Validator, validators

from runner.chart.loader import load_chart
from runner.chart.metaschema import detect_draft
from runner.chart.prepare import prepare_render_values
from runner.chart.quickcheck import is_valid, json_equal
from runner.encoding import goyaml
from tests.corpus import CHARTS_DIR, corpus_files
from tests.unit.chart.test_schema import KITCHEN_SINK, KITCHEN_VALUES

CORPUS = CHARTS_DIR
SCHEMA_CHARTS = sorted({p.relative_to(CORPUS).parts[0]
                        for p in corpus_files("*/**/values.schema.json")})


def _agrees(schema: dict, values: object) -> None:
    reference = validators.validator_for(schema, default=Draft202012Validator)(schema).is_valid(
        values
    )
    ours = is_valid(schema, values, detect_draft(schema) or "draft2020")
    assert ours is reference  # None (undecided) only where a keyword is unsupported: not here


def _schema_values(chart: object, values: dict) -> list[tuple[dict, object]]:
    pairs = []
    if chart.schema is not None:
        pairs.append((json.loads(chart.schema), values))
    for sub in chart.dependencies:
        pairs.extend(_schema_values(sub, values.get(sub.name(), {})))
    return pairs


@pytest.mark.parametrize("name", SCHEMA_CHARTS)
def test_corpus_values_are_valid_for_both(name: str) -> None:
    chart = load_chart(CORPUS / name)
    values_file = CORPUS / "_values" / f"{name}.yaml"
    user = goyaml.load(values_file.read_bytes()) if values_file.exists() else {}
    prepared = prepare_render_values(chart, user, skip_schema_validation=True)
    pairs = _schema_values(chart, prepared.values)
    assert pairs, f"{name}: no schema was loaded"
    for schema, values in pairs:
        assert is_valid(schema, values, detect_draft(schema) or "draft2020") is True


VALUES = goyaml.load(KITCHEN_VALUES)
VARIANTS = [
    None,
    True,
    0,
    1,
    1.0,
    1.5,
    -3,
    6,
    "",
    "a",
    "aaa",
    "xyz",
    [],
    [1],
    ["a", 1],
    [1, 1.0],
    {},
    {"a": 1},
    {"b": 1, "a": 2},
    {"k": 1},
]


@pytest.mark.parametrize("key", sorted(KITCHEN_SINK["properties"]))
def test_every_keyword_agrees_with_jsonschema(key: str) -> None:
    schema = {"$defs": KITCHEN_SINK["$defs"], "properties": {key: KITCHEN_SINK["properties"][key]}}
    for value in [VALUES.get(key), *VARIANTS]:
        _agrees(schema, {key: value})


def test_draft_specific_semantics_agree() -> None:
    cases = [
        (
            {
                "$schema": "http://json-schema.org/draft-04/schema#",
                "maximum": 5,
                "exclusiveMaximum": True,
            },
            [5, 4.9],
        ),
        (
            {
                "$schema": "http://json-schema.org/draft-07/schema#",
                "items": [{"type": "string"}],
                "additionalItems": False,
            },
            [["a"], ["a", 1], []],
        ),
        (
            {
                "$schema": "http://json-schema.org/draft-07/schema#",
                "dependencies": {"a": ["b"], "c": {"required": ["d"]}},
            },
            [{"a": 1}, {"a": 1, "b": 2}, {"c": 1}, {"c": 1, "d": 1}],
        ),
        (
            {"prefixItems": [{"type": "integer"}], "items": {"type": "string"}},
            [[1, "a"], [1, 2], ["a"]],
        ),
        (
            {"if": {"required": ["a"]}, "then": {"required": ["b"]}, "else": {"required": ["c"]}},
            [{"a": 1}, {"a": 1, "b": 1}, {}, {"c": 1}],
        ),
        ({"contains": {"type": "string"}, "minContains": 2}, [["a"], ["a", "b"], [1]]),
        ({"multipleOf": 0.1}, [0.3, 0.35, 1]),
        ({"$ref": "#/$defs/a", "$defs": {"a": {"type": "integer"}}, "minimum": 3}, [1, 4, "x"]),
    ]
    for schema, instances in cases:
        for instance in instances:
            _agrees(schema, instance)


def test_json_equality_keeps_booleans_apart_from_numbers() -> None:
    assert json_equal(1, 1.0)
    assert not json_equal(True, 1)
    assert json_equal({"a": [1, {"b": None}]}, {"a": [1.0, {"b": None}]})


def test_unsupported_keywords_defer_to_jsonschema() -> None:
    assert is_valid({"$dynamicRef": "#meta"}, {}, "draft2020") is None
    assert is_valid({"$ref": "other.json"}, {}, "draft2020") is None
    assert is_valid({"format": "email"}, "x", "draft7") is None
