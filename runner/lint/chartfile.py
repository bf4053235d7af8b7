"""Chart.yaml rules (Helm's lint/rules/chartfile.go)."""

from __future__ import annotations

import os
import re
from typing import Any

from runner.chart.chartfile import decode_metadata, is_loose_semver, load_yaml_document
from runner.chart.errors import ChartError
from runner.chart.model import Metadata
from runner.golang.filepath import base as go_path_base
from runner.golang.strconv import quote
from runner.golang.types import go_type_name
from runner.lint.govalidate import is_email, is_request_url, is_url
from runner.lint.support import ERROR, INFO, WARNING, Linter

CHART_FILE = "Chart.yaml"
_LOOSE_PARTS = re.compile(r"^v?([0-9]+)(\.[0-9]+)?(\.[0-9]+)?(-([0-9A-Za-z\-.]+))?")
_FIELDS = {
    "": {"name", "home", "sources", "version", "description", "keywords", "maintainers", "icon",
         "apiversion", "condition", "tags", "appversion", "deprecated", "annotations",
         "kubeversion", "dependencies", "type"},
    "maintainers": {"name", "email", "url"},
    "dependencies": {"name", "version", "repository", "condition", "tags", "enabled",
                     "import-values", "alias"},
}


def lint_chartfile(linter: Linter) -> None:
    """Run every Chart.yaml rule in Helm's order."""
    path = os.path.join(linter.chart_dir, CHART_FILE)
    if os.path.isdir(path):
        linter.run_rule(ERROR, CHART_FILE, "should be a file, not a directory")
    metadata, doc, error = load_chartfile(path)
    if not linter.run_rule(ERROR, CHART_FILE, error and f"unable to parse YAML\n\t{error}") or metadata is None:
        return
    linter.run_rule(WARNING, CHART_FILE, strict_error(path, doc))
    typed = doc if isinstance(doc, dict) else {}
    checks = [
        (ERROR, validate_name(metadata)),
        (ERROR, validate_api_version(metadata)),
        (ERROR, is_string_value(typed, "version")),
        (ERROR, validate_version(metadata)),
        (ERROR, is_string_value(typed, "appVersion")),
        (ERROR, validate_maintainers(metadata)),
        (ERROR, validate_sources(metadata)),
        (INFO, None if metadata.icon else "icon is recommended"),
        (ERROR, validate_icon_url(metadata)),
        (ERROR, validate_type(metadata)),
        (ERROR, validate_dependencies(metadata)),
        (WARNING, validate_strict_semver(metadata)),
    ]
    for severity, message in checks:
        linter.run_rule(severity, CHART_FILE, message)


def load_chartfile(path: str) -> tuple[Metadata | None, Any, str | None]:
    """chartutil.LoadChartfile: (metadata, the YAML document as Go sees it, error text)."""
    try:
        with open(path, "rb") as handle:
            data = handle.read()
    except IsADirectoryError:
        return None, None, f"read {path}: is a directory"
    except OSError as exc:
        return None, None, f"open {path}: {(exc.strerror or str(exc)).lower()}"
    try:
        metadata = decode_metadata(load_yaml_document(data, CHART_FILE, ints=True))
        doc = load_yaml_document(data, CHART_FILE)
    except ChartError as exc:
        text = str(exc).removeprefix(f"cannot load {CHART_FILE}: ")
        return None, None, text.replace("Go value of type chart.Metadata", "Go value of type v2.Metadata")
    return metadata, doc, None


def strict_error(path: str, doc: Any) -> str | None:
    """chartutil.StrictLoadChartfile's failure: duplicate keys (YAML), then unknown fields (JSON)."""
    from runner.lint.strictyaml import duplicate_key_errors

    with open(path, "rb") as handle:
        duplicates = duplicate_key_errors(handle.read())
    prefix = "failed to strictly parse chart metadata file\n\t"
    if duplicates:
        return prefix + "error converting YAML to JSON: yaml: unmarshal errors:\n  " + "\n  ".join(duplicates)
    unknown = first_unknown_field(doc)
    if unknown:
        return prefix + f"error unmarshaling JSON: while decoding JSON: json: unknown field \"{unknown}\""
    return None


