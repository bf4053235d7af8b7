"""`deploy-runner template`: Helm 4.1.4's `helm template`, byte for byte.

The flow is Install.Run in client-only mode (pkg/action/install.go and
renderResources in action.go) followed by pkg/cmd/template.go's printing:
manifests in install order with `---\\n# Source: PATH\\n` headers, CRDs first
with --include-crds, NOTES.txt never printed, hooks after the manifests
(kind order; --skip-tests drops test hooks, --no-hooks all of them), then
--show-only filtering or --output-dir files.
"""

from __future__ import annotations

import os
import posixpath
from collections.abc import Callable, Sequence

from runner import engine
from runner.engine_objects import default_capabilities
from runner.errors import RunnerError
from runner.lazy_pattern import LazyPattern
from runner.manifest import (
    Hook,
    Manifest,
    go_trim_space,
    is_test_hook,
    sort_manifests,
    split_manifests,
    split_manifests_order_key,
)

TYPE_CHECKING = False  # `typing` costs ~2 ms at every start: see docs/speed.md
if TYPE_CHECKING:
    from typing import Any, TextIO

    from runner.chart.sources.downloader import SourceOptions
    from runner.chart.uservalues import ValueOptions

NOTES_SUFFIX = "NOTES.txt"
DEBUG_HINT = "\n\nUse --debug flag to render out invalid YAML"
# Install.Run's warning when a server dry run (install, template) leaves a chart's crds/ out.
CRDS_ON_DRY_RUN = "This chart or one of its subcharts contains CRDs. Rendering may fail or contain inaccuracies."
# How Install.Run (template --dry-run=server's too), upgrade and rollback wrap a failed Build.
BUILD_FAILED_FROM = "unable to build kubernetes objects from"
BUILD_FAILED = f"{BUILD_FAILED_FROM} release manifest"
_SOURCE_NAME = LazyPattern(r"# Source: [^/]+/(.+)")


class RenderOptions:
    """How a chart is rendered, for `template` and for a release alike: the render flags
    (--skip-schema-validation, --render-subchart-notes, --post-renderer, and HIP-0029's
    --release-history-max and --include-history-values), built once by the CLI or a spec.

    Plain classes here, not dataclasses: creating one costs ~1 ms at every start."""

    __slots__ = ("skip_schema_validation", "render_subchart_notes", "post_renderer",
                 "release_history_max", "include_history_values")

    def __init__(self, *, skip_schema_validation: bool = False, render_subchart_notes: bool = False,
                 post_renderer: Any = None, release_history_max: int = 0,
                 include_history_values: bool = False) -> None:
        self.skip_schema_validation = skip_schema_validation
        self.render_subchart_notes = render_subchart_notes
        self.post_renderer = post_renderer  # runner.postrender.PostRenderer (--post-renderer)
        # How many earlier releases an upgrade's (or a rollback's) templates see as
        # .Release.History (0: none); an install, or a render without a cluster, sees none.
        self.release_history_max = release_history_max
        self.include_history_values = include_history_values


class TemplateOptions:
    """What `helm template` was asked for."""

    __slots__ = ("release_name", "chart", "namespace", "values", "render", "show_only",
                 "output_dir", "use_release_name", "include_crds", "skip_crds", "skip_tests",
                 "is_upgrade", "no_hooks", "kube_version", "api_versions", "source", "dependency_update",
                 "cluster", "take_ownership", "disable_openapi_validation")

    def __init__(
        self, *, release_name: str = "release-name", chart: str = "", namespace: str = "default",
        values: ValueOptions | None = None, render: RenderOptions | None = None,
        show_only: Sequence[str] = (), output_dir: str = "", use_release_name: bool = False,
        include_crds: bool = False, skip_crds: bool = False, skip_tests: bool = False,
        is_upgrade: bool = False, no_hooks: bool = False, kube_version: str | None = None,
        api_versions: Sequence[str] = (),
        # Where the chart comes from (--version, --repo, TLS, credentials, --verify); None for
        # a local chart that needs none of them.
        source: SourceOptions | None = None,
        dependency_update: bool = False,  # --dependency-update: fetch missing dependencies first
        # --dry-run=server: the ActionConfig whose cluster gives .Capabilities and answers
        # `lookup`; None renders offline (lookup gives empty maps)
        cluster: Any = None,
        # --dry-run=server: the check of existing objects Install.Run makes, and its Build's validation
        take_ownership: bool = False, disable_openapi_validation: bool = False,
    ) -> None:
        self.release_name = release_name
        self.chart = chart
        self.namespace = namespace
        self.values = values  # -f and the --set family (runner.chart.uservalues.ValueOptions)
        self.render = render or RenderOptions()
        self.show_only = show_only
        self.output_dir = output_dir
        self.use_release_name = use_release_name
        self.include_crds = include_crds
        self.skip_crds = skip_crds
        self.skip_tests = skip_tests
        self.is_upgrade = is_upgrade
        self.no_hooks = no_hooks
        self.kube_version = kube_version
        self.api_versions = api_versions
        self.source = source
        self.dependency_update = dependency_update
        self.cluster = cluster
        self.take_ownership = take_ownership
        self.disable_openapi_validation = disable_openapi_validation


