"""Helm's chart structs as encoding/json writes them: Go field order, omitempty.

Used where bytes must match Helm's: the Chart.lock digest (HashReq), the OCI
config blob, and (through sigs.k8s.io/yaml, which sorts keys) Chart.yaml and
Chart.lock inside packages.
"""

from __future__ import annotations

from typing import Any

from runner.chart.model import Dependency, Lock, Maintainer, Metadata
from runner.encoding import gojson

Fields = list[tuple[str, Any]]


class Struct:
    """An ordered Go struct value: fields in declaration order, already omitempty-filtered."""

    def __init__(self, fields: Fields) -> None:
        self.fields = fields

    def as_map(self) -> dict[str, Any]:
        return {k: _plain(v) for k, v in self.fields}


def _plain(value: Any) -> Any:
    if isinstance(value, Struct):
        return value.as_map()
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value


def _omit_empty(fields: Fields, keep: tuple[str, ...] = ()) -> Struct:
    return Struct([(k, v) for k, v in fields if k in keep or v not in ("", [], {}, None, False)])


def dependency_struct(dep: Dependency) -> Struct:
    return _omit_empty(
        [
            ("name", dep.name),
            ("version", dep.version),
            ("repository", dep.repository),
            ("condition", dep.condition),
            ("tags", list(dep.tags)),
            ("enabled", dep.enabled),
            ("import-values", list(dep.import_values)),
            ("alias", dep.alias),
        ],
        keep=("name", "repository"),
    )


def maintainer_struct(m: Maintainer) -> Struct:
    return _omit_empty([("name", m.name), ("email", m.email), ("url", m.url)])


def metadata_struct(md: Metadata, with_dependencies: bool = True) -> Struct:
    return _omit_empty(
        [
            ("name", md.name),
            ("home", md.home),
            ("sources", list(md.sources)),
            ("version", md.version),
            ("description", md.description),
            ("keywords", list(md.keywords)),
            ("maintainers", [maintainer_struct(m) for m in md.maintainers]),
            ("icon", md.icon),
            ("apiVersion", md.api_version),
            ("condition", md.condition),
            ("tags", md.tags),
            ("appVersion", md.app_version),
            ("deprecated", md.deprecated),
            ("annotations", dict(md.annotations or {})),
            ("kubeVersion", md.kube_version),
            (
                "dependencies",
                [dependency_struct(d) for d in md.dependencies] if with_dependencies else [],
            ),
            ("type", md.type),
        ]
    )


def lock_struct(lock: Lock) -> Struct:
    return Struct(
        [
            ("generated", lock.generated),
            ("digest", lock.digest),
            ("dependencies", [dependency_struct(d) for d in lock.dependencies]),
        ]
    )


def marshal(value: Any) -> str:
    """encoding/json.Marshal of Structs, lists and plain values (maps sorted)."""
    if isinstance(value, Struct):
        inner = ",".join(f"{gojson.quote(k)}:{marshal(v)}" for k, v in value.fields)
        return "{" + inner + "}"
    if isinstance(value, list):
        return "[" + ",".join(marshal(v) for v in value) + "]"
    return gojson.marshal(value)
