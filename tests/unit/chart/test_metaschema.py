"""The fast metaschema pre-check agrees with jsonschema's full check_schema."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from jsonschema import Draft4Validator, Draft7Validator, Draft202012Validator, validators
from jsonschema.exceptions import SchemaError

from runner.chart.metaschema import detect_draft, looks_valid
from tests.corpus import CHARTS_DIR, corpus_files

CORPUS_SCHEMAS = corpus_files("**/values.schema.json")

INVALID = [
    {"type": "foo"},
    {"type": ["string", "string"]},
    {"type": []},
    {"minLength": -1},
    {"maxItems": 1.5},
    {"required": "x"},
    {"required": ["a", "a"]},
    {"properties": []},
    {"properties": {"a": 3}},
    {"allOf": []},
    {"anyOf": {}},
    {"items": [{"type": "string"}]},
    {"multipleOf": 0},
    {"pattern": 1},
    {"dependentRequired": {"a": "b"}},
    {"additionalProperties": "no"},
    {"$defs": {"x": {"type": 1}}},
    {"not": {"properties": {"a": {"minimum": "1"}}}},
]


@pytest.mark.parametrize("path", CORPUS_SCHEMAS, ids=lambda p: str(p.relative_to(CHARTS_DIR)))
def test_corpus_schemas_pass_both_checks(path: Path) -> None:
    schema = json.loads(path.read_bytes())
    cls = validators.validator_for(schema, default=Draft202012Validator)
    cls.check_schema(schema)
    assert looks_valid(schema, detect_draft(schema))


@pytest.mark.parametrize("schema", INVALID, ids=json.dumps)
def test_invalid_2020_12_schemas_are_caught(schema: dict) -> None:
    with pytest.raises(SchemaError):
        Draft202012Validator.check_schema(schema)
    assert not looks_valid(schema, "draft2020")


def test_draft_specific_keywords() -> None:
    assert looks_valid({"items": [{"type": "string"}]}, "draft7")
    assert looks_valid({"maximum": 1, "exclusiveMaximum": True}, "draft4")
    assert not looks_valid({"exclusiveMaximum": True}, "draft7")
    assert not looks_valid({"required": []}, "draft4")
    assert not looks_valid(True, "draft4")
    Draft7Validator.check_schema({"items": [{"type": "string"}]})
    Draft4Validator.check_schema({"maximum": 1, "exclusiveMaximum": True})


def test_declared_drafts_are_detected() -> None:
    assert detect_draft({}) == "draft2020"
    assert detect_draft({"$schema": "http://json-schema.org/draft-07/schema#"}) == "draft7"
    assert detect_draft({"$schema": "https://json-schema.org/draft/2019-09/schema"}) == "draft2019"
    assert detect_draft({"$schema": "http://json-schema.org/schema#"}) == "draft2020"
    assert detect_draft({"$schema": "http://example.com/custom"}) is None