class Rendered:
    """What renderResources hands back: the manifest text, hooks, notes, and the
    files written under --output-dir."""

    __slots__ = ("manifest", "hooks", "manifests", "notes", "written")

    def __init__(self, manifest: str, hooks: list[Hook], manifests: list[Manifest],
                 notes: str, written: list[str]) -> None:
        self.manifest = manifest
        self.hooks = hooks
        self.manifests = manifests
        self.notes = notes
        self.written = written


class RenderFailed(RunnerError):
    """A render error after the release existed: Helm adds the --debug hint."""


class TemplateResult:
    """What `helm template` prints: the files written under --output-dir (each printed as
    `wrote PATH`), then the text."""

    __slots__ = ("written", "text")

    def __init__(self, written: list[str], text: str) -> None:
        self.written = written
        self.text = text


def render_template(opts: TemplateOptions, on_warning: Callable[[str], None],
                    out: TextIO, on_debug: Callable[[str], None] | None = None) -> TemplateResult:
    """Render as `helm template` does; errors raise RunnerError. Values warnings go to
    `on_warning` as they come, Helm's debug log lines (--debug) to `on_debug`; `out` gets
    --dependency-update's progress. The steps come in Helm's order (runInstall, then
    Install.RunWithContext), so the same input fails first where Helm's does."""
    say = _sayer(on_warning, out)
    path = locate_chart(opts.chart, opts.source, say=say)
    if on_debug is not None:
        on_debug(_debug_line("Chart path", path=os.path.abspath(path)))
    user_values = _user_values(opts.values)
    chart = engine.load_chart(path)
    if opts.dependency_update and opts.source is not None:
        from runner.actions.pull import update_missing_dependencies

        chart = update_missing_dependencies(chart, path, opts.source, say)
    caps = default_capabilities(opts.kube_version, opts.api_versions)
    lookup = None  # offline: Helm's lookup gives empty maps
    if opts.cluster is not None:
        caps = _cluster_capabilities(opts.cluster, on_warning)
        lookup = opts.cluster.require_cluster().lookup
    if on_debug is not None:
        on_debug(_debug_line("number of dependencies in the chart", chart=chart.name(),
                             dependencies=len(chart.metadata.dependencies)))
    values, warnings = engine.prepare_values(chart, user_values,
                                             skip_schema_validation=opts.render.skip_schema_validation)
    for warning in warnings:
        on_warning(warning)
    if opts.cluster is not None and not opts.skip_crds and chart.crd_objects():
        from runner.golang.slog import text_line  # a server dry run: its crds/ are warned of

        on_warning(text_line("WARN", CRDS_ON_DRY_RUN))
    release = engine.ReleaseOptions(opts.release_name, opts.namespace, 1,
                                    not opts.is_upgrade, opts.is_upgrade)
    top = engine.to_render_values(chart, values, release, caps)
    try:
        engine.check_kube_version(chart, caps.KubeVersion.String())
        rendered = render_resources(chart, top, opts.render, on_warning, lookup=lookup)
        _template_files(rendered, chart, opts)
    except RunnerError as err:
        raise RenderFailed(f"{err}{DEBUG_HINT}") from err
    if opts.cluster is not None:
        _check_on_cluster(opts, rendered.manifest)
    text = assemble(rendered, opts)
    return TemplateResult(rendered.written, select_shown(text, opts.show_only) if opts.show_only else text)


def _user_values(options: ValueOptions | None) -> dict[str, Any]:
    """values.Options.MergeValues: -f files (then --secret-values' files), then the --set family."""
    from runner.chart.uservalues import merge_options

    return merge_options(options) if options is not None else {}


