"""Preparing a revision: the one stage install, upgrade, a diff (so a spec run's plan) and a
rollback's re-render share.

    DeployRequest   what was asked, built once: by the CLI from its flags, or by a spec
                    run for a release (runner.actions.run.release_request); its fields
                    hold the chart source (SourceOptions), the values flags (ValueOptions)
                    and the render options (RenderOptions) as they are
      -> chart_input     the chart located and its values read, in Helm's order (the CLI
                         does it before it connects, a run once for a release's plan and
                         deploy): a ChartInput
      -> prepare         the values an upgrade keeps (--reuse-values...), the revision, the
                         chart rendered as the new revision (render_revision: the cluster's
                         capabilities, `lookup`, .Release.History), the pending record:
                         a Plan
      -> runner.actions.deploy applies the Plan; runner.actions.diff compares it with
         what is stored and live.

Each action finds the records it follows itself (install: the name is free; upgrade:
the latest and the deployed record, a stranded one recovered under the lock; a diff:
whatever is there) and its apply method, then hands them to `prepare`. A rollback
re-renders the target revision's stored chart and values through `render_revision`.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from runner import engine
from runner.actions.journal import Journal
from runner.actions.release_config import (
    DEFAULT_TIMEOUT,
    ActionConfig,
    check_labels,
    merge_labels,
    now,
)
from runner.actions.template import RenderOptions, render_resources
from runner.chart.uservalues import ValueOptions
from runner.engine_objects import default_capabilities
from runner.errors import RunnerError
from runner.kube.apply import ApplyResult
from runner.kube.cluster import Cluster
from runner.release import history as release_history
from runner.release.applymethod import method_for
from runner.release.chartjson import chart_to_json
from runner.release.record import (
    CLIENT_SIDE_APPLY,
    DEPLOYED,
    FAILED,
    PENDING_INSTALL,
    PENDING_UPGRADE,
    SUPERSEDED,
    Hook,
    Info,
    Release,
)
from runner.release.storage import ReleaseNotFoundError
from runner.release.storage.storage import DEFAULT_HISTORY_MAX

if TYPE_CHECKING:
    from runner.chart.sources.downloader import SourceOptions
    from runner.chart.sources.messages import Say


@dataclass
class InstallOptions:
    """install's own flags."""

    generate_name: bool = False  # -g: NAME is <chart>-<unix time>
    replace: bool = False  # --replace: reuse the name of a failed or uninstalled release


@dataclass
class UpgradeOptions:
    """upgrade's own flags."""

    install: bool = False  # -i: install when there is no release (or it was uninstalled)
    reuse_values: bool = False
    reset_values: bool = False
    reset_then_reuse_values: bool = False
    cleanup_on_fail: bool = False
    history_max: int = DEFAULT_HISTORY_MAX
    force_replace: bool = False  # --force-replace (--force): PUT instead of patch


@dataclass
class DeployRequest:
    """One install or upgrade as asked for: the CLI's flags, or a spec's release. Built once;
    every step reads it, none rebuilds it."""

    name: str  # "" with --generate-name
    chart: str = ""  # the chart as given: a path, repo/name, oci://..., a URL
    source: SourceOptions | None = None  # where and how to fetch it; None: a local path only
    dependency_update: bool = False  # a chart directory's dependencies updated before loading
    values: ValueOptions = field(default_factory=ValueOptions)  # -f, --secret-values, --set...
    # Values documents given by name rather than files (a spec's inline mappings), read as
    # -f reads a file.
    inline_values: dict[str, bytes] = field(default_factory=dict)
    render: RenderOptions = field(default_factory=RenderOptions)
    install: InstallOptions = field(default_factory=InstallOptions)
    upgrade: UpgradeOptions = field(default_factory=UpgradeOptions)
    server_side: str = "auto"  # true | false | auto (a new release: server-side apply)
    force_conflicts: bool = False
    dry_run: str = ""  # "", "client", "server"
    hide_secret: bool = False  # dry runs only: Secret documents left out of the manifest
    take_ownership: bool = False
    create_namespace: bool = False
    skip_crds: bool = False  # install only applies crds/ (so upgrade --install too)
    no_hooks: bool = False
    wait: bool = False
    wait_strategy: str = "watcher"  # watcher | legacy (Helm 4 --wait=...)
    wait_for_jobs: bool = False
    timeout: float = DEFAULT_TIMEOUT
    rollback_on_failure: bool = False  # --rollback-on-failure (--atomic); implies waiting
    description: str = ""
    labels: dict[str, str] = field(default_factory=dict)  # --labels: on the stored record
    disable_openapi_validation: bool = False  # Build checks documents only as far as decoding
    wait_for_lock: float = 0.0