def first_unknown_field(doc: Any) -> str | None:
    """The first key (in JSON key order) that Metadata, Maintainer or Dependency lacks."""
    if not isinstance(doc, dict):
        return None
    for key in sorted(doc):
        lowered = key.lower()
        if lowered not in _FIELDS[""]:
            return key
        if lowered in ("maintainers", "dependencies") and isinstance(doc[key], list):
            for item in doc[key]:
                found = _unknown_in(item, _FIELDS[lowered])
                if found:
                    return found
    return None


def _unknown_in(item: Any, known: set[str]) -> str | None:
    if not isinstance(item, dict):
        return None
    return next((k for k in sorted(item) if k.lower() not in known), None)


def is_string_value(doc: dict[str, Any], key: str) -> str | None:
    if key not in doc:
        return None
    type_name = go_type_name(doc[key])
    if type_name != "string":
        return f"{key} should be of type string but it's of type {type_name}"
    return None


def validate_name(md: Metadata) -> str | None:
    if md.name == "":
        return "name is required"
    if go_path_base(md.name) != md.name:  # filepath.Base: path.Base on Linux
        return f"chart name {quote(md.name)} is invalid"
    return None


def validate_api_version(md: Metadata) -> str | None:
    if md.api_version == "":
        return 'apiVersion is required. The value must be either "v1" or "v2"'
    if md.api_version not in ("v1", "v2"):
        return f"apiVersion '{md.api_version}' is not valid. The value must be either \"v1\" or \"v2\""
    return None


def validate_version(md: Metadata) -> str | None:
    if md.version == "":
        return "version is required"
    if not is_loose_semver(md.version):
        return f"version '{md.version}' is not a valid SemVer"
    match = _LOOSE_PARTS.match(md.version)
    if match and _is_lowest(match):
        return f"version {_normalized(match)} is less than or equal to 0.0.0-0"
    return None


def _is_lowest(match: re.Match[str]) -> bool:
    numbers = [int((match.group(i) or "0").lstrip(".") or "0") for i in (1, 2, 3)]
    return numbers == [0, 0, 0] and match.group(5) is not None and match.group(5) == "0"


def _normalized(match: re.Match[str]) -> str:
    numbers = [int((match.group(i) or "0").lstrip(".") or "0") for i in (1, 2, 3)]
    return ".".join(str(n) for n in numbers) + f"-{match.group(5)}"


def validate_strict_semver(md: Metadata) -> str | None:
    """validateChartVersionStrictSemVerV2: semver.StrictNewVersion must accept it."""
    from runner.golang.semver import SemverError, strict_new_version

    try:
        strict_new_version(md.version)
    except SemverError:
        return f"version '{md.version}' is not a valid SemVerV2"
    return None


def validate_maintainers(md: Metadata) -> str | None:
    for maintainer in md.maintainers:
        if maintainer is None:
            return "a maintainer entry is empty"
        if maintainer.name == "":
            return "each maintainer requires a name"
        if maintainer.email and not is_email(maintainer.email):
            return f"invalid email '{maintainer.email}' for maintainer '{maintainer.name}'"
        if maintainer.url and not is_url(maintainer.url):
            return f"invalid url '{maintainer.url}' for maintainer '{maintainer.name}'"
    return None


def validate_sources(md: Metadata) -> str | None:
    for source in md.sources:
        if source == "" or not is_request_url(source):
            return f"invalid source URL '{source}'"
    return None


def validate_icon_url(md: Metadata) -> str | None:
    if md.icon and not is_request_url(md.icon):
        return f"invalid icon URL '{md.icon}'"
    return None


def validate_type(md: Metadata) -> str | None:
    if md.type and md.api_version != "v2":
        return (f"chart type is not valid in apiVersion '{md.api_version}'. "
                "It is valid in apiVersion 'v2'")
    return None


def validate_dependencies(md: Metadata) -> str | None:
    if md.dependencies and md.api_version != "v2":
        return (f"dependencies are not valid in the Chart file with apiVersion '{md.api_version}'. "
                "They are valid in apiVersion 'v2'")
    return None