def _check_on_cluster(opts: TemplateOptions, manifest: str) -> None:
    """A server dry run goes on as Install.Run's: the manifest built against the API (a
    document that is not an object, a kind the cluster does not serve: Helm's errors),
    and unless --is-upgrade, objects that exist already must be the release's (or
    --take-ownership). Nothing is written."""
    from runner.kube.ownership import OwnershipError, set_release_metadata
    from runner.kube.resources import ManifestBuildError

    cluster = opts.cluster.require_cluster()
    try:
        resources = cluster.build(manifest, opts.namespace, validate=not opts.disable_openapi_validation)
    except ManifestBuildError as err:
        raise ManifestBuildError(f"{BUILD_FAILED}: {err}") from err
    set_release_metadata(resources, opts.release_name, opts.namespace)
    if opts.is_upgrade or not resources:
        return
    try:
        cluster.existing(resources, opts.release_name, opts.namespace, take_ownership=opts.take_ownership)
    except OwnershipError as err:
        raise RunnerError(f"unable to continue with install: {err}") from err


def _debug_line(message: str, **attrs: Any) -> str:
    from runner.golang.slog import text_line

    return text_line("DEBUG", message, attrs)


def _cluster_capabilities(cfg: Any, on_warning: Callable[[str], None]) -> Any:
    """Install's reachability check and getCapabilities for a server dry run (--api-versions
    and --kube-version are not added: Helm ignores them here)."""
    from runner.engine_objects import server_capabilities

    cfg.check_reachable(on_warning)
    client = cfg.kube()
    return server_capabilities(client.reachable(), client.api_versions())


def _sayer(on_warning: Callable[[str], None], out: TextIO) -> Callable[[str, str], None]:
    """What chart sources say (runner.chart.sources.messages) for render_template's callers:
    Helm's stdout lines (--dependency-update's progress) to `out`, its stderr lines to
    `on_warning`."""
    def say(kind: str, text: str) -> None:
        from runner.chart.sources.messages import NOTICE

        if kind == NOTICE:
            out.write(text + "\n")
        else:
            on_warning(text)

    return say


def _local_only(kind: str, text: str) -> None:
    """The `say` of a lookup without chart-source options: only local paths, which say nothing."""


def locate_chart(name: str, source: SourceOptions | None = None,
                 say: Callable[[str, str], None] = _local_only) -> str:
    """ChartPathOptions.LocateChart: local paths here, anything else through chart sources
    (`source`: where and how; None for a chart that can only be a local path; what they say,
    a registry's `Pulled:` report, goes to `say`)."""
    remote = source is not None and (source.repo_url or name.startswith("oci://") or source.verify)
    if os.path.exists(name) and not remote:
        return name
    if source is not None and (remote or not (os.path.isabs(name) or name.startswith("."))):
        from runner.chart.sources.downloader import locate_chart as locate_remote

        return locate_remote(name, source, say=say)
    if os.path.isabs(name) or name.startswith("."):
        raise RunnerError(f'path "{name}" not found')
    if "/" not in name:
        raise RunnerError("non-absolute URLs should be in form of repo_name/path_to_chart, "
                          f"got: {name}")
    raise RunnerError(f'repo {name.split("/", 1)[0]} not found')


def render_resources(chart: Any, top: dict[str, Any], render: RenderOptions,
                     on_warning: Callable[[str], None], *, lookup: Any = None,
                     track_positions: bool = False) -> Rendered:
    """renderResources: render, pull out NOTES, post-render, sort; the manifest text of the
    sorted documents. Sorting's warnings go to `on_warning` (the CLI prints them on stderr).
    `lookup`: Helm's lookup against a cluster (Cluster.lookup; None: empty maps);
    `track_positions`: documents keep their template positions (a diff points at lines)."""
    result = engine.render(chart, top, track_positions=track_positions, lookup=lookup)
    files = result.texts()
    notes = _take_notes(files, chart.name(), render.render_subchart_notes)
    positions = result.positions() if track_positions else None
    if render.post_renderer is not None:
        from runner.postrender import post_render

        files = post_render(files, render.post_renderer)
        positions = None  # the post-renderer's output has no template lines
    sorted_docs = sort_manifests(files, on_warning=on_warning, positions=positions)
    manifest = "".join(f"---\n# Source: {m.name}\n{m.content}\n" for m in sorted_docs.manifests)
    return Rendered(manifest, sorted_docs.hooks, sorted_docs.manifests, notes, [])


