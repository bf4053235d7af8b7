"""Chart.yaml, requirements.yaml and Chart.lock decoded as Helm decodes them.

Helm unmarshals these files with sigs.k8s.io/yaml into Go structs: keys match
JSON tags case-insensitively, YAML numbers and booleans landing in a string
field become their text (`1.10` -> "1.1", `y` -> "true"), null leaves the zero
value, and any other mismatch is encoding/json's "cannot unmarshal" error.
Validation follows chart.Metadata.Validate.
"""

from __future__ import annotations

from collections.abc import Callable

from runner.chart.errors import ChartError, ChartValidationError
from runner.chart.model import Dependency, Lock, Maintainer, Metadata
from runner.golang.filepath import base as filepath_base
from runner.golang.strconv import format_float, quote

# Helm's alias format `^[a-zA-Z0-9_-]+$`, as a character set.
_ALIAS_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-")


class _DecodeError(Exception):
    """encoding/json's UnmarshalTypeError, raised while walking a document."""


def load_yaml_document(data: bytes, what: str, *, ints: bool = False, remember: bool = True) -> Any:
    """Parse one YAML document as sigs.k8s.io/yaml does; errors name the file as Helm does.

    `ints=True` keeps go-yaml's integers as int, which the string-typed fields
    of Chart.yaml need (an int prints as written, a float through float32).
    `remember`: a chart's own file, kept parsed across runs (runner.encoding.yamlcache);
    a user's values file may hold secrets and is never written to disk.
    """
    try:
        if remember:
            from runner.encoding import yamlcache

            return yamlcache.load(data, ints)
        from runner.encoding import goyaml

        return goyaml.load(data, ints=ints)
    except ValueError as exc:  # goyaml.GoYAMLError; not imported here when the cache answers
        message = getattr(exc, "unmarshal_message", None)
        if message is None:
            raise
        raise ChartError(f"cannot load {what}: {message}") from exc


def _fail(value: Any, struct: str, path: str, go_type: str) -> _DecodeError:
    from runner.encoding.gojson import json_kind

    return _DecodeError(
        f"json: cannot unmarshal {json_kind(value)} into Go struct field "
        f"{struct}.{path} of type {go_type}"
    )


def go_string(value: Any, struct: str, path: str) -> str:
    """A scalar bound for a Go string field, converted as sigs.k8s.io/yaml does."""
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(int(value))
    if isinstance(value, float):
        return format_float(value, "g", -1, 32)
    raise _fail(value, struct, path, "string")


def _go_bool(value: Any, struct: str, path: str) -> bool:
    if isinstance(value, bool):
        return value
    raise _fail(value, struct, path, "bool")


def _go_string_list(value: Any, struct: str, path: str) -> list[str]:
    if not isinstance(value, list):
        raise _fail(value, struct, path, "[]string")
    return [go_string(v, struct, path) if v is not None else "" for v in value]


def _go_string_map(value: Any, struct: str, path: str) -> dict[str, str]:
    if not isinstance(value, dict):
        raise _fail(value, struct, path, "map[string]string")
    return {k: go_string(v, struct, path) if v is not None else "" for k, v in value.items()}


def _go_any_list(value: Any, struct: str, path: str) -> list[Any]:
    if not isinstance(value, list):
        raise _fail(value, struct, path, "[]interface {}")
    return list(value)


TYPE_CHECKING = False  # `typing` costs ~2 ms at every start: see docs/speed.md
if TYPE_CHECKING:
    from typing import Any

    _Field = tuple[str, str, Callable[..., Any]]


def _decode_struct(doc: Any, target: Any, struct: str, fields: list[_Field], prefix: str) -> None:
    """Assign doc's keys to target's fields, matching names as encoding/json does."""
    by_name = {json_name.lower(): (json_name, attr, conv) for json_name, attr, conv in fields}
    for key in sorted(doc):  # JSON objects from sigs.k8s.io/yaml come key-sorted
        entry = by_name.get(key.lower())
        value = doc[key]
        if entry is None or value is None:
            continue
        json_name, attr, conv = entry
        setattr(target, attr, conv(value, struct, prefix + json_name))


def _maintainers(value: Any, struct: str, path: str) -> list[Maintainer | None]:
    if not isinstance(value, list):
        raise _fail(value, struct, path, "[]*chart.Maintainer")
    out: list[Maintainer | None] = []
    for item in value:
        if item is None:
            out.append(None)
            continue
        if not isinstance(item, dict):
            raise _fail(item, struct, path, "chart.Maintainer")
        m = Maintainer()
        fields = [
            ("name", "name", go_string),
            ("email", "email", go_string),
            ("url", "url", go_string),
        ]
        _decode_struct(item, m, "Maintainer", fields, path + ".")
        out.append(m)
    return out


_DEPENDENCY_FIELDS: list[_Field] = [
    ("name", "name", go_string),
    ("version", "version", go_string),
    ("repository", "repository", go_string),
    ("condition", "condition", go_string),
    ("tags", "tags", _go_string_list),
    ("enabled", "enabled", _go_bool),
    ("import-values", "import_values", _go_any_list),
    ("alias", "alias", go_string),
]


def _dependencies(value: Any, struct: str, path: str) -> list[Dependency | None]:
    if not isinstance(value, list):
        raise _fail(value, struct, path, "[]*chart.Dependency")
    out: list[Dependency | None] = []
    for item in value:
        if item is None:
            out.append(None)
            continue
        if not isinstance(item, dict):
            raise _fail(item, struct, path, "chart.Dependency")
        dep = Dependency()
        _decode_struct(item, dep, "Dependency", _DEPENDENCY_FIELDS, path + ".")
        out.append(dep)
    return out


