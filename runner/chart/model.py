"""Helm's chart model (pkg/chart/v2): Chart, Metadata, Dependency, Lock, ChartFile.

Attribute names are Python's; `to_go_map()` gives the shape templates see.
Helm 4 exposes `.Chart` as a map keyed by the Go field names of its Metadata
struct (plus `IsRoot`), nil slices shown as empty lists and Annotations a
map[string]string (a typed nil one, printed `map[]`, when Chart.yaml has
none), which is what `Metadata.to_go_map` returns.
"""

from __future__ import annotations

import posixpath

from runner.chart.logs import Warning  # noqa: A004 - Helm's log line, not the builtin
from runner.records import Record

TYPE_CHECKING = False  # `typing` costs ~2 ms at every start: see docs/speed.md
if TYPE_CHECKING:
    from typing import Any

API_VERSION_V1 = "v1"
API_VERSION_V2 = "v2"
API_VERSION_V3 = "v3"  # read by Helm 4 (its chart v3 loader), refused by its actions
CHART_TYPES = ("", "application", "library")


class ChartFile(Record):
    """One file of a chart: its slash-separated path from the chart root and its bytes."""

    __slots__ = ("name", "data")

    def __init__(self, name: str, data: bytes) -> None:
        self.name = name
        self.data = data


class Maintainer(Record):
    __slots__ = ("name", "email", "url")

    def __init__(self, name: str = "", email: str = "", url: str = "") -> None:
        self.name = name
        self.email = email
        self.url = url

    def to_go_map(self) -> dict[str, Any]:
        return {"Email": self.email, "Name": self.name, "URL": self.url}


class Dependency(Record):
    """An entry of Chart.yaml `dependencies` (or requirements.yaml for v1 charts)."""

    __slots__ = ("name", "version", "repository", "condition", "tags", "enabled",
                 "import_values", "alias")

    def __init__(self, name: str = "", version: str = "", repository: str = "",
                 condition: str = "", tags: list[str] | None = None, enabled: bool = False,
                 import_values: list[Any] | None = None, alias: str = "") -> None:
        self.name = name
        self.version = version
        self.repository = repository
        self.condition = condition
        self.tags = [] if tags is None else tags
        self.enabled = enabled
        self.import_values = [] if import_values is None else import_values
        self.alias = alias

    def to_go_map(self) -> dict[str, Any]:
        return {
            "Alias": self.alias,
            "Condition": self.condition,
            "Enabled": self.enabled,
            "ImportValues": list(self.import_values),
            "Name": self.name,
            "Repository": self.repository,
            "Tags": list(self.tags),
            "Version": self.version,
        }


class Lock(Record):
    """Chart.lock (or requirements.lock): what `helm dependency update` resolved."""

    __slots__ = ("generated", "digest", "dependencies")

    def __init__(self, generated: str = "", digest: str = "",
                 dependencies: list[Dependency] | None = None) -> None:
        self.generated = generated
        self.digest = digest
        self.dependencies = [] if dependencies is None else dependencies


class Metadata(Record):
    """Chart.yaml, field for field (Helm's chart.Metadata)."""

    __slots__ = ("name", "home", "sources", "version", "description", "keywords", "maintainers",
                 "icon", "api_version", "condition", "tags", "app_version", "deprecated",
                 "annotations", "kube_version", "dependencies", "type", "dependencies_declared")

    def __init__(self, name: str = "", home: str = "", sources: list[str] | None = None,
                 version: str = "", description: str = "", keywords: list[str] | None = None,
                 maintainers: list[Maintainer] | None = None, icon: str = "",
                 api_version: str = "", condition: str = "", tags: str = "",
                 app_version: str = "", deprecated: bool = False,
                 annotations: dict[str, str] | None = None, kube_version: str = "",
                 dependencies: list[Dependency] | None = None, type: str = "",  # noqa: A002
                 dependencies_declared: bool = False) -> None:
        self.name = name
        self.home = home
        self.sources = [] if sources is None else sources
        self.version = version
        self.description = description
        self.keywords = [] if keywords is None else keywords
        self.maintainers = [] if maintainers is None else maintainers
        self.icon = icon
        self.api_version = api_version
        self.condition = condition
        self.tags = tags
        self.app_version = app_version
        self.deprecated = deprecated
        self.annotations = annotations
        self.kube_version = kube_version
        self.dependencies = [] if dependencies is None else dependencies
        self.type = type
        # Go tells a nil Dependencies slice from an empty one (`dependencies: []`), and
        # ProcessDependencies skips only nil: True when the key was given (non-null).
        self.dependencies_declared = dependencies_declared

    def to_go_map(self, is_root: bool = True) -> dict[str, Any]:
        """The map Helm 4 puts in `.Chart`: Go field names, zero values kept."""
        from runner.golang.types import NilStringMap, StringMap  # render time only

        return {
            "APIVersion": self.api_version,
            "Annotations": (StringMap(self.annotations) if self.annotations is not None
                            else NilStringMap()),
            "AppVersion": self.app_version,
            "Condition": self.condition,
            "Dependencies": [d.to_go_map() for d in self.dependencies],
            "Deprecated": self.deprecated,
            "Description": self.description,
            "Home": self.home,
            "Icon": self.icon,
            "IsRoot": is_root,
            "Keywords": list(self.keywords),
            "KubeVersion": self.kube_version,
            "Maintainers": [m.to_go_map() for m in self.maintainers],
            "Name": self.name,
            "Sources": list(self.sources),
            "Tags": self.tags,
            "Type": self.type,
            "Version": self.version,
        }


