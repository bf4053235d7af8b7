"""A fast structural check of a schema against its draft's metaschema.

jsonschema's check_schema resolves the 2020-12 metaschema's `$dynamicRef`s
for every subschema and takes a second or more on the large schemas real
charts ship. Real schemas are almost always valid, so this walks the schema
once checking what the metaschemas require of each keyword (types, arrays of
schemas, non-negative integers, unique string arrays); only when it finds a
problem does the caller run the full check for Helm's message.
"""

from __future__ import annotations

from collections.abc import Callable

TYPE_CHECKING = False  # `typing` costs ~2 ms at every start: see docs/speed.md
if TYPE_CHECKING:
    from typing import Any

_SIMPLE_TYPES = {"array", "boolean", "integer", "null", "number", "object", "string"}


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _is_nonneg_int(value: Any) -> bool:
    return _is_number(value) and float(value).is_integer() and value >= 0


def _is_unique_strings(value: Any, min_items: int = 0) -> bool:
    return (
        isinstance(value, list)
        and len(value) >= min_items
        and all(isinstance(v, str) for v in value)
        and len(set(value)) == len(value)
    )


def _is_type(value: Any) -> bool:
    if isinstance(value, str):
        return value in _SIMPLE_TYPES
    return _is_unique_strings(value, 1) and all(v in _SIMPLE_TYPES for v in value)


class _Checker:
    def __init__(self, draft: str) -> None:
        self.draft = draft
        self.rules: dict[str, Callable[[Any], bool]] = self._rules()

    def schema(self, value: Any) -> bool:
        if isinstance(value, bool) and self.draft not in ("draft3", "draft4"):
            return True
        if not isinstance(value, dict):
            return False
        for key, item in value.items():
            rule = self.rules.get(key)
            if rule is not None and not rule(item):
                return False
        return True

    def _schema_map(self, value: Any) -> bool:
        return isinstance(value, dict) and all(self.schema(v) for v in value.values())

    def _schema_list(self, value: Any) -> bool:
        return isinstance(value, list) and len(value) >= 1 and all(self.schema(v) for v in value)

    def _items(self, value: Any) -> bool:
        if self.draft == "draft2020":
            return self.schema(value)
        return self.schema(value) or self._schema_list(value)

    def _dependencies(self, value: Any) -> bool:
        return isinstance(value, dict) and all(
            self.schema(v) or _is_unique_strings(v) for v in value.values()
        )

    def _rules(self) -> dict[str, Callable[[Any], bool]]:
        string = lambda v: isinstance(v, str)  # noqa: E731 - a table of one-liners
        boolean = lambda v: isinstance(v, bool)  # noqa: E731
        number = _is_number
        old = self.draft in ("draft3", "draft4")
        rules: dict[str, Callable[[Any], bool]] = {
            "$schema": string,
            "$ref": string,
            "$id": string,
            "id": string if old else lambda v: True,
            "$comment": string,
            "$anchor": string,
            "$dynamicRef": string,
            "$dynamicAnchor": string,
            "$recursiveRef": string,
            "$recursiveAnchor": boolean,
            "$vocabulary": lambda v: (
                isinstance(v, dict) and all(isinstance(x, bool) for x in v.values())
            ),
            "$defs": self._schema_map,
            "definitions": self._schema_map,
            "title": string,
            "description": string,
            "deprecated": boolean,
            "readOnly": boolean,
            "writeOnly": boolean,
            "examples": lambda v: isinstance(v, list),
            "format": string,
            "contentEncoding": string,
            "contentMediaType": string,
            "contentSchema": self.schema,
            "type": _is_type,
            "enum": lambda v: isinstance(v, list) and (not old or len(v) >= 1),
            "multipleOf": lambda v: number(v) and v > 0,
            "maximum": number,
            "minimum": number,
            "exclusiveMaximum": boolean if old else number,
            "exclusiveMinimum": boolean if old else number,
            "maxLength": _is_nonneg_int,
            "minLength": _is_nonneg_int,
            "pattern": string,
            "maxItems": _is_nonneg_int,
            "minItems": _is_nonneg_int,
            "uniqueItems": boolean,
            "maxContains": _is_nonneg_int,
            "minContains": _is_nonneg_int,
            "maxProperties": _is_nonneg_int,
            "minProperties": _is_nonneg_int,
            "required": (lambda v: _is_unique_strings(v, 1)) if old else _is_unique_strings,
            "dependentRequired": lambda v: (
                isinstance(v, dict) and all(_is_unique_strings(x) for x in v.values())
            ),
            "dependentSchemas": self._schema_map,
            "dependencies": self._dependencies,
            "prefixItems": self._schema_list,
            "items": self._items,
            "additionalItems": self.schema,
            "contains": self.schema,
            "additionalProperties": self.schema,
            "properties": self._schema_map,
            "patternProperties": self._schema_map,
            "propertyNames": self.schema,
            "if": self.schema,
            "then": self.schema,
            "else": self.schema,
            "allOf": self._schema_list,
            "anyOf": self._schema_list,
            "oneOf": self._schema_list,
            "not": self.schema,
            "unevaluatedItems": self.schema,
            "unevaluatedProperties": self.schema,
        }
        return rules


_DRAFT_MARKERS = (
    ("draft-03", "draft3"),
    ("draft-04", "draft4"),
    ("draft-06", "draft6"),
    ("draft-07", "draft7"),
    ("2019-09", "draft2019"),
    ("2020-12", "draft2020"),
)


def detect_draft(schema: Any) -> str | None:
    """The draft a schema declares ("draft7", "draft2020", ...); 2020-12 when it names none.

    None for a `$schema` we do not recognise (the full validator decides).
    """
    declared = schema.get("$schema") if isinstance(schema, dict) else None
    if declared is None:
        return "draft2020"
    if not isinstance(declared, str) or "json-schema.org" not in declared:
        return None
    for marker, draft in _DRAFT_MARKERS:
        if marker in declared:
            return draft
    if declared.rstrip("#").endswith("json-schema.org/schema"):
        return "draft2020"  # the "latest" URL; jsonschema falls back to 2020-12 for it too
    return None


def looks_valid(schema: Any, draft: str) -> bool:
    """True when nothing the metaschema checks is obviously wrong (False: run the full check)."""
    return _Checker(draft).schema(schema)
