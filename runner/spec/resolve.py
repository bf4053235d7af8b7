"""A validated spec turned into what a run deploys: one ReleaseSpec per release, every
setting decided, paths absolute, charts located by kind, needs resolved to releases.

Precedence of a setting: the environment's override of the release, the release,
`defaults`, helmfile's `helmDefaults`, then deploy-runner's default. Values go
in this order, later winning: the environment's `values`, the release's, the
override's; `set` entries after all values (as Helm's --set after -f).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field, replace
from typing import Any

from runner.spec.models import (
    DeploySettings,
    Environment,
    Release,
    ReleaseSettings,
    Repository,
    Spec,
)
from runner.spec.source import Loaded, Path, Problem

DEFAULT_TIMEOUT = 300.0
DEFAULT_HISTORY_MAX = 10
_WAITS = {True: "watcher", False: "hookOnly"}
_SERVER_SIDE = {"true": "ssa", "false": "csa", "auto": "auto", True: "ssa", False: "csa"}


@dataclass(frozen=True)
class ChartRef:
    """Where a release's chart comes from: a local path, a chart repository, OCI, or a URL
    (`s3://bucket/prefix/name`, an archive's URL)."""

    kind: str  # "path" | "repo" | "oci" | "url"
    ref: str  # the absolute path, the chart name in the repository, the oci:// reference or URL
    version: str = ""
    repository: Repository | None = None
    # the release's own connection settings (helmfile's release keys), added to its repository's
    verify: bool = False
    keyring: str = ""
    plain_http: bool = False
    insecure_skip_tls_verify: bool = False
    # The archive, already fetched: the Lambda fetches a pushed chart to check it before the
    # run (runner.awslambda), and the run deploys those very bytes.
    located: str = ""

    def describe(self) -> str:
        where = f"{self.repository.name}/{self.ref}" if self.repository else self.ref
        return f"{where}@{self.version}" if self.version else where


@dataclass(frozen=True)
class ValuesSource:
    """One values entry: a file (absolute path) or an inline mapping and where it was written."""

    file: str = ""
    inline: dict[str, Any] | None = None
    origin: str = ""  # deploy-runner.yaml:12 for an inline mapping


@dataclass
class ReleaseSpec:
    """One release as a run deploys it."""

    name: str
    namespace: str
    chart: ChartRef
    values: list[ValuesSource] = field(default_factory=list)
    sets: dict[str, list[str]] = field(default_factory=dict)  # --set family, as engine merges them
    needs: list[str] = field(default_factory=list)  # keys (namespace/name) of other releases
    installed: bool = True
    labels: dict[str, str] = field(default_factory=dict)
    history_depth: int = 0
    include_history_values: bool = False
    apply_method: str = "auto"  # ssa | csa | auto
    force_conflicts: bool = False
    wait: str = "hookOnly"  # watcher | legacy | hookOnly | none
    wait_for_jobs: bool = False
    timeout: float = DEFAULT_TIMEOUT
    rollback_on_failure: bool = False
    create_namespace: bool = True
    secret_values: list[str] = field(default_factory=list)
    hook_logs_show: bool = True
    hook_logs_cap: int = 200
    history_max: int = DEFAULT_HISTORY_MAX
    take_ownership: bool = False
    cleanup_on_fail: bool = False
    skip_schema_validation: bool = False
    skip_crds: bool = False
    force_replace: bool = False
    description: str = ""
    when_branches: list[str] = field(default_factory=list)
    when_paths: list[str] = field(default_factory=list)
    preview: Any = None  # runner.spec.models.Preview, its strings not yet substituted
    index: int = 0  # its place in the spec's releases
    line: int = 0  # where it is written

    @property
    def key(self) -> str:
        return f"{self.namespace}/{self.name}"


def resolve(spec: Spec, loaded: Loaded, base_dir: str, environment: str,
            default_namespace: str) -> tuple[list[ReleaseSpec], list[Problem]]:
    """Every release of `spec` decided for `environment`; problems instead of errors."""
    problems: list[Problem] = []
    env = _environment(spec, environment, loaded, problems)
    repos = {repo.name: repo for repo in spec.repositories}
    releases: list[ReleaseSpec] = []
    for index, release in enumerate(spec.releases):
        path: Path = ("releases", index)
        override = env.releases.get(release.name) if env else None
        layers = [s for s in (override, release, spec.defaults, spec.helm_defaults) if s is not None]
        chart = _first(layers, "chart")
        if not chart:
            problems.append(Problem(loaded.line_of(path), (*path, "chart"), "is required"))
            continue
        namespace = _first(layers, "namespace") or default_namespace
        resolved = ReleaseSpec(
            name=release.name, namespace=namespace,
            chart=_chart(chart, _first(layers, "version") or "", repos, base_dir,
                         bool(_first(layers, "devel"))),
            index=index, line=loaded.line_of(path))
        resolved.chart = replace(resolved.chart, **_chart_settings(layers))
        resolved.values = _values(env, release, override, base_dir, loaded, index)
        resolved.sets = _sets(release, override, base_dir)
        resolved.labels = {**spec.common_labels, **(release.labels or {}),
                           **((override.labels if override else None) or {})}
        _settings(resolved, layers, base_dir)
        resolved.needs = list(_first(layers, "needs") or [])
        when = _first(layers, "when")
        if when is not None:
            resolved.when_branches, resolved.when_paths = list(when.branches), list(when.paths)
        resolved.preview = _first(layers, "preview")
        releases.append(resolved)
    problems += _check_unique(releases, loaded)
    problems += _resolve_needs(releases, loaded)
    return releases, problems


def _environment(spec: Spec, name: str, loaded: Loaded, problems: list[Problem]) -> Environment | None:
    if name in spec.environments:
        return spec.environments[name]
    if spec.environments or name != "default":
        known = ", ".join(sorted(spec.environments)) or "none"
        problems.append(Problem(loaded.line_of(("environments",)), ("environments",),
                                f'environment "{name}" is not defined (defined: {known})'))
    return None


def _first(layers: list[Any], attr: str) -> Any:
    """The value of the first layer that sets `attr` (set in the file, not defaulted)."""
    for layer in layers:
        fields = type(layer).model_fields
        if attr in fields and attr in layer.model_fields_set:
            return getattr(layer, attr)
    return None


def _chart(chart: str, version: str, repos: dict[str, Repository], base_dir: str,
           devel: bool) -> ChartRef:
    if devel and not version:
        version = ">0.0.0-0"  # Helm's --devel: pre-releases admitted
    if chart.startswith("oci://"):
        return ChartRef("oci", chart, version)
    if "://" in chart:  # s3://bucket/prefix/name, https://host/chart-1.0.0.tgz
        return ChartRef("url", chart, version)
    head, _, rest = chart.partition("/")
    if rest and head in repos and not chart.startswith((".", "/")):
        repo = repos[head]
        if repo.oci:
            return ChartRef("oci", f"oci://{repo.url.removeprefix('oci://').rstrip('/')}/{rest}",
                            version, repo)
        return ChartRef("repo", rest, version, repo)
    return ChartRef("path", os.path.normpath(os.path.join(base_dir, chart)), version)


def _chart_settings(layers: list[Any]) -> dict[str, Any]:
    """verify, keyring, plainHttp and insecureSkipTLSVerify of the release (or its defaults)."""
    return {"verify": bool(_first(layers, "verify")), "keyring": _first(layers, "keyring") or "",
            "plain_http": bool(_first(layers, "plain_http")),
            "insecure_skip_tls_verify": bool(_first(layers, "insecure_skip_tls_verify"))}


def _values(env: Environment | None, release: Release, override: ReleaseSettings | None,
            base_dir: str, loaded: Loaded, index: int) -> list[ValuesSource]:
    sources: list[ValuesSource] = []
    groups: list[tuple[list[Any], Path]] = []
    if env is not None:
        groups.append((env.values, ("environments",)))
    groups.append((release.values or [], ("releases", index, "values")))
    if override is not None and override.values:
        groups.append((override.values, ("environments",)))
    for entries, path in groups:
        for i, entry in enumerate(entries):
            if isinstance(entry, str):
                sources.append(ValuesSource(file=os.path.normpath(os.path.join(base_dir, entry))))
            else:
                line = loaded.line_of((*path, i)) if path[0] == "releases" else loaded.line_of(path)
                sources.append(ValuesSource(inline=entry, origin=str(line)))
    return sources


def _sets(release: Release, override: ReleaseSettings | None, base_dir: str) -> dict[str, list[str]]:
    """helmfile's set/setString as the --set family: value -> set, values -> set {a,b},
    file -> set-file (relative to the spec)."""
    out: dict[str, list[str]] = {"set": [], "set-string": [], "set-file": []}
    for layer in (release, override):
        if layer is None:
            continue
        for flag, entries in (("set", layer.set or []),
                              ("set-string", getattr(layer, "set_string", None) or [])):
            for entry in entries:
                if entry.file is not None:
                    path = os.path.normpath(os.path.join(base_dir, entry.file))
                    out["set-file"].append(f"{entry.name}={_escape(path)}")
                elif entry.values is not None:
                    items = ",".join(_escape(_scalar(v)) for v in entry.values)
                    out[flag].append(f"{entry.name}={{{items}}}")
                else:
                    out[flag].append(f"{entry.name}={_escape(_scalar(entry.value))}")
    return {flag: items for flag, items in out.items() if items}


def preview_sets(preview: Any, base_dir: str) -> dict[str, list[str]]:
    """A release's `preview.set` as the --set family, read as a release's `set` is."""
    return _sets(preview, None, base_dir)


def _scalar(value: Any) -> str:
    """helmfile writes a set value with Go's %v: true, 1, 1.5, and null as empty."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def _escape(text: str) -> str:
    """helmfile's escape for --set values: backslashes, commas and braces quoted."""
    return text.replace("\\", "\\\\").replace(",", "\\,").replace("{", "\\{").replace("}", "\\}")


def _settings(release: ReleaseSpec, layers: list[DeploySettings], base_dir: str) -> None:
    def get(attr: str, default: Any) -> Any:
        value = _first(layers, attr)
        return default if value is None else value

    release.history_depth = get("history_depth", 0)
    release.include_history_values = get("include_history_values", False)
    method = _first(layers, "apply_method")
    if method is None and _first(layers, "server_side") is not None:
        method = _SERVER_SIDE[_first(layers, "server_side")]
    release.apply_method = method or "auto"
    release.force_conflicts = get("force_conflicts", False)
    wait = get("wait", "hookOnly")
    release.wait = _WAITS.get(wait, wait) if isinstance(wait, bool) else wait
    release.wait_for_jobs = get("wait_for_jobs", False)
    release.timeout = seconds(get("timeout", DEFAULT_TIMEOUT))
    rollback = _first(layers, "rollback_on_failure")
    release.rollback_on_failure = bool(get("atomic", False) if rollback is None else rollback)
    release.create_namespace = get("create_namespace", True)
    release.secret_values = [os.path.normpath(os.path.join(base_dir, f))
                             for f in get("secret_values", [])]
    logs = _first(layers, "hook_logs")
    if logs is not None:
        release.hook_logs_show, release.hook_logs_cap = logs.show, logs.cap
    release.history_max = get("history_max", DEFAULT_HISTORY_MAX)
    release.take_ownership = get("take_ownership", False)
    release.cleanup_on_fail = get("cleanup_on_fail", False)
    release.skip_schema_validation = get("skip_schema_validation", False)
    release.skip_crds = get("skip_crds", False)
    release.force_replace = get("force", False)
    release.description = get("description", "")
    release.installed = get("installed", True)


def seconds(value: str | int | float) -> float:
    """A timeout: a Go duration (5m), or seconds as helmfile writes them (600)."""
    if isinstance(value, str):
        from runner.golang.time import parse_duration

        return parse_duration(value) / 1e9
    return float(value)


def _check_unique(releases: list[ReleaseSpec], loaded: Loaded) -> list[Problem]:
    seen: dict[str, ReleaseSpec] = {}
    problems = []
    for release in releases:
        if release.key in seen:
            problems.append(Problem(release.line, ("releases", release.index, "name"),
                                    f'release "{release.name}" in namespace "{release.namespace}" '
                                    f"is also releases[{seen[release.key].index}]"))
        seen.setdefault(release.key, release)
    return problems


def _resolve_needs(releases: list[ReleaseSpec], loaded: Loaded) -> list[Problem]:
    """Each need names one release (NAMESPACE/NAME, or NAME when the name is unique);
    keys replace the names; a cycle is a problem."""
    by_key = {r.key: r for r in releases}
    by_name: dict[str, list[ReleaseSpec]] = {}
    for release in releases:
        by_name.setdefault(release.name, []).append(release)
    problems = []
    for release in releases:
        keys = []
        for i, need in enumerate(release.needs):
            path: Path = ("releases", release.index, "needs", i)
            found, problem = _find_need(need, by_key, by_name)
            if problem:
                problems.append(Problem(loaded.line_of(path), path, problem))
            elif found is not None:
                keys.append(found.key)
        release.needs = keys
    if not problems:
        problems += _cycles(releases, loaded)
    return problems


def _find_need(need: str, by_key: dict[str, ReleaseSpec],
               by_name: dict[str, list[ReleaseSpec]]) -> tuple[ReleaseSpec | None, str]:
    parts = need.split("/")
    if len(parts) > 2:
        return None, (f'"{need}": a kube context in needs is not supported (one cluster per run); '
                      "write NAMESPACE/NAME")
    if len(parts) == 2:
        if need in by_key:
            return by_key[need], ""
        return None, f'"{need}" is not a release of this spec'
    named = by_name.get(need, [])
    if len(named) == 1:
        return named[0], ""
    if not named:
        return None, f'"{need}" is not a release of this spec'
    spaces = ", ".join(f"{r.namespace}/{r.name}" for r in named)
    return None, f'"{need}" names several releases ({spaces}): write NAMESPACE/NAME'


def _cycles(releases: list[ReleaseSpec], loaded: Loaded) -> list[Problem]:
    """A needs cycle, named in order (a needs b needs a), once per cycle."""
    by_key = {r.key: r for r in releases}
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    problems: list[Problem] = []

    def visit(key: str, trail: list[str]) -> None:
        state[key] = 1
        for need in by_key[key].needs:
            if state.get(need) == 1:
                cycle = trail[trail.index(need):] + [need]
                first = by_key[cycle[0]]
                names = " needs ".join(by_key[k].name for k in cycle)
                path: Path = ("releases", first.index, "needs")
                problems.append(Problem(loaded.line_of(path), path, f"a needs cycle: {names}"))
            elif state.get(need) is None:
                visit(need, [*trail, need])
        state[key] = 2

    for release in releases:
        if release.key not in state:
            visit(release.key, [release.key])
    return problems