@dataclass
class ChartInput:
    """A request's chart located and its values read (chart_input)."""

    path: str  # the chart on disk: a directory or an archive
    values: dict[str, Any]  # the user's values, merged as Helm merges -f and --set*
    # What the user marked secret (--secret-values files, --set-file contents): values
    # trees or strings, hidden from hook logs and evidence (runner.release.redact).
    secret_values: list[Any] = field(default_factory=list)


class DeployError(RunnerError):
    """An install or upgrade failed (the CLI prefixes INSTALLATION / UPGRADE FAILED)."""


class InstallError(DeployError):
    """Helm prefixes install failures with INSTALLATION FAILED at the CLI."""


class UpgradeError(DeployError):
    """Helm prefixes upgrade failures with UPGRADE FAILED at the CLI."""


@dataclass
class RenderedRelease:
    manifest: str
    hooks: list[Hook]
    notes: str
    chart_json: dict[str, Any]
    history: list[dict[str, Any]] = field(default_factory=list)
    # The rendered documents (runner.manifest.Manifest and Hook, with their template positions
    # when tracked) behind `manifest` and `hooks`.
    documents: list[Any] = field(default_factory=list)
    hook_documents: list[Any] = field(default_factory=list)


@dataclass
class Plan:
    """One install or upgrade, prepared: the record it writes and how it applies."""

    release: Release  # the new revision, pending-install or pending-upgrade
    server_side: bool
    error: type[DeployError]  # what a failure raises: InstallError or UpgradeError
    rendered: RenderedRelease  # what the record's manifest, hooks and notes come from
    previous: Release | None = None  # upgrade: the release whose objects are live now
    secret_values: list[Any] = field(default_factory=list)  # the request's (ChartInput's)
    # SSA over objects client-side apply may have written (a CSA release upgraded, objects an
    # install adopts): our own `helm` Update entries are folded into the Apply entry first
    migrating_from_csa: bool = False
    three_way_for_custom: bool = False  # CSA take-over merges custom resources three-way
    force_replace: bool = False  # PUT changed objects instead of patching them
    replace: bool = False  # install --replace (or a retry): supersede the last record first
    history_max: int = 0  # revisions kept when the record is stored (0: all)
    notes: list[str] = field(default_factory=list)  # told with the result
    # Called after the record is marked failed; may raise its own error (cleanup, undo).
    on_failure: Callable[[RunnerError, ApplyResult], None] | None = None

    @property
    def installing(self) -> bool:
        return self.previous is None


def chart_input(request: DeployRequest, say: Say, *, secrets: bool = True) -> ChartInput:
    """LocateChart, then (a chart directory, --dependency-update) its dependencies updated,
    then the values merged: in Helm's order, so the same bad input fails first where Helm's
    does. What fetching says (a registry's `Pulled:` report, the dependency update's
    progress) goes to `say` (runner.chart.sources.messages). `secrets`:
    what the values flags mark secret is kept (--secret-values files, --set-file contents);
    a spec's run has its own (its releases' secretValues: runner.actions.run), and a spec's
    set files are not secret."""
    from runner.actions.template import locate_chart
    from runner.chart.uservalues import merge_options, read_values_file

    path = locate_chart(request.chart, request.source, say)
    if request.dependency_update and os.path.isdir(path):
        _update_dependencies(path, request.source, say)
    inline = request.inline_values

    def read(name: str) -> bytes:
        return inline[name] if name in inline else read_values_file(name)

    secret_values: list[Any] = []
    values = merge_options(request.values, read, secret_values if secrets else None)
    return ChartInput(path, values, secret_values)


