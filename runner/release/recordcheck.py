"""What json.Unmarshal into Helm 4's Release struct refuses, in Go's words, and what Helm
would read but cannot use.

Go decodes a record into typed structs (pkg/release/v1, pkg/chart/v2,
pkg/chart/common): a value of the wrong JSON kind fails the whole record
with `json: cannot unmarshal array into Go struct field Release.config of
type map[string]interface {}` (the innermost struct's name, then the field
path from the top, without list indexes); a time that is not RFC 3339 and
bytes that are not base64 fail too. JSON null leaves a field empty.

Beyond Go: a record without a name, a revision or its info (Helm's list and
history dereference a nil Info and panic), or whose name and revision are
not its key's, is refused: every command would act on a release it cannot
place.
"""

from __future__ import annotations

import re
from typing import Any

from runner.encoding.gojson import json_kind


class RecordProblem(ValueError):
    """What is wrong with a record (str() is the text after the record's name)."""


# A type: (JSON kind, Go type); structs: ("object", Go type, struct name, {field: type}).
_STRING = ("string", "string")
_INT = ("int", "int")
_BOOL = ("bool", "bool")
_TIME = ("time", "time.Time")
_BYTES = ("bytes", "[]uint8")
_ANY_MAP = ("object", "map[string]interface {}")
_STRINGS = ("array", "[]string", _STRING)

_FILE = ("object", "common.File", "File", {"name": _STRING, "data": _BYTES, "modtime": _TIME})
_FILES = ("array", "[]*common.File", _FILE)
_MAINTAINER = ("object", "v2.Maintainer", "Maintainer",
               {"name": _STRING, "email": _STRING, "url": _STRING})
_DEPENDENCY = ("object", "v2.Dependency", "Dependency", {
    "name": _STRING, "version": _STRING, "repository": _STRING, "condition": _STRING,
    "tags": _STRINGS, "enabled": _BOOL, "alias": _STRING,
})
_METADATA = ("object", "v2.Metadata", "Metadata", {
    "name": _STRING, "home": _STRING, "sources": _STRINGS, "version": _STRING,
    "description": _STRING, "keywords": _STRINGS,
    "maintainers": ("array", "[]*v2.Maintainer", _MAINTAINER), "icon": _STRING,
    "apiVersion": _STRING, "condition": _STRING, "tags": _STRING, "appVersion": _STRING,
    "deprecated": _BOOL, "annotations": ("object", "map[string]string", _STRING),
    "kubeVersion": _STRING, "dependencies": ("array", "[]*v2.Dependency", _DEPENDENCY),
    "type": _STRING,
})
_LOCK = ("object", "v2.Lock", "Lock", {
    "generated": _TIME, "digest": _STRING,
    "dependencies": ("array", "[]*v2.Dependency", _DEPENDENCY),
})
_CHART = ("object", "v2.Chart", "Chart", {
    "metadata": _METADATA, "lock": _LOCK, "templates": _FILES, "values": _ANY_MAP,
    "schema": _BYTES, "schemamodtime": _TIME, "files": _FILES, "modtime": _TIME,
})
_EXECUTION = ("object", "v1.HookExecution", "HookExecution",
              {"started_at": _TIME, "completed_at": _TIME, "phase": ("string", "v1.HookPhase")})
_HOOK = ("object", "v1.Hook", "Hook", {
    "name": _STRING, "kind": _STRING, "path": _STRING, "manifest": _STRING,
    "events": ("array", "[]v1.HookEvent", ("string", "v1.HookEvent")),
    "last_run": _EXECUTION, "weight": _INT,
    "delete_policies": ("array", "[]v1.HookDeletePolicy", ("string", "v1.HookDeletePolicy")),
    "output_log_policies": ("array", "[]v1.HookOutputLogPolicy",
                            ("string", "v1.HookOutputLogPolicy")),
})
# Helm 4 reads info through a map first: a wrong kind names that map's type.
_INFO = ("object", "map[string]interface {}", "Release", {
    "first_deployed": _TIME, "last_deployed": _TIME, "deleted": _TIME,
    "description": _STRING, "status": ("string", "common.Status"), "notes": _STRING,
    "resources": ("object", "map[string][]runtime.Object", ("array", "[]runtime.Object", None)),
})
_RELEASE = ("object", "v1.Release", "Release", {
    "name": _STRING, "info": _INFO, "chart": _CHART, "config": _ANY_MAP, "manifest": _STRING,
    "hooks": ("array", "[]*v1.Hook", _HOOK), "version": _INT, "namespace": _STRING,
    "apply_method": _STRING,
})