_METADATA_FIELDS: list[_Field] = [
    ("name", "name", go_string),
    ("home", "home", go_string),
    ("sources", "sources", _go_string_list),
    ("version", "version", go_string),
    ("description", "description", go_string),
    ("keywords", "keywords", _go_string_list),
    ("maintainers", "maintainers", _maintainers),
    ("icon", "icon", go_string),
    ("apiVersion", "api_version", go_string),
    ("condition", "condition", go_string),
    ("tags", "tags", go_string),
    ("appVersion", "app_version", go_string),
    ("deprecated", "deprecated", _go_bool),
    ("annotations", "annotations", _go_string_map),
    ("kubeVersion", "kube_version", go_string),
    ("dependencies", "dependencies", _dependencies),
    ("type", "type", go_string),
]


def _decode(doc: Any, target: Any, struct: str, fields: list[_Field], what: str) -> None:
    if doc is None:
        return
    if not isinstance(doc, dict):
        from runner.encoding.gojson import json_kind

        kind = json_kind(doc)
        raise ChartError(
            f"cannot load {what}: error unmarshaling JSON: while decoding JSON: "
            f"json: cannot unmarshal {kind} into Go value of type {struct}"
        )
    try:
        _decode_struct(doc, target, struct.split(".")[-1], fields, "")
    except _DecodeError as exc:
        raise ChartError(
            f"cannot load {what}: error unmarshaling JSON: while decoding JSON: {exc}"
        ) from exc


def decode_metadata(doc: Any, into: Metadata | None = None, what: str = "Chart.yaml") -> Metadata:
    """Chart.yaml (or requirements.yaml, decoded over the same struct) as Metadata."""
    md = into if into is not None else Metadata()
    _decode(doc, md, "chart.Metadata", _METADATA_FIELDS, what)
    if isinstance(doc, dict) and any(
        k.lower() == "dependencies" and v is not None for k, v in doc.items()
    ):
        md.dependencies_declared = True
    return md


def decode_lock(doc: Any, what: str = "Chart.lock") -> Lock:
    lock = Lock()
    fields: list[_Field] = [
        ("generated", "generated", go_string),
        ("digest", "digest", go_string),
        ("dependencies", "dependencies", _dependencies),
    ]
    _decode(doc, lock, "chart.Lock", fields, what)
    return lock


def sanitize(text: str) -> str:
    """Helm's sanitizeString: whitespace becomes a space, unprintable runes are dropped."""
    if text.isprintable():  # the usual case: nothing to change (tabs/newlines are not printable)
        return text
    import unicodedata  # only for text with unprintable characters

    out = []
    for ch in text:
        if ch.isspace():
            out.append(" ")
        elif ch.isprintable() or unicodedata.category(ch) == "Zs":
            out.append(ch)
    return "".join(out)


def is_loose_semver(version: str) -> bool:
    """Masterminds semver's NewVersion acceptance (what Helm checks chart versions with)."""
    from runner.golang.semver import SemverError, new_version  # most charts load it anyway

    try:
        new_version(version)
    except SemverError:
        return False
    return True


def validate_metadata(md: Metadata) -> None:
    """chart.Metadata.Validate: sanitizes fields in place, raises `validation: ...`."""
    _sanitize_metadata(md)
    if not md.api_version:
        raise ChartValidationError("chart.metadata.apiVersion is required")
    if not md.name:
        raise ChartValidationError("chart.metadata.name is required")
    if md.name in (".", ".."):
        raise ChartValidationError(f"chart.metadata.name {quote(md.name)} is not allowed")
    if md.name != filepath_base(md.name):
        raise ChartValidationError(f"chart.metadata.name {quote(md.name)} is invalid")
    if not md.version:
        raise ChartValidationError("chart.metadata.version is required")
    if not is_loose_semver(md.version):
        raise ChartValidationError(f"chart.metadata.version {quote(md.version)} is invalid")
    if md.type not in ("", "application", "library"):
        raise ChartValidationError("chart.metadata.type must be application or library")
    for maintainer in md.maintainers:
        if maintainer is None:
            raise ChartValidationError("maintainers must not contain empty or null nodes")
        maintainer.name, maintainer.email = sanitize(maintainer.name), sanitize(maintainer.email)
        maintainer.url = sanitize(maintainer.url)
    _validate_dependencies(md.dependencies)


def _validate_dependencies(dependencies: list[Dependency]) -> None:
    seen: set[str] = set()
    for dep in dependencies:
        if dep is None:
            raise ChartValidationError("dependencies must not contain empty or null nodes")
        dep.name, dep.version = sanitize(dep.name), sanitize(dep.version)
        dep.repository, dep.condition = sanitize(dep.repository), sanitize(dep.condition)
        dep.alias = sanitize(dep.alias)
        dep.tags = [sanitize(t) for t in dep.tags]
        if dep.alias and not set(dep.alias) <= _ALIAS_CHARS:
            raise ChartValidationError(
                f"dependency {quote(dep.name)} has disallowed characters in the alias"
            )
        key = dep.alias or dep.name
        if key in seen:
            raise ChartValidationError(
                f"more than one dependency with name or alias {quote(key)}"
            )
        seen.add(key)


def _sanitize_metadata(md: Metadata) -> None:
    for attr in (
        "name",
        "description",
        "home",
        "icon",
        "condition",
        "tags",
        "app_version",
        "kube_version",
    ):
        setattr(md, attr, sanitize(getattr(md, attr)))
    md.sources = [sanitize(s) for s in md.sources]
    md.keywords = [sanitize(k) for k in md.keywords]
