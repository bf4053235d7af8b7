"""values.yaml rules (Helm's lint/rules/values.go)."""

from __future__ import annotations

import os
from typing import Any

from runner.chart.logs import Warnings
from runner.chart.schema import validate_single
from runner.chart.values import coalesce_tables, deep_copy
from runner.encoding import goyaml
from runner.lint.support import ERROR, INFO, Linter

VALUES_FILE = "values.yaml"


def lint_values(linter: Linter, overrides: dict[str, Any], skip_schema: bool, warnings: Warnings) -> None:
    """values.yaml must exist (INFO), parse, and with the overrides meet values.schema.json."""
    path = os.path.join(linter.chart_dir, VALUES_FILE)
    if not linter.run_rule(INFO, VALUES_FILE, None if os.path.exists(path) else "file does not exist"):
        return
    linter.run_rule(ERROR, VALUES_FILE, validate_values_file(path, overrides, skip_schema, warnings))


def read_values_file(path: str) -> dict[str, Any]:
    """common.ReadValuesFile: the first YAML document, which must be a map."""
    with open(path, "rb") as handle:
        data = handle.read()
    try:
        values = goyaml.load(data)
    except ValueError as exc:
        raise ValueError(getattr(exc, "unmarshal_message", str(exc))) from exc
    if values is not None and not isinstance(values, dict):
        kind = "array" if isinstance(values, list) else "string" if isinstance(values, str) else (
            "bool" if isinstance(values, bool) else "number")
        raise ValueError("error unmarshaling JSON: while decoding JSON: json: cannot unmarshal "
                         f"{kind} into Go value of type common.Values")
    return values or {}


def validate_values_file(path: str, overrides: dict[str, Any], skip_schema: bool,
                         warnings: Warnings) -> str | None:
    try:
        values = read_values_file(path)
    except (OSError, ValueError) as exc:
        return f"unable to parse YAML: {exc}"
    coalesced = coalesce_tables(deep_copy(overrides), values, warnings)
    schema_path = path[: -len(".yaml")] + ".schema.json"
    try:
        with open(schema_path, "rb") as handle:
            schema = handle.read()
    except OSError:
        return None
    if not schema or skip_schema:
        return None
    return validate_single(coalesced, schema) or None
