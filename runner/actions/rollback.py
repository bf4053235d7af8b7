"""`rollback [REVISION]`: Helm 4.1.4's Rollback.Run.

A new revision is written with the target revision's chart, values,
manifest and hooks ("Rollback to N"); auto apply method follows the target
revision's apply_method (runner.release.applymethod); every deployed record
becomes superseded.

Beyond Helm (HIP-0029/HIP-0027, opt-in): with --release-history-max N > 0 the
target revision's stored chart is rendered again with its stored values, so
templates see `.Release.History` (the releases before the new revision, newest
first: `.DeployedChart` is the release rolled back from) and a chart can, say,
run a down-migration Job when a rollback crosses a major version. The record says
so in its description. Helm stores no subcharts in a record, so a release that had
subcharts is refused (roll back without the flag to re-apply its stored manifest).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from runner import engine
from runner.actions import evidence
from runner.actions.apply_steps import build, preflight
from runner.actions.hook_logs import HookObserver
from runner.actions.hooks import run_hooks
from runner.actions.journal import Journal
from runner.actions.prepare import RenderedRelease, render_revision, stored_chart
from runner.actions.release_config import (
    DEFAULT_TIMEOUT,
    ActionConfig,
    now,
    recover_stranded,
    validate_name,
)
from runner.actions.results import ReleaseResult
from runner.actions.template import BUILD_FAILED_FROM, RenderOptions
from runner.errors import RunnerError, interrupted
from runner.kube.cluster import Lock
from runner.kube.ownership import set_release_metadata
from runner.kube.wait import in_effect
from runner.release.applymethod import csa_force_explanation, method_for, resolve_server_side
from runner.release.record import (
    DEPLOYED,
    FAILED,
    PENDING_ROLLBACK,
    PENDING_STATUSES,
    SUPERSEDED,
    Info,
    Release,
)
from runner.release.storage import ReleaseNotFoundError
from runner.release.storage.storage import DEFAULT_HISTORY_MAX

if TYPE_CHECKING:
    from runner.kube.resources import Resource


@dataclass
class RollbackOptions:
    name: str
    revision: int = 0  # 0: the one before the latest
    server_side: str = "auto"
    force_conflicts: bool = False
    cleanup_on_fail: bool = False
    history_max: int = DEFAULT_HISTORY_MAX
    dry_run: str = ""  # "", "client" or "server"
    wait: bool = False
    wait_strategy: str = "watcher"  # watcher | legacy (Helm 4 --wait=...)
    wait_for_jobs: bool = False
    timeout: float = DEFAULT_TIMEOUT
    no_hooks: bool = False
    wait_for_lock: float = 0.0
    # render.release_history_max > 0: re-render with .Release.History (see the module doc)
    render: RenderOptions = field(default_factory=RenderOptions)


class RollbackError(RunnerError):
    pass


RERENDERED = "re-rendered with .Release.History"


def rollback(cfg: ActionConfig, journal: Journal, opts: RollbackOptions) -> ReleaseResult:
    validate_name(opts.name)
    if opts.revision < 0:
        raise RollbackError("invalid release revision")
    if opts.render.release_history_max < 0:
        raise RollbackError("--release-history-max must be 0 (no history) or more")
    if opts.dry_run:
        return rollback_locked(cfg, journal, opts, None)  # writes nothing: no lock to hold
    with cfg.locked(opts.name, journal, opts.wait_for_lock) as lock:
        return rollback_locked(cfg, journal, opts, lock)


def rollback_locked(cfg: ActionConfig, journal: Journal, opts: RollbackOptions,
                    lock: Lock | None) -> ReleaseResult:
    """The rollback, while the caller holds the release's lock (rollback itself, or an
    upgrade rolling back on failure)."""
    journal.debug("preparing rollback", name=opts.name)
    try:
        current = cfg.storage.last(opts.name)
    except ReleaseNotFoundError as err:
        raise RollbackError("release: not found") from err
    notes = []
    if current.info.status in PENDING_STATUSES and not opts.dry_run:
        recover_stranded(cfg, current, lock, opts.timeout)
        notes.append(f"revision {current.version} was left pending by an abandoned operation; "
                     "marked failed")
    wanted = opts.revision or current.version - 1
    if wanted not in {head.version for head in cfg.storage.heads(opts.name)}:
        raise RollbackError(f"release has no {wanted} version")
    journal.debug("rolling back", name=opts.name, currentVersion=current.version, targetVersion=wanted)
    previous = cfg.storage.get(opts.name, wanted)
    server_side = resolve_server_side(opts.server_side, previous.apply_method)
    if opts.force_conflicts and not server_side:
        notes.append(csa_force_explanation(previous.apply_method, "target revision's"))
    target = Release(
        name=opts.name, namespace=current.namespace, version=current.version + 1,
        chart=previous.chart, config=previous.config, manifest=previous.manifest,
        hooks=previous.hooks, labels=dict(previous.labels),
        info=Info(status=PENDING_ROLLBACK, first_deployed=current.info.first_deployed,
                  last_deployed=now(), notes=previous.info.notes,
                  description=f"Rollback to {wanted}"),
        apply_method=method_for(server_side),
    )
    rerender = opts.render.release_history_max > 0 and opts.dry_run != "client"
    if rerender:
        _rerendered(target, _rerender(cfg, journal, opts, previous, target))
    result = ReleaseResult(target, dry_run=opts.dry_run, notes=notes)
    if opts.dry_run == "client" or (opts.dry_run and not rerender):
        return result  # Helm's dry-run rollback stops before the cluster
    if opts.dry_run:  # server, re-rendered: objects built against the API and dry-run applied
        checked = _preflight(cfg, target, apply=server_side and not opts.force_conflicts)
        result.updated = [r.ref() for r in checked]
        return result
    if server_side and not opts.force_conflicts:
        _preflight(cfg, target)
    journal.redactor.add_release(target)
    journal.redactor.add_release(current)
    first_log = len(journal.hook_logs)
    journal.debug("creating rolled back release", name=opts.name)
    cfg.storage.create(target, history_max=opts.history_max)
    try:
        with evidence.on_error(journal):
            _perform(cfg, journal, opts, current, target, server_side, result)
    except KeyboardInterrupt as interrupt:
        # Stopped by a signal (Helm's rollback has no handler and leaves the record pending):
        # recorded failed, so the next operation need not wait for --timeout to pass.
        target.info.status = FAILED
        target.info.description = f'Rollback "{target.name}" failed: {interrupted(interrupt)}'
        cfg.storage.update(target)
        raise
    journal.debug("updating status for rolled back release", name=opts.name)
    cfg.storage.update(target)
    result.hook_logs = journal.hook_logs[first_log:]
    return result


def _rerender(cfg: ActionConfig, journal: Journal, opts: RollbackOptions, previous: Release,
              target: Release) -> RenderedRelease:
    """The target revision's stored chart and values rendered again for the new revision,
    with the history as it stands before it (upgrade-like: .Release.IsUpgrade)."""
    chart = stored_chart(previous)
    subcharts = _subcharts(chart, previous)
    if subcharts:
        raise RollbackError(
            f"cannot re-render revision {previous.version} for --release-history-max: a release "
            f"record holds only its chart's own templates, and this release had subcharts "
            f"({', '.join(subcharts)}); roll back without --release-history-max to re-apply the "
            "revision's stored manifest")
    return render_revision(cfg, journal, chart, None, dict(previous.config),
                           engine.ReleaseOptions(target.name, target.namespace, target.version, False, True),
                           opts.render)


def _subcharts(chart: Any, record: Release) -> list[str]:
    """The subcharts a stored release was rendered with: declared (and enabled: Helm drops
    disabled ones from the stored metadata) or seen in its manifest's and hooks' sources."""
    found = [dep.alias or dep.name for dep in chart.metadata.dependencies]
    prefix = f"{chart.name()}/charts/"
    sources = [hook.path for hook in record.hooks]
    sources += [line[len("# Source: "):] for line in record.manifest.splitlines()
                if line.startswith("# Source: ")]
    for source in sources:
        if source.startswith(prefix):
            name = source[len(prefix):].split("/", 1)[0]
            if name not in found:
                found.append(name)
    return found


def _rerendered(target: Release, rendered: RenderedRelease) -> None:
    """The new record holds what was rendered now (the stored chart stays as it was)."""
    target.manifest, target.hooks = rendered.manifest, rendered.hooks
    target.info.notes = rendered.notes
    target.info.description = f"{target.info.description} ({RERENDERED})"


def _preflight(cfg: ActionConfig, target: Release, apply: bool = True) -> list[Resource]:
    """Beyond Helm: every SSA conflict reported at once, before the record or any object
    changes (`apply`: the dry-run applies; else the objects are only built against the API)."""
    cluster = cfg.require_cluster()
    resources = build(cluster, target.manifest, target.namespace,
                      context=f"{BUILD_FAILED_FROM} new release manifest")
    set_release_metadata(resources, target.name, target.namespace)
    if apply:
        preflight(cluster, resources, migrating_from_csa=True)
    return resources


def _perform(cfg: ActionConfig, journal: Journal, opts: RollbackOptions, current: Release,
             target: Release, server_side: bool, result: ReleaseResult) -> None:
    journal.debug("performing rollback", name=target.name)
    cluster = cfg.require_cluster()
    old = build(cluster, current.manifest, current.namespace, context=f"{BUILD_FAILED_FROM} current release manifest")
    new = build(cluster, target.manifest, target.namespace, context=f"{BUILD_FAILED_FROM} new release manifest")
    observer = HookObserver(journal, cluster)
    if not opts.no_hooks:
        run_hooks(cluster, target, "pre-rollback", server_side=server_side, timeout=opts.timeout,
                  record=cfg.storage.update, observer=observer, strategy=in_effect(opts.wait, opts.wait_strategy))
    set_release_metadata(new, target.name, target.namespace)
    try:
        applied = cluster.update(old, new, server_side=server_side, force=opts.force_conflicts,
                                 upgrade_csa_manager=server_side, three_way_for_custom=False)
    except RunnerError as err:
        from runner.golang.slog import text_line

        message = f'Rollback "{target.name}" failed: {err}'
        journal.warn(text_line("WARN", message))
        current.info.status, target.info.status = SUPERSEDED, FAILED
        target.info.description = message
        cfg.storage.update(current)
        cfg.storage.update(target)
        raise RollbackError(str(err)) from err
    result.add(applied)
    if opts.wait:
        try:
            evidence.wait_for(journal, cluster, new, opts.timeout, strategy=opts.wait_strategy,
                              jobs=opts.wait_for_jobs)
        except RunnerError as err:
            target.info.status = FAILED
            target.info.description = f'Release "{target.name}" failed: {err}'
            cfg.storage.update(current)
            cfg.storage.update(target)
            raise RollbackError(f"release {target.name} failed: {err}") from err
    if not opts.no_hooks:
        run_hooks(cluster, target, "post-rollback", server_side=server_side, timeout=opts.timeout,
                  record=cfg.storage.update, observer=observer, strategy=in_effect(opts.wait, opts.wait_strategy))
    for head in cfg.storage.heads(target.name):
        if head.status == DEPLOYED:
            journal.debug("superseding previous deployment", version=head.version)
            record = cfg.storage.get(target.name, head.version)
            record.info.status = SUPERSEDED
            cfg.storage.update(record)
    target.info.status = DEPLOYED
