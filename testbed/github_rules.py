"""What GitHub refuses in a request: its OpenAPI description (parameters and body schema,
formats included) and the limits its documentation states only in prose."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import jsonschema

KIB64 = 64 * 1024

# Limits GitHub documents in descriptions, not in the schema (../shared/docs/CONTRACTS.md 1.1, 1.4).
ANNOTATION_TEXT_BYTES = {"message": KIB64, "raw_details": KIB64}
ANNOTATION_TITLE_CHARS = 255
COMMENT_BODY_CHARS = 65536
STATUS_DESCRIPTION_CHARS = 140
PER_PAGE_MAX = 100

_FORMATS = jsonschema.FormatChecker()


@_FORMATS.checks("date-time", raises=ValueError)
def _date_time(value: object) -> bool:
    """ISO 8601 as GitHub takes it (`YYYY-MM-DDTHH:MM:SSZ`); jsonschema checks no
    date-time without an optional package."""
    if isinstance(value, str):
        datetime.fromisoformat(value.replace("Z", "+00:00"))
    return True


def request_problems(spec: dict[str, Any], operation: str, params: dict[str, str],
                     query: dict[str, str], body: Any) -> list[str]:
    problems = _parameter_problems(spec, params, query)
    if spec["body"] is not None:
        if body is None and spec["body_required"]:
            problems.append("a request body is required")
        elif body is not None:
            problems += _schema_problems(spec["body"], body)
    elif body is not None:
        problems.append("this operation takes no request body")
    if not problems and body is not None:
        problems += _documented_limits(operation, body)
    return problems


def _parameter_problems(spec: dict[str, Any], params: dict[str, str],
                        query: dict[str, str]) -> list[str]:
    problems = []
    known = {p["name"] for p in spec["parameters"] if p["in"] == "query"}
    for parameter in spec["parameters"]:
        where = params if parameter["in"] == "path" else query
        value = where.get(parameter["name"])
        if value is None:
            if parameter["required"]:
                problems.append(f"{parameter['name']} is required")
            continue
        if parameter["schema"].get("type") == "integer":
            if not value.lstrip("-").isdigit():
                problems.append(f"{parameter['name']} {value!r} is not an integer")
                continue
            converted: Any = int(value)
        else:
            converted = value
        problems += [f"{parameter['name']}: {p}" for p in
                     _schema_problems(parameter["schema"], converted)]
    problems += [f"unknown query parameter {name}" for name in query if name not in known]
    if int(query.get("per_page", "1") or 1) > PER_PAGE_MAX:
        problems.append(f"per_page above {PER_PAGE_MAX}")
    return problems


def _schema_problems(schema: dict[str, Any], value: Any) -> list[str]:
    validator = jsonschema.Draft4Validator(schema, format_checker=_FORMATS)
    return [f"{'/'.join(map(str, e.absolute_path)) or 'body'}: {_shortened(e.message)}"
            for e in validator.iter_errors(value)]


def _shortened(message: str) -> str:
    """jsonschema quotes the whole value; keep both ends (the reason is at the end)."""
    return message if len(message) <= 300 else f"{message[:100]} ... {message[-150:]}"



def _documented_limits(operation: str, body: dict[str, Any]) -> list[str]:
    if operation in ("checks/create", "checks/update"):
        return _check_run_limits(operation, body)
    comment = operation in ("issues/create-comment", "issues/update-comment", "issues/create",
                            "issues/update")
    if comment and len(body.get("body") or "") > COMMENT_BODY_CHARS:
        return ["body: Body is too long (maximum is 65536 characters)"]
    status = operation == "repos/create-deployment-status"
    if status and len(body.get("description", "")) > STATUS_DESCRIPTION_CHARS:
        return ["description: is too long (maximum is 140 characters)"]
    return []


def _check_run_limits(operation: str, body: dict[str, Any]) -> list[str]:
    problems = []
    completed = body.get("status") == "completed" or "completed_at" in body
    if completed and "conclusion" not in body:
        problems.append("conclusion is required with status completed or completed_at")
    output = body.get("output") or {}
    if output and ("title" not in output or "summary" not in output):
        # the update schema requires only summary; GitHub documents title as required too
        problems.append("output needs both title and summary")
    for index, note in enumerate(output.get("annotations", [])):
        where = f"output/annotations/{index}"
        for key, limit in ANNOTATION_TEXT_BYTES.items():
            if len(note.get(key, "").encode()) > limit:
                problems.append(f"{where}/{key}: more than 64 KB")
        if len(note.get("title", "")) > ANNOTATION_TITLE_CHARS:
            problems.append(f"{where}/title: more than {ANNOTATION_TITLE_CHARS} characters")
        if ("start_column" in note or "end_column" in note) and \
                note["start_line"] != note["end_line"]:
            problems.append(f"{where}: columns are only allowed when start_line == end_line")
        if note["end_line"] < note["start_line"] or note["start_line"] < 1:
            problems.append(f"{where}: lines must be 1-based and start_line <= end_line")
        path = note["path"]
        if path.startswith("/") or path.startswith("./") or "\\" in path or ".." in path.split("/"):
            problems.append(f"{where}/path: {path!r} is not relative to the repository root")
    return problems
