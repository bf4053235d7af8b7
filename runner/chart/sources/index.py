"""A chart repository's index.yaml (Helm's pkg/repo/index.go): load, sort, look up by constraint."""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urljoin, urlsplit, urlunsplit

from runner.chart.sources.errors import SourceError
from runner.chart.sources.messages import WARNING, Say
from runner.encoding import goyaml
from runner.golang import semver
from runner.golang.slog import text_line
from runner.golang.strconv import quote


@dataclass
class ChartVersion:
    """One chart version of an index: the metadata fields used here plus URLs and digest."""

    name: str
    version: str
    urls: list[str] = field(default_factory=list)
    digest: str = ""
    app_version: str = ""
    api_version: str = "v1"
    raw: dict[str, Any] = field(default_factory=dict, repr=False)  # the entry as the index has it

    @classmethod
    def from_map(cls, doc: dict[str, Any]) -> ChartVersion:
        return cls(
            name=str(doc.get("name") or ""),
            version=str(doc.get("version") or ""),
            urls=[str(u) for u in doc.get("urls") or []],
            digest=str(doc.get("digest") or ""),
            app_version=str(doc.get("appVersion") or ""),
            api_version=str(doc.get("apiVersion") or "v1"),
            raw=doc,
        )


@dataclass
class IndexFile:
    """The entries of an index, each list newest version first (SortEntries)."""

    api_version: str
    entries: dict[str, list[ChartVersion]]

    def get(self, name: str, version: str, *, say: Say) -> ChartVersion:
        """IndexFile.Get: an exact version string first, then the newest match of the constraint
        (said to `say` when it is not the version asked for, as Helm warns)."""
        versions = self.entries.get(name)
        if versions is None:
            raise SourceError("no chart name found")
        if not versions:
            raise SourceError("no chart version found")
        constraint = _constraint(version or "*")
        if version:
            exact = next((cv for cv in versions if cv.version == version), None)
            if exact is not None:
                return exact
        for cv in versions:
            if _matches(constraint, cv.version):
                if version:
                    say(WARNING, _closest_warning(name, version, cv.version))
                return cv
        raise SourceError(f"no chart version found for {name}-{version}")


def _constraint(text: str) -> semver.Constraints:
    try:
        return semver.new_constraint(text)
    except semver.SemverError as exc:
        raise SourceError(str(exc)) from exc


def _matches(constraint: semver.Constraints, version: str) -> bool:
    try:
        return constraint.check(semver.new_version(version))
    except semver.SemverError:
        return False


def _closest_warning(name: str, requested: str, selected: str) -> str:
    return text_line("WARN", "unable to find exact version requested; falling back to closest available version",
                     {"chart": name, "requested": requested, "selected": selected})


def load_index(data: bytes, source: str, *, say: Say) -> IndexFile:
    """loadIndex: refuse empty or versionless indexes, drop invalid entries (each warned of
    to `say`, as Helm logs it), sort newest first."""
    if not data.strip():
        raise SourceError("empty index.yaml file")
    try:
        doc = goyaml.load(data)
    except goyaml.GoYAMLError as exc:
        raise SourceError(f"error unmarshaling JSON: {exc}") from exc
    if not isinstance(doc, dict) or not doc.get("apiVersion"):
        raise SourceError("no API version specified")
    entries: dict[str, list[ChartVersion]] = {}
    for name, items in (doc.get("entries") or {}).items():
        valid = _valid_versions(str(name), items or [], source, say)
        entries[str(name)] = sorted(valid, key=functools.cmp_to_key(compare_versions), reverse=True)
    return IndexFile(str(doc["apiVersion"]), entries)


def _valid_versions(name: str, items: list[Any], source: str, say: Say) -> list[ChartVersion]:
    """Entries that pass ChartVersion.Validate; the others are logged and dropped, last first as Helm walks them."""
    kept: list[ChartVersion] = []
    for item in reversed(items):
        if not isinstance(item, dict):
            say(WARNING, text_line("WARN", f"skipping loading invalid entry for chart {quote(name)} from {source}: "
                                           "empty entry"))
            continue
        cv = ChartVersion.from_map(item)
        problem = _invalid(cv)
        if problem:
            say(WARNING, text_line("WARN", f"skipping loading invalid entry for chart {quote(name)} "
                                           f"{quote(cv.version)} from {source}: validation: {problem}"))
            continue
        kept.append(cv)
    kept.reverse()
    return kept


def _invalid(cv: ChartVersion) -> str:
    if not cv.name:
        return "chart.metadata.name is required"
    if not cv.version:
        return "chart.metadata.version is required"
    try:
        semver.new_version(cv.version)
    except semver.SemverError:
        return f"chart.metadata.version {quote(cv.version)} is invalid"
    return ""


def compare_versions(a: ChartVersion, b: ChartVersion) -> int:
    """ChartVersions.Less: SemVer order, plain string order when either is not SemVer."""
    try:
        va, vb = semver.new_version(a.version), semver.new_version(b.version)
    except semver.SemverError:
        return (a.version > b.version) - (a.version < b.version)
    return semver.compare(va, vb)


def resolve_reference_url(base_url: str, ref_url: str) -> str:
    """repo.ResolveReferenceURL: a relative chart URL is resolved under the repository URL."""
    if urlsplit(ref_url).scheme:
        return ref_url
    base = urlsplit(base_url)
    directory = base._replace(path=base.path.rstrip("/") + "/", query="", fragment="")
    ref = urlsplit(ref_url)
    # urljoin resolves only the schemes it knows: an s3:// repository joins as http does
    joined = urlsplit(urljoin(urlunsplit(directory._replace(scheme="http")), ref.path))
    resolved = joined._replace(scheme=base.scheme)
    return urlunsplit(resolved._replace(query=base.query, fragment=ref.fragment))