_RFC3339 = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)")
_BASE64 = re.compile(r"(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?")


def check(value: Any, key: str) -> None:
    """Raise RecordProblem for the first thing Go's decoder or a command would trip on."""
    if not isinstance(value, dict):
        if value is None:
            raise RecordProblem("the record is null")
        raise RecordProblem(f"json: cannot unmarshal {json_kind(value)} into Go value of type v1.Release")
    stack: list[tuple[Any, Any, str, str]] = [
        (value[name], spec, "Release", name)
        for name, spec in reversed(_RELEASE[3].items()) if name in value
    ]
    while stack:
        item, spec, struct, path = stack.pop()
        stack.extend(reversed(_check_one(item, spec, struct, path)))
    _check_identity(value, key)


def _check_one(item: Any, spec: Any, struct: str, path: str) -> list[tuple[Any, Any, str, str]]:
    """Check one value against its type; the children to check next."""
    if item is None or spec is None:
        return []
    kind, go_type = spec[0], spec[1]
    if kind == "string":
        _expect(isinstance(item, str), item, struct, path, go_type)
    elif kind == "bool":
        _expect(isinstance(item, bool), item, struct, path, go_type)
    elif kind == "int":
        _expect(isinstance(item, float | int) and not isinstance(item, bool), item, struct, path,
                go_type)
        if float(item) != int(item):
            raise RecordProblem(
                f"json: cannot unmarshal number {item} into Go struct field {struct}.{path} "
                f"of type {go_type}")
    elif kind == "time":
        _expect(isinstance(item, str), item, struct, path, go_type)
        if not _RFC3339.fullmatch(item):
            raise RecordProblem(f'parsing time "{item}" as "2006-01-02T15:04:05Z07:00": '
                                f'cannot parse "{item}" as "2006"')
    elif kind == "bytes":
        _expect(isinstance(item, str), item, struct, path, go_type)
        if not _BASE64.fullmatch(item):
            raise RecordProblem(f"illegal base64 data at input byte {_base64_offset(item)}")
    elif kind == "array":
        _expect(isinstance(item, list), item, struct, path, go_type)
        return [(child, spec[2], struct, path) for child in item]
    else:
        _expect(isinstance(item, dict), item, struct, path, go_type)
        if len(spec) == 4:  # a struct: its known fields, under its own name
            return [(item[name], field, spec[2], f"{path}.{name}")
                    for name, field in spec[3].items() if name in item]
        if len(spec) == 3:  # a map with typed values
            return [(child, spec[2], struct, path) for child in item.values()]
    return []


def _expect(ok: bool, item: Any, struct: str, path: str, go_type: str) -> None:
    if not ok:
        raise RecordProblem(
            f"json: cannot unmarshal {json_kind(item)} into Go struct field {struct}.{path} "
            f"of type {go_type}")


def _base64_offset(text: str) -> int:
    """Where Go's StdEncoding reports the first bad byte (the start of an incomplete quantum)."""
    for at, char in enumerate(text):
        if not (char.isascii() and (char.isalnum() or char in "+/")):
            return at if char != "=" else at - at % 4
    return len(text) - len(text) % 4


def _check_identity(value: dict[str, Any], key: str) -> None:
    name, version, info = value.get("name"), value.get("version"), value.get("info")
    if not name:
        raise RecordProblem("the record has no release name")
    if not version or version < 1:
        raise RecordProblem("the record has no revision (version)")
    if not isinstance(info, dict):
        raise RecordProblem("the record has no info (status, dates)")
    expected = f"sh.helm.release.v1.{name}.v{int(version)}"
    if key.startswith("sh.helm.release.v1.") and key != expected:
        raise RecordProblem(f"the record holds release {name} revision {int(version)}, "
                            "not the one its name says")
