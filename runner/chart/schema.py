"""values.schema.json validation with Helm 4.1.4's messages.

Helm validates the coalesced values of every chart that ships a schema (the
subchart's own table for a subchart) with santhosh-tekuri/jsonschema v6 and
lists every violation as `- at '<json pointer>': <message>`, nesting the
causes of `anyOf`/`oneOf`/`allOf`/`contains` and grouping several errors of
one property under `validation failed`. We validate with the `jsonschema`
package (draft from `$schema`, 2020-12 by default; formats asserted up to
draft 7, as santhosh does) and rebuild that tree from its errors.

Go's map order makes Helm list sibling errors in a random order; ours are in
schema order (required first, then properties by name).
"""

from __future__ import annotations

from runner.chart.errors import SchemaError
from runner.chart.schema_json import unmarshal_json

TYPE_CHECKING = False  # `typing` costs ~2 ms at every start: see docs/speed.md
if TYPE_CHECKING:
    from typing import Any

    from runner.chart.model import Chart

SCHEMA_URL = "file:///values.schema.json"
_OLD_DRAFTS = ("draft-03", "draft-04", "draft-06", "draft-07")


def validate_values(chart: Chart, values: dict[str, Any]) -> None:
    """ValidateAgainstSchema with the CLI's header; raises SchemaError listing every violation."""
    report = schema_report(chart, values)
    if report:
        raise SchemaError(
            "values don't meet the specifications of the schema(s) in the following chart(s):\n"
            + report
        )


def schema_report(chart: Chart, values: dict[str, Any]) -> str:
    """The text Helm builds for a chart tree: `<chart>:\\n- at ...\\n` per failing chart."""
    text = ""
    if chart.schema is not None:
        problems = validate_single(values, chart.schema)
        if problems:
            text += f"{chart.name()}:\n{problems}"
    for sub in chart.dependencies:
        sub_values = values.get(sub.name())
        text += schema_report(sub, sub_values if isinstance(sub_values, dict) else {})
    return text


def validate_single(values: Any, schema_bytes: bytes) -> str:
    """One schema against one values tree: '' when valid, else Helm's error text.

    Violations end with a newline (Helm's JSONSchemaValidationError adds it);
    a schema that does not compile gives the bare compiler message.
    """
    text = schema_bytes.decode("utf-8", "replace")  # Go's decoder replaces bad UTF-8 too
    try:
        schema = unmarshal_json(text)
    except ValueError as exc:
        return str(exc)  # compile errors: no trailing newline in Helm
    # Imported here: most charts have no schema, and these cost ~1.5 ms to import.
    from runner.chart import quickcheck
    from runner.chart.metaschema import detect_draft, looks_valid

    draft = detect_draft(schema)
    quick = draft is not None and draft != "draft3" and looks_valid(schema, draft)
    if quick and quickcheck.is_valid(schema, values, draft) is True:
        return ""  # the common case, without importing jsonschema
    validator_cls = _validator_class(schema)
    if not quick:  # the full metaschema check is slow: only on suspicion
        problems = _metaschema_problems(validator_cls, schema)
        if problems:
            return problems
    validator = _build_validator(validator_cls, schema, track_cycles=True)
    from runner.chart.schema_cycles import start

    start(validator, values)
    try:
        errors = list(validator.iter_errors(values))
    except Exception as exc:  # referencing errors surface wrapped, at first use
        return _reference_error(exc)
    if not errors:
        return ""
    from runner.chart.schema_errors import error_report  # only for a failing chart

    return error_report(errors, validator)


def _metaschema_problems(validator_cls: Any, schema: Any) -> str:
    """santhosh's compile error for a schema its metaschema rejects ('' when it is valid)."""
    meta = validator_cls.META_SCHEMA
    meta_validator = _build_validator(validator_cls, meta)
    errors = list(meta_validator.iter_errors(schema))
    if not errors:
        return ""
    from runner.chart.schema_errors import error_report

    meta_url = str(meta.get("$id") or meta.get("id") or "").rstrip("#") + "#"
    return (
        f'"{SCHEMA_URL}#" is not valid against metaschema: '
        f"jsonschema validation failed with '{meta_url}'\n"
        + error_report(errors, meta_validator).rstrip("\n")
    )


def _reference_error(exc: Exception) -> str:
    """santhosh's compile errors for a `$ref` it cannot follow: a JSON pointer to nowhere, a
    remote document that could not be fetched (runner.chart.schema_remote), a local file
    (not read)."""
    from urllib.parse import urldefrag, urljoin

    from referencing.exceptions import PointerToNowhere, Unresolvable

    from runner.chart import schema_remote

    cause = exc.__cause__ if exc.__cause__ is not None else exc
    if isinstance(cause, PointerToNowhere):
        base = schema_remote.url_of(cause.resource.contents) or SCHEMA_URL
        return f'json-pointer in "{base}#{cause.ref}" not found'
    if isinstance(cause, Unresolvable):
        url = urldefrag(urljoin(SCHEMA_URL, str(cause.ref))).url
        fetched = cause.__cause__.__cause__ if cause.__cause__ is not None else None
        if isinstance(fetched, schema_remote.RemoteSchemaError):
            return f'failing loading "{url}": {fetched}'
        if url.startswith("file://"):
            path = url.removeprefix("file://")
            return f'failing loading "{url}": open {path}: no such file or directory'
        return f'failing loading "{url}": no loader found'
    raise exc


def _validator_class(schema: Any) -> Any:
    from jsonschema import Draft202012Validator, validators

    return validators.validator_for(schema, default=Draft202012Validator)


def _build_validator(cls: Any, schema: Any, track_cycles: bool = False) -> Any:
    """A validator whose `integer` accepts integral floats and which asserts formats like
    santhosh (and, `track_cycles`, reports reference cycles as santhosh does)."""
    from jsonschema import FormatChecker, validators

    def is_integer(_checker: Any, value: Any) -> bool:
        if isinstance(value, bool):
            return False
        return isinstance(value, int) or (isinstance(value, float) and value.is_integer())

    checker = cls.TYPE_CHECKER.redefine("integer", is_integer)
    extended = validators.extend(cls, type_checker=checker)
    meta = str(schema.get("$schema", "")) if isinstance(schema, dict) else ""
    formats = FormatChecker() if any(d in meta for d in _OLD_DRAFTS) else None
    if track_cycles:
        from runner.chart import schema_cycles

        extended = schema_cycles.track_cycles(extended, schema, SCHEMA_URL)
    from referencing import Registry

    from runner.chart.schema_remote import retrieve  # remote documents, fetched when referenced

    return extended(schema, format_checker=formats, registry=Registry(retrieve=retrieve))
