"""`install`: Helm 4.1.4's Install.Run, orchestrating chart, engine, kube and release.

Records: pending-install ("Initial install underway") before anything is
applied, then deployed ("Install complete") or failed ("Release "x" failed:
...") — the same sequence Helm writes.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from runner import engine
from runner.actions import apply_steps
from runner.actions.hooks import run_hooks
from runner.actions.release_config import (
    DEFAULT_TIMEOUT,
    ActionConfig,
    PendingError,
    RenderRequest,
    check_labels,
    now,
    recover_stranded,
    render_release,
    validate_name,
)
from runner.actions.results import ReleaseResult, without_secrets
from runner.errors import RunnerError
from runner.kube import operations
from runner.kube.apply import ApplyResult
from runner.kube.ownership import OwnershipError, existing_resources, set_release_metadata
from runner.kube.resources import build
from runner.release.record import (
    CLIENT_SIDE_APPLY,
    DEPLOYED,
    FAILED,
    PENDING_INSTALL,
    PENDING_STATUSES,
    SERVER_SIDE_APPLY,
    SUPERSEDED,
    UNINSTALLED,
    Info,
    Release,
)
from runner.release.storage import ReleaseNotFoundError

TYPE_CHECKING = False  # `typing` costs ~2 ms at every start: see docs/speed.md
if TYPE_CHECKING:
    from typing import Any


@dataclass
class InstallOptions:
    name: str
    chart: str
    values: dict[str, Any] = field(default_factory=dict)
    create_namespace: bool = False
    generate_name: bool = False
    server_side: bool = True
    force_conflicts: bool = False
    dry_run: str = ""  # "", "client", "server"
    take_ownership: bool = False
    replace: bool = False
    wait: bool = False
    wait_strategy: str = "watcher"  # watcher | legacy (Helm 4 --wait=...)
    wait_for_jobs: bool = False
    skip_schema_validation: bool = False
    render_subchart_notes: bool = False
    timeout: float = DEFAULT_TIMEOUT
    no_hooks: bool = False
    skip_crds: bool = False
    description: str = ""
    release_history_max: int = 0
    include_history_values: bool = False
    wait_for_lock: float = 0.0
    rollback_on_failure: bool = False  # --rollback-on-failure (--atomic)
    hide_secret: bool = False
    labels: dict[str, str] = field(default_factory=dict)  # --labels: on the stored record
    post_renderer: Any = None  # runner.postrender.PostRenderer (--post-renderer)


class InstallError(RunnerError):
    """Helm prefixes install failures with INSTALLATION FAILED at the CLI."""


def install(cfg: ActionConfig, opts: InstallOptions) -> ReleaseResult:
    from runner.actions.template import locate_chart

    source = locate_chart(opts.chart)
    chart = engine.load_chart(source)
    name = opts.name or (f"{chart.name()}-{int(time.time())}" if opts.generate_name else "")
    validate_name(name)
    if opts.hide_secret and not opts.dry_run:
        raise InstallError("hiding Kubernetes secrets requires a dry-run mode")
    if opts.dry_run:
        return _dry_run(cfg, opts, chart, source, name)
    if opts.create_namespace:
        apply_steps.ensure_namespace(cfg.kube(), cfg.namespace)  # the lock lives there
    with cfg.locked(name, opts.wait_for_lock) as lock:
        notes = _check_available(cfg, name, opts, lock)
        rendered = render_release(cfg, chart, source, opts.values, RenderRequest(
            name, cfg.namespace, 1, False, opts.release_history_max, opts.include_history_values,
            skip_schema_validation=opts.skip_schema_validation,
            render_subchart_notes=opts.render_subchart_notes, post_renderer=opts.post_renderer))
        release = Release(
            name=name, namespace=cfg.namespace, version=1, chart=rendered.chart_json,
            config=opts.values, manifest=rendered.manifest, hooks=rendered.hooks,
            info=Info(status=PENDING_INSTALL, first_deployed=now(), last_deployed="",
                      description="Initial install underway", notes=rendered.notes),
            apply_method=SERVER_SIDE_APPLY if opts.server_side else CLIENT_SIDE_APPLY,
            labels=check_labels(opts.labels),
        )
        release.info.last_deployed = release.info.first_deployed
        result = _perform(cfg, opts, chart, release)
        result.notes[:0] = notes
        return result


def _check_available(cfg: ActionConfig, name: str, opts: InstallOptions, lock: Any) -> list[str]:
    """availableName: a name is free when unused, or (with --replace) failed/uninstalled.
    Beyond Helm: a release whose every revision failed never ran, so installing it
    again is a clean retry (as --replace), not a name clash; a first install left
    pending by a killed run is marked failed first (see recover_stranded)."""
    heads = cfg.storage.heads(name)
    if not heads:
        return []
    notes: list[str] = []
    if heads[0].status in PENDING_STATUSES:
        if heads[0].status != PENDING_INSTALL:
            raise PendingError()
        recover_stranded(cfg, cfg.storage.get(name, heads[0].version), lock, opts.timeout)
        notes.append(f"revision {heads[0].version} was left pending by an abandoned operation; "
                     "marked failed")
        heads = cfg.storage.heads(name)
    if opts.replace and heads[0].status in (UNINSTALLED, FAILED):
        return []
    if all(head.status == FAILED for head in heads):
        opts.replace = True
        return [*notes, f"retrying the failed first install of {name} "
                        f"(revision {heads[0].version} failed)"]
    raise InstallError("release name check failed: cannot reuse a name that is still in use")


def _perform(cfg: ActionConfig, opts: InstallOptions, chart: Any, release: Release) -> ReleaseResult:
    client = cfg.kube()
    result = ReleaseResult(release)
    if not opts.skip_crds:
        apply_steps.install_crds(client, chart, opts.timeout)
    resources = build(client, release.manifest, cfg.namespace)
    set_release_metadata(resources, release.name, release.namespace)
    adopted = _existing(client, resources, release.name, release.namespace, opts.take_ownership)
    if opts.server_side and not opts.force_conflicts:
        apply_steps.preflight(client, resources)
    if opts.replace:
        _replace_previous(cfg, release)
    cfg.storage.create(release, history_max=0)
    applied = ApplyResult()
    try:
        if not opts.no_hooks:
            run_hooks(client, release, "pre-install", server_side=opts.server_side,
                      timeout=opts.timeout, record=cfg.storage.update)
        if adopted:
            # Helm: taking objects over with client-side apply merges custom resources three-way.
            operations.update_all(client, adopted, resources, server_side=opts.server_side,
                                  force=opts.force_conflicts, result=applied,
                                  three_way_for_custom=opts.take_ownership and not opts.server_side)
        else:
            operations.create_all(client, resources, server_side=opts.server_side,
                                  force=opts.force_conflicts, result=applied)
        if opts.wait or opts.rollback_on_failure:
            apply_steps.wait(client, resources, opts.timeout, opts.wait_strategy, opts.wait_for_jobs)
        if not opts.no_hooks:
            run_hooks(client, release, "post-install", server_side=opts.server_side,
                      timeout=opts.timeout, record=cfg.storage.update)
    except RunnerError as err:
        release.info.status = FAILED
        release.info.description = f'Release "{release.name}" failed: {err}'
        cfg.storage.update(release)
        if opts.rollback_on_failure:
            _undo_install(cfg, release, applied, err)
        raise InstallError(str(err)) from err
    except KeyboardInterrupt:
        # Helm's handleContext: an interrupted install is recorded failed, not left pending.
        release.info.status = FAILED
        release.info.description = f'Release "{release.name}" failed: context canceled'
        cfg.storage.update(release)
        raise
    result.add(applied)
    release.info.status = DEPLOYED
    release.info.description = opts.description or "Install complete"
    cfg.storage.update(release)
    return result


def _existing(client: Any, resources: list[Any], name: str, namespace: str,
              take_ownership: bool) -> list[Any]:
    try:
        return existing_resources(client, resources, name, namespace, take_ownership=take_ownership)
    except OwnershipError as err:
        raise InstallError(f"unable to continue with install: {err}") from err


def _undo_install(cfg: ActionConfig, release: Release, applied: ApplyResult, err: RunnerError) -> None:
    """--rollback-on-failure: remove what this install created — only that: objects that
    existed before (adopted) stay — and its record."""
    _, errors = operations.delete_all(cfg.kube(), list(reversed(applied.created)))
    cfg.storage.delete(release.name, release.version)
    if errors:
        raise InstallError(f"an error occurred while uninstalling the release. original install "
                           f"error: {err}: {'; '.join(errors)}") from err
    raise InstallError(f"release {release.name} failed, and has been uninstalled due to "
                       f"rollback-on-failure being set: {err}") from err


def _replace_previous(cfg: ActionConfig, release: Release) -> None:
    """replaceRelease: take the next revision; a non-failed last record becomes superseded."""
    try:
        last = cfg.storage.last(release.name)
    except ReleaseNotFoundError:
        return
    release.version = last.version + 1
    if last.info.status != FAILED:
        last.info.status = SUPERSEDED
        cfg.storage.update(last)


def _dry_run(cfg: ActionConfig, opts: InstallOptions, chart: Any, source: str,
             name: str) -> ReleaseResult:
    """--dry-run=client renders offline; =server also sends every write with dryRun=All."""
    offline = opts.dry_run == "client"
    rendered = render_release(cfg, chart, source, opts.values, RenderRequest(
        name, cfg.namespace, 1, False, opts.release_history_max, opts.include_history_values,
        offline=offline, skip_schema_validation=opts.skip_schema_validation,
        render_subchart_notes=opts.render_subchart_notes, post_renderer=opts.post_renderer))
    stamp = now()
    release = Release(
        name=name, namespace=cfg.namespace, version=1, chart=rendered.chart_json,
        config=opts.values, manifest=rendered.manifest, hooks=rendered.hooks,
        info=Info(status=PENDING_INSTALL, first_deployed=stamp, last_deployed=stamp,
                  description=opts.description or "Dry run complete", notes=rendered.notes),
        apply_method=SERVER_SIDE_APPLY if opts.server_side else CLIENT_SIDE_APPLY,
    )
    if opts.hide_secret:
        release.manifest = without_secrets(release.manifest)
    result = ReleaseResult(release, dry_run=opts.dry_run)
    if not offline:
        client = cfg.kube()
        resources = build(client, release.manifest, cfg.namespace)
        set_release_metadata(resources, release.name, release.namespace)
        _existing(client, resources, name, cfg.namespace, opts.take_ownership)
        if opts.server_side and not opts.force_conflicts:
            apply_steps.preflight(client, resources)
        result.created = [r.ref() for r in resources]
    return result