class Chart:
    """A loaded chart and, recursively, its subcharts (Helm's chart.Chart); compared by
    identity."""

    def __init__(self, metadata: Metadata, lock: Lock | None = None,
                 templates: list[ChartFile] | None = None, files: list[ChartFile] | None = None,
                 values: dict[str, Any] | None = None, raw_values: bytes | None = None,
                 schema: bytes | None = None, dependencies: list[Chart] | None = None,
                 parent: Chart | None = None, raw: list[ChartFile] | None = None,
                 load_warnings: list[Warning] | None = None) -> None:
        self.metadata = metadata
        self.lock = lock
        self.templates = [] if templates is None else templates
        self.files = [] if files is None else files
        self.values = {} if values is None else values
        self.raw_values = raw_values
        self.schema = schema
        self.dependencies = [] if dependencies is None else dependencies
        self.parent = parent
        self.raw = [] if raw is None else raw
        # What Helm logs while loading this chart (followed symlinks), root chart only.
        self.load_warnings = [] if load_warnings is None else load_warnings

    def __repr__(self) -> str:
        return f"Chart(metadata={self.metadata!r}, dependencies={len(self.dependencies)})"

    def shallow_copy(self) -> Chart:
        """copy.copy(self), without importing copy (and weakref) on the render path."""
        out = object.__new__(type(self))
        out.__dict__.update(self.__dict__)
        return out

    def name(self) -> str:
        return self.metadata.name

    def is_root(self) -> bool:
        return self.parent is None

    def is_library(self) -> bool:
        return self.metadata.type == "library"

    def root(self) -> Chart:
        chart = self
        while chart.parent is not None:
            chart = chart.parent
        return chart

    def chart_path(self) -> str:
        """Dotted path from the root, e.g. `top.sub` (Helm's ChartPath)."""
        if self.parent is None:
            return self.name()
        return f"{self.parent.chart_path()}.{self.name()}"

    def chart_full_path(self) -> str:
        """`top/charts/sub`: the prefix of template names (Helm's ChartFullPath)."""
        if self.parent is None:
            return self.name()
        return f"{self.parent.chart_full_path()}/charts/{self.name()}"

    def add_dependency(self, *charts: Chart) -> None:
        for chart in charts:
            chart.parent = self
            self.dependencies.append(chart)

    def set_dependencies(self, charts: list[Chart]) -> None:
        self.dependencies = []
        self.add_dependency(*charts)

    def crds(self) -> list[ChartFile]:
        """Files under crds/ with a manifest extension, this chart's then its subcharts'."""
        found = [f for f in self.files if f.name.startswith("crds/") and _is_manifest(f.name)]
        for dep in self.dependencies:
            found.extend(dep.crds())
        return found

    def crd_objects(self) -> list[tuple[str, ChartFile]]:
        """(file name as Helm prints it, file) for every CRD of this chart tree."""
        found = [
            (f"{self.chart_full_path()}/{f.name}", f)
            for f in self.files
            if f.name.startswith("crds/") and _is_manifest(f.name)
        ]
        for dep in self.dependencies:
            found.extend(dep.crd_objects())
        return found

    def chart_map(self) -> dict[str, Any]:
        """What templates of this chart see as `.Chart`."""
        return self.metadata.to_go_map(is_root=self.is_root())


def _is_manifest(name: str) -> bool:
    return posixpath.splitext(name)[1].lower() in (".yaml", ".yml", ".json")