def _update_dependencies(path: str, source: SourceOptions | None, say: Say) -> None:
    from pathlib import Path

    from runner.chart.sources.dependency import Manager
    from runner.chart.sources.downloader import SourceOptions
    from runner.chart.sources.paths import HelmPaths

    Manager(Path(path), source or SourceOptions(), HelmPaths.from_env(), skip_refresh=False, say=say).update()


def debug_dependencies(journal: Journal, chart: Any) -> None:
    """The line Helm logs once the chart is loaded (install: once the name is checked)."""
    journal.debug("number of dependencies in the chart", chart=chart.name(),
                  dependencies=len(chart.metadata.dependencies))


def prepare(cfg: ActionConfig, journal: Journal, request: DeployRequest, given: ChartInput,
            chart: Any, *, name: str, server_side: bool, last: Release | None = None,
            current: Release | None = None, track_positions: bool = False,
            before_render: Callable[[Any], None] | None = None) -> Plan:
    """The new revision of release `name`: an upgrade of `current` (the record whose objects
    are live; `last`, the newest record, gives the revision), or an install when there is
    none. Renders `chart` with the request's values (an upgrade's kept as --reuse-values and
    its kin say), and makes the pending record; writes nothing. `before_render`: install's
    CRD step, `track_positions`: a diff's documents point at their template lines."""
    installing = current is None
    namespace = cfg.namespace if current is None else current.namespace
    values = given.values if current is None else reuse_values(given.values, request.upgrade, chart, current)
    revision = 1 if last is None or current is None else last.version + 1
    rendered = render_revision(
        cfg, journal, chart, given.path, values,
        engine.ReleaseOptions(name, namespace, revision, installing, not installing), request.render,
        offline=request.dry_run == "client", track_positions=track_positions, before_render=before_render)
    plan = Plan(_record(request, rendered, name, namespace, revision, values, server_side, last, current),
                server_side, InstallError if installing else UpgradeError, rendered, previous=current,
                secret_values=given.secret_values)
    if current is None:
        # Helm: taking objects over with client-side apply merges custom resources three-way;
        # install's Update of objects it adopts folds client-side managers first, always.
        plan.three_way_for_custom = request.take_ownership and not server_side
        plan.migrating_from_csa = server_side
    else:
        # Helm asks the release being replaced (the deployed one), not the latest record.
        plan.migrating_from_csa = current.apply_method in ("", CLIENT_SIDE_APPLY) and server_side
        plan.force_replace = request.upgrade.force_replace
        plan.history_max = request.upgrade.history_max
    return plan


def _record(request: DeployRequest, rendered: RenderedRelease, name: str, namespace: str, revision: int,
            values: dict[str, Any], server_side: bool, last: Release | None,
            current: Release | None) -> Release:
    """The pending record of the new revision."""
    stamp = now()
    if current is None or last is None:
        labels = check_labels(request.labels)
        info = Info(status=PENDING_INSTALL, first_deployed=stamp, last_deployed=stamp,
                    description="Initial install underway", notes=rendered.notes)
        labels = {} if request.dry_run else labels  # Helm's dry-run record carries none
    else:
        labels = merge_labels(last.labels, request.labels)
        info = Info(status=PENDING_UPGRADE, first_deployed=current.info.first_deployed, last_deployed=stamp,
                    description="Preparing upgrade", notes=rendered.notes)
    return Release(name=name, namespace=namespace, version=revision, chart=rendered.chart_json,
                   config=values, manifest=rendered.manifest, hooks=rendered.hooks, info=info,
                   apply_method=method_for(server_side), labels=labels)