def _template_files(rendered: Rendered, chart: Any, opts: TemplateOptions) -> None:
    """`template`'s own output of the documents: with --include-crds the chart's CRDs come
    first; with --output-dir each goes to its file (the manifest text is then empty)."""
    if not (opts.include_crds or opts.output_dir):
        return
    parts: list[str] = []
    names: set[str] = set()
    if opts.include_crds:
        for name, crd in chart.crd_objects():
            data = crd.data.decode("utf-8", "surrogateescape")
            _emit(parts, rendered.written, names, opts, name, data)
    for manifest in rendered.manifests:
        _emit(parts, rendered.written, names, opts, manifest.name, manifest.content,
              release_dir=opts.use_release_name and opts.release_name)
    rendered.manifest = "".join(parts)


def _take_notes(files: dict[str, str], chart_name: str, sub_notes: bool = False) -> str:
    """Remove every NOTES.txt; keep the top chart's text (Helm's notes), and with
    --render-subchart-notes the subcharts' too."""
    notes: list[str] = []
    for name in [n for n in files if n.endswith(NOTES_SUFFIX)]:
        text = files.pop(name)
        if sub_notes or name == posixpath.join(chart_name, "templates", NOTES_SUFFIX):
            notes.append(text)
    return "\n".join(notes)


def _emit(parts: list[str], written: list[str], names: set[str], opts: TemplateOptions,
          name: str, data: str, release_dir: str | bool = False) -> None:
    """A document into the manifest text, or (--output-dir) into its file: appended
    when this run wrote that template name already."""
    if not opts.output_dir:
        parts.append(f"---\n# Source: {name}\n{data}\n")
        return
    directory = os.path.join(opts.output_dir, release_dir) if release_dir else opts.output_dir
    written.append(write_to_file(directory, name, data, name in names))
    names.add(name)


def write_to_file(directory: str, name: str, data: str, append: bool) -> str:
    """writeToFile: the same `---\\n# Source:` block in DIR/NAME; the path written (Helm
    prints `wrote PATH`)."""
    from pathlib import Path  # only with --output-dir

    target = directory + os.sep + name
    Path(target).parent.mkdir(parents=True, exist_ok=True)
    with open(target, "a" if append else "w", encoding="utf-8", errors="surrogateescape") as handle:
        handle.write(f"---\n# Source: {name}\n{data}\n")
    return target


def assemble(rendered: Rendered, opts: TemplateOptions) -> str:
    """template.go: the trimmed manifest, then hooks (unless --no-hooks); under
    --output-dir the hooks' files are written (and added to `rendered.written`)."""
    parts = [go_trim_space(rendered.manifest) + "\n"]
    if opts.no_hooks:
        return "".join(parts)
    written: set[str] = set()
    for hook in rendered.hooks:
        if opts.skip_tests and is_test_hook(hook):
            continue
        if not opts.output_dir:
            parts.append(f"---\n# Source: {hook.path}\n{hook.manifest}\n")
            continue
        directory = opts.output_dir
        if opts.use_release_name:
            directory = os.path.join(directory, opts.release_name)
        if os.path.exists(os.path.join(directory, hook.path)):
            written.add(hook.path)
        rendered.written.append(write_to_file(directory, hook.path, hook.manifest, hook.path in written))
    return "".join(parts)


def select_shown(text: str, show_only: Sequence[str]) -> str:
    """--show-only: documents whose template path matches each pattern, in order."""
    docs = split_manifests(text)
    ordered = [docs[k] for k in sorted(docs, key=split_manifests_order_key)]
    chosen: list[str] = []
    for pattern in show_only:
        pattern = pattern.replace(os.sep, "/")
        missing = True
        for doc in ordered:
            match = _SOURCE_NAME.search(doc)
            if match is None or not _filepath_match(pattern, match.group(1)):
                continue
            chosen.append(doc)
            missing = False
        if missing:
            raise RunnerError(f"could not find template {pattern} in chart")
    return "".join(f"---\n{doc}\n" for doc in chosen)


def _filepath_match(pattern: str, name: str) -> bool:
    """filepath.Match; Helm drops its error, so a malformed pattern matches nothing."""
    from runner.golang.filepath import ErrBadPattern, match  # only with --show-only

    try:
        return match(pattern, name)
    except ErrBadPattern:
        return False