def current_release(cfg: ActionConfig, last: Release) -> Release:
    """The record whose objects are live: the deployed one, else (none deployed) the latest
    when it failed or was superseded."""
    if last.info.status == DEPLOYED:
        return last
    try:
        return cfg.storage.deployed(last.name)
    except ReleaseNotFoundError as err:
        if last.info.status in (FAILED, SUPERSEDED):
            return last
        raise UpgradeError(f'"{last.name}" has no deployed releases') from err


def reuse_values(given: dict[str, Any], own: UpgradeOptions, chart: Any,
                 current: Release) -> dict[str, Any]:
    """reuseValues: --reset-values, --reuse-values, --reset-then-reuse-values, or copy when empty."""
    from runner.chart.values import Warnings, coalesce_tables, coalesce_values

    values = dict(given)
    if own.reset_values:
        return values
    if own.reuse_values:
        if current.chart:
            chart.values = coalesce_values(stored_chart(current), dict(current.config), Warnings())
        return coalesce_tables(values, dict(current.config), Warnings())
    if own.reset_then_reuse_values:
        return coalesce_tables(values, dict(current.config), Warnings())
    if not values and current.config:
        return dict(current.config)
    return values


def stored_chart(release: Release) -> Any:
    """A release's stored chart (its metadata, values and own templates)."""
    from runner.release.chartjson import chart_from_json

    return chart_from_json(release.chart or {})


# -- rendering -------------------------------------------------------------------


def render_revision(cfg: ActionConfig, journal: Journal, chart: Any, chart_source: str | None,
                    values: dict[str, Any], release: Any, render: RenderOptions, *,
                    offline: bool = False, track_positions: bool = False,
                    before_render: Callable[[Any], None] | None = None) -> RenderedRelease:
    """Coalesce values, render, split hooks and notes: Helm's renderResources for the revision
    `release` (engine.ReleaseOptions). With a cluster (not `offline`: --dry-run=client) the
    templates see its capabilities and `lookup` reads it, and an upgrade's (or a rollback's)
    see up to render.release_history_max earlier records as .Release.History; an install sees
    none (HIP-0029: no deployed release), also over records a `uninstall --keep-history` or a
    failed install left."""
    from runner.chart.prepare import check_installable, check_kube_version

    coalesced, warnings = engine.prepare_values(chart, values,
                                                skip_schema_validation=render.skip_schema_validation)
    for warning in warnings:
        journal.warn(warning)
    check_installable(chart)
    if before_render is not None:
        before_render(chart)
    lookup = None  # --dry-run=client: Helm's lookup has no cluster (empty maps)
    if offline:
        caps, version = default_capabilities(), ""
    else:
        cluster = cfg.require_cluster()
        version = cluster.server_version()
        caps = cluster_capabilities(cluster, version)
        lookup = cluster.lookup
    check_kube_version(chart, version or caps.KubeVersion.String())
    top = engine.to_render_values(chart, coalesced, release, caps)
    history: list[dict[str, Any]] = []
    if release.is_upgrade and render.release_history_max > 0 and not offline:
        history = release_history.entries(cfg.storage, release.name, render.release_history_max,
                                          render.include_history_values)
    release_history.attach(top, history)
    rendered = render_resources(chart, top, render, journal.warn, lookup=lookup,
                                track_positions=track_positions)
    hooks = [_record_hook(h) for h in rendered.hooks]
    return RenderedRelease(rendered.manifest, hooks, rendered.notes, chart_to_json(chart, chart_source),
                           history, list(rendered.manifests), list(rendered.hooks))


def _record_hook(hook: Any) -> Hook:
    return Hook(name=hook.name, kind=hook.kind, path=hook.path, manifest=hook.manifest,
                events=list(hook.events), weight=hook.weight,
                delete_policies=list(hook.delete_policies),
                output_log_policies=list(hook.output_log_policies))


def cluster_capabilities(cluster: Cluster, version: str) -> Any:
    """The cluster's version and served API versions, as Helm's getCapabilities."""
    apis = cluster.api_versions()
    try:
        return default_capabilities(version, apis)
    except RunnerError:
        raise
    except Exception:  # noqa: BLE001 - a dev build's version (v0.0.0-master+...) may not parse
        return default_capabilities(None, apis)
